#!/usr/bin/env python3
"""attn-tune's leaderboards, read one way by every script in scripts/.

A leaderboard (`attn-tune sweep --out`, schema attn-tune.leaderboard/1 or /2) holds one group per (kernel,
shape); each entry of a group is one configuration with its status, and the ok ones carry a rank. Rank 1 is
the winner, and need not have the smallest median: configurations within the noise of each other are timed
again in turns and ordered by the tie rule (fewest registers, then least shared memory, then configuration
order); a staged sweep's confirmed results rank before its screened ones; an ok entry that fails a required
check (--require) keeps its time but has no rank. So scripts pick by rank, never by the smallest median.

From a script in scripts/DIR/:

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
    import leaderboards

From the shell: `python3 scripts/lib/leaderboards.py winners BOARD [--shape S] [--key-only]` prints the
winner of each group; `statuses BOARD` prints the status counts and fails unless every entry is ok or
skipped and one at least is ok.
"""
import argparse
import collections
import fnmatch
import gzip
import json
import sys


def load(path):
    """The leaderboard at PATH (.json, or .json.gz) as a dict; ValueError when the file holds no groups."""
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
        board = json.load(f)
    if not isinstance(board, dict) or not isinstance(board.get("groups"), list):
        raise ValueError(f"{path}: not an attn-tune leaderboard (no groups)")
    return board


def groups(board, kernel=None, shape=None):
    """The groups, in the file's order; KERNEL and SHAPE (names or globs) keep only the matching ones."""
    return [g for g in board["groups"]
            if (kernel is None or fnmatch.fnmatchcase(g["kernel"], kernel))
            and (shape is None or fnmatch.fnmatchcase(g["shape"], shape))]


def group(board, kernel, shape):
    """The group of (KERNEL, SHAPE), or None."""
    return next((g for g in board["groups"] if g["kernel"] == kernel and g["shape"] == shape), None)


def entries(board):
    """(group, entry) for every entry of every group."""
    return [(g, e) for g in board["groups"] for e in g["entries"]]


def ranked(grp):
    """The ranked entries of a group (the ok ones), best first."""
    return sorted((e for e in grp["entries"] if e.get("rank") is not None), key=lambda e: e["rank"])


def best(grp, where=None):
    """The best-ranked entry of a group, or of those WHERE(entry) keeps; None when there is none."""
    return next((e for e in ranked(grp) if where is None or where(e)), None)


def winners(board):
    """{(kernel, shape): the rank-1 entry} of every group that has one."""
    return {(g["kernel"], g["shape"]): w for g in board["groups"] if (w := best(g)) is not None}


def key(entry):
    """The configuration key, "NAME=VALUE,...", as `attn-tune bench --set` takes it."""
    return entry["key"]


def params(entry):
    """{parameter: value} of an entry."""
    return dict(entry.get("params", []))


def median_ms(entry):
    """The entry's median time in ms, or None where it was not timed."""
    return (entry.get("timing") or {}).get("median_ms")


def medians(grp):
    """{key: median ms} of the ranked entries of a group, best first."""
    return {e["key"]: median_ms(e) for e in ranked(grp)}


def tied(grp):
    """The keys of the group's declared tie (empty without one)."""
    return (grp.get("ties") or {}).get("tied", [])


def status_counts(board):
    """{status: entries}, the statuses in the order they first appear."""
    return collections.Counter(e["status"] for _, e in entries(board))


def all_ok(board):
    """Every entry ok or skipped (a constraint excludes the shape), and one at least ok."""
    n = status_counts(board)
    return set(n) <= {"ok", "skipped"} and n["ok"] > 0


def _winners_command(args):
    board = load(args.board)
    for g in groups(board, args.kernel, args.shape):
        w = best(g)
        if w is None:
            continue
        print(w["key"] if args.key_only else f"{g['kernel']}\t{g['shape']}\t{w['key']}\t{median_ms(w)}")


def _statuses_command(args):
    board = load(args.board)
    n = status_counts(board)
    print(", ".join(f"{k} {v}" for k, v in sorted(n.items())))
    bad = [(g, e) for g, e in entries(board) if e["status"] not in ("ok", "skipped")]
    for g, e in bad[:10]:
        print(f"  {e['key']} on {g['shape']}: {e['status']} {e.get('reason', '')[:200]}")
    return 0 if all_ok(board) else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("winners", help="the rank-1 configuration of each group: kernel, shape, key, median ms")
    w.add_argument("board", help="leaderboard (.json or .json.gz)")
    w.add_argument("--kernel", help="only kernels matching this name or glob")
    w.add_argument("--shape", help="only shapes matching this name or glob")
    w.add_argument("--key-only", action="store_true", help="print the configuration keys alone")
    s = sub.add_parser("statuses", help="status counts and the first 10 entries neither ok nor skipped; exit 1 unless all are ok or "
                       "skipped and one at least is ok")
    s.add_argument("board", help="leaderboard (.json or .json.gz)")
    args = ap.parse_args(argv)
    return (_winners_command if args.command == "winners" else _statuses_command)(args) or 0


if __name__ == "__main__":
    sys.exit(main())
