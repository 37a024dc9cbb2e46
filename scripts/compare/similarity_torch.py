#!/usr/bin/env python3
"""Multi-head similarity side by side: PyTorch (cuBLAS, fp32, TF32 off) against attn-tune's
similarity kernels, on the GPU machine.

For each head count of configs/similarity.json's BERT shapes (N = M = 8192,
D = 768, heads x 64) this

  * runs on attn-tune's exact inputs, written by `attn-tune bench --emit-inputs` for each head count's shape
    (tuner/ops/similarity.cpp draws q, k in [-1, 1) and wq, wk in +-sqrt(3/D)),
  * times PyTorch's q @ wq^T, k @ wk^T, (pq @ pk^T) * scale with CUDA events
    (median of --runs after warm-up, the L2 flushed before each run as attn-tune
    does, and warm), and the same with the keys projected ahead,
  * checks PyTorch's output against a float64 computation of sampled rows,
  * with --attn-tune, times attn-tune's best configuration of each strategy in
    the same run (`attn-tune bench ... --json`; taken from --leaderboard when
    given, else the spec's baseline presets), whose own verification against its
    double reference on these same inputs comes back in the JSON,
  * with --leaderboard, writes the strategy x heads table of pairs/s and the
    12-head / 1-head time ratio per strategy (the seed measured 6.6x),

and writes similarity_torch.md and similarity_torch.json under OUT.

  python3 scripts/compare/similarity_torch.py OUT [--attn-tune build-gpu/app/attn-tune]
                                                  [--leaderboard results/similarity.json]
"""
import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError:  # --help and the leaderboard picks need no numpy; the inputs and the timing do
    np = None

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import attn_inputs  # noqa: E402
import leaderboards  # noqa: E402

def similarity_inputs(binary, spec, shape, seed, work_dir, N, M, D, proj_dim):
    """q [N, D], k [M, D], wq and wk [proj_dim, D], float32: the inputs attn-tune draws for SHAPE and SEED, read
    from `attn-tune bench --emit-inputs` (scripts/lib/attn_inputs.py)."""
    out = Path(work_dir) / f"inputs-{shape}"
    attn_inputs.emit(binary, spec, "fused", shape, seed, out)
    a = attn_inputs.arrays(out, shape)
    return (a["q"].reshape(N, D), a["k"].reshape(M, D), a["wq"].reshape(proj_dim, D), a["wk"].reshape(proj_dim, D))


# ----------------------------------------------------------------- timing
def cuda_time_ms(torch, fn, runs, flush):
    """Median of RUNS CUDA-event timings of fn() after warm-up; FLUSH: write a buffer of
    twice the L2 before each run (attn-tune's cold-cache timing)."""
    scratch = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4 + 1024, device="cuda") if flush else None
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        if flush:
            scratch.fill_(float(len(times)))
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times))


# ---------------------------------------------------------- attn-tune side
def best_configs(paths):
    """(kernel, shape) -> its rank-1 entry, over every leaderboard given (a later file's group replaces an
    earlier one's)."""
    best = {}
    for path in paths:
        best.update(leaderboards.winners(leaderboards.load(path)))
    return best


def attn_tune_bench(binary, spec, kernel, shape, key, seed):
    cmd = [binary, "bench", spec, "-k", kernel, "--shape", shape, "--seed", str(seed), "--json"]
    cmd += ["--set", key] if key else []
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        return {"command": " ".join(cmd), "error": run.stderr.strip()[-2000:]}
    try:
        result = json.loads(run.stdout)[0]
    except (ValueError, IndexError):
        return {"command": " ".join(cmd), "error": (run.stdout + run.stderr)[-2000:]}
    out = {"command": " ".join(cmd), "status": result["status"], "key": result["key"]}
    if result["status"] == "ok":
        out.update(median_ms=result["timing"]["median_ms"], pairs_per_s=result["throughput"]["per_s"],
                   verify=result["verify"])
    else:
        out["reason"] = result.get("reason", "")
    return out


STRATEGIES = [("sequential", 0), ("fused", 1), ("head_grid", 2), ("warp", 3), ("projected", 4)]


