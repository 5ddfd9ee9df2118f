// asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): the format
// of `agtmux wrap --record FILE.cast`, so any real session becomes a fixture.
//   line 1: {"version":2,"width":W,"height":H,"timestamp":T,"env":{...}}
//   then:   [seconds, "o", "output"]   bytes the child wrote
//           [seconds, "i", "input"]    bytes the user typed
//           [seconds, "r", "COLSxROWS"] a resize
// Output is split only at UTF-8 boundaries, so every line is valid JSON and
// every event holds whole glyphs; bytes that are not UTF-8 become U+FFFD.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libagtcore/base/result.h"
#include "libagtcore/vocabulary.h"
#include "libagtcore/os/unique_fd.h"

namespace agt::wrap {

struct CastHeader {
  int width = 80;
  int height = 24;
  int64_t timestamp = 0;  // Unix seconds
  std::map<std::string, std::string> env;  // SHELL, TERM
  std::string command;    // informational
};

struct CastEvent {
  core::TimeNs at = 0;    // since the start of the recording
  char code = 'o';        // 'o', 'i', 'r' (others are kept, e.g. 'm')
  std::string data;
};

struct Cast {
  CastHeader header;
  std::vector<CastEvent> events;
};

/// Parses a whole recording. E_PAYLOAD_INVALID naming the line and what is
/// wrong (not JSON, version not 2, a missing width, an event not [t, c, d]).
core::Result<Cast> ParseCast(std::string_view text);

/// Parses the data of an "r" event, "COLSxROWS".
bool ParseCastSize(std::string_view data, int* cols, int* rows);

/// Appends `s` as a JSON string literal; invalid UTF-8 becomes U+FFFD.
void AppendJsonString(std::string* out, std::string_view s);

/// Writes a recording as the session runs. Times are given by the caller
/// (monotonic ns) and stored relative to `start`.
class CastWriter {
 public:
  static core::Result<std::unique_ptr<CastWriter>> Open(const std::string& path,
                                                        const CastHeader& header,
                                                        core::TimeNs start);
  void Output(core::TimeNs now, std::string_view bytes);
  void Input(core::TimeNs now, std::string_view bytes);
  void Resize(core::TimeNs now, int cols, int rows);
  /// Writes what is held back (an incomplete glyph) and closes the file.
  core::Status Close();
  /// The first write error, if any (recording never stops the session).
  const std::string& error() const { return error_; }

 private:
  CastWriter(core::UniqueFd fd, core::TimeNs start) : fd_(std::move(fd)), start_(start) {}
  void Event(core::TimeNs now, char code, std::string_view data);
  void Stream(core::TimeNs now, char code, std::string* held, std::string_view bytes);
  void WriteLine(const std::string& line);

  core::UniqueFd fd_;
  core::TimeNs start_;
  std::string held_out_;
  std::string held_in_;
  core::TimeNs last_ = 0;
  std::string error_;
};

}  // namespace agt::wrap
