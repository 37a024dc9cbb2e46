#!/usr/bin/env python3
"""PyTorch reference timings for sliding-window and linear attention, on the GPU machine (python3 + torch).

  * sliding-window attention, |i - j| <= W, non-causal, through flex_attention
    (Triton-compiled, block-sparse mask) on the shapes of
    configs/sliding_window_fwd.json (fp16/bf16, B = 1);
  * linear attention with the elu + 1 feature map through plain PyTorch ops
    (fp32, TF32 off) at M = 65536, d = 64 and 128 (configs/linear_attention.json).

Each case is timed with CUDA events: warm-up runs, then the median of timed runs,
both warm (back to back) and cold (the L2 cache evicted before each run, as
attn-tune times by default). Each output is checked against a float64 reference
on sampled rows. FLOPs follow attn-tune's convention: sliding window 4 * B * H *
D * (in-window pairs), linear attention 4 * M * d^2.

Writes OUT_DIR/window_linear_torch.json and OUT_DIR/window_linear_torch.md. With
--leaderboards, attn-tune leaderboards (results/*.json) of the same session are
joined on the shape fields, and their best configurations appear beside PyTorch.

  python3 scripts/compare/window_linear_torch.py results/window_linear \
      --leaderboards results/sliding_window_fwd.*.json results/linear_attention.*.json
"""
import argparse
import json
import math
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

torch = F = None  # imported by main(): --help and the leaderboards' join need no torch

SLIDING_CASES = [  # (name, dtype, H, N, D, W): configs/sliding_window_fwd.json
    ("n8192-w256", "f16", 16, 8192, 128, 256),
    ("n32768-w1024", "f16", 16, 32768, 128, 1024),
    ("n16384-w512", "f16", 16, 16384, 128, 512),
    ("n8192-w256-d64", "f16", 32, 8192, 64, 256),
    ("bf16-n8192-w256", "bf16", 16, 8192, 128, 256),
]
LINEAR_CASES = [("m65536-d64", 65536, 64), ("m65536-d128", 65536, 128), ("m16384-d64", 16384, 64)]


class Timer:
    """Median of CUDA-event times after warm-up, warm and cold (L2 evicted before each run)."""

    def __init__(self, warmup, runs):
        self.warmup, self.runs = warmup, runs
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush_buf = torch.empty(max(2 * l2, 1 << 20), dtype=torch.uint8, device="cuda")

    def _median(self, fn, flush):
        times = []
        for _ in range(self.runs):
            if flush:
                self.flush_buf.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)

    def time(self, fn):
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        return {"warm_ms": self._median(fn, False), "cold_ms": self._median(fn, True)}


def in_window_pairs(n, w):
    return sum(min(n - 1, i + w) - max(0, i - w) + 1 for i in range(n))


def sample_rows(n, count, gen):
    rows = {0, n - 1} | set(torch.randint(0, n, (count,), generator=gen).tolist())
    return sorted(rows)


def sliding_reference_rows(q, k, v, w, rows, scale):
    """float64 sliding-window attention for the given query rows: [H, len(rows), D]."""
    n = q.shape[2]
    out = []
    for i in rows:
        lo, hi = max(0, i - w), min(n, i + w + 1)
        s = torch.einsum("hd,hjd->hj", q[0, :, i].double(), k[0, :, lo:hi].double()) * scale
        p = torch.softmax(s, dim=-1)
        out.append(torch.einsum("hj,hjd->hd", p, v[0, :, lo:hi].double()))
    return torch.stack(out, dim=1)


def run_sliding(timer, gen):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    flex = torch.compile(flex_attention, dynamic=False)
    results = []
    for name, dt, h, n, d, w in SLIDING_CASES:
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[dt]
        q, k, v = (torch.empty(1, h, n, d, device="cuda", dtype=dtype).uniform_(-1, 1, generator=gen) for _ in range(3))

        def window(b, hh, q_idx, kv_idx, w=w):
            return (q_idx - kv_idx).abs() <= w

        mask = create_block_mask(window, B=None, H=None, Q_LEN=n, KV_LEN=n, device="cuda")
        fn = lambda: flex(q, k, v, block_mask=mask)
        times = timer.time(fn)
        out = fn()
        rows = sample_rows(n, 256, torch.Generator().manual_seed(1))
        ref = sliding_reference_rows(q, k, v, w, rows, 1.0 / math.sqrt(d))
        got = out[0, :, rows].double()
        flops = 4.0 * h * d * in_window_pairs(n, w)
        results.append({
            "case": name, "kind": "sliding_window", "impl": "torch flex_attention",
            "shape": {"dtype": dt, "B": 1, "Hq": h, "Nq": n, "D": d, "window": w},
            **times,
            "tflops_warm": flops / (times["warm_ms"] * 1e-3) * 1e-12,
            "tflops_cold": flops / (times["cold_ms"] * 1e-3) * 1e-12,
            "flops": flops,
            "rel_l2": ((got - ref).norm() / ref.norm()).item(),
            "max_abs": (got - ref).abs().max().item(),
            "rows_checked": len(rows),
        })
        print(json.dumps(results[-1]), flush=True)
        del q, k, v, out, mask
    return results