def strategy_table(best, n_label):
    rows = []
    for kernel, number in STRATEGIES:
        per_heads = {}
        for heads in (1, 4, 8, 12):
            e = best.get((kernel, f"bert-h{heads}-{n_label}"))
            per_heads[heads] = e["throughput"]["per_s"] if e and "throughput" in e else None
        ratio = per_heads[1] / per_heads[12] if per_heads[1] and per_heads[12] else None
        rows.append({"strategy": f"{number} {kernel}", "pairs_per_s": per_heads, "time_ratio_12_over_1": ratio})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output directory")
    ap.add_argument("--attn-tune", required=True,
                    help="attn-tune binary: writes the inputs (bench --emit-inputs) and times its kernels in the same run")
    ap.add_argument("--no-attn-tune-timing", action="store_true", help="time PyTorch only (attn-tune still writes the inputs)")
    ap.add_argument("--spec", default=os.path.join(os.path.dirname(__file__), "..", "..", "configs", "similarity.json"))
    ap.add_argument("--leaderboard", action="append", default=[], help="attn-tune sweep leaderboard(s) of --spec")
    ap.add_argument("--seed", type=int, default=1, help="attn-tune's --seed (inputs)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--heads", default="1,4,8,12")
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--check-rows", type=int, default=256)
    args = ap.parse_args()

    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    os.makedirs(args.out, exist_ok=True)
    N = M = args.n
    D, head_dim = 768, 64
    best = best_configs(args.leaderboard)
    rows_to_check = torch.from_numpy(np.unique(np.r_[0, N - 1, np.random.default_rng(0).integers(0, N, args.check_rows)])).cuda()

    results = []
    for heads in (int(h) for h in args.heads.split(",")):
        P = heads * head_dim
        shape = f"bert-h{heads}-n{N}"
        q, k, wq, wk = similarity_inputs(args.attn_tune, args.spec, shape, args.seed, args.out, N, M, D, P)
        qd, kd, wq, wk = (torch.from_numpy(a).cuda() for a in (q, k, wq, wk))
        scale = 1.0 / heads
        pk_ahead = kd @ wk.T
        full = lambda: ((qd @ wq.T) @ (kd @ wk.T).T).mul_(scale)
        ahead = lambda: ((qd @ wq.T) @ pk_ahead.T).mul_(scale)
        out = full()
        ref = ((qd[rows_to_check].double() @ wq.double().T) @ (kd.double() @ wk.double().T).T) * scale
        got = out[rows_to_check].double()
        r = {"heads": heads, "N": N, "M": M, "D": D, "head_dim": head_dim,
             "torch_ms": cuda_time_ms(torch, full, args.runs, True),
             "torch_warm_ms": cuda_time_ms(torch, full, args.runs, False),
             "torch_keys_ahead_ms": cuda_time_ms(torch, ahead, args.runs, True),
             "torch_vs_float64": {"rel_l2": float((got - ref).norm() / ref.norm()),
                                  "max_abs": float((got - ref).abs().max()), "rows": int(rows_to_check.numel())}}
        r["torch_pairs_per_s"] = N * M / (r["torch_ms"] * 1e-3)
        r["torch_keys_ahead_pairs_per_s"] = N * M / (r["torch_keys_ahead_ms"] * 1e-3)
        if not args.no_attn_tune_timing:
            r["attn_tune"] = {}
            for kernel, _ in STRATEGIES:
                if kernel in ("sequential", "warp"):
                    continue  # per-pair strategies: seconds per run at this size (see the n1024 shapes)
                e = best.get((kernel, shape))
                r["attn_tune"][kernel] = attn_tune_bench(args.attn_tune, args.spec, kernel, shape, e["key"] if e else None, args.seed)
            if heads == 12:
                e = best.get(("projected", shape + "-keys-ahead"))
                r["attn_tune"]["projected-keys-ahead"] = attn_tune_bench(args.attn_tune, args.spec, "projected",
                                                                         shape + "-keys-ahead", e["key"] if e else None, args.seed)
        results.append(r)
        del out, ref, got, pk_ahead, qd, kd
        torch.cuda.empty_cache()
        print(json.dumps(r, indent=1), flush=True)

    report = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "seed": args.seed, "results": results}
    if best:
        report["strategy_table_n8192"] = strategy_table(best, f"n{N}")
        report["strategy_table_n1024"] = strategy_table(best, "n1024")
    with open(os.path.join(args.out, "similarity_torch.json"), "w") as f:
        json.dump(report, f, indent=2)
    with open(os.path.join(args.out, "similarity_torch.md"), "w") as f:
        f.write(markdown(report))
    print(markdown(report))


def fmt_rate(x):
    return f"{x:.3g}" if x else "–"


def markdown(report):
    lines = [f"# Multi-head similarity, PyTorch vs attn-tune ({report['device']}, torch {report['torch']})", "",
             "fp32 without TF32, N = M = 8192, D = 768, 64 dims per head; inputs: attn-tune's (seed "
             f"{report['seed']}). Times: CUDA events, median, L2 flushed before each run unless 'warm'.", "",
             "| heads | PyTorch ms | pairs/s | warm ms | keys ahead pairs/s | PyTorch vs float64 rel_l2 | attn-tune best (strategy) ms | pairs/s | attn-tune verify rel_l2 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in report["results"]:
        at = {k: v for k, v in r.get("attn_tune", {}).items() if v.get("status") == "ok"}
        best_k = min(at, key=lambda k: at[k]["median_ms"]) if at else None
        b = at.get(best_k, {})
        lines.append(f"| {r['heads']} | {r['torch_ms']:.3f} | {r['torch_pairs_per_s']:.3g} | {r['torch_warm_ms']:.3f} | "
                     f"{r['torch_keys_ahead_pairs_per_s']:.3g} | {r['torch_vs_float64']['rel_l2']:.2g} | "
                     + (f"{b['median_ms']:.3f} ({best_k}) | {b['pairs_per_s']:.3g} | {b['verify']['rel_l2']:.2g} |" if b else "– | – | – |"))
    for r in report["results"]:
        for k, v in r.get("attn_tune", {}).items():
            if v.get("status") != "ok":
                lines.append(f"\n{r['heads']} heads, {k}: {v.get('status', 'error')}: {v.get('reason', v.get('error', ''))}")
    for n_label in ("n8192", "n1024"):
        table = report.get(f"strategy_table_{n_label}")
        if not table:
            continue
        lines += ["", f"## attn-tune strategies, best configuration each, pairs/s ({n_label})", "",
                  "| strategy | 1 head | 4 heads | 8 heads | 12 heads | 12-head / 1-head time |", "| --- | --- | --- | --- | --- | --- |"]
        for row in table:
            p = row["pairs_per_s"]
            ratio = f"{row['time_ratio_12_over_1']:.2f}x" if row["time_ratio_12_over_1"] else "–"
            lines.append(f"| {row['strategy']} | {fmt_rate(p[1])} | {fmt_rate(p[4])} | {fmt_rate(p[8])} | {fmt_rate(p[12])} | {ratio} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
