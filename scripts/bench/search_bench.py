#!/usr/bin/env python3
"""Strategy benchmark on recorded exhaustive spaces: attn-tune's leaderboards and other tuners' brute-forced
spaces (Kernel Tuner cache files and T4 results documents, .json or .json.gz, such as ../shared/search-spaces/).

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

Each cell also reports evaluations to within --within2 (1%), the fraction of seeds that get within each, the
strategy's own time per evaluation (attn-tune's, from replay), and the performance score of the
`autotuning_methodology` package (Willemsen et al. 2024), computed by the package's own classes over the
evaluations 1..budget (see methodology_score). --budgets gives a second, smaller budget fraction (e.g. 0.05)
whose cells are reported beside --budget's.

Kernel Tuner and the methodology are pip packages: `pip install kernel_tuner==1.5.0 autotuning_methodology`.
"""
import argparse
import concurrent.futures
import gzip
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from importlib.metadata import version
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


def imported_space(path):
    """A Kernel Tuner cache file or a T4 results document (.json or .json.gz) as one space: its configurations'
    costs (the file's `time`, Kernel Tuner's mean of its runs; None for a failure marker), as `attn-tune replay`
    reads them. A T4 document's Kernel Tuner cells are its twin cache's (the same stem without _T4), since
    Kernel Tuner's simulation mode reads only its own cache format."""
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
        doc = json.load(f)
    label = Path(path).name.removesuffix(".gz").removesuffix(".json")
    costs = {}
    if "cache" in doc:
        names = doc["tune_params_keys"]
        for key, e in doc["cache"].items():
            t = e.get("time")
            costs[key] = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None
        kind, twin = "kt_cache", None
    elif "results" in doc:
        names = list(doc["results"][0]["configuration"])
        for r in doc["results"]:
            key = ",".join(str(r["configuration"][n]) for n in names)
            t = next((m["value"] for m in r.get("measurements", []) if m.get("name") == "time"), None)
            ok = r.get("invalidity", "correct") == "correct" and isinstance(t, (int, float))
            costs[key] = float(t) if ok else None
        kind = "t4"
        twin = next((str(c) for c in [Path(path).with_name(Path(path).name.replace("_T4", ""))] if c.exists()), None)
    else:
        raise SystemExit(f"{path}: neither an attn-tune leaderboard, a Kernel Tuner cache file nor a T4 document")
    return {"file": str(path), "kernel": None, "shape": None, "label": label, "size": len(costs), "kind": kind,
            "names": names, "costs": costs, "twin": twin}


def load_spaces(files, min_configs, per_kernel, large):
    """select_spaces over the leaderboards, then every imported space (Kernel Tuner cache, T4)."""
    boards, imported, given = [], [], {}
    for f in files:
        if not Path(f).exists() and Path(f + ".gz").exists():
            given[f + ".gz"] = f  # a recorded space gzipped since (results/h200/large/README.md): named as before
            f = f + ".gz"
        try:
            leaderboards.load(f)
            boards.append(f)
        except (ValueError, KeyError):
            imported.append(imported_space(f))
    spaces = select_spaces(boards, min_configs, per_kernel, large)
    for s in spaces:
        s["kind"] = "leaderboard"
        s["given"] = given.get(s["file"], s["file"])
        s["names"] = param_names(s["group"])
        s["costs"] = {",".join(str(dict(e["params"])[n]) for n in s["names"]): cost(e) for e in s["group"]["entries"]}
    return spaces, imported


def best_so_far(improvements, budget):
    """Per evaluation 1..BUDGET the best time so far (NaN before the first success), from (evaluation, time)."""
    curve = [math.nan] * budget
    for n, t in improvements:
        if n <= budget:
            for i in range(n - 1, budget):
                curve[i] = t
    return curve


def needed(curve, best, within):
    """Evaluations until CURVE is within WITHIN of BEST; None when it never gets there."""
    return next((i + 1 for i, t in enumerate(curve) if t <= best * (1 + within)), None)


