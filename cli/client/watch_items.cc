// WatchItems (see watch_items.h): the in-memory view a watch client keeps.
// Items are deep copies of the stream's JSON, so the line they came in can
// be freed as soon as it is applied.
#include "cli/client/watch_items.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>

namespace agt::cli {

std::string ToJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

namespace {

std::unique_ptr<rapidjson::Document> Copy(const rapidjson::Value& v) {
  auto d = std::make_unique<rapidjson::Document>();
  d->CopyFrom(v, d->GetAllocator());
  return d;
}

bool IsObjectMember(const rapidjson::Value& o, const char* key) {
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsObject();
}

}  // namespace

WatchItems::Line WatchItems::Apply(const rapidjson::Value& line) {
  if (!line.IsObject() || !line.HasMember("type") || !line["type"].IsString()) return Line::kIgnored;
  const std::string_view type = line["type"].GetString();
  if (line.HasMember("cursor") && line["cursor"].IsString()) cursor_ = line["cursor"].GetString();
  if (IsObjectMember(line, "summary")) summary_.CopyFrom(line["summary"], summary_.GetAllocator());
  if (type == "reset") {
    items_.clear();
    ++generation_;
    return Line::kReset;
  }
  if (type == "snapshot") {
    items_.clear();
    if (line.HasMember("items") && line["items"].IsArray())
      for (const auto& it : line["items"].GetArray())
        if (IsObjectMember(it, "identity")) items_[ToJson(it["identity"])] = Copy(it);
    ++generation_;
    return Line::kSnapshot;
  }
  if (type != "delta") return Line::kIgnored;
  const auto hb = line.FindMember("heartbeat");
  const bool heartbeat = hb != line.MemberEnd() && hb->value.IsBool() && hb->value.GetBool();
  bool changed = false;
  if (line.HasMember("changes") && line["changes"].IsArray()) {
    for (const auto& c : line["changes"].GetArray()) {
      if (!IsObjectMember(c, "identity") || !c.HasMember("op") || !c["op"].IsString()) continue;
      std::string key = ToJson(c["identity"]);
      if (std::string_view(c["op"].GetString()) == "upsert") {
        if (!IsObjectMember(c, "item")) continue;
        items_[key] = Copy(c["item"]);
      } else {
        items_.erase(key);
      }
      changed = true;
    }
  }
  if (changed) ++generation_;
  return heartbeat && !changed ? Line::kHeartbeat : Line::kDelta;
}

}  // namespace agt::cli
