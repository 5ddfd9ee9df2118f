// JsonOut's one out-of-line helper: times go on the wire as RFC 3339.
#include "aggregator/http/json_writer.h"

#include "libagtcore/base/timefmt.h"

namespace agt::agg {

JsonOut& JsonOut::Time(core::TimeNs t) {
  if (t == 0) return Null();
  return Str(core::FormatRfc3339(t));
}

}  // namespace agt::agg
