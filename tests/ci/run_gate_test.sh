#!/usr/bin/env bash
# The CI examples, run locally: run_gate_test.sh GPUPLAN SOURCE_DIR WORK_DIR
# 1. examples/ci/github-actions.yml and gitlab-ci.yml run the same build, install and gate
#    commands, on the same plan, uploading the same folder (so they cannot drift apart).
# 2. The gate line the workflows run, run here against the built binary (GITHUB_STEP_SUMMARY
#    in a temporary file): exit 0 on a passing plan, 1 on a failing one, 2 on a bad one, and
#    the summary holds the verdict table (or the error), with a baseline when one is given.
set -uo pipefail
gpuplan=$1
src=$2
work=$3
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

github=$src/examples/ci/github-actions.yml
gitlab=$src/examples/ci/gitlab-ci.yml
script=$src/examples/ci/gpuplan-gate.sh
for f in "$github" "$gitlab" "$script"; do
  [[ -f $f ]] || { echo "FAIL: $f is missing" >&2; exit 1; }
done
[[ -x $script ]] || fail "$script is not executable"

# --- 1. The two pipelines cannot drift -------------------------------------------------------
# Their shell commands that build, install and gate, in order, as written.
commands() {
  sed -E 's/^[[:space:]]*(- )?(run: )?//' "$1" | grep -E '^(\./tools/|cmake |examples/ci/)'
}
gh_commands=$(commands "$github")
gl_commands=$(commands "$gitlab")
want_commands='./tools/install-deps.sh
cmake --preset release
cmake --build --preset release
cmake --install build/release --prefix /usr/local
examples/ci/gpuplan-gate.sh "$GPUPLAN_PLAN" "$GPUPLAN_OUT"'
[[ $gh_commands == "$want_commands" ]] || fail "github-actions.yml runs:"$'\n'"$gh_commands"$'\n'"want:"$'\n'"$want_commands"
[[ $gl_commands == "$want_commands" ]] || fail "gitlab-ci.yml runs:"$'\n'"$gl_commands"$'\n'"want:"$'\n'"$want_commands"
# Each setting once per file, the same value in both.
setting() {
  grep -E "^[[:space:]]*$2:" "$1" | sed -E "s/^[[:space:]]*$2:[[:space:]]*//"
}
for name in GPUPLAN_PLAN GPUPLAN_OUT; do
  a=$(setting "$github" "$name")
  b=$(setting "$gitlab" "$name")
  [[ -n $a && $a == "$b" ]] || fail "$name differs: github '$a', gitlab '$b'"
done
plan=$(setting "$github" GPUPLAN_PLAN)
out=$(setting "$github" GPUPLAN_OUT)
[[ -f $src/$plan ]] || fail "GPUPLAN_PLAN $plan is not a file"
grep -q "path: \${{ env.GPUPLAN_OUT }}/" "$github" || fail "github-actions.yml does not upload \$GPUPLAN_OUT"
grep -qE "^[[:space:]]*- $out/\$" "$gitlab" || fail "gitlab-ci.yml does not keep $out/ as an artifact"
grep -q '"name": "release"' "$src/CMakePresets.json" || fail "CMakePresets.json has no release preset"
[[ -x $src/tools/install-deps.sh ]] || fail "tools/install-deps.sh is not executable"
for f in "$github" "$gitlab"; do
  grep -q 'comment.md' "$f" || fail "$f does not post comment.md"
done
grep -q 'GITHUB_STEP_SUMMARY' "$script" || fail "the gate script writes no job summary"

# --- 2. The gate line, run as the workflows run it ----------------------------------------------
gate_line=$(grep -E '^examples/ci/' <<<"$gh_commands")
bindir=$(cd "$(dirname "$gpuplan")" && pwd)
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
src=$(cd "$src" && pwd)

