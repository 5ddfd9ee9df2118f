// The daemon's count of lost events (see drop_counter.h). The file is a
// JSON object of reason name to count; unknown names are ignored, so a
// newer daemon's file still loads.
#include "aggregator/ingest/drop_counter.h"

#include <rapidjson/document.h>

#include "libagtcore/os/file.h"
#include "libagtcore/base/json.h"

namespace agt::agg {

std::string_view DropReasonName(DropReason r) {
  switch (r) {
    case DropReason::kSpoolUndecodable: return "spool_undecodable";
    case DropReason::kSpoolQuarantined: return "spool_quarantined";
    case DropReason::kProducer: return "producer";
  }
  return "unknown";
}

DropCounter::DropCounter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  auto text = core::ReadWholeFile(path_);
  if (!text) return;
  rapidjson::Document d;
  if (!core::ParseJson(*text, &d) || !d.IsObject()) return;
  for (size_t i = 0; i < kDropReasons; ++i) {
    auto it = d.FindMember(std::string(DropReasonName(static_cast<DropReason>(i))).c_str());
    if (it != d.MemberEnd() && it->value.IsInt64() && it->value.GetInt64() > 0) counts_[i] = it->value.GetInt64();
  }
}

bool DropCounter::Add(DropReason r, int64_t n) {
  if (n <= 0) return true;
  counts_[static_cast<size_t>(r)] += n;
  if (path_.empty()) return true;
  std::string json = "{";
  for (size_t i = 0; i < kDropReasons; ++i) {
    if (i > 0) json += ",";
    json += "\"" + std::string(DropReasonName(static_cast<DropReason>(i))) + "\":" + std::to_string(counts_[i]);
  }
  json += "}\n";
  return core::WriteFileAtomic(path_, json).ok();
}

int64_t DropCounter::total() const {
  int64_t t = 0;
  for (int64_t c : counts_) t += c;
  return t;
}

}  // namespace agt::agg
