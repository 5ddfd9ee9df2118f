// Loading config.toml into a Config (every key is in docs/config.md).
//
// A syntax error is E_CONFIG_INVALID with the file, line and column
// (core::ParseToml). After parsing, each
// section is read by a table of known keys: an unknown key is a warning
// (a typo must not stop the daemon), a known key with a bad value is an
// error naming file, line and dotted key, and says what was expected.
//
// Durations are TOML strings with a unit ("120s", "500ms", "1h30m", "7d").
// Bare numbers, as TOML integers or unit-less strings, are refused: a
// config file read months later should not make anyone guess the unit.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "libagtcore/config.h"

#include <pcre2.h>

#include <functional>
#include <optional>
#include <sstream>
#include <toml++/toml.h>

#include "libagtcore/file.h"
#include "libagtcore/log.h"
#include "libagtcore/timefmt.h"
#include "libagtcore/toml_parse.h"

namespace agt::core {
namespace {

/// How a value is shown after "got": strings quoted, scalars as written.
std::string Describe(const toml::node& n) {
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  if (auto s = n.value<std::string>()) return "\"" + *s + "\"";
  std::ostringstream os;
  if (n.is_integer()) os << *n.value<int64_t>();
  else if (n.is_floating_point()) os << *n.value<double>();
  else if (n.is_boolean()) os << (*n.value<bool>() ? "true" : "false");
  else os << "a date/time";
  return os.str();
}

bool IsTargetName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/// Compiles a send-policy pattern to check it; the message on failure.
std::optional<std::string> RegexError(const std::string& pattern) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()),
                                 pattern.size(), PCRE2_UTF, &code, &offset, nullptr);
  if (re != nullptr) {
    pcre2_code_free(re);
    return std::nullopt;
  }
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof buf);
  return "invalid regular expression: " + std::string(reinterpret_cast<char*>(buf)) +
         " at offset " + std::to_string(offset);
}

class Loader {
 public:
  explicit Loader(std::string path) : path_(std::move(path)) {}

  Result<ConfigLoad> Run(const toml::table& root) {
    Section(root, "", {
        {"daemon", [&](const toml::node& n, const std::string& k) { Daemon(n, k); }},
        {"poller", [&](const toml::node& n, const std::string& k) { Poller(n, k); }},
        {"wrap", [&](const toml::node& n, const std::string& k) { Wrap(n, k); }},
        {"targets", [&](const toml::node& n, const std::string& k) { Targets(n, k); }},
        {"send_policy", [&](const toml::node& n, const std::string& k) { Policy(n, k); }},
        {"notify", [&](const toml::node& n, const std::string& k) { Notify(n, k); }},
    });
    if (error_) return *error_;
    return std::move(out_);
  }

 private:
  using Handler = std::function<void(const toml::node&, const std::string& key)>;
  using Handlers = std::vector<std::pair<std::string_view, Handler>>;

  std::string Where(const toml::node& n) const {
    return path_ + ":" + std::to_string(n.source().begin.line);
  }
  void Fail(const toml::node& n, const std::string& key, const std::string& why) {
    if (!error_) error_ = MakeError(Err::kConfigInvalid, Where(n) + ": " + key + ": " + why);
  }

  /// Dispatches each key of `node` (which must be a table) to its handler;
  /// unknown keys become warnings.
  void Section(const toml::node& node, const std::string& prefix, const Handlers& handlers) {
    const toml::table* tbl = node.as_table();
    if (tbl == nullptr) {
      Fail(node, prefix, "expected a table, got " + Describe(node));
      return;
    }
    for (auto&& [k, v] : *tbl) {
      std::string name(k.str());
      std::string full = prefix.empty() ? name : prefix + "." + name;
      bool known = false;
      for (const auto& [hname, handler] : handlers) {
        if (hname == name) {
          handler(v, full);
          known = true;
          break;
        }
      }
      if (!known)
        out_.warnings.push_back(path_ + ":" + std::to_string(k.source().begin.line) +
                                ": unknown key \"" + full + "\"");
    }
  }

