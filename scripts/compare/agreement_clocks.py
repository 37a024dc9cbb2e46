#!/usr/bin/env python3
# Per row of an agreement run (scripts/gpu/agreement.sh): the comparison script's median over the
# leaderboard's, next to the SM clock the leaderboard recorded while it sampled that configuration.
#   python3 scripts/compare/agreement_clocks.py [DIR]   (default results/h200/agreement)
import json
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "results/h200/agreement"
peers = json.load(open(d + "/attention_peers.json"))
lbs = {}
for name in ("wgmma_anchor.json", "decode_anchor.json"):
    for g in json.load(open(f"{d}/{name}"))["groups"]:
        for e in g["entries"]:
            lbs[(g["kernel"], g["shape"], e["key"])] = e
print("| shape | kernel | script / leaderboard | leaderboard SM MHz (median, of expected) |")
print("| --- | --- | ---: | ---: |")
for r in peers["rows"]:
    e = lbs[(r["kernel"], r["shape"], r["key"])]
    c = e.get("clocks", {})
    ratio = r["script_over_leaderboard"]
    print(f"| {r['shape']} | {r['kernel']} | {ratio:.3f} | {c.get('sm_mhz_median'):.0f} ({c.get('sm_mhz_median') / c.get('expected_sm_mhz'):.3f}) |")
