#!/usr/bin/env bash
# report --output may not name one of report's inputs (the plan, the --baseline), however it is
# spelled (a symlink, ./ or another path): the write would replace the file it was made from.
# "-" writes stdout. run_output_onto_input.sh GPUPLAN PLAN WORK_DIR
set -uo pipefail
gpuplan=$1
plan_src=$2
work=$3
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cp "$plan_src" plan.json
ln -s plan.json link.json
"$gpuplan" report plan.json --format json --output base.json || fail "the baseline run failed"
cp plan.json plan.orig
cp base.json base.orig

# expect_refused DESCRIPTION PATTERN ARGS...: exit 2, one message matching PATTERN, inputs kept.
expect_refused() {
  local what=$1 pattern=$2
  shift 2
  local err code
  err=$("$gpuplan" "$@" 2>&1 >/dev/null)
  code=$?
  [[ $code -eq 2 ]] || fail "$what: exit $code, want 2"
  [[ $err =~ $pattern ]] || fail "$what: message '$err' does not match '$pattern'"
  cmp -s plan.json plan.orig || fail "$what: the plan was changed"
  cmp -s base.json base.orig || fail "$what: the baseline was changed"
  [[ -L link.json ]] || fail "$what: the symlink was replaced"
  cp plan.orig plan.json
  cp base.orig base.json
}
for format in markdown html json; do
  expect_refused "the plan ($format)" "^gpuplan: error: --output: plan.json is the plan file being reported" \
    report plan.json --format "$format" --output plan.json
done
expect_refused "./plan" "--output: ./plan.json is the plan file" report plan.json --output ./plan.json
expect_refused "a symlink to the plan" "--output: link.json is the plan file" report plan.json --output link.json
expect_refused "the plan through its symlink" "--output: plan.json is the plan file" report link.json --output plan.json
expect_refused "the baseline" "--output: base.json is the --baseline file" \
  report plan.json --baseline base.json --output base.json

# "-" is stdout, not a file called "-".
out=$("$gpuplan" report plan.json --output -) || fail "--output - failed"
[[ $out == *"gpuplan"* ]] || fail "--output - wrote nothing to stdout"
[[ ! -e ./- ]] || fail "--output - wrote a file called '-'"
# A file whose directory takes no temporary file: the reason is the temporary file's.
if [[ -f /proc/version ]]; then
  err=$("$gpuplan" report plan.json --output /proc/version 2>&1 >/dev/null)
  [[ $? -eq 2 && $err == *"cannot create a temporary file beside it"* ]] || fail "/proc/version: '$err'"
fi
# A symlink is written through: its target gets the report, the link stays a link (a rename
# over the link replaced it by a file and left the target stale).
mkdir -p artifacts && echo old > artifacts/report.md && ln -s artifacts/report.md out-link.md
"$gpuplan" report plan.json --output out-link.md || fail "--output through a symlink failed"
[[ -L out-link.md ]] || fail "--output replaced the symlink by a file"
grep -q gpuplan artifacts/report.md || fail "the symlink's target was not written"
# A dangling link: its target is created. A loop is refused.
ln -s artifacts/new.md dangling.md
"$gpuplan" report plan.json --output dangling.md || fail "--output through a dangling symlink failed"
[[ -L dangling.md && -s artifacts/new.md ]] || fail "the dangling symlink's target was not created"
ln -s loop-b.md loop-a.md && ln -s loop-a.md loop-b.md
expect_refused "a symlink loop" "--output: loop-a.md is a symbolic link loop" report plan.json --output loop-a.md
# No file name as typed: " " and "--" (a file called "--" was written).
expect_refused "a blank name" "--output: ' ' is only white space" report plan.json --output " "
expect_refused "a flag-like name" "--output: '--x' reads as a flag" report plan.json --output=--x
[[ ! -e ./--x && ! -e "./ " ]] || fail "a file named ' ' or '--x' was written"
# Another file is still written.
"$gpuplan" report plan.json --output other.md || fail "--output other.md failed"
[[ -s other.md ]] || fail "other.md is empty"
exit $((failures > 0))
