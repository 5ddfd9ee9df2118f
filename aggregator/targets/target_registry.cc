// The target registry: validation of target specs, the `host` default, and
// the JSON file that keeps user-added targets across daemon restarts
// (replaced with core::WriteFileAtomic, so a crash never leaves half a file).
#include "aggregator/targets/target_registry.h"

#include <rapidjson/document.h>

#include "aggregator/http/json_writer.h"
#include "aggregator/targets/ssh_target.h"
#include "libagtcore/os/file.h"

namespace agt::agg {

core::Status ValidateTarget(const TargetSpec& spec) {
  if (spec.name.empty()) return core::MakeError(core::Err::kTargetInvalid, "target name is empty");
  for (char c : spec.name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok)
      return core::MakeError(core::Err::kTargetInvalid,
                             "target name '" + spec.name + "' may only hold [A-Za-z0-9._-]");
  }
  if (spec.kind != "local" && spec.kind != "ssh")
    return core::MakeError(core::Err::kTargetInvalid,
                           "target kind '" + spec.kind + "' is not local or ssh");
  if (spec.kind == "ssh" && spec.ssh_target.empty())
    return core::MakeError(core::Err::kTargetInvalid, "an ssh target needs ssh_target (`agtmux target add NAME --kind ssh --ssh-target user@host`)");
  if (spec.kind == "ssh")
    if (auto ssh = ParseSshTarget(spec.ssh_target); !ssh) return ssh.error();
  if (!spec.via.empty() && spec.via != "agtmuxd" && spec.via != "cap")
    return core::MakeError(core::Err::kTargetInvalid, "via '" + spec.via + "' is not agtmuxd or cap");
  if (!spec.via.empty() && spec.kind != "ssh")
    return core::MakeError(core::Err::kTargetInvalid, "via is for ssh targets only");
  if (!spec.tmux_socket.empty() && spec.tmux_socket[0] != '/')
    return core::MakeError(core::Err::kTargetInvalid,
                           "tmux_socket '" + spec.tmux_socket + "' must be an absolute path");
  return core::Ok();
}

core::Result<TargetRegistry> TargetRegistry::Load(const std::string& file, std::string host_socket) {
  TargetRegistry r;
  r.file_ = file;
  TargetStatus host;
  host.spec = TargetSpec{"host", "local", std::move(host_socket), ""};
  r.targets_.push_back(host);
  auto text = core::ReadWholeFile(file);
  if (!text.ok()) {
    if (text.error().code == core::Err::kNotFound) return r;
    return core::MakeError(core::Err::kConfigInvalid, "cannot read " + text.error().message);
  }
  rapidjson::Document d;
  d.Parse(text->c_str());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("targets") || !d["targets"].IsArray())
    return core::MakeError(core::Err::kConfigInvalid, file + ": not a {\"targets\":[...]} object");
  for (const auto& t : d["targets"].GetArray()) {
    auto str = [&](const char* k) -> std::string {
      return t.IsObject() && t.HasMember(k) && t[k].IsString() ? t[k].GetString() : "";
    };
    TargetSpec spec{str("name"), str("kind"), str("tmux_socket"), str("ssh_target"), str("via")};
    if (spec.name == "host") continue;
    if (auto st = ValidateTarget(spec); !st)
      return core::MakeError(core::Err::kConfigInvalid, file + ": " + st.error().message);
    TargetStatus ts;
    ts.spec = spec;
    r.targets_.push_back(ts);
  }
  return r;
}

TargetStatus* TargetRegistry::Find(std::string_view name) {
  for (auto& t : targets_)
    if (t.spec.name == name) return &t;
  return nullptr;
}

const TargetStatus* TargetRegistry::Find(std::string_view name) const {
  for (const auto& t : targets_)
    if (t.spec.name == name) return &t;
  return nullptr;
}

core::Status TargetRegistry::Add(const TargetSpec& spec) {
  if (auto st = ValidateTarget(spec); !st) return st;
  if (Find(spec.name))
    return core::MakeError(core::Err::kTargetInvalid, "target '" + spec.name + "' already exists");
  TargetStatus ts;
  ts.spec = spec;
  targets_.push_back(ts);
  return Save();
}

core::Status TargetRegistry::Remove(std::string_view name) {
  if (name == "host")
    return core::MakeError(core::Err::kTargetInvalid, "the host target cannot be removed");
  for (auto it = targets_.begin(); it != targets_.end(); ++it) {
    if (it->spec.name == name) {
      targets_.erase(it);
      return Save();
    }
  }
  return core::MakeError(core::Err::kNotFound, "no target named '" + std::string(name) + "'");
}

core::Status TargetRegistry::Save() const {
  if (file_.empty()) return core::Ok();
  JsonOut j;
  j.BeginObject().Key("targets").BeginArray();
  for (const auto& t : targets_) {
    if (t.spec.name == "host") continue;
    j.BeginObject().Key("name").Str(t.spec.name).Key("kind").Str(t.spec.kind);
    j.Key("tmux_socket").Str(t.spec.tmux_socket).Key("ssh_target").Str(t.spec.ssh_target);
    if (!t.spec.via.empty()) j.Key("via").Str(t.spec.via);
    j.EndObject();
  }
  j.EndArray().EndObject();
  return core::WriteFileAtomic(file_, j.Take() + "\n");
}

}  // namespace agt::agg
