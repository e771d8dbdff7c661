#!/bin/sh
# Line and region coverage of src/lib and src/cli under the whole test suite (clang 14
# source-based coverage: -fprofile-instr-generate -fcoverage-mapping, llvm-profdata-14,
# llvm-cov-14). Not part of CI: a developer's view of what the tests never run.
#   tools/coverage.sh           configure, build, test, print the per-file summary
#   tools/coverage.sh --html    also write build/coverage/html/index.html
# Profiles merge online (LLVM_PROFILE_FILE %4m in the preset): a few files, not one per process.
# The summary goes to stdout and build/coverage/summary.txt. A failing test still reports.
set -eu
cd "$(dirname "$0")/.."
build=build/coverage
cmake --preset coverage >/dev/null
cmake --build --preset coverage
rm -rf "$build/profiles"
mkdir -p "$build/profiles"
status=0
ctest --preset coverage || status=$?
llvm-profdata-14 merge -sparse "$build"/profiles/*.profraw -o "$build/coverage.profdata"
# Every instrumented executable the tests ran: the CLI and the test binaries.
objects=""
for exe in $(find "$build/src" "$build/tests" -maxdepth 1 -type f -perm -u+x -name 'gpuplan*'); do
  if llvm-objdump-14 --section-headers "$exe" 2>/dev/null | grep -q __llvm_covmap; then
    if [ -z "$objects" ]; then objects="$exe"; else objects="$objects -object $exe"; fi
  fi
done
# shellcheck disable=SC2086 # $objects is a list of words
llvm-cov-14 report $objects -instr-profile="$build/coverage.profdata" src/lib src/cli | tee "$build/summary.txt"
if [ "${1:-}" = "--html" ]; then
  # shellcheck disable=SC2086
  llvm-cov-14 show $objects -instr-profile="$build/coverage.profdata" -format=html \
    -output-dir="$build/html" src/lib src/cli
  echo "coverage: $build/html/index.html"
fi
[ "$status" -eq 0 ] || echo "coverage: some tests failed (ctest exit $status); the figures cover what ran" >&2
exit "$status"
