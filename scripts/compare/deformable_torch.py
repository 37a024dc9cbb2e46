#!/usr/bin/env python3
"""Deformable attention side by side: PyTorch's grid_sample reference of multi-scale
deformable attention (ms_deform_attn_core_pytorch, Deformable-DETR) against
attn-tune's kernels/cuda/deformable_attn.cu, on the GPU machine.

For each shape of configs/deformable_attn.json this

  * runs on attn-tune's exact inputs, written by `attn-tune bench --emit-inputs`
    (tuner/ops/deformable.cpp: value in [-1, 1), locations in [0, 1), attention
    weights a softmax of logits in [-2, 2) per query and head),
  * times the PyTorch reference in fp32 with CUDA events (median of --runs after
    warm-up; L2 flushed before each run, as attn-tune times, and warm),
  * checks it against an independent float64 gather-based computation,
  * with --attn-tune and --leaderboard, times attn-tune's best configuration, its
    best WARP_SPLIT = 0 (unspecialized) and its best WARP_SPLIT > 0 (specialized)
    configurations in the same run (`attn-tune bench ... --json`, whose own
    verification against its double reference on these inputs comes back too):
    the speedup over PyTorch and the warp-specialization gain,

and writes deformable_torch.md and deformable_torch.json under OUT.

  python3 scripts/compare/deformable_torch.py OUT --attn-tune build-gpu/app/attn-tune
                                                  --leaderboard results/deformable_attn.json
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import leaderboards  # noqa: E402
import attn_inputs  # noqa: E402
from similarity_torch import cuda_time_ms  # noqa: E402


def spec_shapes(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    shapes = {}
    for name, s in spec["shapes"].items():
        levels = [(s[f"H{l}"], s[f"W{l}"]) for l in range(s["levels"])]
        shapes[name] = dict(B=s.get("B", 1), Nq=s["Nq"], heads=s["heads"], channels=s["channels"],
                            points=s["points"], levels=levels)
    return shapes


def deformable_inputs(binary, spec, name, seed, work_dir, shape):
    """value [B, S, heads, C], loc [B, Nq, heads, L, P, 2], attn [B, Nq, heads, L, P], float32: the inputs
    attn-tune draws for shape NAME and SEED, read from `attn-tune bench --emit-inputs` (scripts/lib/attn_inputs.py)."""
    B, Nq, H, C, P, levels = (shape[k] for k in ("B", "Nq", "heads", "channels", "points", "levels"))
    L, S = len(levels), sum(h * w for h, w in levels)
    out = os.path.join(work_dir, f"inputs-{name}")
    attn_inputs.emit(binary, spec, "deformable", name, seed, out)
    a = attn_inputs.arrays(out, name)
    return a["value"].reshape(B, S, H, C), a["loc"].reshape(B, Nq, H, L, P, 2), a["attn"].reshape(B, Nq, H, L, P)


def ms_deform_attn_core_pytorch(F, torch, value, spatial_shapes, sampling_locations, attention_weights):
    """Deformable-DETR's reference (models/ops/functions/ms_deform_attn_func.py)."""
    N_, S_, M_, D_ = value.shape
    _, Lq_, M_, L_, P_, _ = sampling_locations.shape
    value_list = value.split([H_ * W_ for H_, W_ in spatial_shapes], dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for lid_, (H_, W_) in enumerate(spatial_shapes):
        value_l_ = value_list[lid_].flatten(2).transpose(1, 2).reshape(N_ * M_, D_, H_, W_)
        sampling_grid_l_ = sampling_grids[:, :, :, lid_].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(value_l_, sampling_grid_l_, mode="bilinear", padding_mode="zeros",
                                          align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(N_ * M_, 1, Lq_, L_ * P_)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) * attention_weights).sum(-1).view(N_, M_ * D_, Lq_)
    return output.transpose(1, 2).contiguous()


def gather_float64(torch, value, spatial_shapes, loc, attn):
    """The same operation by explicit corner gathers in float64 (pixel centres at
    integers, corners outside the map count as 0): independent of grid_sample."""
    B, S, H, C = value.shape
    _, Nq, _, L, P, _ = loc.shape
    value, loc, attn = value.double(), loc.double(), attn.double()
    out = torch.zeros(B, Nq, H, C, dtype=torch.float64, device=value.device)
    head = torch.arange(H, device=value.device).view(1, 1, H, 1).expand(B, Nq, H, P)
    image = torch.arange(B, device=value.device).view(B, 1, 1, 1).expand(B, Nq, H, P)
    start = 0
    for l, (hl, wl) in enumerate(spatial_shapes):
        x = loc[:, :, :, l, :, 0] * wl - 0.5
        y = loc[:, :, :, l, :, 1] * hl - 0.5
        x0, y0 = torch.floor(x), torch.floor(y)
        fx, fy = x - x0, y - y0
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                yy, xx = (y0 + dy).long(), (x0 + dx).long()
                inside = (yy >= 0) & (yy < hl) & (xx >= 0) & (xx < wl)
                row = start + yy.clamp(0, hl - 1) * wl + xx.clamp(0, wl - 1)
                corner = value[image, row, head]  # [B, Nq, H, P, C]
                w = (wy * wx * inside * attn[:, :, :, l, :]).unsqueeze(-1)
                out += (w * corner).sum(3)
        start += hl * wl
    return out.reshape(B, Nq, H * C)


def best_by_split(paths, kernel="deformable"):
    """shape -> {"best", "split0", "split"}: the keys of the best-ranked entry overall, with WARP_SPLIT = 0,
    and with WARP_SPLIT > 0 (None where there is none)."""
    def key(e):
        return e["key"] if e else None
    split = lambda e: leaderboards.params(e)["WARP_SPLIT"]  # noqa: E731
    out = {}
    for path in paths:
        for g in leaderboards.groups(leaderboards.load(path), kernel=kernel):
            out[g["shape"]] = {"best": key(leaderboards.best(g)),
                               "split0": key(leaderboards.best(g, lambda e: split(e) == 0)),
                               "split": key(leaderboards.best(g, lambda e: split(e) > 0))}
    return out


