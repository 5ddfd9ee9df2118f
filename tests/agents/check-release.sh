#!/usr/bin/env bash
# One command for an agent's new release: install it next to the pinned one,
# record the whole scenario set for it (every permission mode) into a scratch
# dir, check the recordings against their scenarios, and replay the detection
# gates on them. Prints which gates break, per agent/version/mode.
#
#   tests/agents/check-release.sh AGENT VERSION [--out DIR] [--modes M,M...] [--only NAME,...]
#                                 [--max-load N] [--keep]
#   tests/agents/check-release.sh --newest [AGENT...] [options as above]
#
#   --newest  the release of the day: for each AGENT (default: claude codex
#             gemini) the version npm serves as `latest`, checked as above, one
#             after the other; its groups are scored as held back (HELD lines:
#             no rule was written from it) and the exit status is 1 when any
#             agent's release fails. For a scheduled job: a drift shows the
#             day the release appears.
#
#   AGENT     claude, codex or gemini
#   VERSION   an npm version of its CLI (npm view @anthropic-ai/claude-code version)
#   --out     the scratch fixtures root (default /tmp/agtmux-release/<agent>-<version>);
#             its recordings use the layout of tests/fixtures (README.md there), so a
#             good run can be copied into the corpus as it is
#   --modes   only these permission modes (default: every mode with scenarios)
#   --only    only these scenario names
#   --max-load, --keep: passed to harness.py record
#
# Needs the build's detect_corpus (build/tests/detect/detect_corpus, or
# $AGTMUX_BUILD_DIR/tests/detect/detect_corpus). Exit status: 0 when every
# scenario recorded as scripted and every gate passes, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 ]] || usage

if [[ $1 == --newest ]]; then
  shift
  agents=()
  while [[ $# -gt 0 && $1 != --* ]]; do agents+=("$1"); shift; done
  [[ ${#agents[@]} -gt 0 ]] || agents=(claude codex gemini)
  rc=0
  for a in "${agents[@]}"; do
    case "$a" in claude) pkg=@anthropic-ai/claude-code ;; codex) pkg=@openai/codex ;;
                 gemini) pkg=@google/gemini-cli ;;
                 *) echo "check-release: unknown agent '$a'" >&2; usage ;; esac
    v=$(npm view "$pkg" version 2>/dev/null) || v=""
    if [[ -z "$v" ]]; then
      echo "check-release: npm did not name the newest $pkg" >&2; rc=1; continue
    fi
    echo "== the release of the day: $a $v" >&2
    AGTMUX_HELD_BACK="${AGTMUX_HELD_BACK:+$AGTMUX_HELD_BACK,}$a/$v" "$0" "$a" "$v" "$@" || rc=1
  done
  exit $rc
fi

[[ $# -ge 2 ]] || usage
agent=$1 version=$2; shift 2
case "$agent" in claude|codex|gemini) ;; *) echo "check-release: unknown agent '$agent'" >&2; usage ;; esac
out="/tmp/agtmux-release/$agent-$version" modes="" only="" rec_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --max-load) rec_args+=(--max-load "$2"); shift 2 ;;
    --keep) rec_args+=(--keep); shift ;;
    *) echo "check-release: unknown option $1" >&2; usage ;;
  esac
done
tool="${AGTMUX_BUILD_DIR:-$root/build}/tests/detect/detect_corpus"
[[ -x "$tool" ]] || { echo "check-release: $tool not built (ninja -C build)" >&2; exit 2; }

echo "== installing $agent@$version" >&2
"$here/install-agents.sh" "$agent@$version" >/dev/null || exit 1

# The scenarios: the base mode's in scenarios/<agent>/, each other mode's in
# scenarios/<agent>/<mode>/.
scenarios=()
while IFS= read -r f; do
  rel=${f#"$here/scenarios/$agent/"}
  mode=base; [[ "$rel" == */* ]] && mode=${rel%%/*}
  name=$(basename "$f" .json)
  if [[ -n "$modes" && ",$modes," != *",$mode,"* ]]; then continue; fi
  if [[ -n "$only" && ",$only," != *",$name,"* ]]; then continue; fi
  scenarios+=("$f")
done < <(find "$here/scenarios/$agent" -name '*.json' | sort)
[[ ${#scenarios[@]} -gt 0 ]] || { echo "check-release: no scenarios selected" >&2; exit 2; }

mkdir -p "$out"
echo "== recording ${#scenarios[@]} scenarios of $agent $version into $out" >&2
recorded=0 warned=0
for f in "${scenarios[@]}"; do
  if python3 "$here/harness.py" record "$f" --agent-version "$version" --fixtures-root "$out" "${rec_args[@]}" \
       >/dev/null 2>>"$out/record.log"; then
    recorded=$((recorded + 1))
  else
    warned=$((warned + 1))
    echo "   ${f#"$here/scenarios/"}: did not go as scripted (see $out/record.log)" >&2
  fi
done

echo "== checking the recordings against their scenarios" >&2
python3 "$here/check_corpus.py" "$out" | grep -v '^ok ' >&2
corpus_ok=${PIPESTATUS[0]}

echo "== detection gates (PTY >= 99 %, CAP >= 97 %, no false or missed waits, right choices)"
AGTMUX_PATTERNS_DIR="${AGTMUX_PATTERNS_DIR:-$root/patterns}" "$tool" --gates "$out"
gates_ok=$?

echo "== $agent $version: $recorded scenarios as scripted, $warned not; recordings $([[ $corpus_ok -eq 0 ]] && echo valid || echo INVALID); gates $([[ $gates_ok -eq 0 ]] && echo pass || echo FAIL)"
[[ $warned -eq 0 && $corpus_ok -eq 0 && $gates_ok -eq 0 ]]
