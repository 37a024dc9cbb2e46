#!/usr/bin/env python3
"""Strategy benchmark on recorded exhaustive leaderboards.

For each recorded space (a (kernel, shape) group of a leaderboard), runs every
attn-tune strategy through `attn-tune replay` and Kernel Tuner's strategies in
its simulation mode on the same data (the leaderboard converted to a Kernel
Tuner cache file), --repeat seeds each, and writes one table: strategy x space
-> evaluations needed to come within --within of the recorded best (median and
quartiles). A run that never gets there within the budget (the whole space)
counts as unreached: a quantile that falls on unreached runs is shown as "-".
Every strategy, attn-tune's and Kernel Tuner's, gets the same budget: the
whole space, or on spaces of at least --large configurations --budget of it (a
fraction, e.g. 0.2 for 20%). --jobs runs the (space, strategy) cells in a
process pool. --reuse takes Kernel Tuner's cells from an earlier table.json
where they were measured on the same space with the same budget, seeds and
target (they do not depend on attn-tune's code).

Kernel Tuner is a pip package: `pip install kernel_tuner`.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

ATTN_TUNE_STRATEGIES = ["random", "annealing", "genetic", "surrogate", "exhaustive"]
KT_STRATEGIES = ["random_sample", "simulated_annealing", "genetic_algorithm", "diff_evo", "pso", "firefly_algorithm",
                 "greedy_mls", "greedy_ils", "mls", "dual_annealing", "basinhopping", "bayes_opt", "minimize"]


def quantile(sorted_values, q):
    """Linear interpolation like attn-tune's replay; None when it touches an unreached run (None sorts last)."""
    if not sorted_values:
        return None
    at = q * (len(sorted_values) - 1)
    lo, hi = math.floor(at), math.ceil(at)
    if sorted_values[lo] is None or sorted_values[hi] is None:
        return None
    return sorted_values[lo] + (at - lo) * (sorted_values[hi] - sorted_values[lo])


def quartiles(needed):
    s = sorted(needed, key=lambda v: (v is None, v or 0))
    return {"q1": quantile(s, 0.25), "median": quantile(s, 0.5), "q3": quantile(s, 0.75),
            "reached": sum(v is not None for v in needed)}


def param_names(group):
    return [p[0] for p in group["entries"][0]["params"]]


def cost(entry):
    """The entry's median, the cost the strategies minimize; the target is the smallest one recorded, as
    `attn-tune replay` takes it (the fastest time, not the winner by rank)."""
    return leaderboards.median_ms(entry) if entry["status"] == "ok" else None


def select_spaces(files, min_configs, per_kernel, large):
    """The largest groups of each (leaderboard, kernel) with at least MIN_CONFIGS recorded configurations,
    and every group of at least LARGE."""
    spaces = []
    for f in files:
        by_kernel = {}
        for g in leaderboards.load(f)["groups"]:
            if len(g["entries"]) >= min_configs and any(cost(e) for e in g["entries"]):
                by_kernel.setdefault(g["kernel"], []).append(g)
        for kernel, groups in sorted(by_kernel.items()):
            groups.sort(key=lambda g: -len(g["entries"]))  # stable: the leaderboard's order among equals
            for i, g in enumerate(groups):
                if i >= per_kernel and len(g["entries"]) < large:
                    continue
                spaces.append({"file": str(f), "kernel": kernel, "shape": g["shape"], "group": g,
                               "label": f"{Path(f).name.removesuffix('.gz').removesuffix('.json')}/{kernel}/{g['shape']}", "size": len(g["entries"])})
    return spaces


def budget_of(space, fraction, large):
    """Evaluations every strategy gets on SPACE: FRACTION of it (at least 1) when it has at least LARGE
    configurations, else all of it."""
    if fraction is None or space["size"] < large:
        return space["size"]
    return max(1, min(space["size"], math.ceil(fraction * space["size"])))


