#!/usr/bin/env bash
# Runs the whole agtmux test suite, the way CI does:
#   1. installs what is missing (scripts/install-deps.sh),
#   2. builds with warnings as errors and runs every suite (unit, tmux, e2e,
#      and the detection corpus gates),
#   3. builds again under AddressSanitizer + UndefinedBehaviorSanitizer
#      (build-asan/) and runs every suite there too, counted like step 2,
#   4. runs each fuzz target briefly on its seed corpus (clang + libFuzzer),
#   5. prints one closing line: "tests: N passed, N failed, N skipped".
# Exit status is non-zero when anything failed.
#   scripts/test.sh [--quick]   --quick: skip the sanitizer build and fuzzing
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    *) echo "test.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh || { echo "test.sh: installing dependencies failed" >&2; exit 1; }

status=0
runs=()

# build_and_test DIR [meson options...]: configure (once), build, run all suites.
build_and_test() {
  local dir=$1; shift
  if [[ ! -f "$dir/build.ninja" ]]; then
    meson setup "$dir" -Dwerror=true "$@" || { status=1; return 1; }
  else
    meson configure "$dir" -Dwerror=true "$@" >/dev/null || { status=1; return 1; }
  fi
  ninja -C "$dir" || { echo "test.sh: build failed in $dir" >&2; status=1; return 1; }
  meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
  cp "$dir/meson-logs/testlog.junit.xml" "$dir/suites.junit.xml" 2>/dev/null || rm -f "$dir/suites.junit.xml"
  cp "$dir/meson-logs/testlog.json" "$dir/suites.testlog.json" 2>/dev/null || rm -f "$dir/suites.testlog.json"
  runs+=("$dir")
}

echo "=== build and test (build/)"
build_and_test build -Dsanitizers=false
# The corpus gates (suite "gates") ran and counted above; their figures:
grep -h "(all scenarios)" build/meson-logs/testlog.txt 2>/dev/null || true

if ((!quick)); then
  # Leaks and UB fail the test that meets them; a program a test spawns
  # (agtmuxd, agtmux) fails it through its exit status.
  echo "=== build and test under ASan+UBSan (build-asan/)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    build_and_test build-asan -Dsanitizers=true -Dbenchmarks=false

  if [[ -x tests/fuzz/run.sh ]]; then
    echo "=== fuzz targets (brief, on their seed corpora)"
    if tests/fuzz/run.sh; then fuzz_result=pass; else fuzz_result=fail; status=1; fi
  fi
fi

# One closing line over every run, counting each GoogleTest case (meson's
# JUnit log expands gtest binaries into their cases) and each other test.
python3 - "${runs[@]}" "${fuzz_result:-}" <<'PY'
import sys, xml.etree.ElementTree as ET, os, json
passed = failed = skipped = 0
args = sys.argv[1:]
fuzz = args[-1] if args else ""
for d in args[:-1]:
    path = os.path.join(d, "suites.junit.xml")
    if not os.path.exists(path):
        failed += 1
        continue
    # meson's JUnit log writes a test that timed out (or could not run) as a
    # testcase without <failure>; its JSON log has the result.
    broken = set()
    try:
        with open(os.path.join(d, "suites.testlog.json")) as f:
            for line in f:
                r = json.loads(line)
                if r.get("result") in ("TIMEOUT", "ERROR"):
                    broken.add(r["name"])
    except (OSError, ValueError):
        failed += 1
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None or case.get("name") in broken:
            broken.discard(case.get("name"))
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    failed += len(broken)  # a broken test with no testcase of its own name
if fuzz == "pass":
    passed += 1
elif fuzz == "fail":
    failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
