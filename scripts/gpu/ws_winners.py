#!/usr/bin/env python3
"""The tables scripts/gpu/hopper_ws.sh writes from its sweeps of the warp-specialized prefill kernel.

  ws_winners.py winners LEADERBOARD    winners.md: per shape the winner (rank 1) with its time, TFLOP/s,
      registers and spills; the persistent grid and the clusters: per shape the winner's time without either
      over the time of the best-ranked configuration of each (PERSISTENT, CLUSTER) (> 1: faster); PINGPONG=1
      with OVERLAP=0 on the part of the space that has it: the geometric mean of the paired ratios t(PINGPONG=0)
      / t(PINGPONG=1) (n pairs), and the winner's time over that of the best-ranked configuration with it; last,
      "winner on N shape(s): KEY", the most frequent winner first
  ws_winners.py pairs LEADERBOARD      pingpong0.md: per shape, each configuration with PINGPONG=0 beside the
      same with PINGPONG=1: both medians and their ratio
"""
import argparse
import collections
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

COMBOS = [(0, 1), (1, 1), (0, 2), (1, 2)]  # (PERSISTENT, CLUSTER)
KNOBS = [("PINGPONG", 1, "OVERLAP=0")]  # (knob, value, the setting it needs), offered on part of the space


def knob(e, name):
    """A parameter's value from the key; a key without it has the kernel's default (CLUSTER 1, others 0)."""
    for kv in e["key"].split(","):
        if kv.startswith(name + "="):
            return int(kv.split("=")[1])
    return 1 if name == "CLUSTER" else 0


def winners_table(board):
    L, wins = [], collections.Counter()
    L += ["| shape | best configuration | ms | TFLOP/s | registers | spill (st/ld) |",
          "| --- | --- | --- | --- | --- | --- |"]
    for g in board["groups"]:
        e = leaderboards.best(g)
        if e is None:
            L.append(f'| {g["shape"]} | (none ok) | | | | |')
            continue
        r = e["resources"].get("flash_attn_fwd_ws", {})
        wins[e["key"]] += 1
        L.append(f'| {g["shape"]} | {e["key"]} | {leaderboards.median_ms(e):.4f} | {e["gflops"] / 1e3:.0f} | '
                 f'{r.get("registers")} | {r.get("spill_store_bytes")}/{r.get("spill_load_bytes")} |')
    L += ["", "| shape | " + " | ".join(f"P{p} C{c}" for p, c in COMBOS) + " |", "| --- |" + " ---: |" * len(COMBOS)]
    for g in board["groups"]:
        best = {c: leaderboards.best(g, lambda e, c=c: (knob(e, "PERSISTENT"), knob(e, "CLUSTER")) == c) for c in COMBOS}
        ms = {c: leaderboards.median_ms(e) for c, e in best.items() if e is not None}
        base = ms.get((0, 1))
        cells = [f"{base / ms[c]:.3f}" if base and c in ms else "" for c in COMBOS]
        L.append(f'| {g["shape"]} | ' + " | ".join(cells) + " |")
    L.append("")
    rows, used = [], set()
    for g in board["groups"]:
        t = leaderboards.medians(g)
        winner = leaderboards.best(g)
        cells = []
        for i, (name, value, cond) in enumerate(KNOBS):
            def has(k):
                return f"{name}={value}" in k.split(",") and (not cond or cond in k.split(","))
            with_knob = {k: v for k, v in t.items() if has(k)}
            ratios = [t[k.replace(f"{name}={value}", f"{name}=0")] / v for k, v in with_knob.items()
                      if k.replace(f"{name}={value}", f"{name}=0") in t]
            if ratios:
                used.add(i)
                gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
                best_with = leaderboards.best(g, lambda e: has(e["key"]))
                cells.append(f"{gm:.3f} ({len(ratios)}), "
                             f"{leaderboards.median_ms(winner) / leaderboards.median_ms(best_with):.3f}")
            else:
                cells.append("")
        rows.append((g["shape"], cells))
    cols = sorted(used)
    if cols:
        L.append("| shape | " + " | ".join(f"{KNOBS[i][0]}={KNOBS[i][1]}{' ' + KNOBS[i][2] if KNOBS[i][2] else ''}: "
                                          "paired (n), best" for i in cols) + " |")
        L.append("| --- |" + " ---: |" * len(cols))
        for shape, cells in rows:
            L.append(f"| {shape} | " + " | ".join(cells[i] for i in cols) + " |")
        L.append("")
    L += [f"winner on {n} shape(s): {k}" for k, n in wins.most_common()]
    return "\n".join(L)


def pairs_table(board):
    L = ["| shape | consumers | stages | ms without | ms with PINGPONG | without / with |",
         "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for g in board["groups"]:
        t = leaderboards.medians(g)
        for k, v in sorted(t.items()):
            if "PINGPONG=0" in k.split(",") and k.replace("PINGPONG=0", "PINGPONG=1") in t:
                w = t[k.replace("PINGPONG=0", "PINGPONG=1")]
                kv = dict(x.split("=") for x in k.split(","))
                L.append(f'| {g["shape"]} | {kv["WS_CONSUMERS"]} | {kv["STAGES"]} | {v:.4f} | {w:.4f} | {v / w:.3f} |')
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("table", choices=("winners", "pairs"))
    ap.add_argument("leaderboard", help="the sweep's leaderboard (.json or .json.gz)")
    args = ap.parse_args(argv)
    board = leaderboards.load(args.leaderboard)
    print(winners_table(board) if args.table == "winners" else pairs_table(board))
    return 0


if __name__ == "__main__":
    sys.exit(main())
