#!/bin/sh
# Builds the libFuzzer targets with clang and runs each one briefly on its
# seed corpus (tests/fuzz/corpus/<target>/); exits non-zero on any crash,
# leak or sanitizer report. New inputs go to a scratch directory, so the
# committed corpus only changes by hand.
#   tests/fuzz/run.sh                 # 20 s per target
#   FUZZ_TIME=300 tests/fuzz/run.sh   # longer
#   BUILD_DIR=/tmp/b tests/fuzz/run.sh
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$src/build-fuzz}
time=${FUZZ_TIME:-20}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" "$src" \
    -Dfuzzers=true -Dtests=true -Dbenchmarks=false -Dbuildtype=debugoptimized
fi
ninja -C "$build" tests/fuzz/fuzz_ref tests/fuzz/fuzz_event tests/fuzz/fuzz_config
export UBSAN_OPTIONS="suppressions=$src/tests/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/agtmux-fuzz-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
status=0
for t in ref event config; do
  mkdir -p "$scratch/$t" "$scratch/artifacts-$t"
  echo "== fuzz_$t: ${time}s on tests/fuzz/corpus/$t"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$time" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$scratch/artifacts-$t/" \
      "$scratch/$t" "$src/tests/fuzz/corpus/$t"; then
    echo "fuzz_$t FAILED; reproducer(s):" >&2
    for f in "$scratch/artifacts-$t"/*; do
      [ -e "$f" ] || continue
      keep="$build/crash-$t-$(basename "$f")"
      cp "$f" "$keep"
      echo "  $keep" >&2
    done
    status=1
  fi
done
exit $status
