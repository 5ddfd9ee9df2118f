#!/bin/sh
# A stand-in agent for the tmux tests and the observe benchmark: shows
# pre-rendered screens of a recorded agent session in its pane. Tests run it
# through a symlink named after the agent (claude, codex, gemini), so its
# process name identifies the pane as that agent, as the real CLI would.
#   usage: <agent> DIR [N]   DIR holds screen<N>.ans files and a FIFO `ctl`;
#   each line written to ctl is the number of the next screen to show.
# Blocking on the FIFO costs no CPU while the "agent" is idle. The FIFO is
# opened once, read-write (Linux allows it on a FIFO): a reader is then always
# there, so a writer's line waits in the pipe until it is read. Reopening it
# for each line lost lines now and then on a loaded machine.
dir=$1
n=${2:-0}
exec 3<>"$dir/ctl"
while :; do
  printf '\033[H\033[2J'
  cat "$dir/screen$n.ans"
  read n <&3 || n=0
done