def attn_tune_runs(binary, space, strategy, repeat, within, budget):
    out = subprocess.run([binary, "replay", space["file"], "--kernel", space["kernel"], "--shape", space["shape"],
                          "--strategy", strategy, "--repeat", str(repeat), "--budget-evals", str(budget), "--json"],
                         check=True, capture_output=True, text=True).stdout
    group = json.loads(out)["groups"][0]
    for w in group["evaluations_to_within"]:
        if abs(w["within"] - within) < 1e-9:
            return {k: w[k] for k in ("q1", "median", "q3", "reached")}
    raise SystemExit(f"attn-tune replay reported no within={within}")


def kt_cache(space, path):
    """The group as a Kernel Tuner cache file; returns the parameter names, value lists and recorded keys."""
    g = space["group"]
    names = param_names(g)
    values = {n: sorted({dict(e["params"])[n] for e in g["entries"]}) for n in names}
    cache = {}
    for e in g["entries"]:
        p = dict(e["params"])
        key = ",".join(str(p[n]) for n in names)
        r = dict(p)
        c = cost(e)
        r["time"] = c if c is not None else ("CompilationFailedConfig" if e["status"] == "compile_failed" else "RuntimeFailedConfig")
        r.update(times=[c] if c is not None else [], compile_time=e.get("compile_ms", 0), verification_time=0,
                 benchmark_time=1000 * e["timing"]["wall_s"] if e.get("timing") else 0, strategy_time=0, framework_time=0,
                 timestamp="")
        cache[key] = r
    doc = {"device_name": "Simulation", "kernel_name": space["kernel"], "problem_size": [1], "tune_params_keys": names,
           "tune_params": values, "objective": "time", "cache": cache}
    Path(path).write_text(json.dumps(doc))
    return names, values, set(cache)


def kt_runs(space, strategy, repeat, within, workdir, budget):
    from kernel_tuner import tune_kernel
    import numpy as np

    best = min(c for c in map(cost, space["group"]["entries"]) if c is not None)
    needed, errors = [], []
    for seed in range(repeat):
        cachefile = os.path.join(workdir, f"cache.{os.getpid()}.json")
        names, values, recorded = kt_cache(space, cachefile)  # fresh each run: Kernel Tuner reopens it for appending
        def recorded_only(p):  # a def, not a lambda: Kernel Tuner rewrites lambdas from their source text
            return ",".join(str(p[n]) for n in names) in recorded

        random.seed(seed)
        np.random.seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results, _ = tune_kernel(space["kernel"], "__global__ void k() {}", 1, [], values, strategy=strategy,
                                         cache=cachefile, simulation_mode=True,
                                         restrictions=recorded_only,
                                         strategy_options={"max_fevals": budget}, quiet=True, verbose=False)
            except Exception as e:  # a strategy that crashes on this space: the run never got there
                errors.append(f"{type(e).__name__}: {e}")
                needed.append(None)
                continue
        seen, n = set(), None
        for r in results:
            key = ",".join(str(r[n_]) for n_ in names)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > budget:  # the same budget as attn-tune's: an evaluation beyond it does not count
                break
            t = r.get("time")
            if isinstance(t, (int, float)) and t <= best * (1 + within):
                n = len(seen)
                break
        needed.append(n)
    q = quartiles(needed)
    if errors:
        q["errors"] = len(errors)
        q["error"] = errors[0]
    return q


