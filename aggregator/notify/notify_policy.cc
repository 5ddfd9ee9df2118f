// NotifyPolicy (see notify_policy.h): edges, dwell and cooldown over the
// stream of pane states, with time passed in, so that the unit tests
// (tests/agg/notify/notify_policy_test.cc) drive it with a fake clock.
#include "aggregator/notify/notify_policy.h"

#include <algorithm>
#include <set>

namespace agt::agg {

bool NotifyPolicy::Wanted(core::State s) const {
  return std::find(options_.states.begin(), options_.states.end(), s) != options_.states.end();
}

void NotifyPolicy::Observe(const std::vector<PaneObservation>& panes, core::TimeNs now) {
  std::map<std::string, Seen> next;
  for (const PaneObservation& p : panes) {
    Seen cur{p.agent, p.agent ? p.state : core::State::kUnknown, p.agent ? p.state_since : 0};
    next[p.key] = cur;
    auto prev = seen_.find(p.key);
    const bool changed = prev == seen_.end() || !prev->second.agent || prev->second.state != cur.state ||
                         prev->second.since != cur.since;
    const bool entered = cur.agent && changed && cur.since >= options_.started_at;
    auto pend = pending_.find(p.key);
    if (entered) {
      if (Wanted(cur.state)) {
        pending_[p.key] = Pending{now + options_.dwell, p.key, p.notice};
      } else if (pend != pending_.end()) {
        pending_.erase(pend);  // left the state within the dwell: answered at once
      }
    } else if (!cur.agent && pend != pending_.end()) {
      pending_.erase(pend);  // the agent is gone
    } else if (pend != pending_.end()) {
      pend->second.notice = p.notice;  // the same wait, maybe with its question read by now
    }
  }
  // Panes that went away take their pending notice with them.
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = next.count(it->first) ? std::next(it) : pending_.erase(it);
  }
  for (auto it = last_sent_.begin(); it != last_sent_.end();) {
    it = next.count(it->first) || now - it->second < options_.cooldown ? std::next(it) : last_sent_.erase(it);
  }
  seen_ = std::move(next);
}

std::optional<core::TimeNs> NotifyPolicy::NextDue() const {
  std::optional<core::TimeNs> due;
  for (const auto& [key, p] : pending_)
    if (!due || p.due < *due) due = p.due;
  return due;
}

std::vector<Notice> NotifyPolicy::TakeDue(core::TimeNs now) {
  std::vector<Notice> out;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.due > now) {
      ++it;
      continue;
    }
    auto last = last_sent_.find(it->first);
    if (last != last_sent_.end() && now - last->second < options_.cooldown) {
      ++suppressed_by_cooldown_;
    } else {
      out.push_back(it->second.notice);
    }
    it = pending_.erase(it);
  }
  return out;
}

void NotifyPolicy::Sent(const std::string& key, core::TimeNs now) { last_sent_[key] = now; }

}  // namespace agt::agg
