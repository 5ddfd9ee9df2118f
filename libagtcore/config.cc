// Loading config.toml into a Config (every key is in docs/config.md).
//
// A syntax error is E_CONFIG_INVALID with the file, line and column
// (core::ParseToml). After parsing, each section is read by a table of
// known keys: an unknown key is an error naming file, line and dotted key,
// with the closest known key when one is a likely typo (a misspelt key
// silently left at its default is a setting the user believes in and does
// not have); a known key with a bad value is an error naming file, line
// and dotted key, and says what was expected.
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

#include "libagtcore/os/file.h"
#include "libagtcore/os/log.h"
#include "libagtcore/base/suggest.h"
#include "libagtcore/base/timefmt.h"
#include "libagtcore/base/toml_parse.h"

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

  Result<Config> Run(const toml::table& root) {
    Section(root, "", {
        {"daemon", [&](const toml::node& n, const std::string& k) { Daemon(n, k); }},
        {"poller", [&](const toml::node& n, const std::string& k) { Poller(n, k); }},
        {"wrap", [&](const toml::node& n, const std::string& k) { Wrap(n, k); }},
        {"targets",
         [&](const toml::node& n, const std::string& k) {
           Fail(n, k, "not supported in config.toml yet; add a target with "
                      "`agtmux target add NAME --kind ssh --ssh-target HOST`");
         }},
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
  /// an unknown key is an error, with "did you mean" for a near miss.
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
      if (!known && !error_) {
        std::vector<std::string_view> names;
        for (const auto& h : handlers) names.push_back(h.first);
        std::string msg = path_ + ":" + std::to_string(k.source().begin.line) + ": unknown key \"" + full + "\"";
        if (auto near = ClosestName(name, names))
          msg += " (did you mean \"" + (prefix.empty() ? *near : prefix + "." + *near) + "\"?)";
        error_ = MakeError(Err::kConfigInvalid, msg);
      }
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
    DaemonConfig& d = out_.daemon;
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
    PollerConfig& p = out_.poller;
    Section(n, key, {
        {"active_interval", Duration(&p.active_interval)},
        {"max_backoff", Duration(&p.max_backoff)},
        {"byte_screens", Bool(&p.byte_screens)},
    });
    if (!error_ && p.max_backoff < p.active_interval)
      Fail(n, key + ".max_backoff", "must not be shorter than poller.active_interval");
  }

  void Wrap(const toml::node& n, const std::string& key) {
    WrapConfig& w = out_.wrap;
    Section(n, key, {
        {"running_window", Duration(&w.running_window)},
        {"echo_grace", Duration(&w.echo_grace, true)},
        {"approval_settle", Duration(&w.approval_settle, true)},
        {"idle_debounce", Duration(&w.idle_debounce, true)},
    });
  }

  void Policy(const toml::node& n, const std::string& key) {
    SendPolicyConfig& p = out_.send_policy;
    Section(n, key, {
        {"block", Patterns(&p.block)},
        {"warn", Patterns(&p.warn)},
        {"log", Patterns(&p.log)},
    });
  }

  Handler Bool(bool* out) {
    return [this, out](const toml::node& n, const std::string& key) {
      std::optional<bool> b = n.value_exact<bool>();
      if (!b) {
        Fail(n, key, "expected true or false, got " + Describe(n));
        return;
      }
      *out = *b;
    };
  }

  /// A non-empty array of strings (an argv).
  Handler Strings(std::vector<std::string>* out, const char* what) {
    return [this, out, what](const toml::node& n, const std::string& key) {
      const toml::array* arr = n.as_array();
      if (arr == nullptr || arr->empty()) {
        Fail(n, key, std::string("expected ") + what + ", got " +
                         (arr ? std::string("an empty array") : Describe(n)));
        return;
      }
      out->clear();
      for (size_t i = 0; i < arr->size(); ++i) {
        const toml::node& e = *arr->get(i);
        std::optional<std::string> s = e.value_exact<std::string>();
        if (!s || (i == 0 && s->empty())) {
          Fail(e, key + "[" + std::to_string(i) + "]",
               s ? "the program must not be empty" : "expected a string, got " + Describe(e));
          return;
        }
        out->push_back(*s);
      }
    };
  }

  void Notify(const toml::node& n, const std::string& key) {
    NotifyConfig& c = out_.notify;
    Section(n, key, {
        {"states",
         [this, &c](const toml::node& v, const std::string& k) {
           std::vector<std::string> names;
           Strings(&names, "an array of states")(v, k);
           if (error_) return;
           c.states.clear();
           for (const std::string& s : names) {
             std::optional<State> st = ParseState(s);
             if (!st || (*st != State::kWaitingApproval && *st != State::kWaitingInput &&
                         *st != State::kError && *st != State::kCompleted)) {
               Fail(v, k, "expected waiting_approval, waiting_input, error or completed, got \"" + s + "\"");
               return;
             }
             c.states.push_back(*st);
           }
         }},
        {"dwell", Duration(&c.dwell, true)},
        {"cooldown", Duration(&c.cooldown, true)},
        {"skip_focused", Bool(&c.skip_focused)},
        {"command", Strings(&c.command, "an argv: an array of strings, the program first")},
        {"command_timeout", Duration(&c.command_timeout)},
        {"desktop", Bool(&c.desktop)},
        {"tmux_message", Bool(&c.tmux_message)},
        {"webhook",
         [this, &c](const toml::node& v, const std::string& k) {
           std::string url;
           String(&url)(v, k);
           if (error_) return;
           auto scheme_end = url.find("://");
           std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
           if ((scheme != "http" && scheme != "https") || url.size() == scheme_end + 3) {
             Fail(v, k, "expected an http:// or https:// URL, got " + Describe(v));
             return;
           }
           c.webhook = url;
         }},
        {"webhook_priority",
         [this, &c](const toml::node& v, const std::string& k) {
           std::string p;
           String(&p)(v, k);
           if (error_) return;
           for (const char* ok : {"min", "low", "default", "high", "urgent"}) {
             if (p == ok) {
               c.webhook_priority = p;
               return;
             }
           }
           Fail(v, k, "expected one of min, low, default, high, urgent, got " + Describe(v));
         }},
        {"webhook_timeout", Duration(&c.webhook_timeout)},
    });
  }

  std::string path_;
  Config out_;
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

Result<Config> ParseConfig(std::string_view text, std::string_view path) {
  std::string where = path.empty() ? "config.toml" : std::string(path);
  auto root = ParseToml(text, where, Err::kConfigInvalid);
  if (!root.ok()) return root.error();
  return Loader(where).Run(*root);
}

Result<Config> LoadConfig(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    if (text.error().code == Err::kNotFound) return Config{};  // no file: the defaults
    return MakeError(Err::kIo, "cannot read " + text.error().message);
  }
  return ParseConfig(*text, path);
}

}  // namespace agt::core
