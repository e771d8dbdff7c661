#!/usr/bin/env python3
"""Runs every row of the held-out training files through `gpuplan train` and prints, per file,
the median and worst error (estimate / measured - 1) of its throughput, memory and largest-context
rows and how many published verdicts (OOM or ran) it gets right.

Usage: tools/heldout/train_errors.py [--gpuplan build/dev/src/gpuplan] [--rows] [FILE.json ...]
(default files: tools/heldout/train-public*.json). A row's `train-configs/` paths are read next to
its file."""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys


def run_row(gpuplan, row, folder):
    args = [a.replace("train-configs/", os.path.join(folder, "train-configs") + "/") for a in row["args"]]
    env = dict(os.environ, GPUPLAN_TODAY=os.environ.get("GPUPLAN_TODAY", "2026-12-01"))
    p = subprocess.run([gpuplan, "train", *args, "--format", "json"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return {"id": row["id"], "kind": "refused", "detail": p.stderr.strip()[:200]}
    out = json.loads(p.stdout)
    step, mem = out["step"], out["memory_per_gpu"]
    gpus = out["inputs"]["layout"]["gpus"]
    r = {"id": row["id"]}
    if row.get("measured_tokens_per_s_per_gpu") is not None:
        est = step["tokens_per_s"] / gpus
        meas = row["measured_tokens_per_s_per_gpu"]
        r.update(kind="throughput", est=est, meas=meas, err=est / meas - 1,
                 inside=step["tokens_per_s_low"] / gpus <= meas <= step["tokens_per_s_high"] / gpus)
    elif row.get("measured_peak_memory_gib") is not None:
        est = mem["total_bytes"] / 2**30
        r.update(kind="memory", est=est, meas=row["measured_peak_memory_gib"], err=est / row["measured_peak_memory_gib"] - 1,
                 fits=mem["fits"])
    elif row.get("measured_peak_memory_gb") is not None:
        est = mem["total_bytes"] / 1e9
        r.update(kind="memory", est=est, meas=row["measured_peak_memory_gb"], err=est / row["measured_peak_memory_gb"] - 1,
                 fits=mem["fits"])
    elif row.get("measured_max_seq_tokens") is not None:
        est = out["limits"]["max_seq_tokens"]
        r.update(kind="max_seq", est=est, meas=row["measured_max_seq_tokens"], err=est / row["measured_max_seq_tokens"] - 1)
    elif row.get("measured_verdict") is not None:
        fits = mem["fits"]
        r.update(kind="verdict", est="fits" if fits else "does not fit", meas=row["measured_verdict"],
                 ok=(not fits) if row["measured_verdict"] == "OOM" else fits,
                 detail=f'{mem["total_bytes"] / 1e9:.2f} of {mem["capacity_bytes"] / 1e9:.2f} GB')
    else:
        r.update(kind="none")
    return r


def summary(kind, rows):
    errs = [r["err"] for r in rows]
    worst = max(rows, key=lambda r: abs(r["err"]))
    line = (f"  {kind:10s} {len(rows):3d} rows: median {statistics.median(errs) * 100:+6.1f} %, "
            f"median |err| {statistics.median(abs(e) for e in errs) * 100:5.1f} %, "
            f"worst {worst['err'] * 100:+6.1f} % ({worst['id']})")
    if kind == "throughput":
        line += f", {sum(r['inside'] for r in rows)} inside the band"
    return line


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpuplan", default=os.path.join(here, "..", "..", "build", "dev", "src", "gpuplan"))
    parser.add_argument("--rows", action="store_true", help="print every row")
    parser.add_argument("files", nargs="*")
    a = parser.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(here, "train-public*.json")))
    for f in files:
        rows = [run_row(a.gpuplan, row, os.path.dirname(os.path.abspath(f))) for row in json.load(open(f))["runs"]]
        print(os.path.basename(f))
        for kind in ("throughput", "memory", "max_seq"):
            chosen = [r for r in rows if r["kind"] == kind]
            if chosen:
                print(summary(kind, chosen))
        verdicts = [r for r in rows if r["kind"] == "verdict"]
        if verdicts:
            wrong = [f'{r["id"]} ({r["est"]}, {r["detail"]})' for r in verdicts if not r["ok"]]
            print(f"  verdicts   {len(verdicts):3d} rows: {len(verdicts) - len(wrong)} right" +
                  (f"; wrong: {', '.join(wrong)}" if wrong else ""))
        # A measured peak is a run that ran: "does not fit" for it is a wrong verdict too.
        no_fit = [r["id"] for r in rows if r["kind"] == "memory" and not r["fits"]]
        if no_fit:
            print(f"  memory rows that ran but are called 'does not fit': {', '.join(no_fit)}")
        refused = [r for r in rows if r["kind"] == "refused"]
        for r in refused:
            print(f"  refused: {r['id']}: {r['detail']}")
        if a.rows:
            for r in rows:
                if "err" in r:
                    print(f"    {r['id']:40s} {r['kind']:10s} est {r['est']:>10.1f} meas {r['meas']:>10.1f} {r['err'] * 100:+7.1f} %"
                          + ("" if r.get("inside", True) else "  outside band"))
                elif r["kind"] == "verdict":
                    print(f"    {r['id']:40s} verdict    {r['est']} ({r['detail']}), measured {r['meas']}: {'right' if r['ok'] else 'WRONG'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