# run NAME PLAN [VAR=VALUE...]: runs the gate line from the source tree with that plan, the
# output under WORK/NAME and the job summary in WORK/NAME.summary; prints the exit code.
run() {
  local name=$1 plan_file=$2
  shift 2
  (
    cd "$src" || exit 99
    export PATH="$bindir:$PATH" GPUPLAN_PLAN="$plan_file" GPUPLAN_OUT="$work/$name"
    export GITHUB_STEP_SUMMARY="$work/$name.summary" GPUPLAN_TODAY=2026-12-01
    unset GPUPLAN GPUPLAN_BASELINE GPUPLAN_BASE_PLAN GPUPLAN_CATALOG
    for kv in "$@"; do export "${kv?}"; done
    : >"$GITHUB_STEP_SUMMARY"
    bash -c "$gate_line" >"$work/$name.log" 2>&1
  )
  echo $?
}
has() {  # has NAME FILE TEXT
  grep -qF -- "$3" "$2" || fail "$1: $(basename "$2") lacks '$3'"
}

# A plan whose expectations hold: exit 0, the verdict table in the summary, the report files.
code=$(run pass "$plan")
[[ $code == 0 ]] || fail "pass: exit $code, want 0 ($(cat "$work/pass.log"))"
has pass "$work/pass.summary" "PASS:"
has pass "$work/pass.summary" "| deployment | result | expectation | expected | got | unit | pricing | reason |"
for f in check.txt report.md report.json comment.md; do
  [[ -s $work/pass/$f ]] || fail "pass: $f is missing or empty"
done
has pass "$work/pass/report.json" '"results": ['
has pass "$work/pass/check.txt" "PASS"
cmp -s "$work/pass/report.md" "$work/pass/comment.md" || fail "pass: comment.md is not the report"

# Expectations chosen to fail: exit 1, the report still written, the failures named.
code=$(run failing tests/cli/plans/failing.json)
[[ $code == 1 ]] || fail "failing: exit $code, want 1 ($(cat "$work/failing.log"))"
has failing "$work/failing.summary" "FAIL"
has failing "$work/failing.summary" "| deployment | result | expectation |"
has failing "$work/failing.summary" "over_budget"
[[ -s $work/failing/report.json ]] || fail "failing: no report.json"

# A plan with a syntax error: exit 2, no report, the error in the summary and the comment.
code=$(run bad tests/cli/plans/bad-syntax.json)
[[ $code == 2 ]] || fail "bad: exit $code, want 2 ($(cat "$work/bad.log"))"
has bad "$work/bad.summary" "could not be checked (exit 2)"
has bad "$work/bad.summary" "bad-syntax.json"
has bad "$work/bad/comment.md" "bad-syntax.json"
[[ ! -e $work/bad/report.md ]] || fail "bad: a report was written for a bad plan"

# A pull request that raised the load: the base branch's plan becomes the baseline.
sed 's/"concurrency": 256/"concurrency": 128/' "$src/$plan" >"$work/base-plan.json"
cmp -s "$src/$plan" "$work/base-plan.json" && fail "base plan: the edit changed nothing"
code=$(run baseline "$plan" GPUPLAN_BASE_PLAN="$work/base-plan.json")
[[ $code == 0 ]] || fail "baseline: exit $code, want 0 ($(cat "$work/baseline.log"))"
has baseline "$work/baseline.summary" "changes from"
has baseline "$work/baseline.summary" "plan changed"
[[ -s $work/baseline/baseline.json ]] || fail "baseline: no baseline.json"

# A new plan (none on the base branch): no baseline, a note, the gate as usual.
code=$(run new-plan "$plan" GPUPLAN_BASE_PLAN="$work/does-not-exist.json")
[[ $code == 0 ]] || fail "new-plan: exit $code, want 0"
has new-plan "$work/new-plan.log" "no baseline"

if ((failures > 0)); then
  echo "$failures failure(s); logs in $work" >&2
  exit 1
fi
echo "ci examples: the workflows agree and the gate exits 0/1/2 as documented"
