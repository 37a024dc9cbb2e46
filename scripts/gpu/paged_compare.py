#!/usr/bin/env python3
"""K+V bandwidth of the paged decode kernel next to the contiguous decode kernel
on the same lengths, from scripts/gpu/paged_decode.sh's leaderboards.

    scripts/gpu/paged_compare.py OUT_DIR

Reads OUT_DIR/paged-sweep-*.json and OUT_DIR/contiguous-*.json; writes
OUT_DIR/compare.json and OUT_DIR/compare.md. K+V bytes are 2 * B * Hkv * Nkv * D
* 2 (what both kernels must read); each side's time is its fastest verified
configuration, the contiguous side's among SPLIT_MODE 0 only (deterministic
and batch-invariant, as the paged kernel is). Goal: paged >= 0.9x.
"""
import glob
import json
import os
import sys

GOAL = 0.9


def best_rows(paths, kernel_filter):
    best = {}
    for path in paths:
        with open(path) as f:
            board = json.load(f)
        for group in board["groups"]:
            fields = group["shape_fields"]
            lengths = (fields["dtype"], fields["B"], fields["Hq"], fields["Hkv"], fields["Nkv"], fields["D"])
            for e in group["entries"]:
                if e.get("status") != "ok" or not e.get("verify", {}).get("passed"):
                    continue
                if not kernel_filter(dict(e.get("params", []))):
                    continue
                ms = e["timing"]["median_ms"]
                if lengths not in best or ms < best[lengths]["ms"]:
                    best[lengths] = {"shape": group["shape"], "kernel": group["kernel"], "key": e["key"], "ms": ms,
                                     "device": board.get("device", {})}
    return best


def main():
    out = sys.argv[1]
    paged = best_rows(sorted(glob.glob(os.path.join(out, "paged-sweep-*.json"))), lambda p: True)
    contiguous = best_rows(sorted(glob.glob(os.path.join(out, "contiguous-*.json"))),
                           lambda p: p.get("SPLIT_MODE", 0) == 0)
    rows = []
    for lengths in sorted(paged):
        if lengths not in contiguous:
            continue
        dtype, B, Hq, Hkv, Nkv, D = lengths
        kv_bytes = 2.0 * B * Hkv * Nkv * D * 2
        p, c = paged[lengths], contiguous[lengths]
        rows.append({"dtype": dtype, "B": B, "Hq": Hq, "Hkv": Hkv, "Nkv": Nkv, "D": D,
                     "paged": {**p, "kv_gbps": kv_bytes / p["ms"] / 1e6},
                     "contiguous": {**c, "kv_gbps": kv_bytes / c["ms"] / 1e6},
                     "ratio": c["ms"] / p["ms"]})
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump({"goal": GOAL, "rows": rows}, f, indent=2)
    lines = ["| dtype | B | Hq | Hkv | Nkv | D | paged config | paged K+V GB/s | contiguous config | contiguous K+V GB/s | paged / contiguous |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| {dtype} | {B} | {Hq} | {Hkv} | {Nkv} | {D} | `{pk}` | {pg:.0f} | `{ck}` ({ckernel}) | {cg:.0f} | {ratio:.3f}{mark} |".format(
            pk=r["paged"]["key"], pg=r["paged"]["kv_gbps"], ck=r["contiguous"]["key"], ckernel=r["contiguous"]["kernel"],
            cg=r["contiguous"]["kv_gbps"], mark="" if r["ratio"] >= GOAL else " (below the 0.9 goal)", **r))
    if not rows:
        lines.append("(no shape has both a verified paged and a verified contiguous result)")
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