def attn_tune_bench(binary, spec, shape, key, seed):
    cmd = [binary, "bench", spec, "-k", "deformable", "--shape", shape, "--seed", str(seed), "--json", "--set", key]
    run = subprocess.run(cmd, capture_output=True, text=True)
    try:
        result = json.loads(run.stdout)[0]
    except (ValueError, IndexError):
        return {"command": " ".join(cmd), "status": "error", "reason": (run.stdout + run.stderr)[-2000:]}
    out = {"command": " ".join(cmd), "status": result["status"], "key": result["key"]}
    if result["status"] == "ok":
        out.update(median_ms=result["timing"]["median_ms"], verify=result["verify"])
    else:
        out["reason"] = result.get("reason", "")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output directory")
    ap.add_argument("--attn-tune", required=True,
                    help="attn-tune binary: writes the inputs (bench --emit-inputs) and times its kernels in the same run")
    ap.add_argument("--spec", default=os.path.join(os.path.dirname(__file__), "..", "..", "configs", "deformable_attn.json"))
    ap.add_argument("--leaderboard", action="append", default=[], help="attn-tune sweep leaderboard(s) of --spec")
    ap.add_argument("--shapes", help="comma-separated shape names (default: every shape of --spec)")
    ap.add_argument("--seed", type=int, default=1, help="attn-tune's --seed (inputs)")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F

    os.makedirs(args.out, exist_ok=True)
    shapes = spec_shapes(args.spec)
    names = args.shapes.split(",") if args.shapes else list(shapes)
    picks = best_by_split(args.leaderboard)
    results = []
    for name in names:
        shape = shapes[name]
        value, loc, attn = (torch.from_numpy(a).cuda() for a in deformable_inputs(args.attn_tune, args.spec, name, args.seed, args.out, shape))
        levels = shape["levels"]
        reference = lambda: ms_deform_attn_core_pytorch(F, torch, value, levels, loc, attn)
        out = reference()
        exact = gather_float64(torch, value, levels, loc, attn)
        diff = out.double() - exact
        r = {"shape": name, **{k: shape[k] for k in ("B", "Nq", "heads", "channels", "points")}, "levels": levels,
             "torch_ms": cuda_time_ms(torch, reference, args.runs, True),
             "torch_warm_ms": cuda_time_ms(torch, reference, args.runs, False),
             "torch_vs_float64": {"rel_l2": float(diff.norm() / exact.norm()), "max_abs": float(diff.abs().max())}}
        if args.attn_tune and name in picks:
            r["attn_tune"] = {}
            for label, key in picks[name].items():
                if key:
                    r["attn_tune"][label] = attn_tune_bench(args.attn_tune, args.spec, name, key, args.seed)
            at = r["attn_tune"]
            if at.get("best", {}).get("status") == "ok":
                r["speedup_vs_torch"] = r["torch_ms"] / at["best"]["median_ms"]
            if at.get("split0", {}).get("status") == "ok" and at.get("split", {}).get("status") == "ok":
                r["warp_split_gain"] = at["split0"]["median_ms"] / at["split"]["median_ms"] - 1
        results.append(r)
        print(json.dumps(r, indent=1), flush=True)
        del value, loc, attn, out, exact, diff
        torch.cuda.empty_cache()

    report = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "seed": args.seed, "results": results}
    with open(os.path.join(args.out, "deformable_torch.json"), "w") as f:
        json.dump(report, f, indent=2)
    with open(os.path.join(args.out, "deformable_torch.md"), "w") as f:
        f.write(markdown(report))
    print(markdown(report))


def markdown(report):
    lines = [f"# Multi-scale deformable attention, PyTorch vs attn-tune ({report['device']}, torch {report['torch']})",
             "", f"fp32; inputs: attn-tune's (seed {report['seed']}). Times: CUDA events, median, L2 flushed before each "
             "run unless 'warm'. PyTorch: ms_deform_attn_core_pytorch (grid_sample).", "",
             "| shape | points | PyTorch ms | warm ms | PyTorch vs float64 rel_l2 | attn-tune best ms | speedup | best WARP_SPLIT=0 ms | best WARP_SPLIT>0 ms | split gain | attn-tune verify rel_l2 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in report["results"]:
        at = r.get("attn_tune", {})
        ms = lambda label: f"{at[label]['median_ms'] * 1e3:.1f} µs" if at.get(label, {}).get("status") == "ok" else "–"
        gain = f"{100 * r['warp_split_gain']:+.1f}%" if "warp_split_gain" in r else "–"
        speed = f"{r['speedup_vs_torch']:.1f}x" if "speedup_vs_torch" in r else "–"
        ver = f"{at['best']['verify']['rel_l2']:.2g}" if at.get("best", {}).get("status") == "ok" else "–"
        lines.append(f"| {r['shape']} | {r['points']} | {r['torch_ms']:.3f} | {r['torch_warm_ms']:.3f} | "
                     f"{r['torch_vs_float64']['rel_l2']:.2g} | {ms('best')} | {speed} | {ms('split0')} | {ms('split')} | {gain} | {ver} |")
    for r in report["results"]:
        for label, v in r.get("attn_tune", {}).items():
            lines.append(f"\n{r['shape']} {label}: `{v['key']}` ({v['status']}{': ' + v['reason'] if v.get('reason') else ''})"
                         if "key" in v else f"\n{r['shape']} {label}: {v.get('status')}: {v.get('reason', '')}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