def cell(q):
    f = lambda v: "-" if v is None else f"{v:g}"
    crashed = f" [{q['errors']} crashed]" if q.get("errors") else ""
    return f"{f(q['median'])} ({f(q['q1'])}-{f(q['q3'])}){crashed}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("leaderboards", nargs="+", help="leaderboards of exhaustive sweeps")
    ap.add_argument("--attn-tune", default="build/app/attn-tune")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--within", type=float, default=0.03)
    ap.add_argument("--min-configs", type=int, default=40, help="skip smaller recorded spaces")
    ap.add_argument("--per-kernel", type=int, default=2, help="largest spaces taken per leaderboard and kernel")
    ap.add_argument("--large", type=int, default=2000,
                    help="spaces of at least this many configurations are all taken, and checked against the target")
    ap.add_argument("--budget", type=float, default=None,
                    help="evaluations per run as a fraction of each space of at least --large configurations "
                         "(e.g. 0.2); default and on smaller spaces: the whole space")
    ap.add_argument("--jobs", type=int, default=1, help="(space, strategy) cells run at once")
    ap.add_argument("--attn-tune-strategies", default=",".join(ATTN_TUNE_STRATEGIES))
    ap.add_argument("--kt-strategies", default=",".join(KT_STRATEGIES))
    ap.add_argument("--reuse", nargs="*", default=[], help="table.json files whose Kernel Tuner cells are reused")
    ap.add_argument("--out", required=True, help="directory for table.md and table.json")
    ap.add_argument("--command", default="", help="the command line to record in the table")
    args = ap.parse_args()

    spaces = select_spaces(args.leaderboards, args.min_configs, args.per_kernel, args.large)
    if not spaces:
        raise SystemExit("no recorded space with at least --min-configs configurations")
    try:
        import kernel_tuner
        kt_version = kernel_tuner.__version__ if hasattr(kernel_tuner, "__version__") else "?"
        kt = [s for s in args.kt_strategies.split(",") if s]
    except ImportError:
        print("kernel_tuner is not installed (pip install kernel_tuner): Kernel Tuner's rows are left out", file=sys.stderr)
        kt, kt_version = [], None
    if kt_version == "?":
        from importlib.metadata import version
        kt_version = version("kernel_tuner")

    default = default_strategy()
    cells = [("attn-tune", s, space) for space in spaces for s in args.attn_tune_strategies.split(",") if s]
    cells += [("kernel_tuner", s, space) for space in spaces for s in kt]
    rows = {f"{tool} {s}": {} for tool, s, _ in cells}
    reused = reusable_cells(args, kt_version)
    for tool, s, space in list(cells):
        key = (f"{tool} {s}", space["label"], space["size"], budget_of(space, args.budget, args.large))
        if key in reused:
            rows[key[0]][space["label"]] = reused[key]
            cells.remove((tool, s, space))
    if reused:
        print(f"{sum(len(r) for r in rows.values())} Kernel Tuner cells reused from {' '.join(args.reuse)}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as workdir, concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_cell, tool, s, space, args, workdir): (tool, s, space) for tool, s, space in cells}
        for future in concurrent.futures.as_completed(futures):
            tool, s, space = futures[future]
            q, seconds = future.result()
            rows[f"{tool} {s}"][space["label"]] = q
            print(f"{space['label']}: {tool} {s} {seconds:.1f} s", file=sys.stderr)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    labels = [s["label"] for s in spaces]
    budgets = {s["label"]: budget_of(s, args.budget, args.large) for s in spaces}
    verdicts = target_verdicts(spaces, rows, default, args.large, args.within)
    (out / "table.json").write_text(json.dumps({
        "within": args.within, "repeat": args.repeat, "kernel_tuner": kt_version, "command": args.command,
        "budget_fraction": args.budget, "large": args.large, "default_strategy": default, "reused": args.reuse,
        "spaces": [{"label": s["label"], "file": s["file"], "size": s["size"], "budget": budgets[s["label"]]}
                   for s in spaces],
        "rows": rows, "target": verdicts}, indent=2) + "\n")

    budget_text = ("the whole space" if args.budget is None else
                   f"{args.budget:.0%} of each space of at least {args.large} configurations, the whole of smaller ones "
                   "(the *budget* row)")
    lines = [f"# Evaluations to within {args.within:.0%} of the recorded best", "",
             f"Median (quartiles) over {args.repeat} seeds of the evaluations each strategy needs to find a configuration "
             f"within {args.within:.0%} of the fastest recorded one, replaying recorded exhaustive sweeps (no device). "
             f"Budget of every run, attn-tune's and Kernel Tuner's: {budget_text}; `-`: that quantile's runs never got "
             f"there within it. Kernel Tuner {kt_version} in simulation mode on the same data.", ""]
    if args.command:
        lines += [f"Command: `{args.command}`", ""]
    if args.reuse:
        lines += [f"Kernel Tuner's cells measured before on the same space, budget, seeds and target are taken from "
                  f"{', '.join(f'`{r}`' for r in args.reuse)}.", ""]
    lines += ["| strategy | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels),
              "| *configurations* | " + " | ".join(str(s["size"]) for s in spaces) + " |",
              "| *5% of the space* | " + " | ".join(f"{0.05 * s['size']:g}" for s in spaces) + " |",
              "| *budget* | " + " | ".join(str(budgets[l]) for l in labels) + " |"]
    for name, by_space in rows.items():
        lines.append(f"| {name} | " + " | ".join(cell(by_space[l]) for l in labels) + " |")
    if verdicts:
        lines += ["", f"## The target on spaces of at least {args.large} configurations", "",
                  f"attn-tune's default strategy (`{default}`) within {args.within:.0%} of the best in at most 5% of "
                  "the space (median), and in fewer evaluations (median) than Kernel Tuner's best strategy on that space "
                  "(*tie*: the same median).",
                  "", "| space | 5% of the space | attn-tune " + default + " | Kernel Tuner's best | met |",
                  "|---|---|---|---|---|"]
        f = lambda v: "-" if v is None else f"{v:g}"
        for v in verdicts:
            lines.append(f"| {v['space']} | {v['five_percent']:g} | {f(v['default_median'])} | "
                         f"{f(v['kt_best_median'])} ({v['kt_best'] or '-'}) | "
                         f"{'yes' if v['met'] else 'tie' if v['tie'] else 'no'} |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print((out / "table.md").read_text())


def default_strategy():
    """attn-tune's default search strategy, as tuner/search/strategy.hpp declares it."""
    import re
    header = Path(__file__).resolve().parents[2] / "tuner/search/strategy.hpp"
    m = re.search(r'kDefaultSearchStrategy = "(\w+)"', header.read_text())
    if not m:
        raise SystemExit(f"{header}: no kDefaultSearchStrategy")
    return m.group(1)


def reusable_cells(args, kt_version):
    """Kernel Tuner cells of earlier tables with the same seeds, target and Kernel Tuner version, by
    (row, space label, space size, budget); a table without budgets gave each space all of it."""
    out = {}
    for path in args.reuse:
        t = json.loads(Path(path).read_text())
        if t["repeat"] != args.repeat or abs(t["within"] - args.within) > 1e-12 or t["kernel_tuner"] != kt_version:
            continue
        for space in t["spaces"]:
            budget = space.get("budget", space["size"])
            for row, by_space in t["rows"].items():
                if row.startswith("kernel_tuner ") and space["label"] in by_space:
                    out[(row, space["label"], space["size"], budget)] = by_space[space["label"]]
    return out


def run_cell(tool, strategy, space, args, workdir):
    """One (tool, strategy, space) cell of the table: its quartiles and the seconds it took."""
    t = time.time()
    budget = budget_of(space, args.budget, args.large)
    if tool == "attn-tune":
        q = attn_tune_runs(args.attn_tune, space, strategy, args.repeat, args.within, budget)
    else:
        q = kt_runs(space, strategy, args.repeat, args.within, workdir, budget)
    return q, time.time() - t


def target_verdicts(spaces, rows, default, large, within):
    """Per space of at least LARGE configurations: is the default's median within 5% of the space and below
    the median of every Kernel Tuner strategy?"""
    out = []
    for s in spaces:
        if s["size"] < large:
            continue
        label = s["label"]
        mine = rows.get(f"attn-tune {default}", {}).get(label, {}).get("median")
        kt = [(name.split(" ", 1)[1], by[label]["median"]) for name, by in rows.items()
              if name.startswith("kernel_tuner ") and by[label]["median"] is not None]
        kt_best, kt_median = min(kt, key=lambda x: x[1]) if kt else (None, None)
        five = 0.05 * s["size"]
        within_five = mine is not None and mine <= five
        met = within_five and (kt_median is None or mine < kt_median)
        tie = within_five and kt_median is not None and mine == kt_median
        out.append({"space": label, "size": s["size"], "five_percent": five, "default": default,
                    "default_median": mine, "kt_best": kt_best, "kt_best_median": kt_median, "met": met, "tie": tie})
    return out


if __name__ == "__main__":
    main()