def linear_attention_torch(q, k, v):
    pq, pk = F.elu(q) + 1, F.elu(k) + 1
    state = pk.transpose(0, 1) @ v  # d x d
    z = pk.sum(dim=0)               # d
    return (pq @ state) / (pq @ z).unsqueeze(1)


def run_linear(timer, gen):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results = []
    for name, m, d in LINEAR_CASES:
        q, k, v = (torch.empty(m, d, device="cuda", dtype=torch.float32).uniform_(-1, 1, generator=gen) for _ in range(3))
        fn = lambda: linear_attention_torch(q, k, v)
        times = timer.time(fn)
        out = fn()
        rows = sample_rows(m, 2048, torch.Generator().manual_seed(1))
        ref = linear_attention_torch(q.double(), k.double(), v.double())[rows]
        got = out[rows].double()
        flops = 4.0 * m * d * d
        results.append({
            "case": name, "kind": "linear_attention", "impl": "torch ops (elu+1, fp32, no tf32)",
            "shape": {"M": m, "d": d},
            **times,
            "tflops_warm": flops / (times["warm_ms"] * 1e-3) * 1e-12,
            "tflops_cold": flops / (times["cold_ms"] * 1e-3) * 1e-12,
            "flops": flops,
            "rel_l2": ((got - ref).norm() / ref.norm()).item(),
            "max_abs": (got - ref).abs().max().item(),
            "rows_checked": len(rows),
        })
        print(json.dumps(results[-1]), flush=True)
        del q, k, v, out
    return results


def best_from_leaderboards(paths):
    """(shape fields) -> the fastest of the groups' winners (rank 1) on those fields, over every kernel and file."""
    best = {}
    for path in paths:
        for g in leaderboards.load(path)["groups"]:
            winner = leaderboards.best(g)
            if winner is None:
                continue
            fields = g["shape_fields"]
            if "Nq" in fields:  # the attention operation (sliding_window_fwd.json)
                names = ("dtype", "B", "Hq", "Nq", "D", "window")
            elif "M" in fields:  # linear_attention
                names = ("M", "d")
            else:
                continue
            key = json.dumps({k: fields[k] for k in names}, sort_keys=True)
            cand = {"file": str(path), "kernel": g["kernel"], "config": winner["key"],
                    "median_ms": leaderboards.median_ms(winner), "gflops": winner["gflops"]}
            # winners of different kernels (groups) have no rank between them: the faster median is the pick
            if key not in best or cand["median_ms"] < best[key]["median_ms"]:
                best[key] = cand
    return best


def markdown(meta, results, attn):
    lines = [f"# Sliding-window and linear attention: PyTorch references on {meta['device']}", "",
             f"torch {meta['torch']}, CUDA {meta['cuda']}; CUDA events, median of {meta['runs']} runs after "
             f"{meta['warmup']} warm-up runs; cold = L2 evicted before each run (attn-tune's default timing). "
             "Errors against float64 on sampled rows.", ""]
    lines += ["| case | impl | warm ms | cold ms | TFLOP/s warm | TFLOP/s cold | rel L2 | max abs | attn-tune best ms (kernel, config) | attn-tune TFLOP/s | attn-tune / torch cold |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        a = attn.get(json.dumps({k: r["shape"][k] for k in sorted(r["shape"])}, sort_keys=True))
        at = (f"{a['median_ms']:.4f} ({a['kernel']}, {a['config']})", f"{a['gflops'] / 1e3:.1f}",
              f"{r['cold_ms'] / a['median_ms']:.2f}x") if a else ("-", "-", "-")
        lines.append(f"| {r['case']} | {r['impl']} | {r['warm_ms']:.4f} | {r['cold_ms']:.4f} | {r['tflops_warm']:.1f} | "
                     f"{r['tflops_cold']:.1f} | {r['rel_l2']:.2e} | {r['max_abs']:.2e} | {at[0]} | {at[1]} | {at[2]} |")
    lines += ["", "TFLOP/s: sliding window counts in-window pairs only (4 B H D pairs); linear attention 4 M d^2.",
              "attn-tune / torch > 1 means attn-tune is faster (its leaderboards time cold unless run with --no-flush).", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", type=pathlib.Path)
    ap.add_argument("--only", choices=["sliding", "linear"], help="run one family only")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--leaderboards", nargs="*", default=[], help="attn-tune leaderboard JSON files to join")
    args = ap.parse_args()
    global torch, F
    import torch
    import torch.nn.functional as F
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")

    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    timer = Timer(args.warmup, args.runs)
    results = []
    if args.only in (None, "sliding"):
        results += run_sliding(timer, gen)
    if args.only in (None, "linear"):
        results += run_linear(timer, gen)

    meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
            "warmup": args.warmup, "runs": args.runs, "seed": args.seed, "command": " ".join(sys.argv)}
    attn = best_from_leaderboards(args.leaderboards)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "window_linear_torch.json").write_text(json.dumps({"meta": meta, "results": results,
                                                                 "attn_tune_best": attn}, indent=2) + "\n")
    (args.out_dir / "window_linear_torch.md").write_text(markdown(meta, results, attn))
    print(markdown(meta, results, attn))


if __name__ == "__main__":
    main()
