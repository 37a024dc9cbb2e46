#!/usr/bin/env python3
# Per row of an agreement run (scripts/gpu/agreement.sh): the comparison script's median over the
# leaderboard's, next to the SM clock each harness saw while it sampled that configuration (the
# leaderboard's `clocks` record; the script's NVML reading, where its JSON has one), and the ratio
# at equal clock (times multiplied by the SM clock they ran at: SM cycles, for compute-bound kernels).
#   python3 scripts/compare/agreement_clocks.py [DIR [PEERS_JSON]]
#   (default results/h200/agreement and DIR/attention_peers.json)
import json
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "results/h200/agreement"
peers = json.load(open(sys.argv[2] if len(sys.argv) > 2 else d + "/attention_peers.json"))
lbs = {}
for name in ("wgmma_anchor.json", "decode_anchor.json"):
    for g in json.load(open(f"{d}/{name}"))["groups"]:
        for e in g["entries"]:
            lbs[(g["kernel"], g["shape"], e["key"])] = e


def mhz(v, expected):
    return f"{v:.0f} ({v / expected:.3f})" if v and expected else "–"


print("| shape | kernel | leaderboard ms | script ms | script / leaderboard | leaderboard SM MHz (of max) "
      "| script SM MHz (of max) | script sleep us | at equal clock |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
within = within_cycles = 0
for r in peers["rows"]:
    e = lbs[(r["kernel"], r["shape"], r["key"])]
    c = e.get("clocks", {})
    a = r["attn_tune"]
    ratio = r["script_over_leaderboard"]
    within += abs(ratio - 1) <= 0.03
    expected = c.get("expected_sm_mhz") or peers["meta"].get("sm_mhz_max")
    sleep = f"{r['sleep_us']:.0f}" if "sleep_us" in r else "–"
    # the ratio of the two times in SM cycles: what is left once the clocks are taken out
    lb_mhz, script_mhz = c.get("sm_mhz_median"), a.get("sm_mhz")
    cycles = ratio * script_mhz / lb_mhz if lb_mhz and script_mhz else None
    within_cycles += cycles is not None and abs(cycles - 1) <= 0.03
    print(f"| {r['shape']} | {r['kernel']} | {r['lb_median_ms']:.4f} | {a['ms']:.4f} | {ratio:.3f} "
          f"| {mhz(c.get('sm_mhz_median'), expected)} | {mhz(a.get('sm_mhz'), expected)} | {sleep} "
          f"| {f'{cycles:.3f}' if cycles else '–'} |")
print(f"\n{within} of {len(peers['rows'])} pairs within 3%; at equal clock (ms x SM MHz): {within_cycles}.")
