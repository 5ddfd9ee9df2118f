// The items of a GET /v1/watch stream, kept by identity: what `agtmux
// watch` redraws and what `agtmux ui` shows. One copy of the stream's rules
// (docs/api.md, GET /v1/watch): a snapshot replaces every item, a delta
// upserts or deletes some, a reset clears them until the next snapshot.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace agt::cli {

class WatchItems {
 public:
  enum class Line { kIgnored, kReset, kSnapshot, kDelta, kHeartbeat };

  /// Applies one parsed stream line; says what it was. A line without a
  /// known `type` changes nothing (kIgnored).
  Line Apply(const rapidjson::Value& line);

  /// Item by its identity (serialised JSON), in that key's order.
  const std::map<std::string, std::unique_ptr<rapidjson::Document>>& items() const { return items_; }
  /// The last line's `summary` (an empty object before any).
  const rapidjson::Document& summary() const { return summary_; }
  /// The last line's cursor ("" before any): resume a cut stream with it.
  const std::string& cursor() const { return cursor_; }
  /// Grows by one for every line that changed an item (not heartbeats).
  uint64_t generation() const { return generation_; }

 private:
  std::map<std::string, std::unique_ptr<rapidjson::Document>> items_;
  rapidjson::Document summary_{rapidjson::kObjectType};
  std::string cursor_;
  uint64_t generation_ = 0;
};

/// `v` as compact JSON.
std::string ToJson(const rapidjson::Value& v);

}  // namespace agt::cli
