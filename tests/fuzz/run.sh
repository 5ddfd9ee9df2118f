#!/bin/sh
# Builds the libFuzzer targets with clang and runs each one briefly on its
# seed corpus (tests/fuzz/corpus/<target>/) plus seeds made here: deep
# nesting and large inputs, which are too big to keep in the repository.
# Exits non-zero on any crash, leak, timeout or sanitizer report. New inputs
# go to a scratch directory, so the committed corpus only changes by hand.
# The targets and their -max_len are listed in tests/fuzz/targets.
#   tests/fuzz/run.sh                   # 10 s per target
#   FUZZ_TIME=300 tests/fuzz/run.sh     # longer
#   tests/fuzz/run.sh http spool        # some targets only
#   BUILD_DIR=/tmp/b tests/fuzz/run.sh
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$src/build-fuzz}
time=${FUZZ_TIME:-10}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" "$src" \
    -Dfuzzers=true -Dtests=true -Dbenchmarks=false -Dbuildtype=debugoptimized
fi
# "<name> <max_len>" per target, comments and blank lines left out.
list=$(grep -v '^[[:space:]]*#' "$src/tests/fuzz/targets" | grep -v '^[[:space:]]*$')
if [ $# -gt 0 ]; then
  want=" $* "
  list=$(echo "$list" | while read -r name len; do
    case "$want" in *" $name "*) echo "$name $len" ;; esac
  done)
fi
ninja -C "$build" $(echo "$list" | while read -r name len; do echo "tests/fuzz/fuzz_$name"; done)
export UBSAN_OPTIONS="suppressions=$src/tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/agtmux-fuzz-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# repeat TEXT COUNT: TEXT written COUNT times, no newline.
repeat() { i=0; while [ $i -lt "$2" ]; do printf '%s' "$1"; i=$((i + 1)); done; }
# brackets N: N '[' then N ']' (a million levels overflowed RapidJSON's
# recursive parser).
brackets() { head -c "$1" /dev/zero | tr '\0' '['; head -c "$1" /dev/zero | tr '\0' ']'; }
seeds() {  # seeds NAME DIR: the made seeds of one target
  case "$1" in
    event|http|action|hook|spool)
      { printf '{"events":'; brackets 200000; printf '}'; } > "$2/deep"
      { printf '{"hook_event_name":"PreToolUse","session_id":"s","tool_input":'; brackets 200000; printf '}'; } > "$2/deep-tool-input"
      { printf '{"raw_payload":"'; head -c 900000 /dev/zero | tr '\0' 'a'; printf '"}'; } > "$2/large-string"
      if [ "$1" = http ]; then
        { printf 'POST /v1/events HTTP/1.1\r\nContent-Length: 400000\r\n\r\n'; brackets 200000; } > "$2/deep-request"
      fi ;;
    redact)
      repeat 'sk-' 20000 > "$2/sk-run"
      { printf -- '-----BEGIN PRIVATE KEY-----\n'; head -c 200000 /dev/zero | tr '\0' 'A'; } > "$2/key-body"
      repeat 'password="' 10000 > "$2/open-quotes" ;;
    tmux|remote|scanner|cast|patterns)
      { head -c 200000 /dev/zero | tr '\0' '['; } > "$2/brackets"
      { printf '\033]0;'; head -c 200000 /dev/zero | tr '\0' 'x'; } > "$2/long-osc" ;;
  esac
}

status=0
echo "$list" | { while read -r t len; do
  mkdir -p "$scratch/$t" "$scratch/artifacts-$t" "$scratch/made-$t"
  seeds "$t" "$scratch/made-$t"
  echo "== fuzz_$t: ${time}s, -max_len=$len, on tests/fuzz/corpus/$t and made seeds"
  corpus="$src/tests/fuzz/corpus/$t"
  [ -d "$corpus" ] || corpus=""
  # The pattern files themselves are the best seeds of their parser.
  [ "$t" = patterns ] && corpus="$src/patterns"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$time" -timeout=10 -max_len="$len" \
      -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$scratch/artifacts-$t/" \
      "$scratch/$t" $corpus "$scratch/made-$t"; then
    echo "fuzz_$t FAILED; reproducer(s):" >&2
    for f in "$scratch/artifacts-$t"/*; do
      [ -e "$f" ] || continue
      keep="$build/crash-$t-$(basename "$f")"
      cp "$f" "$keep"
      echo "  $keep" >&2
    done
    status=1
  fi
done; exit $status; }
