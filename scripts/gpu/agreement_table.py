#!/usr/bin/env python3
"""Leaderboard median against the comparison script's interleaved timing, with each side's SM clock.

Reads attention_peers.json (scripts/compare/attention_peers.py) and the leaderboards it re-timed, and prints a
markdown table: per row the leaderboard's median and its SM clock (the winner's `clocks.sm_mhz_median`), the
script's median and the clock NVML read under its samples, script / leaderboard, and the same ratio at the
leaderboard's clock (script ms x script MHz / leaderboard MHz: a prefill kernel is compute-bound, its time goes
as 1 / SM clock). A row is "same state" when the two clocks are within --same-clock (relative) of each other.

    python3 scripts/gpu/agreement_table.py PEERS_JSON [--within 0.03] [--same-clock 0.02]
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402


def winner_clock(board, shape, key):
    """The SM clock (MHz) under the leaderboard's samples of KEY on SHAPE; None when it is not recorded."""
    for group in leaderboards.groups(board):
        if group["shape"] != shape:
            continue
        for entry in group["entries"]:
            if leaderboards.key(entry) == key:
                return (entry.get("clocks") or {}).get("sm_mhz_median")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("peers", help="attention_peers.json")
    ap.add_argument("--within", type=float, default=0.03, help="agreement target, relative (default 0.03)")
    ap.add_argument("--same-clock", type=float, default=0.02,
                    help="clocks this close (relative) count as the same state (default 0.02)")
    ap.add_argument("--root", default=None,
                    help="directory the leaderboards are in (default: beside PEERS_JSON's parent)")
    args = ap.parse_args()
    peers = json.loads(Path(args.peers).read_text())
    root = Path(args.root) if args.root else Path(args.peers).resolve().parent.parent
    boards = {}
    print("| shape | leaderboard ms (MHz) | script ms (MHz) | script / leaderboard | at the leaderboard's clock |"
          " same state | within target |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    raw, matched, same_rows, same_ok = [], [], 0, 0
    for row in peers["rows"]:
        name = Path(row["leaderboard"]).name
        if name not in boards:
            boards[name] = leaderboards.load(root / name)
        lb_mhz = winner_clock(boards[name], row["shape"], row["key"])
        at = row["attn_tune"]
        ratio = at["ms"] / row["lb_median_ms"]
        scaled = ratio * at["sm_mhz"] / lb_mhz if lb_mhz else None
        same = lb_mhz is not None and abs(at["sm_mhz"] - lb_mhz) <= args.same_clock * lb_mhz
        ok = abs(ratio - 1) <= args.within
        raw.append(ratio)
        if scaled is not None:
            matched.append(scaled)
        same_rows += same
        same_ok += same and ok
        print(f"| {row['shape']} | {row['lb_median_ms']:.4f} ({lb_mhz:.0f}) | {at['ms']:.4f} ({at['sm_mhz']}) |"
              f" x{ratio:.3f} | {'x%.3f' % scaled if scaled else '-'} | {'yes' if same else 'no'} |"
              f" {'yes' if ok else 'no'} |")
    print()
    print(f"{len(raw)} rows: script / leaderboard median x{statistics.median(raw):.3f}, "
          f"{sum(abs(r - 1) <= args.within for r in raw)} within {args.within:.0%}; "
          f"{same_rows} rows at the same clock state (within {args.same_clock:.0%}), {same_ok} of them within "
          f"{args.within:.0%}; at the leaderboard's clock, {sum(abs(r - 1) <= args.within for r in matched)} of "
          f"{len(matched)} within {args.within:.0%} (farthest x{max(matched, key=lambda r: abs(r - 1)):.3f}).")


if __name__ == "__main__":
    main()
