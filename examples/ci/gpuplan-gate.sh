#!/usr/bin/env bash
# gpuplan-gate.sh PLAN [OUT_DIR]: the gpuplan steps of github-actions.yml and gitlab-ci.yml in
# this folder. Both call this one script, so they run the same commands, and a test
# (tests/ci/run_gate_test.sh) runs it locally against the built binary.
#
# Exit code: gpuplan check's. 0: every expectation holds; 1: one fails (the pipeline stops);
# 2: a bad plan file or flag; 3: an internal error. The report is written in every case but 2/3.
#
# OUT_DIR (default gpuplan-report) receives:
#   check.txt    `gpuplan check PLAN`, one line per expectation (also printed to the job log)
#   report.md    `gpuplan report PLAN --format markdown`: verdicts, memory, throughput, cost,
#                provenance, and what changed since the baseline when there is one
#   report.json  the same as JSON: the next run's --baseline
#   report.html  when this gpuplan writes HTML (`report --format html`)
#   comment.md   what to post on the pull or merge request: report.md, or the verdicts alone
#                when the report is longer than a comment may be
# and appends report.md (or the error) to $GITHUB_STEP_SUMMARY when that is set.
#
# Environment:
#   GPUPLAN            the binary (default: gpuplan on PATH)
#   GPUPLAN_BASELINE   a previous run's report.json to compare with, or
#   GPUPLAN_BASE_PLAN  the plan file as the base branch has it: its report is the baseline
set -uo pipefail

if (($# < 1 || $# > 2)); then
  echo "usage: $0 PLAN [OUT_DIR]" >&2
  exit 2
fi
plan=$1
out=${2:-gpuplan-report}
gpuplan=${GPUPLAN:-gpuplan}
# GitHub's comment limit is 65,536 characters; GitLab's is larger. Leave room for the markup.
comment_limit=60000

summary() {
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    cat >>"$GITHUB_STEP_SUMMARY"
  else
    cat >/dev/null
  fi
}

mkdir -p "$out" || exit 2

# 1. The gate: one line per expectation in the log; its exit code is this script's.
"$gpuplan" check "$plan" >"$out/check.txt" 2>"$out/check.err"
code=$?
cat "$out/check.txt"
cat "$out/check.err" >&2
if ((code >= 2)); then
  # A bad plan is not a failed expectation: say so where the reviewer looks, and stop.
  {
    echo "## gpuplan: the plan could not be checked (exit $code)"
    echo
    echo '```'
    cat "$out/check.err"
    echo '```'
  } | tee "$out/comment.md" | summary
  exit "$code"
fi

# 2. The baseline, when there is one: a previous run's JSON, or the base branch's plan.
baseline=()
if [[ -n ${GPUPLAN_BASELINE:-} ]]; then
  baseline=(--baseline "$GPUPLAN_BASELINE")
elif [[ -n ${GPUPLAN_BASE_PLAN:-} ]]; then
  if [[ ! -f $GPUPLAN_BASE_PLAN ]]; then
    echo "gpuplan-gate: note: $GPUPLAN_BASE_PLAN does not exist (a new plan?): no baseline" >&2
  elif "$gpuplan" report "$GPUPLAN_BASE_PLAN" --format json --output "$out/baseline.json"; then
    baseline=(--baseline "$out/baseline.json")
  else
    echo "gpuplan-gate: note: the base branch's plan does not evaluate: no baseline" >&2
  fi
fi

# 3. The report: markdown for people, JSON for the next run, HTML when this gpuplan writes it.
"$gpuplan" report "$plan" --format markdown ${baseline[@]+"${baseline[@]}"} --output "$out/report.md" || exit $?
"$gpuplan" report "$plan" --format json --output "$out/report.json" || exit $?
if "$gpuplan" report --help | grep -q 'html'; then
  "$gpuplan" report "$plan" --format html ${baseline[@]+"${baseline[@]}"} --output "$out/report.html" || exit $?
fi

# 4. The job summary and the comment.
summary <"$out/report.md"
if (($(wc -c <"$out/report.md") <= comment_limit)); then
  cp "$out/report.md" "$out/comment.md"
else
  {
    "$gpuplan" check "$plan" --format markdown 2>/dev/null
    echo
    echo "The full report is in the job's gpuplan-report artifact (report.md, report.html)."
  } >"$out/comment.md"
fi
exit "$code"
