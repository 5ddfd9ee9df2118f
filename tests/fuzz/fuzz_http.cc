// Fuzzes the daemon's HTTP request parser and what reads a request's query:
// bytes arrive in two reads split anywhere (the first byte picks where);
// a request, complete or not, must never crash the parser, and every
// request it hands over goes through the query, scope and view filters.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aggregator/http/http_request.h"
#include "aggregator/view/views.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  agt::agg::RequestLimits limits;
  limits.max_header_bytes = 16 * 1024;
  limits.max_body_bytes = 1 << 20;
  agt::agg::RequestParser parser(limits, [](agt::agg::HttpRequest r) {
    (void)agt::agg::ParseScope(r.path.size() > 4 ? std::string_view(r.path).substr(4) : std::string_view(r.path));
    (void)agt::agg::ParseViewFilter(r.query);
  });
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  if (parser.Feed(bytes.substr(0, cut))) (void)parser.Feed(bytes.substr(cut));
  (void)agt::agg::ParseQuery(bytes);
  return 0;
}
