#!/usr/bin/env python3
"""K+V bandwidth of the paged decode kernels next to the contiguous decode kernel
on the same lengths, from scripts/gpu/paged_decode.sh's leaderboards.

    scripts/gpu/paged_compare.py OUT_DIR [--attn-tune BIN --device cuda:0 --rounds 3 --seed 1
                                          --max-time 0.5 --warmup-time 0.25]

Reads OUT_DIR/paged-sweep-*.json and OUT_DIR/contiguous-*.json; writes
OUT_DIR/compare.json and OUT_DIR/compare.md. K+V bytes are 2 * B * Hkv * Nkv * D
* 2 (what both kernels must read); each side's configuration is its fastest
verified one in the sweeps (every paged kernel; the contiguous side SPLIT_MODE 0
only: deterministic and batch-invariant, as the paged kernels are).

With --attn-tune, the two winners of each length are timed again with
`attn-tune bench`, interleaved (round r: paged then contiguous on odd rounds,
contiguous then paged on even ones, so that a drift of the machine hits both
alike); each side's time is the median of its rounds' medians, and the bench
outputs are kept as OUT_DIR/compare-rN-SIDE-SHAPE.json. Without it, the sweeps'
medians are compared. Goal: paged >= 0.9x.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

GOAL = 0.9


def best_rows(paths, kernel_filter):
    """{(dtype, B, Hq, Hkv, Nkv, D): side}: per group, its best-ranked verified entry whose params KERNEL_FILTER
    keeps; of the groups on the same lengths (other kernels, other boards), the one of the smallest median."""
    best = {}
    for path in paths:
        board = leaderboards.load(path)
        spec = board["spec"]["path"]
        for group in board["groups"]:
            fields = group["shape_fields"]
            lengths = (fields["dtype"], fields["B"], fields["Hq"], fields["Hkv"], fields["Nkv"], fields["D"])
            e = leaderboards.best(group, lambda e: e.get("verify", {}).get("passed")
                                  and kernel_filter(leaderboards.params(e)))
            if e is None:
                continue
            # winners of different groups have no rank between them: the faster median is the pick
            ms = leaderboards.median_ms(e)
            if lengths not in best or ms < best[lengths]["ms"]:
                best[lengths] = {"shape": group["shape"], "kernel": group["kernel"], "key": e["key"], "ms": ms,
                                 "spec": spec, "board": os.path.basename(path), "device": board.get("device", {})}
    return best


def bench(args, out, tag, side):
    """One interleaved measurement: attn-tune bench of side's configuration on its shape; its median in ms."""
    cmd = [args.attn_tune, "bench", side["spec"], "-k", side["kernel"], "--set", side["key"], "--shape",
           side["shape"], "--device", args.device, "--seed", str(args.seed), "--max-time", str(args.max_time),
           "--warmup-time", str(args.warmup_time), "--json"]
    path = os.path.join(out, f"compare-{tag}.json")
    with open(path, "w") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
    try:
        with open(path) as f:
            results = json.load(f)
        r = results[0]
        if proc.returncode != 0 or r.get("status") != "ok":
            raise ValueError(r.get("status"))
        return r["timing"]["median_ms"]
    except (ValueError, IndexError, KeyError, json.JSONDecodeError) as e:
        print(f"{tag}: bench failed ({e}): {' '.join(cmd)}\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--attn-tune", help="re-time the winners interleaved with this attn-tune binary")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-time", type=float, default=0.5, help="bench: seconds of sampling per measurement")
    ap.add_argument("--warmup-time", type=float, default=0.25, help="bench: seconds of untimed runs first")
    args = ap.parse_args()
    out = args.out

    paged_boards = sorted(glob.glob(os.path.join(out, "paged-sweep-*.json")))
    contiguous_boards = sorted(glob.glob(os.path.join(out, "contiguous-*.json")))
    paged = best_rows(paged_boards, lambda p: True)
    contiguous = best_rows(contiguous_boards, lambda p: p.get("SPLIT_MODE", 0) == 0)
    rows = []
    failed = False
    for lengths in sorted(paged):
        if lengths not in contiguous:
            continue
        dtype, B, Hq, Hkv, Nkv, D = lengths
        kv_bytes = 2.0 * B * Hkv * Nkv * D * 2
        p, c = paged[lengths], contiguous[lengths]
        row = {"dtype": dtype, "B": B, "Hq": Hq, "Hkv": Hkv, "Nkv": Nkv, "D": D, "paged": p, "contiguous": c,
               "source": "sweep medians"}
        if args.attn_tune:
            times = {"paged": [], "contiguous": []}
            for r in range(1, args.rounds + 1):
                order = ["paged", "contiguous"] if r % 2 else ["contiguous", "paged"]
                for side in order:
                    ms = bench(args, out, f"r{r}-{side}-{row[side]['shape']}", row[side])
                    if ms is not None:
                        times[side].append(ms)
            if times["paged"] and times["contiguous"]:
                p["round_ms"], c["round_ms"] = times["paged"], times["contiguous"]
                p["ms"], c["ms"] = statistics.median(times["paged"]), statistics.median(times["contiguous"])
                row["source"] = f"median of {args.rounds} interleaved bench rounds"
            else:
                failed = True
                row["source"] = "sweep medians (the interleaved benches failed)"
        p["kv_gbps"] = kv_bytes / p["ms"] / 1e6
        c["kv_gbps"] = kv_bytes / c["ms"] / 1e6
        row["ratio"] = c["ms"] / p["ms"]
        rows.append(row)
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump({"goal": GOAL, "rows": rows}, f, indent=2)
    lines = ["| dtype | B | Hq | Hkv | Nkv | D | paged kernel / config | paged K+V GB/s | contiguous config | contiguous K+V GB/s | paged / contiguous | timed by |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| {dtype} | {B} | {Hq} | {Hkv} | {Nkv} | {D} | {pkernel} `{pk}` | {pg:.0f} | `{ck}` ({ckernel}) | {cg:.0f} | {ratio:.3f}{mark} | {source} |".format(
            pkernel=r["paged"]["kernel"], pk=r["paged"]["key"], pg=r["paged"]["kv_gbps"], ck=r["contiguous"]["key"],
            ckernel=r["contiguous"]["kernel"], cg=r["contiguous"]["kv_gbps"],
            mark="" if r["ratio"] >= GOAL else " (below the 0.9 goal)", **r))
    if not rows:
        lines.append("(no shape has both a verified paged and a verified contiguous result)")
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0 if rows and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
