// Incremental HTTP/1.1 request parsing on top of http-parser (the classic
// libuv pairing). http-parser does the grammar; this file adds what the
// daemon needs on top: limits on header and body size, percent-decoding of
// the path and query, lower-cased header names, and one clear error (status
// + E_ code + message) for anything it refuses.
#include "aggregator/http/http_request.h"

#include <http_parser.h>

#include <cctype>
#include <string>
#include <utility>

namespace agt::agg {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

core::Result<std::string> Unescape(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) {
        return core::MakeError(core::Err::kRequestInvalid,
                               "truncated percent-escape in the request target");
      }
      int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) {
        return core::MakeError(core::Err::kRequestInvalid,
                               "bad percent-escape in the request target");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

core::Result<std::map<std::string, std::string>> ParseQuery(std::string_view q) {
  std::map<std::string, std::string> out;
  while (!q.empty()) {
    size_t amp = q.find('&');
    std::string_view pair = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    auto key = Unescape(pair.substr(0, eq), true);
    if (!key) return key.error();
    std::string value;
    if (eq != std::string_view::npos) {
      auto v = Unescape(pair.substr(eq + 1), true);
      if (!v) return v.error();
      value = std::move(*v);
    }
    out[std::move(*key)] = std::move(value);
  }
  return out;
}

struct RequestParser::Impl {
  RequestParser* owner;
  RequestLimits limits;
  OnRequest on_request;
  http_parser parser{};
  http_parser_settings settings{};
  HttpRequest current;
  std::string url;
  std::string field;
  std::string value;
  bool last_was_value = false;
  bool in_headers = false;
  bool in_request = false;
  size_t header_bytes = 0;
  bool failed = false;
  bool pause_requested = false;
  bool paused = false;
  std::string held;  // bytes after the request that paused the parser

  void Fail(int status, core::Err code, std::string message) {
    if (failed) return;
    failed = true;
    owner->error_ = HttpError{status, core::MakeError(code, std::move(message))};
  }

  int CountHeader(size_t n) {
    header_bytes += n;
    if (header_bytes > limits.max_header_bytes) {
      Fail(431, core::Err::kRequestInvalid,
           "request headers exceed " + std::to_string(limits.max_header_bytes) + " bytes");
      return -1;
    }
    return 0;
  }

  void FlushHeader() {
    if (field.empty()) return;
    std::string name;
    for (char c : field) name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    current.headers[name] = value;
    field.clear();
    value.clear();
  }

  static Impl* From(http_parser* p) { return static_cast<Impl*>(p->data); }
};

RequestParser::RequestParser(RequestLimits limits, OnRequest on_request)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.owner = this;
  m.limits = limits;
  m.on_request = std::move(on_request);
  http_parser_init(&m.parser, HTTP_REQUEST);
  m.parser.data = &m;
  http_parser_settings_init(&m.settings);
  m.settings.on_message_begin = [](http_parser* p) {
    Impl* m = Impl::From(p);
    m->current = HttpRequest{};
    m->url.clear();
    m->field.clear();
    m->value.clear();
    m->last_was_value = false;
    m->in_headers = true;
    m->in_request = true;
    m->header_bytes = 0;
    return 0;
  };
  m.settings.on_url = [](http_parser* p, const char* at, size_t n) {
    Impl* m = Impl::From(p);
    m->url.append(at, n);
    return m->CountHeader(n);
  };
  m.settings.on_header_field = [](http_parser* p, const char* at, size_t n) {
    Impl* m = Impl::From(p);
    if (m->last_was_value) m->FlushHeader();
    m->last_was_value = false;
    m->field.append(at, n);
    return m->CountHeader(n);
  };
  m.settings.on_header_value = [](http_parser* p, const char* at, size_t n) {
    Impl* m = Impl::From(p);
    m->last_was_value = true;
    m->value.append(at, n);
    return m->CountHeader(n);
  };
  m.settings.on_headers_complete = [](http_parser* p) {
    Impl* m = Impl::From(p);
    m->FlushHeader();
    m->in_headers = false;
    if ((p->flags & F_CONTENTLENGTH) && p->content_length > m->limits.max_body_bytes) {
      m->Fail(413, core::Err::kRequestInvalid,
              "request body of " + std::to_string(p->content_length) +
                  " bytes exceeds the limit of " + std::to_string(m->limits.max_body_bytes) +
                  " bytes");
      return -1;
    }
    m->current.method = http_method_str(static_cast<http_method>(p->method));
    http_parser_url u;
    http_parser_url_init(&u);
    if (http_parser_parse_url(m->url.data(), m->url.size(), 0, &u) != 0 ||
        !(u.field_set & (1 << UF_PATH))) {
      m->Fail(400, core::Err::kRequestInvalid, "malformed request target '" + m->url + "'");
      return -1;
    }
    std::string_view url(m->url);
    auto path = Unescape(url.substr(u.field_data[UF_PATH].off, u.field_data[UF_PATH].len), false);
    if (!path) {
      m->Fail(400, path.error().code, path.error().message);
      return -1;
    }
    m->current.path = std::move(*path);
    if (u.field_set & (1 << UF_QUERY)) {
      auto q = ParseQuery(url.substr(u.field_data[UF_QUERY].off, u.field_data[UF_QUERY].len));
      if (!q) {
        m->Fail(400, q.error().code, q.error().message);
        return -1;
      }
      m->current.query = std::move(*q);
    }
    return 0;
  };
  m.settings.on_body = [](http_parser* p, const char* at, size_t n) {
    Impl* m = Impl::From(p);
    if (m->current.body.size() + n > m->limits.max_body_bytes) {
      m->Fail(413, core::Err::kRequestInvalid,
              "request body exceeds the limit of " + std::to_string(m->limits.max_body_bytes) +
                  " bytes");
      return -1;
    }
    m->current.body.append(at, n);
    return 0;
  };
  m.settings.on_message_complete = [](http_parser* p) {
    Impl* m = Impl::From(p);
    m->current.keep_alive = http_should_keep_alive(p) != 0;
    m->in_request = false;
    m->in_headers = false;
    m->on_request(std::move(m->current));
    m->current = HttpRequest{};
    if (m->pause_requested) {
      m->pause_requested = false;
      http_parser_pause(p, 1);  // execute returns with the bytes up to here consumed
    }
    return 0;
  };
}

