#!/usr/bin/env bash
# Install the pinned agent CLIs used by the recording lab and the end-to-end tests.
# Idempotent: does nothing when the pinned versions are already installed.
# Prints the bin directory (the only line on stdout).
set -euo pipefail

CACHE="${AGTMUX_AGENT_CACHE:-$HOME/.cache/agtmux/agents}"
PKGS=(
  "@anthropic-ai/claude-code@2.1.197"
  "@openai/codex@0.169.0"
  "@google/gemini-cli@0.61.0"
)

installed_version() {  # $1 = package name
  local pj="$CACHE/node_modules/$1/package.json"
  [[ -f "$pj" ]] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$pj" 2>/dev/null || true
}

need=0
for spec in "${PKGS[@]}"; do
  name="${spec%@*}"
  want="${spec##*@}"
  have="$(installed_version "$name")"
  if [[ "$have" != "$want" ]]; then
    need=1
  fi
done
for b in claude codex gemini; do
  [[ -e "$CACHE/node_modules/.bin/$b" ]] || need=1
done

if [[ $need -eq 1 ]]; then
  command -v npm >/dev/null || { echo "install-agents.sh: npm not found" >&2; exit 1; }
  mkdir -p "$CACHE"
  if [[ ! -f "$CACHE/package.json" ]]; then
    printf '{\n  "name": "agtmux-agents",\n  "private": true\n}\n' > "$CACHE/package.json"
  fi
  echo "install-agents.sh: installing ${PKGS[*]} into $CACHE" >&2
  (cd "$CACHE" && npm install --no-audit --no-fund --save-exact "${PKGS[@]}" >&2)
  for spec in "${PKGS[@]}"; do
    name="${spec%@*}"; want="${spec##*@}"; have="$(installed_version "$name")"
    if [[ "$have" != "$want" ]]; then
      echo "install-agents.sh: $name is '$have', wanted '$want'" >&2
      exit 1
    fi
  done
fi

echo "$CACHE/node_modules/.bin"
