#!/usr/bin/env python3
"""Are PyTorch SDPA's backends bitwise deterministic across runs and across batch sizes?

attn-tune's `determinism` command asks this of attn-tune's own configurations (docs/determinism.md);
this asks it of the peers they are compared with, on the same kind of inputs: for each shape and
backend, the output of the full batch B is computed twice (run to run) and compared bit for bit with
the outputs of the first b rows of the batch alone, for each b of --sub-batches. A backend that
splits the work of a row depending on how much work the whole launch has (split-KV, stream-K tails)
shows up here as a batch-size difference.

  python3 scripts/compare/batch_invariance.py --out DIR     # DIR/batch_invariance.{json,md}
"""
import argparse
import json
import sys
from pathlib import Path

BACKENDS = {"cuDNN": "CUDNN_ATTENTION", "FA2": "FLASH_ATTENTION", "mem-efficient": "EFFICIENT_ATTENTION"}
# (name, B, H, N, D, causal): two non-causal D = 128 anchors below 1.0x cuDNN, a causal one, and D = 256
SHAPES = [("fp16-d128-n1024", 16, 16, 1024, 128, False), ("fp16-d128-n4096", 4, 16, 4096, 128, False),
          ("fp16-d128-n4096-causal", 4, 16, 4096, 128, True), ("fp16-d256-n4096", 4, 8, 4096, 256, False)]


def compare(a, b):
    """(bitwise equal, elements that differ, largest absolute difference)"""
    import torch
    bits_a, bits_b = a.contiguous().view(torch.int16), b.contiguous().view(torch.int16)
    return bool(bits_a.equal(bits_b)), int((bits_a != bits_b).sum()), float((a.float() - b.float()).abs().max())


def check(torch, backend, shape, sub_batches, seed):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    name, B, H, N, D, causal = shape
    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.rand(B, H, N, D, device="cuda", generator=g, dtype=torch.float16) * 2 - 1 for _ in range(3))

    def run(b):
        with sdpa_kernel([getattr(SDPBackend, BACKENDS[backend])]):
            return F.scaled_dot_product_attention(q[:b], k[:b], v[:b], is_causal=causal)
    row = {"shape": name, "B": B, "Hq": H, "N": N, "D": D, "causal": causal, "backend": backend}
    try:
        full = run(B)
        again = run(B)
    except RuntimeError as e:
        row["not_run"] = str(e).splitlines()[0]
        return row
    torch.cuda.synchronize()
    eq, n, mx = compare(full, again)
    row["runs"] = {"equal": eq, "elements_differing": n, "max_abs_diff": mx}
    row["batches"] = {}
    for b in sub_batches:
        if b >= B:
            continue
        eq, n, mx = compare(full[:b], run(b))
        row["batches"][str(b)] = {"equal": eq, "elements_differing": n, "elements": full[:b].numel(), "max_abs_diff": mx}
    return row


def render(meta, rows):
    L = ["# Bitwise determinism of PyTorch SDPA's backends", "",
         f"- device: {meta['device']}; torch {meta['torch']} (CUDA {meta['cuda']}, cuDNN {meta['cudnn']})",
         f"- command: `{meta['command']}`",
         "- inputs uniform [-1, 1), fp16, [B][H][N][D]; `runs`: the full batch computed twice; `B -> b`: the first b "
         "batch rows of the full batch's output against the output of those b rows alone", "",
         "| shape | backend | runs | " + " | ".join(f"B -> {b}" for b in meta["sub_batches"]) + " |",
         "| --- | --- | --- | " + " | ".join("---" for _ in meta["sub_batches"]) + " |"]

    def cell(c):
        if c is None:
            return "–"
        return "equal" if c["equal"] else f"{c['elements_differing']} differ (max {c['max_abs_diff']:.3g})"
    for r in rows:
        if "not_run" in r:
            L.append(f"| {r['shape']} | {r['backend']} | not run: {r['not_run']} |" + " |" * len(meta["sub_batches"]))
            continue
        L.append(f"| {r['shape']} | {r['backend']} | {cell(r['runs'])} | " +
                 " | ".join(cell(r["batches"].get(str(b))) for b in meta["sub_batches"]) + " |")
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="cuDNN,FA2", help=f"comma-separated, of {', '.join(BACKENDS)}")
    ap.add_argument("--sub-batches", default="1,2,3", help="the b of each B -> b comparison")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, metavar="DIR")
    args = ap.parse_args(argv)
    import torch
    backends = [b for b in args.backends.split(",") if b]
    for b in backends:
        if b not in BACKENDS:
            ap.error(f"unknown backend '{b}' (one of {', '.join(BACKENDS)})")
    subs = [int(b) for b in args.sub_batches.split(",") if b]
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
            "sub_batches": subs, "seed": args.seed}
    rows = []
    for shape in SHAPES:
        for b in backends:
            rows.append(check(torch, b, shape, subs, args.seed))
            print(json.dumps(rows[-1]), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "batch_invariance.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    md = render(meta, rows)
    (out / "batch_invariance.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
