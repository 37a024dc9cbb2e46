#!/usr/bin/env python3
"""summary.md of scripts/gpu/head_dims.sh: per leaderboard of a run's folder, its status counts, the first 40
configurations neither ok nor skipped, and (except the *_head_dims.json correctness sweeps) the winner of each
group with its median.

  run_summary.py DIR      # markdown on stdout; other JSON files of DIR are left out, unreadable ones named
"""
import argparse
import glob
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402


def summary(out):
    L = [f"# head dims run ({os.path.basename(out)})\n"]
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        try:
            lb = leaderboards.load(path)
        except (OSError, json.JSONDecodeError) as e:  # a sweep cut short leaves no leaderboard, or a partial one
            L.append(f"- {os.path.basename(path)}: unreadable ({e})")
            continue
        except ValueError:  # a report or another JSON file, not a leaderboard
            continue
        bad = [f"{g['kernel']}/{g['shape']} {e['key']}: {e['status']} {e.get('reason', '')[:160]}"
               for g, e in leaderboards.entries(lb) if e["status"] not in ("ok", "skipped")]
        best = [f"| {k[0]} | {k[1]} | {e['key']} | {leaderboards.median_ms(e)} |"
                for k, e in leaderboards.winners(lb).items()]
        L.append(f"## {os.path.basename(path)}\n\n{dict(leaderboards.status_counts(lb))}\n")
        L += [f"- {line}" for line in bad[:40]]
        if len(bad) > 40:
            L.append(f"- ... and {len(bad) - 40} more")
        if best and not os.path.basename(path).endswith("_head_dims.json"):
            L.append("\n| kernel | shape | best | median ms |\n| --- | --- | --- | --- |")
            L.append("\n".join(best))
        L.append("")
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="the run's folder")
    print(summary(ap.parse_args(argv).dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