def attn_tune_runs(binary, space, strategy, repeat, budget):
    """Each seed's best-so-far curve, and the median over all evaluations of the strategy's own ms."""
    cmd = [binary, "replay", space["file"]]
    if space["kind"] == "leaderboard":
        cmd += ["--kernel", space["kernel"], "--shape", space["shape"]]
    cmd += ["--strategy", strategy, "--repeat", str(repeat), "--budget-evals", str(budget), "--json"]
    group = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["groups"][0]
    curves = [best_so_far([tuple(i) for i in run["improvements"]], budget) for run in group["runs"]]
    return curves, group["strategy_ms_per_evaluation_median"], []


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


def kt_document(space):
    """The space as the text of a Kernel Tuner cache file, its kernel's name and problem size, its parameter names, value lists and recorded keys:
    an imported cache file as it is (Kernel Tuner's own format), a leaderboard through kt_cache."""
    if space["kind"] == "kt_cache":
        with (gzip.open(space["file"], "rt") if space["file"].endswith(".gz") else open(space["file"])) as f:
            text = f.read()
        doc = json.loads(text)
        return text, doc["kernel_name"], doc["problem_size"], doc["tune_params_keys"], doc["tune_params"], set(doc["cache"])
    with tempfile.NamedTemporaryFile("w+", suffix=".json") as t:
        names, values, recorded = kt_cache(space, t.name)
        return Path(t.name).read_text(), space["kernel"], 1, names, values, recorded


def kt_runs(space, strategy, repeat, workdir, budget):
    """Each seed's best-so-far curve in Kernel Tuner's simulation mode (its first BUDGET distinct evaluations)."""
    from kernel_tuner import tune_kernel
    import numpy as np

    text, kernel_name, problem_size, names, values, recorded = kt_document(space)
    curves, errors = [], []
    for seed in range(repeat):
        cachefile = os.path.join(workdir, f"cache.{os.getpid()}.json")
        Path(cachefile).write_text(text)  # fresh each run: Kernel Tuner reopens it for appending

        def recorded_only(p):  # a def, not a lambda: Kernel Tuner rewrites lambdas from their source text
            return ",".join(str(p[n]) for n in names) in recorded

        random.seed(seed)
        np.random.seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results, _ = tune_kernel(kernel_name, "__global__ void k() {}", problem_size, [], values,
                                         strategy=strategy, cache=cachefile, simulation_mode=True,
                                         restrictions=recorded_only, strategy_options={"max_fevals": budget},
                                         quiet=True, verbose=False)
            except Exception as e:  # a strategy that crashes on this space: the run never got there
                errors.append(f"{type(e).__name__}: {e}")
                curves.append([math.nan] * budget)
                continue
        seen, improvements, best = set(), [], math.inf
        for r in results:
            key = ",".join(str(r[n_]) for n_ in names)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > budget:  # the same budget as attn-tune's: an evaluation beyond it does not count
                break
            t = r.get("time")
            if isinstance(t, (int, float)) and t < best:
                best = t
                improvements.append((len(seen), t))
        curves.append(best_so_far(improvements, budget))
    return curves, None, errors


_STATS = {}


