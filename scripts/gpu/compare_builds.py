#!/usr/bin/env python3
"""Times the winners of a committed leaderboard with two builds of attn-tune, interleaved.

Used to show that a refactoring changed no kernel's speed: each (kernel, shape)'s
rank-1 configuration is benched with the old build on the old tree's sources and
with the new build on the new tree's, alternating old/new REPS times; the table
gives both medians and the median of the per-repetition ratios old/new.

  compare_builds.py --old-root OLD --old-bin OLD/build/app/attn-tune \
                    --new-root . --new-bin build-gpu/app/attn-tune \
                    --leaderboard results/h200/flash_attn_fwd_wgmma.json \
                    --spec configs/flash_attn_fwd_wgmma.json [--reps 3] [--out FILE.md]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402


def bench(binary, root, spec, kernel, key, shape, extra):
    cmd = [binary, "bench", spec, "-k", kernel, "--set", key, "-s", shape, "--json"] + extra
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    try:
        rows = json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.stderr.write(f"{' '.join(cmd)} (in {root}) printed no JSON (exit {proc.returncode}):\n{proc.stderr[-2000:]}\n")
        return None
    for row in rows:
        if row.get("shape", shape) == shape and row.get("status") == "ok":
            return row["timing"]["median_ms"]
    sys.stderr.write(f"{kernel}/{shape} {key}: not ok: {[r.get('status') for r in rows]} {rows[0].get('reason', '') if rows else ''}\n")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old-root", required=True)
    ap.add_argument("--old-bin", required=True)
    ap.add_argument("--new-root", default=".")
    ap.add_argument("--new-bin", required=True)
    ap.add_argument("--leaderboard", required=True, help="committed leaderboard whose rank-1 configurations are timed")
    ap.add_argument("--spec", required=True, help="spec path, relative to each root")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bench-args", default="--warmup 100 --min-samples 30 --max-time 0.5",
                    help="timing options given to both builds' bench (the same warm-up keeps both at the same clock)")
    ap.add_argument("--shape", default="*", help="only groups whose shape matches this glob")
    ap.add_argument("--out")
    args = ap.parse_args()

    board = leaderboards.load(args.leaderboard)
    rows = []
    extra = args.bench_args.split()
    args.old_bin, args.new_bin = os.path.abspath(args.old_bin), os.path.abspath(args.new_bin)  # run from each root
    for group in leaderboards.groups(board, shape=args.shape):
        best = leaderboards.best(group)
        if best is None:
            continue
        kernel, shape, key = group["kernel"], group["shape"], best["key"]
        old, new, ratios = [], [], []
        for _ in range(args.reps):
            o = bench(args.old_bin, args.old_root, args.spec, kernel, key, shape, extra)
            n = bench(args.new_bin, args.new_root, args.spec, kernel, key, shape, extra)
            if o is None or n is None:
                continue
            old.append(o)
            new.append(n)
            ratios.append(o / n)
        if ratios:
            rows.append((kernel, shape, key, statistics.median(old), statistics.median(new), statistics.median(ratios),
                         min(ratios), max(ratios), len(ratios)))
        else:
            rows.append((kernel, shape, key, None, None, None, None, None, 0))
        print(rows[-1], flush=True)

    lines = [f"# Old build vs new build, rank-1 configurations of `{args.leaderboard}`", "",
             f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; {args.reps} interleaved repetitions (old, new, old, new, ...);"
             f" each a `bench {args.bench_args}` median. ratio = old/new (>1: the new build is faster).", "",
             "| kernel | shape | configuration | old ms | new ms | ratio (median) | ratio range | reps |",
             "|---|---|---|---:|---:|---:|---|---:|"]
    for k, s, key, o, n, r, lo, hi, reps in rows:
        if r is None:
            lines.append(f"| {k} | {s} | `{key}` | – | – | failed | | 0 |")
        else:
            lines.append(f"| {k} | {s} | `{key}` | {o:.4f} | {n:.4f} | {r:.4f} | {lo:.4f}–{hi:.4f} | {reps} |")
    ok = [r[5] for r in rows if r[5] is not None]
    if ok:
        lines += ["", f"{len(ok)} of {len(rows)} configurations timed; ratios {min(ok):.4f}–{max(ok):.4f};"
                  f" within ±2%: {sum(1 for r in ok if abs(r - 1) <= 0.02)} of {len(ok)}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        open(args.out, "w").write(text)
    return 0 if ok and len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
