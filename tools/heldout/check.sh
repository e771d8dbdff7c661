#!/bin/sh
# Out-of-sample check of the performance model: TensorRT-LLM measurements that data/benchmarks.json
# leaves out (perf-overview-v1.0-unseen.json) and an older table with other GPUs and models
# (perf-overview-v0.17.json), the tables of its other versions (perf-overview-other-versions.json:
# v0.15 to release/1.2), and other engines' public measurements (community-2026.json: SGLang,
# vLLM on CUDA and ROCm, batch 1 to max load). Prints validate's summary for each (and, where rows
# publish a mean TPOT, the mean ITL's error against it); --full prints every row.
# Usage: tools/heldout/check.sh [BINARY] [--full]
set -eu
here=$(dirname "$0")
bin=${1:-build/dev/src/gpuplan}
for f in "$here"/perf-overview-v1.0-unseen.json "$here"/perf-overview-v0.17.json "$here"/perf-overview-other-versions.json \
  "$here"/community-2026.json "$here"/community-2026b.json "$here"/community-2026d.json "$here"/community-2026e.json \
  "$here"/community-2026f.json "$here"/community-2026g.json \
  "$here"/community-2026h.json "$here"/community-2026i.json "$here"/community-2026j.json \
  "$here"/community-2026k.json "$here"/community-2026l.json "$here"/community-2026m.json \
  "$here"/community-2026n.json "$here"/community-2026n-mistral.json "$here"/community-2026o.json \
  "$here"/community-2026p.json "$here"/community-2026q.json \
  "$here"/community-2026r.json "$here"/community-2026s.json \
  "$here"/community-2026t.json "$here"/community-2026u.json "$here"/community-2026u-qwen3coder.json \
  "$here"/community-2026v.json "$here"/community-2026w.json \
  "$here"/community-2026x.json "$here"/community-2026x-qwen3-4b.json "$here"/community-2026y.json \
  "$here"/community-2026z.json "$here"/community-2026aa.json "$here"/community-2026ab.json \
  "$here"/community-2026ac.json "$here"/community-2026ad.json "$here"/community-2026ae.json \
  "$here"/community-2026af.json "$here"/community-2026ag.json "$here"/community-2026ah.json \
  "$here"/community-2026ai.json "$here"/community-2026aj.json "$here"/community-2026ak.json; do
  echo "== $(basename "$f")"
  # A file's models missing from the built-in catalog come in its own catalog file.
  extra=""
  case "$f" in *-mistral.json) extra="--catalog ${f%-mistral.json}-catalog.json" ;; esac
  [ -f "${f%.json}-catalog.json" ] && extra="--catalog ${f%.json}-catalog.json"
  if [ "${2:-}" = --full ]; then
    "$bin" validate --benchmarks "$f" $extra 2>/dev/null
  else
    "$bin" validate --benchmarks "$f" $extra 2>/dev/null | grep -E '^(summary|throughput ratios|latency|ttft)'
  fi
done
