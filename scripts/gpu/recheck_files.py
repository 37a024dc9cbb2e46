#!/usr/bin/env python3
"""The files around `attn-tune bench --recheck` that scripts/gpu/sustained_recheck.sh and
scripts/gpu/ws_space_compare.sh write (no GPU needed).

  recheck_files.py copy LEADERBOARD[.gz] SHAPES OUT WARMUP_S MAX_TIME_S
      OUT: the leaderboard's groups of SHAPES (comma-separated), its timing settings changed to WARMUP_S
      seconds of warm-up, MAX_TIME_S of sampling and at least 20 samples, for `attn-tune bench --recheck`
  recheck_files.py winners RECHECK_LOG DIR [--all]
      from the recheck's table: DIR/winners.md (per shape, the recorded winner and the sustained one),
      DIR/winners.json ({shape: the sustained winner's key}, for attention_peers.py --configs) and
      DIR/changed.txt ("SHAPE KEY" where another configuration is 1% or more faster than the recorded winner;
      every shape with --all)
  recheck_files.py compare RECHECK_LOG EXPERIMENT.json
      per kernel of the experiment and shape, the best re-timed median for each value of the kernel's
      compared parameter ("compare": {kernel: parameter}) and its ratio to the first value's (markdown)
"""
import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

# a row of `attn-tune bench --recheck`'s table: kernel, shape, recorded rank, recorded ms, re-timed ms, diff, key, status
ROW = re.compile(r"(\S+)\s+(\S+)\s+(\d+)\s+[\d.]+\s+([\d.]+)\s+\S+\s+(\S+)\s+ok$")
CHANGED = 1.01  # within 1%: the same winner, noise aside


def copy(path, shapes, out, warmup_s, max_time_s):
    d = leaderboards.load(path)
    shapes = [s for s in shapes.split(",") if s]
    missing = set(shapes) - {g["shape"] for g in d["groups"]}
    if missing:
        sys.exit(f"recheck_files.py: {path} has no group for {', '.join(sorted(missing))}")
    d["groups"] = [g for g in d["groups"] if g["shape"] in shapes]
    t = d["settings"]["timing"]
    t.update(warmup_s=warmup_s, max_time_s=max_time_s, min_samples=max(20, t["min_samples"]))
    Path(out).write_text(json.dumps(d))
    print(f"{len(d['groups'])} shapes; timing: {warmup_s} s warm-up, {max_time_s} s sampling, >= {t['min_samples']} samples")


def retimed(log):
    """(kernel, shape, recorded rank, re-timed ms, key) of each configuration that timed ok."""
    for line in Path(log).read_text().splitlines():
        m = ROW.match(line.strip())
        if m:
            yield m.group(1), m.group(2), int(m.group(3)), float(m.group(4)), m.group(5)


def rows_by_shape(log):
    """{shape: [(recorded rank, re-timed ms, key)]}."""
    rows = {}
    for _, shape, rank, ms, key in retimed(log):
        rows.setdefault(shape, []).append((rank, ms, key))
    return rows


def winners(log, out_dir, every_shape):
    rows = rows_by_shape(log)
    if not rows:
        sys.exit(f"recheck_files.py: no re-timed configuration in {log}")
    out = Path(out_dir)
    md = ["| shape | recorded winner, sustained ms | sustained winner's recorded rank | its sustained ms | ratio | configuration |",
          "| --- | ---: | ---: | ---: | ---: | --- |"]
    keys, changed = {}, []
    for shape, r in rows.items():
        first, best = min(r), min(r, key=lambda x: x[1])
        md.append(f"| {shape} | {first[1]:.4f} | {best[0]} | {best[1]:.4f} | {first[1] / best[1]:.3f} | {best[2]} |")
        keys[shape] = best[2]
        if every_shape or (best[0] != first[0] and first[1] / best[1] >= CHANGED):
            changed.append(f"{shape} {best[2]}\n")
    (out / "winners.md").write_text("\n".join(md) + "\n")
    (out / "winners.json").write_text(json.dumps(keys, indent=1) + "\n")
    (out / "changed.txt").write_text("".join(changed))
    print("\n".join(md))


def compare(log, experiment):
    params = json.loads(Path(experiment).read_text())["compare"]
    best = {}  # (kernel, shape) -> {value: (ms, key)}
    for kernel, shape, _, ms, key in retimed(log):
        if kernel in params:
            value = dict(kv.split("=") for kv in key.split(","))[params[kernel]]
            slot = best.setdefault((kernel, shape), {})
            if value not in slot or ms < slot[value][0]:
                slot[value] = (ms, key)
    if not best:
        sys.exit(f"recheck_files.py: nothing of {', '.join(params)} re-timed in {log}")
    for kernel, param in params.items():
        rows = {s: v for (k, s), v in best.items() if k == kernel}
        values = sorted({v for slot in rows.values() for v in slot}, key=float)
        print(f"## {kernel}: the best of each {param}, re-timed interleaved\n")
        print("| shape | " + " | ".join(f"{param}={v} ms" for v in values) + f" | ratio to {param}={values[0]} | best configuration |")
        print("| --- | " + " | ".join("---:" for _ in values) + " | --- | --- |")
        for shape, slot in rows.items():
            ms = [slot[v][0] if v in slot else None for v in values]
            ratios = ", ".join(f"{v}: {ms[0] / m:.3f}" for v, m in zip(values[1:], ms[1:]) if m and ms[0])
            winner = min(slot.values())[1]
            print(f"| {shape} | " + " | ".join(f"{m:.4f}" if m else "-" for m in ms) + f" | {ratios} | {winner} |")
        print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("copy", help="the leaderboard's groups of SHAPES with longer timing settings")
    c.add_argument("leaderboard")
    c.add_argument("shapes", help="comma-separated shape names")
    c.add_argument("out")
    c.add_argument("warmup_s", type=float)
    c.add_argument("max_time_s", type=float)
    w = sub.add_parser("winners", help="winners.md, winners.json and changed.txt from the recheck's table")
    w.add_argument("log")
    w.add_argument("dir")
    w.add_argument("--all", action="store_true", help="every shape in changed.txt")
    m = sub.add_parser("compare", help="the best re-timed median per value of each kernel's compared parameter")
    m.add_argument("log")
    m.add_argument("experiment")
    a = ap.parse_args(argv)
    if a.command == "copy":
        copy(a.leaderboard, a.shapes, a.out, a.warmup_s, a.max_time_s)
    elif a.command == "winners":
        winners(a.log, a.dir, a.all)
    else:
        compare(a.log, a.experiment)


if __name__ == "__main__":
    main()
