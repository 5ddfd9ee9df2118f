// Reading and writing asciicast v2 recordings (see asciicast.h). The writer
// keeps an incomplete UTF-8 sequence at the end of a read for the next event
// instead of splitting a glyph across two JSON strings.
#include "wrap/asciicast.h"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "libagtcore/base/json.h"

namespace agt::wrap {
namespace {

/// Length of the valid UTF-8 sequence at s[0], or 0 when invalid.
/// `incomplete` is set when s ends before a valid prefix is complete.
size_t Utf8SeqLen(std::string_view s, bool* incomplete) {
  *incomplete = false;
  const auto b0 = static_cast<unsigned char>(s[0]);
  size_t need;
  uint32_t min;
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) { need = 2; min = 0x80; }
  else if (b0 >= 0xE0 && b0 <= 0xEF) { need = 3; min = 0x800; }
  else if (b0 >= 0xF0 && b0 <= 0xF4) { need = 4; min = 0x10000; }
  else return 0;
  uint32_t cp = b0 & (need == 2 ? 0x1F : need == 3 ? 0x0F : 0x07);
  for (size_t i = 1; i < need; ++i) {
    if (i >= s.size()) {
      *incomplete = true;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return need;
}

std::string FormatSeconds(core::TimeNs t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(t / core::kNsPerSec),
                static_cast<long long>((t % core::kNsPerSec) / 1000));
  return buf;
}

core::Error LineError(int line, const std::string& what) {
  return core::MakeError(core::Err::kPayloadInvalid,
                         "asciicast line " + std::to_string(line) + ": " + what);
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': *out += "\\\""; break;
        case '\\': *out += "\\\\"; break;
        case '\n': *out += "\\n"; break;
        case '\r': *out += "\\r"; break;
        case '\t': *out += "\\t"; break;
        case '\b': *out += "\\b"; break;
        case '\f': *out += "\\f"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            *out += buf;
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    bool incomplete = false;
    const size_t n = Utf8SeqLen(s.substr(i), &incomplete);
    if (n == 0) {
      *out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out->append(s.substr(i, n));
      i += n;
    }
  }
  out->push_back('"');
}

bool ParseCastSize(std::string_view data, int* cols, int* rows) {
  const size_t x = data.find('x');
  if (x == std::string_view::npos) return false;
  auto [p1, e1] = std::from_chars(data.data(), data.data() + x, *cols);
  auto [p2, e2] = std::from_chars(data.data() + x + 1, data.data() + data.size(), *rows);
  return e1 == std::errc() && p1 == data.data() + x && e2 == std::errc() &&
         p2 == data.data() + data.size() && *cols > 0 && *rows > 0;
}

core::Result<Cast> ParseCast(std::string_view text) {
  Cast cast;
  int line_no = 0;
  bool have_header = false;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    rapidjson::Document doc;
    if (auto parsed = core::ParseJson(line, &doc); !parsed)
      return LineError(line_no, "not JSON: " + parsed.error().message);
    if (!have_header) {
      if (!doc.IsObject()) return LineError(line_no, "the header is not a JSON object");
      auto v = doc.FindMember("version");
      if (v == doc.MemberEnd() || !v->value.IsInt() || v->value.GetInt() != 2)
        return LineError(line_no, "field version: only asciicast version 2 is supported");
      auto w = doc.FindMember("width");
      auto h = doc.FindMember("height");
      if (w == doc.MemberEnd() || !w->value.IsInt() || w->value.GetInt() <= 0)
        return LineError(line_no, "field width: missing or not a positive integer");
      if (h == doc.MemberEnd() || !h->value.IsInt() || h->value.GetInt() <= 0)
        return LineError(line_no, "field height: missing or not a positive integer");
      cast.header.width = w->value.GetInt();
      cast.header.height = h->value.GetInt();
      auto ts = doc.FindMember("timestamp");
      if (ts != doc.MemberEnd() && ts->value.IsNumber()) {
        // Out of int64's range the conversion would be undefined.
        const double t = ts->value.GetDouble();
        if (!(t > -9.2e18 && t < 9.2e18))
          return LineError(line_no, "field timestamp: not a Unix time in seconds");
        cast.header.timestamp = ts->value.IsInt64() ? ts->value.GetInt64() : static_cast<int64_t>(t);
      }
      auto env = doc.FindMember("env");
      if (env != doc.MemberEnd() && env->value.IsObject())
        for (auto& m : env->value.GetObject())
          if (m.value.IsString()) cast.header.env[m.name.GetString()] = m.value.GetString();
      auto cmd = doc.FindMember("command");
      if (cmd != doc.MemberEnd() && cmd->value.IsString())
        cast.header.command = cmd->value.GetString();
      have_header = true;
      continue;
    }
    if (!doc.IsArray() || doc.Size() != 3 || !doc[0].IsNumber() || !doc[1].IsString() ||
        !doc[2].IsString() || doc[1].GetStringLength() != 1)
      return LineError(line_no, "an event must be [seconds, \"o|i|r|m\", \"data\"]");
    const double secs = doc[0].GetDouble();
    // At most 292 years, so that the time in nanoseconds fits an int64.
    if (!(secs >= 0 && secs < 9.2e9))
      return LineError(line_no, "event time must be a non-negative number of seconds, below 9.2e9");
    CastEvent ev;
    ev.at = static_cast<core::TimeNs>(std::llround(secs * 1e9));
    ev.code = doc[1].GetString()[0];
    ev.data.assign(doc[2].GetString(), doc[2].GetStringLength());
    if (ev.code == 'r') {
      int c = 0, r = 0;
      if (!ParseCastSize(ev.data, &c, &r))
        return LineError(line_no, "a resize event's data must be \"COLSxROWS\"");
    }
    cast.events.push_back(std::move(ev));
  }
  if (!have_header) return LineError(line_no, "empty recording: no header line");
  return cast;
}