def methodology_score(space, curves, budget, workdir):
    """The autotuning_methodology performance score of one strategy on one space at BUDGET evaluations, by the
    package's own code: the space's distribution (SearchspaceStatistics, from a T4 file of the recorded times),
    the strategy's curve (StochasticOptimizationAlgorithm over function evaluations: per evaluation, the median
    over the seeds of the best found, looked up in the distribution) and the calculated random-search baseline
    (RandomSearchCalculatedBaseline); the score is the mean over evaluations 1..BUDGET of the standardised curve
    (strategy - random) / (optimum - random), 1 = the optimum from the first evaluation, 0 = random search. The
    package's own reports average it over a time range set by cutoff percentiles; the budgets here are
    evaluations, so the range is 1..BUDGET over evaluations. A seed that has found nothing yet counts as the
    slowest recorded configuration. None where the calculated random search reaches the optimum within the
    budget (a small space searched whole): the package's standardisation divides by zero there."""
    import numpy as np
    from autotuning_methodology.baseline import RandomSearchCalculatedBaseline
    from autotuning_methodology.caching import Results
    from autotuning_methodology.curves import StochasticOptimizationAlgorithm
    from autotuning_methodology.searchspace_statistics import SearchspaceStatistics

    if space["label"] not in _STATS:
        path = Path(workdir) / f"space.{os.getpid()}.{len(_STATS)}.json"
        results = [{"configuration": dict(zip(space["names"], k.split(","))),
                    "times": {"runtimes": [c] if c is not None else []},
                    "measurements": [{"name": "time", "value": c if c is not None else "RuntimeFailedConfig", "unit": "ms"}]}
                   for k, c in space["costs"].items()]
        path.write_text(json.dumps({"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"},
                                    "results": results}))
        _STATS[space["label"]] = SearchspaceStatistics(space["label"], "device", True, ["runtimes"], ["time"], path,
                                                       full_validate=False)
    stats = _STATS[space["label"]]
    dist = stats.objective_performances_total_sorted
    y = np.array(curves, dtype=float).T  # (budget, repeats)
    y[np.isnan(y)] = dist[-1]
    fevals = np.tile(np.arange(1, budget + 1)[:, None], (1, y.shape[1]))

    class Description:  # what Curve reads of a ResultsDescription: the names and the arrays of runner.py's order
        group_name = group_display_name = "strategy"
        device_name, application_name, stochastic, minimization = "device", space["label"], True, True

        def get_results(self):
            t = fevals.astype(float)
            return Results([fevals, t, y, y, np.zeros_like(y), t[None], y[None]])

    fevals_range = np.arange(1, budget + 1)
    split = StochasticOptimizationAlgorithm(Description()).get_curve_over_fevals(fevals_range, dist=dist)
    curve = np.concatenate([split[2], split[6]]) if split[5].ndim > 0 else split[2]
    try:
        standardised = RandomSearchCalculatedBaseline(stats).get_standardised_curve(fevals_range, curve, x_type="fevals")
    except ValueError:  # the package's division by zero: its random baseline reaches the optimum within the budget
        return None
    return float(np.mean(standardised))


def summarize(space, runs, withins, workdir):
    """A cell from its runs: per target the quartiles of evaluations needed and the seeds that got there, and
    the score."""
    budget, strategy_ms, errors = runs["budget"], runs["strategy_ms"], runs["errors"]
    curves = [best_so_far(i, budget) for i in runs["improvements"]]
    best = min(c for c in space["costs"].values() if c is not None)
    out = {f"within_{w:g}": quartiles([needed(c, best, w) for c in curves]) for w in withins}
    out.update(out[f"within_{withins[0]:g}"])  # the first target's quartiles at the top, as earlier tables
    out["score"] = methodology_score(space, curves, budget, workdir)
    if strategy_ms is not None:
        out["strategy_ms"] = strategy_ms
    if errors:
        out["errors"] = len(errors)
        out["error"] = errors[0]
    return out


def cell(q):
    f = lambda v: "-" if v is None else f"{v:g}"
    crashed = f" [{q['errors']} crashed]" if q.get("errors") else ""
    return f"{f(q['median'])} ({f(q['q1'])}-{f(q['q3'])}){crashed}"


def score_text(score, digits=3):
    return "n/a" if score is None else f"{score:.{digits}f}"


