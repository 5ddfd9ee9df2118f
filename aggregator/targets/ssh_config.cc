// Reading an OpenSSH client config for one host (see ssh_config.h). The
// parser takes the text and a reader for Include, so it is tested and
// fuzzed without files; ReadSshConfig wires the real files.
#include "aggregator/targets/ssh_config.h"

#include <glob.h>
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "aggregator/targets/ssh_executor.h"
#include "libagtcore/os/file.h"
#include "libagtcore/base/text.h"

namespace agt::agg {
namespace {

constexpr int kMaxIncludeDepth = 16;

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (Lower(a[i]) != Lower(b[i])) return false;
  return true;
}

// '*' and '?' wildcards, case-insensitive (host names are).
bool Glob(std::string_view pat, std::string_view s) {
  size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || Lower(pat[p]) == Lower(s[i]))) {
      ++p;
      ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

struct Line {
  std::string keyword;            // lower case
  std::vector<std::string> args;  // unquoted
};

// "Keyword args", "Keyword=args" or "Keyword = args"; arguments split on
// whitespace, double quotes group. Empty and comment lines give no keyword.
core::Result<Line> SplitLine(std::string_view text) {
  Line line;
  size_t i = 0;
  auto space = [&](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (i < text.size() && space(text[i])) ++i;
  if (i == text.size() || text[i] == '#') return line;
  while (i < text.size() && !space(text[i]) && text[i] != '=') line.keyword += Lower(text[i++]);
  while (i < text.size() && space(text[i])) ++i;
  if (i < text.size() && text[i] == '=') ++i;
  while (i < text.size()) {
    while (i < text.size() && space(text[i])) ++i;
    if (i == text.size()) break;
    std::string arg;
    if (text[i] == '"') {
      size_t close = text.find('"', i + 1);
      if (close == std::string_view::npos) return core::MakeError(core::Err::kConfigInvalid, "unterminated quote");
      arg = std::string(text.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      while (i < text.size() && !space(text[i])) arg += text[i++];
    }
    line.args.push_back(std::move(arg));
  }
  return line;
}

core::Result<int> Number(const std::string& v, int lo, int hi) {
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
    return core::MakeError(core::Err::kConfigInvalid, "'" + v + "' is not a number");
  int n = std::atoi(v.c_str());
  if (n < lo || n > hi)
    return core::MakeError(core::Err::kConfigInvalid,
                           "'" + v + "' is out of range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return n;
}

core::Result<bool> YesNo(const std::string& v) {
  if (EqualFold(v, "yes")) return true;
  if (EqualFold(v, "no")) return false;
  return core::MakeError(core::Err::kConfigInvalid, "'" + v + "' is not yes or no");
}

struct Parser {
  std::string_view host;
  std::string include_dir;
  const SshConfigReader& read;
  SshHostConfig& out;

  core::Status File(std::string_view text, const std::string& file, int depth) {
    bool applies = true;  // lines before the first Host apply to every host
    int number = 0;
    for (std::string_view raw : core::SplitLines(text)) {
      ++number;
      const std::string where = file + ":" + std::to_string(number) + ": ";
      auto fail = [&](const std::string& why) { return core::MakeError(core::Err::kConfigInvalid, where + why); };
      auto line = SplitLine(raw);
      if (!line) return fail(line.error().message);
      if (line->keyword.empty()) continue;
      if (line->args.empty()) return fail(line->keyword + " without a value");
      const std::string& k = line->keyword;
      if (k == "host") {
        std::string patterns;
        for (const auto& a : line->args) patterns += a + " ";
        applies = SshHostMatches(patterns, host);
        continue;
      }
      if (k == "match") {
        applies = line->args.size() == 1 && EqualFold(line->args[0], "all");
        continue;
      }
      if (k == "include") {
        if (!applies) continue;
        if (depth >= kMaxIncludeDepth) return fail("Include nested more than 16 deep");
        for (const auto& a : line->args)
          if (auto st = Include(a, depth); !st) return fail(st.error().message);
        continue;
      }
      // A block for another host is checked too (OpenSSH refuses such a
      // file whoever it connects to), into a scratch config.
      SshHostConfig scratch;
      if (auto st = Keyword(k, line->args, applies ? out : scratch); !st) return fail(st.error().message);
    }
    return core::Ok();
  }

  core::Status Include(const std::string& pattern, int depth) {
    std::string path = pattern;
    if (path.rfind("~/", 0) == 0) {
      const char* home = getenv("HOME");
      path = std::string(home ? home : "") + path.substr(1);
    } else if (path.empty() || path[0] != '/') {
      path = include_dir + "/" + path;
    }
    glob_t g{};
    const int rc = glob(path.c_str(), 0, nullptr, &g);
    std::vector<std::string> files;
    if (rc == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    for (const auto& f : files) {  // sorted by glob; a pattern matching nothing is fine
      auto text = read(f);
      if (!text) return core::MakeError(core::Err::kConfigInvalid, "Include " + f + ": " + text.error().message);
      if (auto st = File(*text, f, depth + 1); !st) return st;
    }
    return core::Ok();
  }

  core::Status Keyword(const std::string& k, const std::vector<std::string>& args, SshHostConfig& into) {
    const std::string& v = args[0];
    if (k == "hostname") {
      if (!into.hostname) {
        std::string h;
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i] == '%' && i + 1 < v.size() && v[i + 1] == 'h') h += host, ++i;
          else if (v[i] == '%' && i + 1 < v.size() && v[i + 1] == '%') h += '%', ++i;
          else if (v[i] == '%') return core::MakeError(core::Err::kConfigInvalid, "HostName: only %h and %% are read");
          else h += v[i];
        }
        into.hostname = h;
      }
    } else if (k == "user") {
      if (!into.user) into.user = v;
    } else if (k == "port") {
      auto n = Number(v, 1, 65535);
      if (!n) return core::MakeError(core::Err::kConfigInvalid, "Port: " + n.error().message);
      if (!into.port) into.port = *n;
    } else if (k == "identityfile") {
      if (!EqualFold(v, "none")) into.identity_files.push_back(v);
    } else if (k == "identitiesonly") {
      auto b = YesNo(v);
      if (!b) return core::MakeError(core::Err::kConfigInvalid, "IdentitiesOnly: " + b.error().message);
      if (!into.identities_only) into.identities_only = *b;
    } else if (k == "proxyjump") {
      if (!into.proxy_jump) into.proxy_jump = v;
    } else if (k == "proxycommand") {
      if (!into.proxy_command) into.proxy_command = v;
    } else if (k == "serveraliveinterval" || k == "serveralivecountmax") {
      auto n = Number(v, 0, 86400 * 365);
      const bool interval = k == "serveraliveinterval";
      if (!n)
        return core::MakeError(core::Err::kConfigInvalid,
                               std::string(interval ? "ServerAliveInterval: " : "ServerAliveCountMax: ") +
                                   n.error().message);
      auto& slot = interval ? into.server_alive_interval : into.server_alive_count_max;
      if (!slot) slot = *n;
    } else if (k == "connecttimeout") {
      if (EqualFold(v, "none")) return core::Ok();
      auto n = Number(v, 1, 86400);
      if (!n) return core::MakeError(core::Err::kConfigInvalid, "ConnectTimeout: " + n.error().message);
      if (!into.connect_timeout) into.connect_timeout = *n;
    } else if (k == "userknownhostsfile") {
      if (!into.user_known_hosts_file) into.user_known_hosts_file = v;
    }
    // Any other keyword is OpenSSH's business, not ours.
    return core::Ok();
  }
};

}  // namespace

bool SshHostMatches(std::string_view patterns, std::string_view host) {
  bool matched = false;
  size_t i = 0;
  while (i < patterns.size()) {
    while (i < patterns.size() && (patterns[i] == ' ' || patterns[i] == '\t' || patterns[i] == ',')) ++i;
    size_t start = i;
    while (i < patterns.size() && patterns[i] != ' ' && patterns[i] != '\t' && patterns[i] != ',') ++i;
    std::string_view pat = patterns.substr(start, i - start);
    if (pat.empty()) continue;
    const bool negated = pat.front() == '!';
    if (negated) pat.remove_prefix(1);
    if (!Glob(pat, host)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

core::Status ParseSshConfig(std::string_view text, const std::string& file, std::string_view host,
                            const std::string& include_dir, const SshConfigReader& read, SshHostConfig& into) {
  Parser p{host, include_dir, read, into};
  return p.File(text, file, 0);
}

core::Result<SshHostConfig> ReadSshConfig(const std::string& path, std::string_view host) {
  SshHostConfig cfg;
  auto text = core::ReadWholeFile(path);
  if (!text) {
    if (access(path.c_str(), F_OK) != 0) return cfg;  // no config: OpenSSH's defaults
    return core::MakeError(core::Err::kConfigInvalid, path + ": " + text.error().message);
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (auto st = ParseSshConfig(*text, path, host, dir, core::ReadWholeFile, cfg); !st) return st.error();
  return cfg;
}

core::Result<std::string> ExpandSshTokens(std::string_view text, const SshTokens& t) {
  std::string out;
  size_t i = 0;
  if (text.substr(0, 2) == "~/" || text == "~") {
    out = t.home;
    i = 1;
  }
  for (; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 1 == text.size()) return core::MakeError(core::Err::kConfigInvalid, "'" + std::string(text) + "' ends in %");
    switch (text[++i]) {
      case 'd': out += t.home; break;
      case 'u': out += t.local_user; break;
      case 'h': out += t.host; break;
      case 'r': out += t.remote_user; break;
      case 'p': out += std::to_string(t.port); break;
      case 'n': out += t.alias; break;
      case '%': out += '%'; break;
      default:
        return core::MakeError(core::Err::kConfigInvalid, "'" + std::string(text) + "': the token %" +
                                                              std::string(1, text[i]) + " is not supported");
    }
  }
  return out;
}

namespace {

std::string Home() {
  const char* home = getenv("HOME");
  if (home && *home) return home;
  const passwd* pw = getpwuid(getuid());
  return pw && pw->pw_dir ? pw->pw_dir : "";
}

std::string LocalUser() {
  const char* u = getenv("USER");
  if (u && *u) return u;
  const passwd* pw = getpwuid(getuid());
  return pw && pw->pw_name ? pw->pw_name : "root";
}

// ProxyJump's "[user@]host[:port]" (ssh:// URIs too).
core::Result<SshOptions> ParseJump(std::string_view v) {
  auto bad = [&](const std::string& why) {
    return core::MakeError(core::Err::kConfigInvalid, "ProxyJump '" + std::string(v) + "': " + why);
  };
  if (v.substr(0, 6) == "ssh://") v.remove_prefix(6);
  SshOptions o;
  if (size_t at = v.rfind('@'); at != std::string_view::npos) {
    o.user = std::string(v.substr(0, at));
    v.remove_prefix(at + 1);
  }
  std::string_view port;
  if (!v.empty() && v.front() == '[') {
    size_t close = v.find(']');
    if (close == std::string_view::npos) return bad("'[' without ']'");
    o.host = std::string(v.substr(1, close - 1));
    if (close + 1 < v.size()) {
      if (v[close + 1] != ':') return bad("expected ':' after ']'");
      port = v.substr(close + 2);
    }
  } else {
    size_t colon = v.find(':');
    o.host = std::string(v.substr(0, colon));
    if (colon != std::string_view::npos) port = v.substr(colon + 1);
  }
  if (o.host.empty() || o.host.front() == '-') return bad("no host");
  if (!port.empty()) {
    auto n = Number(std::string(port), 1, 65535);
    if (!n) return bad("port " + n.error().message);
    o.port = *n;
  }
  return o;
}

}  // namespace

core::Result<SshOptions> ResolveSshOptions(const SshOptions& given) {
  SshOptions r = given;
  SshHostConfig cfg;
  const std::string home = Home();
  if (given.ssh_config != "none") {
    const std::string path = given.ssh_config.empty() ? home + "/.ssh/config" : given.ssh_config;
    auto read = ReadSshConfig(path, given.host);
    if (!read) return read.error();
    cfg = std::move(*read);
  }
  r.ssh_config = "none";
  if (cfg.hostname) r.host = *cfg.hostname;
  if (r.user.empty()) r.user = cfg.user.value_or(getuid() == 0 ? "root" : LocalUser());
  if (r.port == 0) r.port = cfg.port.value_or(22);
  SshTokens tokens{home, LocalUser(), r.host, r.user, r.port, given.host};
  if (r.identity_files.empty()) {
    for (const auto& f : cfg.identity_files) {
      auto path = ExpandSshTokens(f, tokens);
      if (!path) return core::MakeError(core::Err::kConfigInvalid, "IdentityFile " + path.error().message);
      r.identity_files.push_back(std::move(*path));
    }
    if (r.identity_files.empty())
      r.identity_files = {home + "/.ssh/id_ed25519", home + "/.ssh/id_ecdsa", home + "/.ssh/id_rsa"};
  }
  if (!r.identities_only) r.identities_only = cfg.identities_only.value_or(false);
  if (r.known_hosts.empty()) {
    if (cfg.user_known_hosts_file) {
      auto path = ExpandSshTokens(*cfg.user_known_hosts_file, tokens);
      if (!path) return core::MakeError(core::Err::kConfigInvalid, "UserKnownHostsFile " + path.error().message);
      r.known_hosts = std::move(*path);
    } else {
      r.known_hosts = home + "/.ssh/known_hosts";
    }
  }
  if (r.connect_timeout <= 0) r.connect_timeout = core::TimeNs(cfg.connect_timeout.value_or(3)) * core::kNsPerSec;
  if (r.keepalive_interval <= 0 && cfg.server_alive_interval)
    r.keepalive_interval = core::TimeNs(*cfg.server_alive_interval) * core::kNsPerSec;
  if (cfg.server_alive_count_max) r.keepalive_count_max = *cfg.server_alive_count_max;
  // A ProxyCommand changes where the bytes go: connecting directly instead
  // could reach another machine, so it is refused. With a ProxyJump too,
  // the hop is taken (OpenSSH takes whichever line comes first).
  if (cfg.proxy_command && *cfg.proxy_command != "none" && !cfg.proxy_jump)
    return core::MakeError(core::Err::kUnsupported,
                           "ProxyCommand is not supported (a ProxyJump of one hop is); host " + given.host);
  if (r.proxy_jump.empty() && cfg.proxy_jump && *cfg.proxy_jump != "none") {
    if (cfg.proxy_jump->find(',') != std::string::npos)
      return core::MakeError(core::Err::kUnsupported, "ProxyJump " + *cfg.proxy_jump +
                                                          ": more than one hop is not supported (one hop is)");
    auto hop = ParseJump(*cfg.proxy_jump);
    if (!hop) return hop.error();
    // The hop is read through the same config, as `ssh -J` does.
    hop->ssh_config = given.ssh_config;
    hop->use_agent = given.use_agent;
    hop->retry_delays = {};
    auto resolved = ResolveSshOptions(*hop);
    if (!resolved) return resolved.error();
    if (!resolved->proxy_jump.empty())
      return core::MakeError(core::Err::kUnsupported, "ProxyJump " + *cfg.proxy_jump + " has a ProxyJump of its own: "
                                                      "more than one hop is not supported (one hop is)");
    r.proxy_jump = {std::move(*resolved)};
  }
  return r;
}

}  // namespace agt::agg