  Handler Duration(TimeNs* out, bool allow_zero = false) {
    return [this, out, allow_zero](const toml::node& n, const std::string& key) {
      std::optional<std::string> s = n.value_exact<std::string>();
      bool has_unit = s && !s->empty() && !(s->back() >= '0' && s->back() <= '9');
      if (!s || !has_unit) {
        Fail(n, key, "expected a duration like \"120s\", got " + Describe(n));
        return;
      }
      Result<TimeNs> d = ParseDuration(*s);
      if (!d.ok()) {
        Fail(n, key, "expected a duration like \"120s\": " + d.error().message);
        return;
      }
      if (*d == 0 && !allow_zero) {
        Fail(n, key, "must be longer than zero");
        return;
      }
      *out = *d;
    };
  }

  Handler String(std::string* out) {
    return [this, out](const toml::node& n, const std::string& key) {
      std::optional<std::string> s = n.value_exact<std::string>();
      if (!s) {
        Fail(n, key, "expected a string, got " + Describe(n));
        return;
      }
      *out = *s;
    };
  }

  Handler Patterns(std::vector<std::string>* out) {
    return [this, out](const toml::node& n, const std::string& key) {
      const toml::array* arr = n.as_array();
      if (arr == nullptr) {
        Fail(n, key, "expected an array of regular expressions, got " + Describe(n));
        return;
      }
      out->clear();
      for (size_t i = 0; i < arr->size(); ++i) {
        const toml::node& e = *arr->get(i);
        std::string ekey = key + "[" + std::to_string(i) + "]";
        std::optional<std::string> s = e.value_exact<std::string>();
        if (!s) {
          Fail(e, ekey, "expected a string, got " + Describe(e));
          return;
        }
        if (auto why = RegexError(*s)) {
          Fail(e, ekey, *why);
          return;
        }
        out->push_back(*s);
      }
    };
  }

  void Daemon(const toml::node& n, const std::string& key) {
    DaemonConfig& d = out_.config.daemon;
    Section(n, key, {
        {"completed_to_idle", Duration(&d.completed_to_idle)},
        {"skew_budget", Duration(&d.skew_budget, true)},
        {"bind_window", Duration(&d.bind_window, true)},
        {"pending_bind_ttl", Duration(&d.pending_bind_ttl)},
        {"retention_payloads", Duration(&d.retention_payloads)},
        {"retention_events", Duration(&d.retention_events)},
        {"log_level",
         [this, &d](const toml::node& v, const std::string& k) {
           std::string level;
           String(&level)(v, k);
           if (error_) return;
           if (!ParseLogLevel(level).ok()) {
             Fail(v, k, "expected one of trace, debug, info, warn, error, critical, off, got " +
                            Describe(v));
             return;
           }
           d.log_level = level;
         }},
        {"signal_ttl",
         [this, &d](const toml::node& v, const std::string& k) {
           Handlers ttl;
           for (int i = 0; i < kSourceCount; ++i)
             ttl.emplace_back(SourceName(static_cast<Source>(i)),
                              Duration(&d.signal_ttl[static_cast<size_t>(i)], true));
           Section(v, k, ttl);
         }},
    });
    if (!error_ && d.retention_payloads > d.retention_events)
      Fail(n, key + ".retention_payloads",
           "must not be longer than daemon.retention_events (payloads live inside events)");
  }

  void Poller(const toml::node& n, const std::string& key) {
    PollerConfig& p = out_.config.poller;
    Section(n, key, {
        {"active_interval", Duration(&p.active_interval)},
        {"max_backoff", Duration(&p.max_backoff)},
    });
    if (!error_ && p.max_backoff < p.active_interval)
      Fail(n, key + ".max_backoff", "must not be shorter than poller.active_interval");
  }

  void Wrap(const toml::node& n, const std::string& key) {
    WrapConfig& w = out_.config.wrap;
    Section(n, key, {
        {"running_window", Duration(&w.running_window)},
        {"echo_grace", Duration(&w.echo_grace, true)},
        {"approval_settle", Duration(&w.approval_settle, true)},
        {"idle_debounce", Duration(&w.idle_debounce, true)},
    });
  }