def cell_all(q, repeat, withins):
    """A table cell: evaluations to each target as median (quartiles) with the seeds that got there, and the score."""
    parts = []
    for w in withins:
        x = q.get(f"within_{w:g}", q)
        parts.append(f"{cell(x).split(' [')[0]} {x['reached']}/{repeat}")
    score = score_text(q.get("score"), 2)
    crashed = f" [{q['errors']} crashed]" if q.get("errors") else ""
    return " · ".join(parts) + f" · {score}{crashed}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("leaderboards", nargs="+",
                    help="leaderboards of exhaustive sweeps, Kernel Tuner cache files or T4 documents (.json, .json.gz)")
    ap.add_argument("--attn-tune", default="build/app/attn-tune")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--within", type=float, default=0.03)
    ap.add_argument("--within2", type=float, default=0.01, help="a second, tighter target")
    ap.add_argument("--min-configs", type=int, default=40, help="skip smaller recorded spaces")
    ap.add_argument("--per-kernel", type=int, default=2, help="largest spaces taken per leaderboard and kernel")
    ap.add_argument("--large", type=int, default=2000,
                    help="spaces of at least this many configurations are all taken, and checked against the target")
    ap.add_argument("--budget", type=float, default=None,
                    help="evaluations per run as a fraction of each space of at least --large configurations "
                         "(e.g. 0.1); default and on smaller spaces: the whole space")
    ap.add_argument("--budgets", default="", help="further budget fractions, comma-separated (e.g. 0.05)")
    ap.add_argument("--jobs", type=int, default=1, help="(space, strategy, budget) cells run at once")
    ap.add_argument("--attn-tune-strategies", default=",".join(ATTN_TUNE_STRATEGIES))
    ap.add_argument("--kt-strategies", default=",".join(KT_STRATEGIES))
    ap.add_argument("--size-limit", default="",
                    help="STRATEGY=N,...: attn-tune strategies not run on spaces of more than N configurations "
                         "(too slow for the time at hand); the table says so")
    ap.add_argument("--reuse", nargs="*", default=[], help="table.json files whose Kernel Tuner cells are reused")
    ap.add_argument("--save-runs", help="write every cell's runs (per seed, the improvements of its best) to this file")
    ap.add_argument("--runs-only", action="store_true", help="with --save-runs: stop there (no table, no score)")
    ap.add_argument("--load-attn-tune", action="store_true",
                    help="take attn-tune's cells from --load-runs too (made by the same attn-tune)")
    ap.add_argument("--no-run-kt", action="store_true",
                    help="run no Kernel Tuner cell: those not in --load-runs are shown as not run")
    ap.add_argument("--load-runs", nargs="*", default=[],
                    help="--save-runs files whose Kernel Tuner cells are taken instead of running them (same space, "
                         "budget and seeds)")
    ap.add_argument("--out", required=True, help="directory for table.md and table.json")
    ap.add_argument("--command", default="", help="the command line to record in the table")
    args = ap.parse_args()

    spaces, imported = load_spaces(args.leaderboards, args.min_configs, args.per_kernel, args.large)
    every = spaces + imported
    if not every:
        raise SystemExit("no recorded space with at least --min-configs configurations")
    try:
        import kernel_tuner  # noqa: F401
        kt_version = version("kernel_tuner")
        kt = [s for s in args.kt_strategies.split(",") if s]
    except ImportError:
        print("kernel_tuner is not installed (pip install kernel_tuner): Kernel Tuner's rows are left out", file=sys.stderr)
        kt, kt_version = [], None
    withins = [args.within, args.within2]
    fractions = [args.budget] + [float(f) for f in args.budgets.split(",") if f]
    fkey = lambda f: "whole" if f is None else f"{f:g}"

    default = default_strategy()
    mine = [s for s in args.attn_tune_strategies.split(",") if s]
    limits = {k: int(v) for k, v in (x.split("=") for x in args.size_limit.split(",") if x)}
    cells = [("attn-tune", s, space, f) for f in fractions for space in every for s in mine
             if space["size"] <= limits.get(s, math.inf)]
    cells += [("kernel_tuner", s, space, f) for f in fractions for space in every for s in kt if space["kind"] != "t4"]
    rows = {fkey(f): {f"{tool} {s}": {} for tool, s, _, _ in cells} for f in fractions}
    reused = reusable_cells(args, kt_version)
    for c in list(cells):
        tool, s, space, f = c
        key = (f"{tool} {s}", space["label"], space["size"], budget_of(space, f, args.large))
        if key in reused:
            rows[fkey(f)][key[0]][space["label"]] = reused[key]
            cells.remove(c)
    if reused:
        print(f"{sum(len(r) for b in rows.values() for r in b.values())} Kernel Tuner cells reused", file=sys.stderr)
    by_label = {s["label"]: s for s in every}
    loaded = {}
    for path in args.load_runs:
        t = json.loads(Path(path).read_text())
        if t["repeat"] == args.repeat and t["kernel_tuner"] == kt_version:
            loaded.update({tuple(c["key"]): c["runs"] for c in t["cells"]
                           if c["key"][0].startswith("kernel_tuner ") or args.load_attn_tune})
    raw = {}
    for c in list(cells):
        tool, s, space, f = c
        key = (f"{tool} {s}", space["label"], space["size"], budget_of(space, f, args.large))
        if key in loaded:
            raw[(tool, s, space["label"], f)] = loaded[key]
            cells.remove(c)
    if args.no_run_kt:
        cells = [c for c in cells if c[0] != "kernel_tuner"]
    if loaded:
        print(f"{len(raw)} cells' runs loaded from {' '.join(args.load_runs)}", file=sys.stderr)
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_cell, tool, s, space, f, args): (tool, s, space, f) for tool, s, space, f in cells}
        for future in concurrent.futures.as_completed(futures):
            tool, s, space, f = futures[future]
            raw[(tool, s, space["label"], f)], seconds = future.result()
            if args.save_runs:  # after every cell, so that an interrupted run keeps what it finished
                save_runs(args, raw, by_label)
            print(f"{space['label']} @{fkey(f)}: {tool} {s} {seconds:.1f} s", file=sys.stderr, flush=True)
    if args.save_runs and args.runs_only:
        return
    with tempfile.TemporaryDirectory() as workdir:
        for (tool, s, label, f), r in raw.items():
            rows[fkey(f)][f"{tool} {s}"][label] = summarize(by_label[label], r, withins, workdir)
    for space in imported:  # a T4 document's Kernel Tuner cells: its twin cache's
        twin = next((t for t in imported if space["kind"] == "t4" and t["file"] == space["twin"]), None)
        for by_row in rows.values():
            for name, by_space in by_row.items():
                if twin and name.startswith("kernel_tuner ") and twin["label"] in by_space:
                    by_space[space["label"]] = dict(by_space[twin["label"]], twin=twin["label"])

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    budgets = {fkey(f): {s["label"]: budget_of(s, f, args.large) for s in every} for f in fractions}
    verdicts = {fkey(f): target_verdicts(every, rows[fkey(f)], default, args.large, args.within) for f in fractions}
    primary = fkey(fractions[0])
    (out / "table.json").write_text(json.dumps({
        "within": args.within, "within2": args.within2, "repeat": args.repeat, "kernel_tuner": kt_version,
        "command": args.command, "budget_fraction": args.budget, "budget_fractions": [fkey(f) for f in fractions],
        "large": args.large, "default_strategy": default, "reused": args.reuse,
        "spaces": [{"label": s["label"], "file": s.get("given", s["file"]), "size": s["size"],
                    "budget": budgets[primary][s["label"]]} for s in spaces],
        "imported_spaces": [{"label": s["label"], "file": s["file"], "size": s["size"], "kind": s["kind"],
                             "budget": budgets[primary][s["label"]]} for s in imported],
        "rows": rows[primary], "rows_by_budget": rows, "budgets": budgets, "target": verdicts[primary],
        "target_by_budget": verdicts}, indent=1) + "\n")

    f = lambda v: "-" if v is None else f"{v:g}"
    lines = [f"# Evaluations to within {args.within:.0%} and {args.within2:.0%} of the recorded best", "",
             f"Per strategy and recorded space, over {args.repeat} seeds: evaluations to within {args.within:.0%} of "
             f"the fastest recorded configuration, median (quartiles) and the seeds that got there; the same to within "
             f"{args.within2:.0%}; and the `autotuning_methodology` performance score (0 = random search, 1 = the "
             f"optimum at once; `search_bench.py` methodology_score says how it is computed). `-`: that quantile's "
             f"runs never got there within the budget. Replayed, no device; Kernel Tuner {kt_version} in simulation "
             f"mode on the same data. Cell: `{args.within:.0%}: median (q1-q3) reached · {args.within2:.0%}: ... · score`.",
             ""]
    if args.command:
        lines += [f"Command: `{args.command}`", ""]
    if args.reuse:
        lines += [f"Kernel Tuner's cells measured before on the same space, budget, seeds and targets are taken from "
                  f"{', '.join(f'`{r}`' for r in args.reuse)}.", ""]
    for frac in fractions:
        k = fkey(frac)
        for title, group in (("attn-tune's recorded spaces", spaces), ("Public brute-forced spaces", imported)):
            if not group:
                continue
            budget_text = ("the whole space" if frac is None else
                           f"{frac:.0%} of each space of at least {args.large} configurations, the whole of smaller ones")
            lines += [f"## {title}, budget {budget_text}", ""]
            labels = [s["label"] for s in group]
            lines += ["| strategy | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels),
                      "| *configurations* | " + " | ".join(str(s["size"]) for s in group) + " |",
                      "| *budget* | " + " | ".join(str(budgets[k][l]) for l in labels) + " |"]
            for name, by_space in rows[k].items():
                if any(l in by_space for l in labels) or name.startswith("kernel_tuner "):
                    lines.append(f"| {name} | " + " | ".join(cell_all(by_space[l], args.repeat, withins) if l in by_space
                                                           else "not run" for l in labels) + " |")
            lines.append("")
        if verdicts[k]:
            lines += [f"### The target at this budget, spaces of at least {args.large} configurations", "",
                      f"attn-tune's default strategy (`{default}`): median evaluations to within {args.within:.0%} no "
                      "more than Kernel Tuner's best strategy's on that space (the smallest median of its strategies; "
                      "`-` = unreached, counted as more than any number), and a methodology score at least Kernel "
                      "Tuner's best score there.", "",
                      f"| space | attn-tune {default} evals | Kernel Tuner's best evals | attn-tune {default} score | "
                      "Kernel Tuner's best score | met |", "|---|---|---|---|---|---|"]
            for v in verdicts[k]:
                lines.append(f"| {v['space']} | {f(v['default_median'])} | {f(v['kt_best_median'])} ({v['kt_best'] or '-'}) | "
                             f"{score_text(v['default_score'])} | {score_text(v['kt_best_score'])} ({v['kt_best_score_strategy']}) | "
                             f"{'yes' if v['met'] else 'no'} |")
            lines.append("")
    ms = [(s["label"], rows[primary].get(f"attn-tune {default}", {}).get(s["label"], {}).get("strategy_ms"))
          for s in every]
    lines += [f"## The strategies' own time, budget {primary}", "",
              "Median over every evaluation of the 20 runs of the strategy's own time (propose and tell) in `attn-tune "
              "replay`, ms per evaluation, on this machine:", "",
              "| strategy | " + " | ".join(s["label"] for s in every) + " |", "|---|" + "---|" * len(every)]
    for name, by_space in rows[primary].items():
        if name.startswith("attn-tune "):
            lines.append(f"| {name} | " + " | ".join(f"{by_space[s['label']]['strategy_ms']:.3f}"
                                                    if s["label"] in by_space else "n/a" for s in every) + " |")
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
    """Kernel Tuner cells of earlier tables with the same seeds, targets and Kernel Tuner version that carry a
    score, by (row, space label, space size, budget)."""
    out = {}
    for path in args.reuse:
        t = json.loads(Path(path).read_text())
        if (t["repeat"] != args.repeat or abs(t["within"] - args.within) > 1e-12 or t["kernel_tuner"] != kt_version
                or abs(t.get("within2", -1) - args.within2) > 1e-12):
            continue
        for k, rows in t.get("rows_by_budget", {}).items():
            for space in t["spaces"] + t.get("imported_spaces", []):
                budget = t["budgets"][k][space["label"]]
                for row, by_space in rows.items():
                    q = by_space.get(space["label"])
                    if row.startswith("kernel_tuner ") and q and "score" in q and "twin" not in q:
                        out[(row, space["label"], space["size"], budget)] = q
    return out


