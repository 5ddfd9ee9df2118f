#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts agtmuxd (its SQLite
# store lives in ~/.local/state/agtmux), and shows the interactive view of
# every agent pane of your tmux (`agtmux ui`, docs/ui.md; on a terminal
# without one, the `agtmux watch` table). q leaves the view; the daemon
# keeps running (stop it with `build/cli/agtmux daemon stop`).
#
#   scripts/run.sh            your own tmux, live
#   scripts/run.sh --demo     no API key, no network, your files untouched:
#                             a private tmux server whose panes replay
#                             recordings of the real Claude Code, Codex and
#                             Gemini CLIs (tests/fixtures/) - three under
#                             `agtmux wrap` (source PTY) and one unwrapped
#                             (source CAP) - with a sandboxed daemon, and
#                             the interactive view of them (Enter on a
#                             pane attaches to the demo's tmux server).
#   scripts/run.sh --demo --once   the same, printing one snapshot after
#                             the panes have played for a while, then exit.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

demo=0
once=0
for arg in "$@"; do
  case "$arg" in
    --demo) demo=1 ;;
    --once) once=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh --no-agents
if [[ ! -f build/build.ninja ]]; then
  meson setup build -Dwerror=true >/dev/null
fi
ninja -C build cli/agtmux aggregator/agtmuxd >/dev/null
agtmux="$root/build/cli/agtmux"

if ((!demo)); then
  "$agtmux" daemon start
  if ((once)); then exec "$agtmux" list panes; fi
  if [[ -t 0 && -t 1 ]]; then exec "$agtmux" ui; fi
  exec "$agtmux" watch
fi

# --- the demo -------------------------------------------------------------
sandbox=$(mktemp -d /tmp/agtmux-demo-XXXXXX)
export AGTMUX_STATE_DIR="$sandbox/state" AGTMUX_CONFIG_DIR="$sandbox/config"
export AGTMUX_SOCKET="$sandbox/agtmuxd.sock"
tmux_sock="$sandbox/tmux.sock"
tmux_cmd=(tmux -S "$tmux_sock" -f /dev/null)

cleanup() {
  "${tmux_cmd[@]}" kill-server 2>/dev/null || true
  "$agtmux" daemon stop >/dev/null 2>&1 || true
  rm -rf "$sandbox"
}
trap cleanup EXIT INT TERM

fixtures="$root/tests/fixtures"
player="$root/scripts/demo/play_cast.py"
# The unwrapped pane runs the player under the name `claude`, as the real
# Claude Code's process is named, so the daemon identifies it as an agent.
mkdir -p "$sandbox/bin"
ln -s "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$sandbox/bin/claude"

"$agtmux" daemon start >/dev/null
"$agtmux" target add demo --kind local --tmux-socket "$tmux_sock" >/dev/null

wrap() {  # wrap AGENT CAST: the recording under agtmux wrap, looping
  printf '%q ' "$agtmux" wrap --agent "$1" -- python3 "$player" --loop "$fixtures/$2"
}
# 241x81: after the two splits the Codex and Gemini panes are 120x40, the
# size they were recorded at (a smaller pane scrolls their screens apart).
"${tmux_cmd[@]}" new-session -d -s demo -n agents -x 241 -y 81 \
  "$(wrap claude claude/2.1.197/shell_approved/session.cast)"
"${tmux_cmd[@]}" split-window -t demo:agents -h \
  "$(wrap codex codex/0.169.0/shell_approved/session.cast)"
"${tmux_cmd[@]}" split-window -t demo:agents -v \
  "$(wrap gemini gemini/0.61.0/question/session.cast)"
"${tmux_cmd[@]}" new-window -t demo: -n unwrapped \
  "$(printf '%q ' "$sandbox/bin/claude" "$player" --loop "$fixtures/claude/2.1.197/question_single/session.cast")"

echo "agtmux demo: tmux server $tmux_sock (attach: tmux -S $tmux_sock attach)"
if ((once)); then
  sleep 12
  "$agtmux" list panes --all-targets
  exit 0
fi
if [[ -t 0 && -t 1 ]]; then
  "$agtmux" ui
else
  "$agtmux" watch --target demo
fi
