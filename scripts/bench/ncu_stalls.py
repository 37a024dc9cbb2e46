#!/usr/bin/env python3
"""Where the warps of two kernel builds wait, from Nsight Compute's PC sampling.

Reads the SASS listings that `PC_SAMPLING=1 scripts/gpu/ncu_prefill_ws.sh` writes
(`ncu --page source --print-source sass`, section SourceCounters) and prints, side by side:
  - the samples per stall reason over the whole kernel;
  - the instructions that hold the most samples, with their main reasons;
  - shared-memory wavefronts and bank conflicts per opcode (same traffic: the difference is not
    in what the kernel reads).

With --mix it prints instead the executed warp instructions per opcode of the two (the floating-point
and MUFU ones by their full name, e.g. MUFU.EX2, .FTZ left out), the largest of A first: two kernels doing
the same work (attn-tune's and cuDNN's, profiled in one process) compared instruction by instruction.

    scripts/bench/ncu_stalls.py A.sass.log B.sass.log [--top 8]
    scripts/bench/ncu_stalls.py A.sass.log B.sass.log --mix [--top 24]
"""
import argparse
import gzip
import re
import sys

# The per-instruction table is fixed-width: one header block, then one row per instruction.
# Columns are found from the header's dashed separator line, never by position.


def parse(path):
    opener = gzip.open if str(path).endswith(".gz") else open  # results/ keeps the listings gzipped
    with opener(path, "rt", errors="replace") as f:
        lines = f.read().split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("Address")]
    if not starts:
        sys.exit(f"ncu_stalls: {path} has no SASS table (was it written with --page source --print-source sass?)")
    head = starts[0]
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[head - 1])]
    header = lines[head:]
    names = []
    for a, b in spans:
        words = []
        for line in header:
            if line.startswith("0x"):
                break
            words.append(line[a:b + 1].strip())
        names.append("".join(words))  # a cell wraps mid-word: the pieces join without spaces
    rows = []
    for line in header:
        if not line.startswith("0x"):
            continue
        cells = [line[a:b + 1].strip() for a, b in spans]
        rows.append(dict(zip(names, cells)))
    return names, rows


def number(text):
    text = text.replace(",", "")
    return int(text) if text.isdigit() else 0


def instruction(source):
    """the instruction's name with its modifiers, its predicate left out: @!P0 BRA 0x... -> BRA"""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else "?"


def opcode(source):
    return instruction(source).split(".")[0]


def mnemonic(source):
    """MUFU.EX2, HGMMA.64x128x16.F32 ... by full name (the variant is the point), the rest by opcode"""
    full = instruction(source).replace(".FTZ", "")  # flush-to-zero or not, the same work
    return full if full.startswith(("MUFU", "HGMMA", "F2FP", "FMNMX", "FFMA", "FMUL", "FADD")) else opcode(source)


def mix(runs, paths, top):
    """executed warp instructions per mnemonic, side by side"""
    counts = []
    for names, rows in runs:
        source = next(n for n in names if n.startswith("Source"))
        executed = next(n for n in names if n.replace(" ", "") == "InstructionsExecuted")
        per = {}
        for row in rows:
            op = mnemonic(row[source])
            per[op] = per.get(op, 0) + number(row[executed])
        counts.append(per)
    totals = [sum(c.values()) for c in counts]
    print(f"| executed warp instructions | {paths[0]} | {paths[1]} | B / A |\n| --- | ---: | ---: | ---: |")
    print(f"| all | {totals[0]:,} | {totals[1]:,} | {totals[1] / totals[0]:.2f} |")
    ops = sorted(set(counts[0]) | set(counts[1]), key=lambda op: (-counts[0].get(op, 0), -counts[1].get(op, 0)))
    for op in ops[:top]:
        a, b = counts[0].get(op, 0), counts[1].get(op, 0)
        print(f"| {op} | {a:,} | {b:,} | {b / a:.2f} |" if a else f"| {op} | 0 | {b:,} | - |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--mix", action="store_true", help="executed instructions per opcode instead of the stalls")
    args = ap.parse_args(argv)
    runs = [parse(args.a), parse(args.b)]
    if args.mix:
        mix(runs, (args.a, args.b), args.top)
        return
    names = runs[0][0]
    sample_col = next(n for n in names if n.startswith("Warp Stall Sampling (All"))
    source_col = next(n for n in names if n.startswith("Source"))
    reasons = [n for n in names if n.startswith("stall_") and "Not" not in n]

    print(f"| stall reason (samples) | {args.a} | {args.b} |\n| --- | ---: | ---: |")
    totals = [{r: sum(number(row[r]) for row in rows) for r in reasons} for _, rows in runs]
    for r in sorted(reasons, key=lambda r: -max(t[r] for t in totals)):
        if max(t[r] for t in totals):
            print(f"| {r[len('stall_'):]} | {totals[0][r]} | {totals[1][r]} |")
    print(f"| all | {sum(number(x[sample_col]) for x in runs[0][1])} | {sum(number(x[sample_col]) for x in runs[1][1])} |")

    for path, (_, rows) in zip((args.a, args.b), runs):
        print(f"\n{path}: the {args.top} instructions with the most samples")
        for row in sorted(rows, key=lambda x: -number(x[sample_col]))[: args.top]:
            n = number(row[sample_col])
            main = sorted(((number(row[r]), r[len("stall_"):]) for r in reasons), reverse=True)[:2]
            why = ", ".join(f"{r} {k}" for k, r in main if k)
            print(f"  {n:8d}  {row[source_col][:60]:60s}  {why}")

    wave = [n for n in names if n.startswith("L1 Wavefronts Shared") and "Excessive" not in n and "Ideal" not in n]
    conflicts = [n for n in names if n.startswith("L1 Conflicts")]
    if wave and conflicts:
        print("\nshared-memory wavefronts / bank conflicts per opcode")
        for path, (_, rows) in zip((args.a, args.b), runs):
            per = {}
            for row in rows:
                w, c = number(row[wave[0]]), number(row[conflicts[0]])
                if w or c:
                    t = per.setdefault(opcode(row[source_col]), [0, 0])
                    t[0] += w
                    t[1] += c
            print(f"  {path}: " + "; ".join(f"{op} {w} / {c}" for op, (w, c) in sorted(per.items())))


if __name__ == "__main__":
    main()