RequestParser::~RequestParser() = default;

bool RequestParser::Feed(std::string_view data) {
  Impl& m = *impl_;
  if (m.failed) return false;
  if (m.paused) {
    m.held.append(data);
    return true;
  }
  size_t n = http_parser_execute(&m.parser, &m.settings, data.data(), data.size());
  if (m.failed) return false;
  if (HTTP_PARSER_ERRNO(&m.parser) != HPE_OK || n != data.size()) {
    http_errno e = HTTP_PARSER_ERRNO(&m.parser);
    if (e == HPE_HEADER_OVERFLOW) {
      m.Fail(431, core::Err::kRequestInvalid, "request headers too large");
    } else if (e == HPE_PAUSED) {
      m.paused = true;
      m.held.assign(data.substr(n));
      return true;
    } else {
      m.Fail(400, core::Err::kRequestInvalid,
             std::string("malformed HTTP request: ") + http_errno_description(e));
    }
    return false;
  }
  return true;
}

void RequestParser::PauseAfterThisRequest() { impl_->pause_requested = true; }
bool RequestParser::paused() const { return impl_->paused; }

bool RequestParser::Resume() {
  Impl& m = *impl_;
  if (!m.paused) return !m.failed;
  m.paused = false;
  http_parser_pause(&m.parser, 0);
  std::string held = std::move(m.held);
  m.held.clear();
  return held.empty() ? true : Feed(held);
}

bool RequestParser::InHeaders() const { return impl_->in_headers; }
bool RequestParser::InRequest() const { return impl_->in_request; }

}  // namespace agt::agg
