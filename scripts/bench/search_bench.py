#!/usr/bin/env python3
"""Strategy benchmark on recorded exhaustive leaderboards.

For each recorded space (a (kernel, shape) group of a leaderboard), runs every
attn-tune strategy through `attn-tune replay` and Kernel Tuner's strategies in
its simulation mode on the same data (the leaderboard converted to a Kernel
Tuner cache file), --repeat seeds each, and writes one table: strategy x space
-> evaluations needed to come within --within of the recorded best (median and
quartiles). A run that never gets there within the budget (the whole space)
counts as unreached: a quantile that falls on unreached runs is shown as "-".

Kernel Tuner is a pip package: `pip install kernel_tuner`.
"""
import argparse
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
    return entry["timing"]["median_ms"] if entry["status"] == "ok" and entry.get("timing") else None


def select_spaces(files, min_configs, per_kernel):
    """The largest groups of each (leaderboard, kernel) with at least MIN_CONFIGS recorded configurations."""
    spaces = []
    for f in files:
        lb = json.load(open(f))
        by_kernel = {}
        for g in lb.get("groups", []):
            if len(g["entries"]) >= min_configs and any(cost(e) for e in g["entries"]):
                by_kernel.setdefault(g["kernel"], []).append(g)
        for kernel, groups in sorted(by_kernel.items()):
            groups.sort(key=lambda g: -len(g["entries"]))  # stable: the leaderboard's order among equals
            for g in groups[:per_kernel]:
                spaces.append({"file": str(f), "kernel": kernel, "shape": g["shape"], "group": g,
                               "label": f"{Path(f).stem}/{kernel}/{g['shape']}", "size": len(g["entries"])})
    return spaces


def attn_tune_runs(binary, space, strategy, repeat, within):
    out = subprocess.run([binary, "replay", space["file"], "--kernel", space["kernel"], "--shape", space["shape"],
                          "--strategy", strategy, "--repeat", str(repeat), "--json"],
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


def kt_runs(space, strategy, repeat, within, workdir):
    from kernel_tuner import tune_kernel
    import numpy as np

    best = min(c for c in map(cost, space["group"]["entries"]) if c is not None)
    needed, errors = [], []
    for seed in range(repeat):
        cachefile = os.path.join(workdir, "cache.json")
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
                                         strategy_options={"max_fevals": space["size"]}, quiet=True, verbose=False)
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
    ap.add_argument("--kt-strategies", default=",".join(KT_STRATEGIES))
    ap.add_argument("--out", required=True, help="directory for table.md and table.json")
    ap.add_argument("--command", default="", help="the command line to record in the table")
    args = ap.parse_args()

    spaces = select_spaces(args.leaderboards, args.min_configs, args.per_kernel)
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

    rows = {}
    with tempfile.TemporaryDirectory() as workdir:
        for space in spaces:
            for s in ATTN_TUNE_STRATEGIES:
                t = time.time()
                rows.setdefault(f"attn-tune {s}", {})[space["label"]] = attn_tune_runs(args.attn_tune, space, s, args.repeat, args.within)
                print(f"{space['label']}: attn-tune {s} {time.time() - t:.1f} s", file=sys.stderr)
            for s in kt:
                t = time.time()
                rows.setdefault(f"kernel_tuner {s}", {})[space["label"]] = kt_runs(space, s, args.repeat, args.within, workdir)
                print(f"{space['label']}: kernel_tuner {s} {time.time() - t:.1f} s", file=sys.stderr)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    labels = [s["label"] for s in spaces]
    (out / "table.json").write_text(json.dumps({
        "within": args.within, "repeat": args.repeat, "kernel_tuner": kt_version, "command": args.command,
        "spaces": [{"label": s["label"], "file": s["file"], "size": s["size"]} for s in spaces], "rows": rows}, indent=2) + "\n")

    lines = [f"# Evaluations to within {args.within:.0%} of the recorded best", "",
             f"Median (quartiles) over {args.repeat} seeds of the evaluations each strategy needs to find a configuration "
             f"within {args.within:.0%} of the fastest recorded one, replaying recorded exhaustive sweeps (no device). "
             "Budget: the whole space; `-`: that quantile's runs never got there. "
             f"Kernel Tuner {kt_version} in simulation mode on the same data.", ""]
    if args.command:
        lines += [f"Command: `{args.command}`", ""]
    lines += ["| strategy | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels),
              "| *configurations* | " + " | ".join(str(s["size"]) for s in spaces) + " |",
              "| *5% of the space* | " + " | ".join(f"{0.05 * s['size']:g}" for s in spaces) + " |"]
    for name, by_space in rows.items():
        lines.append(f"| {name} | " + " | ".join(cell(by_space[l]) for l in labels) + " |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print((out / "table.md").read_text())


if __name__ == "__main__":
    main()
