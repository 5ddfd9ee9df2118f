#!/usr/bin/env bash
# Installs everything agtmux needs to build, test and run, from Debian's
# packages (apt-get) and, for the real agent CLIs used by the end-to-end
# tests, the npm registry. Idempotent: it installs only what is missing.
#   scripts/install-deps.sh            build + test dependencies and agent CLIs
#   scripts/install-deps.sh --no-agents  skip the agent CLIs
set -euo pipefail
cd "$(dirname "$0")/.."

agents=1
for arg in "$@"; do
  case "$arg" in
    --no-agents) agents=0 ;;
    *) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

packages=(
  # build
  meson ninja-build pkg-config g++ clang libclang-rt-14-dev
  ccache  # meson compiles through it when present: rebuilds of build/ and build-asan/ reuse objects
  # libraries (docs/spec.md §2)
  libuv1-dev libsqlite3-dev rapidjson-dev libpcre2-dev libssh2-1-dev
  libspdlog-dev libfmt-dev libcli11-dev libgtest-dev libgmock-dev libvterm-dev
  libhttp-parser-dev libssl-dev libtomlplusplus-dev libutf8proc-dev libncurses-dev
  libcurl4-openssl-dev  # the notifier's webhook (aggregator/notify)
  # what the tests and the demo run for real (util-linux: setpriv, for the
  # daemon's tmux control client)
  tmux openssh-server openssh-client sqlite3 python3 vim less ncurses-bin
  bsdutils util-linux procps bash zsh fish nodejs npm git
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# node and npm may come from elsewhere than Debian (a newer npm is fine).
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do
    [[ "$p" == nodejs || "$p" == npm ]] || filtered+=("$p")
  done
  missing=("${filtered[@]}")
fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
else
  echo "install-deps: all Debian packages present"
fi

if ((agents)) && [[ -x tests/agents/install-agents.sh ]]; then
  tests/agents/install-agents.sh
fi