def save_runs(args, raw, by_label):
    """Every cell's runs so far, to --save-runs (written whole, then renamed over the earlier file)."""
    cells = [{"key": [f"{tool} {s}", label, by_label[label]["size"], budget_of(by_label[label], f, args.large)],
              "runs": r} for (tool, s, label, f), r in raw.items()]
    tmp = Path(args.save_runs + ".tmp")
    tmp.write_text(json.dumps({"repeat": args.repeat, "kernel_tuner": version("kernel_tuner"), "command": args.command,
                               "cells": cells}) + "\n")
    tmp.replace(args.save_runs)


def run_cell(tool, strategy, space, fraction, args):
    """One (tool, strategy, space, budget) cell's runs: per seed the (evaluation, time) improvements of its best,
    the strategy's own ms per evaluation (attn-tune's), crashes, and the seconds it took."""
    t = time.time()
    budget = budget_of(space, fraction, args.large)
    if tool == "attn-tune":
        curves, ms, errors = attn_tune_runs(args.attn_tune, space, strategy, args.repeat, budget)
    else:
        with tempfile.TemporaryDirectory() as workdir:
            curves, ms, errors = kt_runs(space, strategy, args.repeat, workdir, budget)
    return {"budget": budget, "improvements": [improvements_of(c) for c in curves], "strategy_ms": ms,
            "errors": errors}, time.time() - t


