#!/usr/bin/env python3
"""Where a kernel's loops spill and which registers are live, from its SASS (no GPU).

  sass_loops.py loops PREFIX.sass
      every loop (a backward branch) of 50 instructions or more: its lines, instruction count, HGMMA, MUFU,
      spill stores (STL) and loads (LDL) and R2UR moves. The hot loop of a consumer is the one with the
      kernel's HGMMA and MUFU counts per tile; a spill there costs every iteration, one in the masked loop
      only the tiles a mask crosses.
  sass_loops.py live PREFIX.plr TEXT [N]
      at the N-th instruction (default 1) containing TEXT, the number of live general registers and the
      live ones outside R24-R183 (in the D = 128 consumers: S, O and P), from
      `nvdisasm -plr -c PREFIX.cubin > PREFIX.plr` (register life ranges, one column per register)

PREFIX.sass and PREFIX.cubin come from scripts/bench/sass_mix.sh; docs/kernels/flash_attn_fwd_ws.md
("Registers of the consumer loop") used both.
"""
import argparse
import re
import sys

INSTRUCTION = re.compile(r"^\s+(@!?U?P\S+\s+)?[A-Z]")


def loops(path):
    lines = open(path).read().split("\n")
    labels = {m.group(1): i for i, l in enumerate(lines) if (m := re.match(r"^\s*(\.L_x_\d+):", l))}
    for i, line in enumerate(lines):
        m = re.search(r"BRA\S* `\((\.L_x_\d+)\)", line)
        if not m or labels.get(m.group(1), i) >= i:
            continue
        body = [b for b in lines[labels[m.group(1)]:i + 1] if INSTRUCTION.match(b)]
        if len(body) < 50:
            continue
        count = lambda op: sum(1 for b in body if re.search(rf"\b{op}\b", b))
        print(f"lines {labels[m.group(1)]}-{i}: {len(body)} instructions, HGMMA {count('HGMMA')}, MUFU {count('MUFU')}, "
              f"STL {count('STL')}, LDL {count('LDL')}, R2UR {count('R2UR')}")


def live(path, text, n):
    lines = open(path).read().split("\n")
    header = next(l for l in lines if re.search(r"//\s*\|\s+#\s+0 1 2 3", l))
    start = header.index("//")
    bars = [i for i, c in enumerate(header[start:]) if c == "|"]
    gpr = header[start + bars[0]:start + bars[1]]
    # the column of register R is the last character of its number in the header
    columns = {int(m.group()): start + bars[0] + m.end() - 1 for m in re.finditer(r"\d+", gpr) if m.start() > 3}
    hits = [l for l in lines if text in l and "//" in l]
    if len(hits) < n:
        sys.exit(f"sass_loops.py: {len(hits)} instruction(s) contain '{text}'")
    line = hits[n - 1]
    regs = sorted(r for r, c in columns.items() if c < len(line) and line[c] != " ")
    print(line[:line.index("//")].strip())
    print(f"{len(regs)} live:", " ".join(f"R{r}" for r in regs if r < 24 or r > 183))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    lo = sub.add_parser("loops", help="every loop of 50 instructions or more and what it holds")
    lo.add_argument("sass", help="PREFIX.sass of scripts/bench/sass_mix.sh")
    li = sub.add_parser("live", help="the live registers at the N-th instruction containing TEXT")
    li.add_argument("plr", help="PREFIX.plr (nvdisasm -plr)")
    li.add_argument("text")
    li.add_argument("n", nargs="?", type=int, default=1)
    a = ap.parse_args(argv)
    if a.command == "loops":
        loops(a.sass)
    else:
        live(a.plr, a.text, a.n)


if __name__ == "__main__":
    main()