  void Targets(const toml::node& n, const std::string& key) {
    const toml::table* tbl = n.as_table();
    if (tbl == nullptr) {
      Fail(n, key, "expected a table of targets ([targets.<name>]), got " + Describe(n));
      return;
    }
    for (auto&& [k, v] : *tbl) {
      std::string name(k.str());
      std::string tkey = key + "." + name;
      if (!IsTargetName(name)) {
        Fail(v, tkey, "a target name may contain only A-Z a-z 0-9 . _ -");
        return;
      }
      TargetConfig t;
      Section(v, tkey, {
          {"kind", String(&t.kind)},
          {"ssh_target", String(&t.ssh_target)},
          {"tmux_socket", String(&t.tmux_socket)},
      });
      if (error_) return;
      const toml::node& where = v.as_table()->contains("kind") ? *v.as_table()->get("kind") : v;
      if (t.kind != "local" && t.kind != "ssh") {
        Fail(where, tkey + ".kind", "expected \"local\" or \"ssh\", got \"" + t.kind + "\"");
      } else if (t.kind == "ssh" && t.ssh_target.empty()) {
        Fail(v, tkey + ".ssh_target", "required when kind = \"ssh\" (an ssh host alias)");
      } else if (t.kind == "local" && !t.ssh_target.empty()) {
        Fail(v, tkey + ".ssh_target", "only allowed when kind = \"ssh\"");
      } else if (name == "host" && t.kind != "local") {
        Fail(where, tkey + ".kind", "the built-in target \"host\" is always local");
      }
      if (error_) return;
      out_.config.targets[name] = t;
    }
  }

  void Policy(const toml::node& n, const std::string& key) {
    SendPolicyConfig& p = out_.config.send_policy;
    Section(n, key, {
        {"block", Patterns(&p.block)},
        {"warn", Patterns(&p.warn)},
        {"log", Patterns(&p.log)},
    });
  }

  void Notify(const toml::node& n, const std::string& key) {
    NotifyConfig& c = out_.config.notify;
    Section(n, key, {
        {"command",
         [this, &c](const toml::node& v, const std::string& k) {
           if (auto s = v.value_exact<std::string>()) {
             c.command = s->empty() ? std::vector<std::string>{}
                                    : std::vector<std::string>{"/bin/sh", "-c", *s};
             return;
           }
           const toml::array* arr = v.as_array();
           if (arr == nullptr) {
             Fail(v, k, "expected an argv array like [\"notify-send\", \"agtmux\"] or a "
                        "shell command string, got " + Describe(v));
             return;
           }
           c.command.clear();
           for (size_t i = 0; i < arr->size(); ++i) {
             auto s2 = arr->get(i)->value_exact<std::string>();
             if (!s2) {
               Fail(*arr->get(i), k + "[" + std::to_string(i) + "]",
                    "expected a string, got " + Describe(*arr->get(i)));
               return;
             }
             c.command.push_back(*s2);
           }
         }},
        {"cooldown", Duration(&c.cooldown, true)},
    });
  }

  std::string path_;
  ConfigLoad out_;
  std::optional<Error> error_;
};

}  // namespace

SendPolicyConfig Config::DefaultSendPolicy() {
  SendPolicyConfig p;
  p.block = {
      R"(\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]*\s+)*(/|~|\$HOME)(\s|$|\*))",
      R"(:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:)",  // :(){ :|:& };:
      R"(\bdd\s+.*\bof=/dev/(sd|nvme|hd|vd|xvd|mmcblk|disk))",
      R"(\bmkfs(\.\w+)?\s+/dev/)",
      R"(\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b)",
  };
  p.warn = {
      R"(\bgit\s+push\s+.*(--force|-f)\b)",
      R"(\bsudo\b)",
  };
  return p;
}

Result<ConfigLoad> ParseConfig(std::string_view text, std::string_view path) {
  std::string where = path.empty() ? "config.toml" : std::string(path);
  auto root = ParseToml(text, where, Err::kConfigInvalid);
  if (!root.ok()) return root.error();
  return Loader(where).Run(*root);
}

Result<ConfigLoad> LoadConfig(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    if (text.error().code == Err::kNotFound) return ConfigLoad{};  // no file: the defaults
    return MakeError(Err::kIo, "cannot read " + text.error().message);
  }
  return ParseConfig(*text, path);
}

}  // namespace agt::core
