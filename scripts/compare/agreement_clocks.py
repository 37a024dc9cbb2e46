#!/usr/bin/env python3
"""Per row of an agreement run (scripts/gpu/agreement.sh): the comparison script's median over the
leaderboard's, next to the SM clock each harness saw while it sampled that configuration (the
leaderboard's `clocks` record; the script's NVML reading, where its JSON has one), and the ratio
at equal clock (times multiplied by the SM clock they ran at: SM cycles, for compute-bound kernels).
Rows timed with --bench-turns are also compared with attn-tune bench's medians taken in turns with
the script (same repetitions, same clock state): raw and at equal clock.

  python3 scripts/compare/agreement_clocks.py [DIR [PEERS_JSON]]
  (default results/h200/agreement and DIR/attention_peers.json; DIR holds wgmma_anchor.json and
  decode_anchor.json, the leaderboards the script compared)
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

BOARDS = ("wgmma_anchor.json", "decode_anchor.json")


def entries_by_key(run_dir):
    """{(kernel, shape, key): entry} over the run's two leaderboards."""
    return {(g["kernel"], g["shape"], e["key"]): e for name in BOARDS
            for g, e in leaderboards.entries(leaderboards.load(Path(run_dir) / name))}


def mhz(v, expected):
    return f"{v:.0f} ({v / expected:.3f})" if v and expected else "–"


def within(ratios):
    return sum(abs(x - 1) <= 0.03 for x in ratios)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default="results/h200/agreement", help="the agreement run's folder")
    ap.add_argument("peers", nargs="?", help="attention_peers.json of the comparison (default DIR/attention_peers.json)")
    args = ap.parse_args(argv)
    peers = json.loads(Path(args.peers or Path(args.dir) / "attention_peers.json").read_text())
    lbs = entries_by_key(args.dir)

    timed = [r for r in peers["rows"] if "attn_tune" in r]
    for r in peers["rows"]:
        if "attn_tune" not in r:
            print(f"not timed: {r['kernel']} / {r['shape']}: {'; '.join(r['errors'])}")

    print("| shape | kernel | leaderboard ms | script ms | script / leaderboard | leaderboard SM MHz (of max) "
          "| script SM MHz (of max) | script sleep us | at equal clock |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios, cycles = [], []
    for r in timed:
        e = lbs[(r["kernel"], r["shape"], r["key"])]
        c = e.get("clocks", {})
        a = r["attn_tune"]
        ratio = r["script_over_leaderboard"]
        ratios.append(ratio)
        expected = c.get("expected_sm_mhz") or peers["meta"].get("sm_mhz_max")
        sleep = f"{r['sleep_us']:.0f}" if "sleep_us" in r else "–"
        # the ratio of the two times in SM cycles: what is left once the clocks are taken out
        lb_mhz, script_mhz = c.get("sm_mhz_median"), a.get("sm_mhz")
        cyc = ratio * script_mhz / lb_mhz if lb_mhz and script_mhz else None
        if cyc is not None:
            cycles.append(cyc)
        print(f"| {r['shape']} | {r['kernel']} | {r['lb_median_ms']:.4f} | {a['ms']:.4f} | {ratio:.3f} "
              f"| {mhz(c.get('sm_mhz_median'), expected)} | {mhz(a.get('sm_mhz'), expected)} | {sleep} "
              f"| {f'{cyc:.3f}' if cyc else '–'} |")
    print(f"\n{within(ratios)} of {len(ratios)} pairs within 3%; at equal clock (ms x SM MHz): {within(cycles)}.")

    turns = [r for r in timed if r.get("bench_turns")]
    if turns:
        print("\n## Against attn-tune bench, in turns (each repetition: bench, then the script, same configuration)\n")
        print("| shape | kernel | bench ms (in turns) | script ms | script / bench | bench SM MHz | script SM MHz "
              "| at equal clock | leaderboard ms (sweep, earlier) |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        raw, equal = [], []
        for r in turns:
            b, a = r["bench_turns"], r["attn_tune"]
            raw.append(b["script_over_bench"])
            cyc = b.get("script_over_bench_at_equal_clock")
            if cyc is not None:
                equal.append(cyc)
            print(f"| {r['shape']} | {r['kernel']} | {b['ms']:.4f} | {a['ms']:.4f} | {b['script_over_bench']:.3f} "
                  f"| {b.get('sm_mhz') or 0:.0f} | {a.get('sm_mhz') or 0:.0f} | {f'{cyc:.3f}' if cyc else '–'} "
                  f"| {r['lb_median_ms']:.4f} |")
        far = max(raw, key=lambda x: abs(x - 1))
        print(f"\nscript / bench in turns: median {statistics.median(raw):.3f}, farthest from 1 {far:.3f}")
        print(f"within 3%: {within(raw)} of {len(raw)}")
        print(f"at equal clock, within 3%: {within(equal)} of {len(equal)}")
        missing = len(peers["rows"]) - len(turns)
        if missing:
            print(f"rows without a bench timing in turns: {missing} of {len(peers['rows'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
