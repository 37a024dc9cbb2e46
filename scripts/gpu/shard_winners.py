#!/usr/bin/env python3
"""winners.md of scripts/gpu/shard_merge.sh: a sweep run whole against the same sweep run as shards and merged.

  shard_winners.py WHOLE.json MERGED.json COMMITTED.json TIE_PERCENT     # markdown on stdout

Per group: the unsharded winner, the merged winner and the winner of the merge's re-timing of its top
configurations (`attn-tune merge --retime-top`), with a verdict: *same* when the unsharded and merged winners
agree; *tie* when the unsharded winner's re-timed median is within TIE_PERCENT of the re-timed winner's (or,
where it was not re-timed, its median in the shards within TIE_PERCENT of the merged winner's); else
*different*, and the exit status is 1. COMMITTED (left out where the file does not exist) adds its winners.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402


def winner_keys(lb):
    return {k: e["key"] for k, e in leaderboards.winners(lb).items()}


def median(lb, k, key):
    g = leaderboards.group(lb, *k)
    e = next((e for e in g["entries"] if e["key"] == key), None) if g else None
    return leaderboards.median_ms(e) if e else None


def pct(x, y):
    return 100 * (x / y - 1)


def report(whole, merged, committed, committed_path, tie):
    """The markdown lines and the number of groups whose winners differ."""
    w, m, c = winner_keys(whole), winner_keys(merged), winner_keys(committed) if committed else {}
    L = ["# Two shards on one GPU, merged, against the unsharded sweep\n",
         f"- device: {merged['device']['name']} ({merged['device']['id']})",
         f"- spec: `{merged['spec']['path']}`, shapes `{merged['spec']['shape_filter']}`",
         f"- merged from: {', '.join(os.path.basename(p['file']) for p in merged.get('merged_from', []))}",
         f"- configurations: unsharded {sum(len(g['entries']) for g in whole['groups'])}, "
         f"merged {sum(len(g['entries']) for g in merged['groups'])}, missing {len(merged.get('missing', []))}"]
    if committed:
        same_code = committed["sources"] == merged["sources"]
        L.append(f"- committed `{committed_path}`: its sources {'match' if same_code else 'differ from'} these (sha256)")
    L += [f"- verdict: *same* when the unsharded and merged winners agree; *tie* when the unsharded winner's "
          f"retimed median is within {100 * tie:g}% of the retimed winner's (or, when it was not retimed, its median in "
          f"the shards within {100 * tie:g}% of the merged winner's)\n",
          "| kernel / shape | unsharded winner (ms) | merged winner (ms) | retimed winner (ms) | verdict |"
          + (" committed winner |" if committed else ""),
          "| --- | --- | --- | --- | --- |" + (" --- |" if committed else "")]
    bad = 0
    for g in merged["groups"]:
        k = (g["kernel"], g["shape"])
        r = g.get("retimed", {})
        times = {e["key"]: e.get("median_ms") for e in r.get("entries", [])}
        rb = r.get("best")
        wm, mm = median(merged, k, w.get(k)), median(merged, k, m.get(k))
        if w.get(k) == m.get(k):
            verdict = "same"
            if rb and rb != w.get(k) and times.get(w.get(k)):
                verdict += f" (retimed, {rb} is {pct(times[w[k]], times[rb]):.2f}% faster)"
        elif rb and times.get(w.get(k)) and times[w[k]] <= times[rb] * (1 + tie):
            verdict = f"tie ({pct(times[w[k]], times[rb]):.2f}% retimed)"
        elif wm and mm and wm <= mm * (1 + tie):
            # not among the retimed top: compared as the shards measured them (one GPU, one after the other)
            verdict = f"tie ({pct(wm, mm):.2f}% in the shards)"
        else:
            verdict = "**different**" + (f" (unsharded winner {pct(wm, mm):.1f}% slower in the shards)" if wm and mm else "")
            bad += 1

        def cell(key, ms):
            return f"`{key}` ({ms:.4f})" if key and ms else f"`{key}`"
        row = (f"| {k[0]} / {k[1]} | {cell(w.get(k), median(whole, k, w.get(k)))} | {cell(m.get(k), median(merged, k, m.get(k)))} "
               f"| {cell(rb, times.get(rb))} | {verdict} |")
        if committed:
            row += f" `{c.get(k)}` |"
        L.append(row)
    L.append(f"\n{bad} group(s) with different winners.")
    return L, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("whole", help="the unsharded sweep's leaderboard")
    ap.add_argument("merged", help="`attn-tune merge --retime-top`'s leaderboard of the shards")
    ap.add_argument("committed", help="a committed leaderboard of the same spec (left out when missing)")
    ap.add_argument("tie_percent", type=float)
    args = ap.parse_args(argv)
    committed = leaderboards.load(args.committed) if os.path.exists(args.committed) else None
    lines, bad = report(leaderboards.load(args.whole), leaderboards.load(args.merged), committed, args.committed,
                        args.tie_percent / 100)
    print("\n".join(lines))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
