#!/usr/bin/env bash
# Install the agent CLIs used by the recording lab and the end-to-end tests.
#
#   install-agents.sh                    the pinned set (below) into
#                                        ${AGTMUX_AGENT_CACHE:-$HOME/.cache/agtmux/agents};
#                                        prints its bin dir
#   install-agents.sh AGENT@VERSION...   each version into its own cache dir,
#                                        $AGTMUX_CACHE_ROOT/agents-<agent>-<version>
#                                        (default root $HOME/.cache/agtmux); prints one
#                                        bin dir per argument, in order
#   install-agents.sh --more             the other versions the corpus covers (MORE below),
#                                        each into its own cache dir
#   install-agents.sh --cache-dir AGENT@VERSION   prints the cache dir, installs nothing
#
# AGENT is claude, codex or gemini (or an npm package name). Idempotent: a cache dir
# that already holds the wanted version is left alone. The pinned set is what CI and
# the end-to-end tests use; the corpus gates need no CLI at all (they replay fixtures).
# Each Claude Code version is a ~380 MB native package, so CI installs only the pinned set.
set -euo pipefail

PINNED=(
  "@anthropic-ai/claude-code@2.1.197"
  "@openai/codex@0.169.0"
  "@google/gemini-cli@0.61.0"
)
# Versions recorded next to the pinned ones (tests/fixtures/README.md).
MORE=(
  "claude@2.1.330"
)
ROOT="${AGTMUX_CACHE_ROOT:-$HOME/.cache/agtmux}"

package_of() {  # claude -> @anthropic-ai/claude-code; a package name stays
  case "$1" in
    claude) echo "@anthropic-ai/claude-code" ;;
    codex) echo "@openai/codex" ;;
    gemini) echo "@google/gemini-cli" ;;
    *) echo "$1" ;;
  esac
}

bin_of() {  # @anthropic-ai/claude-code -> claude
  case "$1" in
    @anthropic-ai/claude-code) echo claude ;;
    @openai/codex) echo codex ;;
    @google/gemini-cli) echo gemini ;;
    *) echo "${1##*/}" ;;
  esac
}

installed_version() {  # $1 = cache dir, $2 = package name
  local pj="$1/node_modules/$2/package.json"
  [[ -f "$pj" ]] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$pj" 2>/dev/null || true
}

# install CACHE SPEC... : npm-install the specs (package@version) into CACHE unless
# every one is there already.
install() {
  local cache=$1; shift
  local need=0 spec name want
  for spec in "$@"; do
    name="${spec%@*}"; want="${spec##*@}"
    [[ "$(installed_version "$cache" "$name")" == "$want" ]] || need=1
    [[ -e "$cache/node_modules/.bin/$(bin_of "$name")" ]] || need=1
  done
  ((need)) || return 0
  command -v npm >/dev/null || { echo "install-agents.sh: npm not found" >&2; exit 1; }
  mkdir -p "$cache"
  if [[ ! -f "$cache/package.json" ]]; then
    printf '{\n  "name": "agtmux-agents",\n  "private": true\n}\n' > "$cache/package.json"
  fi
  echo "install-agents.sh: installing $* into $cache" >&2
  (cd "$cache" && npm install --no-audit --no-fund --save-exact "$@" >&2)
  for spec in "$@"; do
    name="${spec%@*}"; want="${spec##*@}"
    if [[ "$(installed_version "$cache" "$name")" != "$want" ]]; then
      echo "install-agents.sh: $name is '$(installed_version "$cache" "$name")', wanted '$want'" >&2
      exit 1
    fi
  done
}

# AGENT@VERSION -> $cache (its own cache dir) and $spec (package@version)
resolve() {
  local arg=$1 pkg ver
  [[ "$arg" == ?*@?* ]] ||
    { echo "install-agents.sh: '$arg' is not AGENT@VERSION (e.g. claude@2.1.330)" >&2; exit 2; }
  pkg=$(package_of "${arg%@*}"); ver="${arg##*@}"
  cache="$ROOT/agents-$(bin_of "$pkg")-$ver"
  spec="$pkg@$ver"
}

if [[ $# -eq 0 ]]; then
  cache="${AGTMUX_AGENT_CACHE:-$ROOT/agents}"
  install "$cache" "${PINNED[@]}"
  echo "$cache/node_modules/.bin"
  exit 0
fi
if [[ "$1" == "--cache-dir" ]]; then
  [[ $# -eq 2 ]] || { echo "usage: install-agents.sh --cache-dir AGENT@VERSION" >&2; exit 2; }
  resolve "$2"
  echo "$cache"
  exit 0
fi
if [[ "$1" == "--more" ]]; then
  set -- "${MORE[@]}"
fi
for arg in "$@"; do
  resolve "$arg"
  install "$cache" "$spec"
  echo "$cache/node_modules/.bin"
done