def improvements_of(curve):
    """(evaluation, time) where CURVE (best so far) improves: best_so_far's inverse."""
    out, best = [], math.inf
    for i, t in enumerate(curve):
        if not math.isnan(t) and t < best:
            best = t
            out.append((i + 1, t))
    return out


def target_verdicts(spaces, rows, default, large, within):
    """Per space of at least LARGE configurations: is the default's median evaluations to within WITHIN no more
    than every Kernel Tuner strategy's (unreached counts as more than any number), and its score at least theirs?"""
    inf = math.inf
    out = []
    for s in spaces:
        if s["size"] < large:
            continue
        label = s["label"]
        me = rows.get(f"attn-tune {default}", {}).get(label)
        kt = [(name.split(" ", 1)[1], by[label]) for name, by in rows.items()
              if name.startswith("kernel_tuner ") and label in by]
        if not kt:
            continue
        if me is None:  # the default strategy was not run here (--size-limit)
            me = {"median": None, "score": None}
        m = lambda q: inf if q["median"] is None else q["median"]
        kt_best, kt_q = min(kt, key=lambda x: m(x[1]))
        sc = lambda q: -inf if q.get("score") is None else q["score"]
        kt_score_name, kt_score_q = max(kt, key=lambda x: sc(x[1]))
        met = m(me) <= m(kt_q) and m(me) < inf and sc(me) >= sc(kt_score_q)
        out.append({"space": label, "size": s["size"], "default": default, "default_median": me["median"],
                    "default_score": me["score"], "kt_best": kt_best if m(kt_q) < inf else None,
                    "kt_best_median": kt_q["median"], "kt_best_score": kt_score_q["score"],
                    "kt_best_score_strategy": kt_score_name, "met": met})
    return out


if __name__ == "__main__":
    main()