core::Result<std::unique_ptr<CastWriter>> CastWriter::Open(const std::string& path,
                                                           const CastHeader& header,
                                                           core::TimeNs start) {
  core::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd.valid())
    return core::MakeError(core::Err::kIo, "--record " + path + ": " + std::strerror(errno));
  std::unique_ptr<CastWriter> w(new CastWriter(std::move(fd), start));
  std::string line = "{\"version\":2,\"width\":" + std::to_string(header.width) +
                     ",\"height\":" + std::to_string(header.height) +
                     ",\"timestamp\":" + std::to_string(header.timestamp);
  if (!header.command.empty()) {
    line += ",\"command\":";
    AppendJsonString(&line, header.command);
  }
  line += ",\"env\":{";
  bool first = true;
  for (const auto& [k, v] : header.env) {
    if (!first) line += ',';
    first = false;
    AppendJsonString(&line, k);
    line += ':';
    AppendJsonString(&line, v);
  }
  line += "}}\n";
  w->WriteLine(line);
  if (!w->error_.empty()) return core::MakeError(core::Err::kIo, w->error_);
  return w;
}

void CastWriter::WriteLine(const std::string& line) {
  if (!error_.empty() || !fd_.valid()) return;
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_.get(), line.data() + off, line.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = std::string("recording: ") + std::strerror(errno);
      return;
    }
    off += static_cast<size_t>(n);
  }
}

void CastWriter::Event(core::TimeNs now, char code, std::string_view data) {
  core::TimeNs t = now - start_;
  if (t < last_) t = last_;  // times never go backwards in a recording
  last_ = t;
  std::string line = "[" + FormatSeconds(t) + ",\"";
  line.push_back(code);
  line += "\",";
  AppendJsonString(&line, data);
  line += "]\n";
  WriteLine(line);
}

void CastWriter::Stream(core::TimeNs now, char code, std::string* held,
                        std::string_view bytes) {
  std::string joined;
  if (!held->empty()) {
    joined = *held + std::string(bytes);
    held->clear();
    bytes = joined;
  }
  // Keep back a valid-but-incomplete sequence at the very end.
  size_t keep = 0;
  for (size_t back = 1; back <= 3 && back <= bytes.size(); ++back) {
    const size_t start = bytes.size() - back;
    const auto b = static_cast<unsigned char>(bytes[start]);
    if ((b & 0xC0) == 0x80) continue;
    bool incomplete = false;
    Utf8SeqLen(bytes.substr(start), &incomplete);
    if (incomplete) keep = back;
    break;
  }
  if (keep > 0) {
    held->assign(bytes.substr(bytes.size() - keep));
    bytes.remove_suffix(keep);
  }
  if (!bytes.empty()) Event(now, code, bytes);
}

void CastWriter::Output(core::TimeNs now, std::string_view bytes) {
  Stream(now, 'o', &held_out_, bytes);
}

void CastWriter::Input(core::TimeNs now, std::string_view bytes) {
  Stream(now, 'i', &held_in_, bytes);
}

void CastWriter::Resize(core::TimeNs now, int cols, int rows) {
  Event(now, 'r', std::to_string(cols) + "x" + std::to_string(rows));
}

core::Status CastWriter::Close() {
  if (!held_out_.empty()) Event(last_ + start_, 'o', held_out_);
  if (!held_in_.empty()) Event(last_ + start_, 'i', held_in_);
  held_out_.clear();
  held_in_.clear();
  fd_.Reset();
  if (!error_.empty()) return core::MakeError(core::Err::kIo, error_);
  return core::Ok();
}

}  // namespace agt::wrap
