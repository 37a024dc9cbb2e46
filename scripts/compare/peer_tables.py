#!/usr/bin/env python3
"""Tables over attention_peers.py's results (attention_peers.json), for two questions about a gap to cuDNN.

  peer_tables.py waves RUN_DIR...      does the time step with rounds of work items (items / SMs)?
      per shape: 128-row items (ceil(Nq / 128) Hq B), rounds, both times, and each one's time per round
      (over ceil(rounds)) and per item, relative to the first shape of its series (the shape's name less
      its -bB-hH suffix): 1.00 all along where the time grows exactly with rounds, or with items
  peer_tables.py clocks BOOST_DIR CAPPED_DIR   is the gap per cycle, or only under the power cap?
      per shape: attn-tune / cuDNN in both runs, with the SM clock and board power NVML read

scripts/gpu/wave_quantization.sh and scripts/gpu/power_cap_ratio.sh write these tables after their runs.
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

ITEM_ROWS = 128  # rows of one work item of the winning families (2 consumers x 64 rows)


def load(run_dir):
    return json.loads((Path(run_dir) / "attention_peers.json").read_text())


def wave_rows(run):
    """One dict per row of an attention_peers.json: items, rounds and the times per round and per item,
    relative to the first row of the same series."""
    sms, first, rows = run["meta"]["sm_count"], {}, []
    for r in run["rows"]:
        if "ms" not in r["peers"].get("cuDNN", {}):
            sys.exit(f"peer_tables: {r['shape']} has no cuDNN time ({r['peers'].get('cuDNN')}): run attention_peers.py "
                     "with --peers cudnn")
        f = r["fields"]
        items = math.ceil(f["Nq"] / ITEM_ROWS) * f["Hq"] * f["B"]
        rounds = items / sms
        ours, cudnn = r["attn_tune"]["ms"], r["peers"]["cuDNN"]["ms"]
        per = (ours / math.ceil(rounds), ours / items, cudnn / math.ceil(rounds), cudnn / items)
        base = first.setdefault(re.sub(r"-b\d+-h\d+$", "", r["shape"]), per)
        rows.append({"shape": r["shape"], "persistent": "PERSISTENT=1" in r["key"], "items": items, "rounds": rounds,
                     "ms": ours, "cudnn_ms": cudnn, "relative": [p / b for p, b in zip(per, base)],
                     "x_cudnn": r["peers"]["cuDNN"]["attn_tune_speedup"],
                     "mhz": (r["attn_tune"].get("sm_mhz"), r["peers"]["cuDNN"].get("sm_mhz"))})
    return rows


def pair(a, b, fmt="{:.0f}"):
    return f"{fmt.format(a)} / {fmt.format(b)}" if a is not None and b is not None else "?"


def waves(run_dirs):
    L = ["# Time against rounds of work items", "",
         f"items: ceil(Nq / {ITEM_ROWS}) Hq B; rounds: items / SMs; per round / per item: the time over ceil(rounds) / "
         "over items, relative to the series' first shape (1.00 where the time grows with rounds / items exactly); "
         "x cuDNN: the median over repetitions of cuDNN ms / attn-tune ms", ""]
    for d in run_dirs:
        L += [f"## {Path(d).name}", "",
              "| shape | config | items | rounds | attn-tune ms | per round | per item | cuDNN ms | per round | per item "
              "| x cuDNN | SM MHz (attn-tune / cuDNN) |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for w in wave_rows(load(d)):
            rel = w["relative"]
            L.append(f"| {w['shape']} | {'persistent' if w['persistent'] else 'grid'} | {w['items']} | {w['rounds']:.2f} | "
                     f"{w['ms']:.4f} | {rel[0]:.3f} | {rel[1]:.3f} | {w['cudnn_ms']:.4f} | {rel[2]:.3f} | {rel[3]:.3f} | "
                     f"{w['x_cudnn']:.3f} | {pair(*w['mhz'])} |")
        L.append("")
    return "\n".join(L)


def clocks(boost_dir, capped_dir):
    runs = [{r["shape"]: r for r in load(d)["rows"]} for d in (boost_dir, capped_dir)]
    L = ["# attn-tune / cuDNN at the boost clock and under the power cap", "",
         "x cuDNN: the median over interleaved repetitions of cuDNN ms / attn-tune ms; MHz and W: NVML's SM clock and "
         "board power while each one's samples ran (median over repetitions), attn-tune / cuDNN", "",
         "| shape | boost: x cuDNN | MHz | W | capped: x cuDNN | MHz | W |", "| --- | ---: | --- | --- | ---: | --- | --- |"]

    def cells(row):
        if row is None or "ms" not in row["peers"].get("cuDNN", {}):
            return ["–"] * 3
        a, c = row["attn_tune"], row["peers"]["cuDNN"]
        return [f"{c['attn_tune_speedup']:.3f}", pair(a.get("sm_mhz"), c.get("sm_mhz")), pair(a.get("watts"), c.get("watts"))]
    for shape, b in runs[0].items():
        L.append(f"| {shape} | " + " | ".join(cells(b) + cells(runs[1].get(shape))) + " |")
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("waves", help="times against rounds of work items, per run")
    w.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="folders holding attention_peers.json")
    c = sub.add_parser("clocks", help="attn-tune / cuDNN at the boost clock and under the power cap")
    c.add_argument("boost_dir")
    c.add_argument("capped_dir")
    a = ap.parse_args(argv)
    print(waves(a.run_dirs) if a.command == "waves" else clocks(a.boost_dir, a.capped_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
