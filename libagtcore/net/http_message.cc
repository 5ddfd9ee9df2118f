// Formatting HTTP/1.1 requests and parsing responses incrementally, for the
// daemon API's clients (see http_message.h). Only what the API uses is
// supported; anything else is an error naming what was wrong.
#include "libagtcore/net/http_message.h"

#include <rapidjson/document.h>

#include <charconv>
#include <cstdio>
#include <strings.h>

#include "libagtcore/base/json.h"

namespace agt::net {
namespace {

constexpr size_t kMaxHead = 64 * 1024;

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (EqualsNoCase(k, name)) return v;
  return {};
}

std::string FormatHttpRequest(const HttpRequest& req) {
  std::string out;
  out.reserve(128 + req.body.size());
  out += req.method;
  out += ' ';
  out += req.path;
  out += " HTTP/1.1\r\nHost: localhost\r\n";
  for (const auto& [k, v] : req.headers) out += k + ": " + v + "\r\n";
  if (!req.content_type.empty()) out += "Content-Type: " + req.content_type + "\r\n";
  if (!req.body.empty() || req.method == "POST" || req.method == "PUT")
    out += "Content-Length: " + std::to_string(req.body.size()) + "\r\n";
  out += "\r\n";
  out += req.body;
  return out;
}

HttpResponseParser::Status HttpResponseParser::Fail(std::string msg) {
  phase_ = Phase::kError;
  error_ = "HTTP response: " + std::move(msg);
  return Status::kError;
}

HttpResponseParser::Status HttpResponseParser::Feed(std::string_view data) {
  if (phase_ == Phase::kError) return Status::kError;
  if (phase_ == Phase::kDone) return Status::kDone;
  if (phase_ == Phase::kBody && until_close_) {
    resp_.body.append(data);
    return Status::kNeedMore;
  }
  buf_.append(data);
  return Advance();
}

HttpResponseParser::Status HttpResponseParser::Finish() {
  if (phase_ == Phase::kDone) return Status::kDone;
  if (phase_ == Phase::kBody && until_close_) {
    phase_ = Phase::kDone;
    return Status::kDone;
  }
  if (phase_ == Phase::kError) return Status::kError;
  return Fail(phase_ == Phase::kHead ? "connection closed before the status line"
                                     : "connection closed in the middle of the body");
}

HttpResponseParser::Status HttpResponseParser::Advance() {
  for (;;) {
    switch (phase_) {
      case Phase::kHead: {
        const size_t end = buf_.find("\r\n\r\n");
        if (end == std::string::npos) {
          if (buf_.size() > kMaxHead) return Fail("header section larger than 64 KiB");
          return Status::kNeedMore;
        }
        std::string_view head(buf_.data(), end);
        size_t eol = head.find("\r\n");
        std::string_view status_line = head.substr(0, eol);
        // "HTTP/1.1 200 OK"
        if (status_line.substr(0, 5) != "HTTP/" || status_line.size() < 12 ||
            status_line[8] != ' ')
          return Fail("bad status line \"" + std::string(status_line.substr(0, 80)) + "\"");
        int code = 0;
        auto [p, ec] = std::from_chars(status_line.data() + 9, status_line.data() + 12, code);
        if (ec != std::errc() || p != status_line.data() + 12 || code < 100 || code > 999)
          return Fail("bad status code in \"" + std::string(status_line.substr(0, 80)) + "\"");
        resp_.status = code;
        resp_.reason = std::string(Trim(status_line.substr(12)));
        while (eol != std::string_view::npos) {
          const size_t start = eol + 2;
          eol = head.find("\r\n", start);
          std::string_view line = head.substr(start, eol == std::string_view::npos
                                                        ? std::string_view::npos
                                                        : eol - start);
          if (line.empty()) continue;
          const size_t colon = line.find(':');
          if (colon == std::string_view::npos || colon == 0)
            return Fail("header line without a name: \"" + std::string(line.substr(0, 80)) +
                        "\"");
          resp_.headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                                     std::string(Trim(line.substr(colon + 1))));
        }
        buf_.erase(0, end + 4);
        const std::string_view te = resp_.Header("Transfer-Encoding");
        const std::string_view cl = resp_.Header("Content-Length");
        if (!te.empty() && EqualsNoCase(te, "chunked")) {
          phase_ = Phase::kChunkSize;
        } else if (!cl.empty()) {
          size_t n = 0;
          auto [q, e2] = std::from_chars(cl.data(), cl.data() + cl.size(), n);
          if (e2 != std::errc() || q != cl.data() + cl.size())
            return Fail("bad Content-Length \"" + std::string(cl) + "\"");
          body_left_ = n;
          phase_ = Phase::kBody;
        } else if (code == 204 || code == 304 || code < 200) {
          phase_ = Phase::kDone;
        } else {
          until_close_ = true;
          phase_ = Phase::kBody;
          resp_.body = std::move(buf_);
          buf_.clear();
          return Status::kNeedMore;
        }
        break;
      }
      case Phase::kBody: {
        const size_t take = std::min(body_left_, buf_.size());
        resp_.body.append(buf_, 0, take);
        buf_.erase(0, take);
        body_left_ -= take;
        if (body_left_ > 0) return Status::kNeedMore;
        phase_ = Phase::kDone;
        break;
      }
      case Phase::kChunkSize: {
        const size_t eol = buf_.find("\r\n");
        if (eol == std::string::npos) return Status::kNeedMore;
        std::string_view line(buf_.data(), eol);
        const size_t semi = line.find(';');
        if (semi != std::string_view::npos) line = line.substr(0, semi);
        line = Trim(line);
        size_t n = 0;
        auto [q, ec] = std::from_chars(line.data(), line.data() + line.size(), n, 16);
        if (line.empty() || ec != std::errc() || q != line.data() + line.size())
          return Fail("bad chunk size \"" + std::string(line.substr(0, 20)) + "\"");
        buf_.erase(0, eol + 2);
        body_left_ = n;
        phase_ = n == 0 ? Phase::kTrailer : Phase::kChunkData;
        break;
      }
      case Phase::kChunkData: {
        const size_t take = std::min(body_left_, buf_.size());
        resp_.body.append(buf_, 0, take);
        buf_.erase(0, take);
        body_left_ -= take;
        if (body_left_ > 0) return Status::kNeedMore;
        phase_ = Phase::kChunkCrlf;
        break;
      }
      case Phase::kChunkCrlf:
        if (buf_.size() < 2) return Status::kNeedMore;
        if (buf_.compare(0, 2, "\r\n") != 0) return Fail("chunk not followed by CRLF");
        buf_.erase(0, 2);
        phase_ = Phase::kChunkSize;
        break;
      case Phase::kTrailer: {
        const size_t eol = buf_.find("\r\n");
        if (eol == std::string::npos) return Status::kNeedMore;
        buf_.erase(0, eol + 2);
        if (eol == 0) phase_ = Phase::kDone;
        break;
      }
      case Phase::kDone:
        return Status::kDone;
      case Phase::kError:
        return Status::kError;
    }
  }
}

core::Error ApiErrorFromResponse(const HttpResponse& resp) {
  rapidjson::Document doc;
  if (core::ParseJson(resp.body, &doc).ok() && doc.IsObject()) {
    auto it = doc.FindMember("error");
    if (it != doc.MemberEnd() && it->value.IsObject()) {
      const auto& err = it->value;
      core::Err code = core::Err::kInternal;
      std::string message;
      auto c = err.FindMember("code");
      if (c != err.MemberEnd() && c->value.IsString())
        core::ParseErrName(c->value.GetString(), &code);
      auto m = err.FindMember("message");
      if (m != err.MemberEnd() && m->value.IsString()) message = m->value.GetString();
      return core::MakeError(code, message);
    }
  }
  return core::MakeError(core::Err::kDaemonUnreachable,
                         "daemon answered HTTP " + std::to_string(resp.status) + " " +
                             resp.reason);
}

}  // namespace agt::net
