#!/usr/bin/env python3
"""Nsight Compute's text report of several kernels, side by side: one column per kernel (its first
profile in the report), the rows that explain a gap between two implementations of the same work.

    scripts/bench/ncu_compare.py NCU.log            # a markdown table on stdout

Reads ncu's default text output with the sections SpeedOfLight, ComputeWorkloadAnalysis,
WarpStateStats, Occupancy and LaunchStats (scripts/gpu/ncu_peers.sh writes it). The instructions are
derived, as elapsed cycles x executed IPC (elapsed), per SM; each "/ first" row divides a kernel's
value by the first kernel's. A kernel profiled again later in the report (the same name) is left out:
its repeats differ by noise only.

Where the report also holds ncu's stall metrics (ncu_peers.sh with NCU_STALLS=1), one row per stall
reason follows: the warps stalled for it per issued instruction, the reasons in the order of the first
kernel's values, those under 0.05 for every kernel left out. Per issued instruction: a kernel that issues
fewer instructions waits less in all for the same value.
"""
import argparse
import re
import sys

KERNEL = re.compile(r"^  (\S+) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context")
# "    Elapsed Cycles                cycle      419,529" or, without a unit, "    Grid Size      132"
METRIC = re.compile(r"^    (\S.*?)\s{2,}(?:(\S+)\s+)?([\d,]+(?:\.\d+)?)\s*$")
BUSIEST = re.compile(r"(\w+) is the highest-utilized pipeline \(([\d.]+)%\)")
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


def number(text):
    return float(text.replace(",", ""))


def parse(path):
    """[{'name', 'grid', 'block', 'metrics': {name: (unit, value)}, 'busiest': (pipe, percent)}], first
    profile of each kernel name, in report order."""
    kernels, seen, current = [], set(), None
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    for line in lines:
        m = KERNEL.match(line)
        if m:
            name = m.group(1)
            current = None
            if name not in seen:
                seen.add(name)
                current = {"name": name, "grid": tuple(int(x) for x in m.group(2, 3, 4)),
                           "block": tuple(int(x) for x in m.group(5, 6, 7)), "metrics": {}, "busiest": None}
                kernels.append(current)
            continue
        if current is None:
            continue
        b = BUSIEST.search(line)
        if b and current["busiest"] is None:
            current["busiest"] = (b.group(1).lower(), float(b.group(2)))
            continue
        m = METRIC.match(line)
        if m and m.group(1) not in current["metrics"]:
            current["metrics"][m.group(1)] = (m.group(2) or "", number(m.group(3)))
    return kernels


def value(kernel, name):
    got = kernel["metrics"].get(name)
    return got[1] if got else None


def instructions(kernel):
    cycles, ipc = value(kernel, "Elapsed Cycles"), value(kernel, "Executed Ipc Elapsed")
    return cycles * ipc if cycles is not None and ipc is not None else None


def duration_us(kernel):
    """ncu picks the unit per kernel (us, ms, ...): one unit for the table"""
    got = kernel["metrics"].get("Duration")
    scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}
    return got[1] * scale[got[0]] if got and got[0] in scale else None


def dims(d):
    """(132, 1, 1) -> 132, (32, 8, 4) -> 32x8x4: trailing 1s left out"""
    d = list(d)
    while len(d) > 1 and d[-1] == 1:
        d.pop()
    return "x".join(str(x) for x in d)


def stall_rows(kernels, fmt):
    """[(label, cells)] of the stall reasons any kernel reports, the first kernel's largest first (equal ones in
    the report's order: a set's order would change from run to run)"""
    names = sorted(dict.fromkeys(m for k in kernels for m in k["metrics"] if STALL.match(m)),
                   key=lambda m: -(value(kernels[0], m) or 0.0))
    return [(f"stall: {STALL.match(m).group(1)} (warps per issued instruction)", [fmt(value(k, m)) for k in kernels])
            for m in names if max(value(k, m) or 0.0 for k in kernels) >= 0.05]


def table(kernels):
    def fmt(v, digits=2):
        if v is None:
            return "-"
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.{digits}f}"

    def ratio(get):
        first = get(kernels[0])
        return [fmt(get(k) / first) if first and get(k) is not None else "-" for k in kernels]

    def metric(name, digits=2):
        return [fmt(value(k, name), digits) for k in kernels]

    def unit_of(name):
        return next((k["metrics"][name][0] for k in kernels if name in k["metrics"]), "")

    rows = [
        ("grid x block", [f"{dims(k['grid'])} x {dims(k['block'])}" for k in kernels]),
        ("registers / thread", metric("Registers Per Thread", 0)),
        (f"dynamic shared memory ({unit_of('Dynamic Shared Memory Per Block')})",
         metric("Dynamic Shared Memory Per Block")),
        (f"SM frequency ({unit_of('SM Frequency')})", metric("SM Frequency")),
        ("duration (us)", [fmt(duration_us(k), 1) for k in kernels]),
        ("elapsed cycles", metric("Elapsed Cycles")),
        ("elapsed cycles / first", ratio(lambda k: value(k, "Elapsed Cycles"))),
        ("busiest pipe, % of elapsed cycles",
         [f"{k['busiest'][0]} {k['busiest'][1]:.1f}" if k["busiest"] else "-" for k in kernels]),
        ("executed IPC (elapsed)", metric("Executed Ipc Elapsed")),
        ("issue slots busy (%)", metric("Issue Slots Busy")),
        ("warp cycles per issued instruction", metric("Warp Cycles Per Issued Instruction")),
        ("instructions per SM (cycles x IPC)", [fmt(instructions(k)) for k in kernels]),
        ("instructions / first", ratio(instructions)),
    ]
    rows += stall_rows(kernels, fmt)
    labels = [chr(ord("A") + i) for i in range(len(kernels))]
    out = [f"- {label}: `{k['name']}`" for label, k in zip(labels, kernels)]
    out += ["", "| | " + " | ".join(labels) + " |", "| --- |" + " ---: |" * len(kernels)]
    out += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="ncu's text output")
    args = ap.parse_args(argv)
    kernels = parse(args.log)
    if not kernels:
        sys.exit(f"ncu_compare: no kernel report in {args.log} (is it ncu's text output?)")
    sys.stdout.write(table(kernels))


if __name__ == "__main__":
    main()
