#!/bin/sh
# A stand-in agent for the tmux tests and the observer benchmark: shows
# pre-rendered screens of a recorded agent session in its pane. Tests run it
# through a symlink named after the agent (claude, codex, gemini), so its
# process name identifies the pane as that agent, as the real CLI would.
#   usage: <agent> DIR [N]   DIR holds screen<N>.ans files and a FIFO `ctl`;
#   each line written to ctl is the number of the next screen to show.
# Blocking on the FIFO costs no CPU while the "agent" is idle.
dir=$1
n=${2:-0}
while :; do
  printf '\033[H\033[2J'
  cat "$dir/screen$n.ans"
  read n < "$dir/ctl" || n=0
done
