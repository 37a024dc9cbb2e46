#!/usr/bin/env python3
"""Do the consumer warpgroups of flash_attn_fwd_ws.cu issue their products in step?

Launches an emitted WS_TRACE=1 build (`attn-tune bench SPEC --emit-launch DIR`, as scripts/gpu/ws_trace.sh
makes it) on the GPU, through the comparison script's launcher, and reads the clocks block 0's consumers
recorded per loop iteration: when each issued the iteration's S and P V, when the S retired, when the P V
retired. Both consumers walk the same items and tiles, so iteration i is the same K / V tile for both:
  - period       cycles from one iteration's issue to the next (median, consumer 1)
  - offset       |issue of consumer c - issue of consumer 1| at the same iteration, median, as a share
                 of the period: near 0, the consumers issue in step and wait on each other's products
  - S, P V wait  cycles from the issue to the S's / the P V's retirement (median, consumer 1)

    scripts/bench/ws_trace.py EMIT_DIR [--runs 3]       # prints one Markdown row per shape
"""
import argparse
import importlib.util
import json
import pathlib
import re
import statistics
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACE_ITERS = 2048  # kTraceIters in flash_attn_fwd_ws.cu
TRACE_OFFSET = 16   # bytes: the workspace's first 16 hold the persistent grid's counters


def load_peers():
    spec = importlib.util.spec_from_file_location("attention_peers", ROOT / "scripts/compare/attention_peers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def define(shape, name):
    m = re.search(rf"-D ?{name}=(\d+)", shape["defines"])  # the bundle's compile options, one string
    if not m:
        raise SystemExit(f"ws_trace: the emitted build has no {name} define")
    return int(m.group(1))


def summarize(np, trace, consumers):
    """trace: [consumers][TRACE_ITERS][3] clocks, 0 where nothing was recorded."""
    counts = [int(np.count_nonzero(trace[c, :, 0])) for c in range(consumers)]
    n = min(counts)
    if n < 4:
        raise SystemExit(f"ws_trace: only {counts} iterations recorded per consumer (OVERLAP 1 builds only)")
    issue = trace[:, :n, 0].astype(np.int64)
    period = statistics.median(np.diff(issue[0]).tolist())
    offsets = [statistics.median(np.abs(issue[c] - issue[0]).tolist()) / period for c in range(1, consumers)]
    s_wait = statistics.median((trace[0, :n, 1].astype(np.int64) - issue[0]).tolist())
    pv_wait = statistics.median((trace[0, :n, 2].astype(np.int64) - issue[0]).tolist())
    return n, period, offsets, s_wait, pv_wait


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("emit", help="the --emit-launch folder of a WS_TRACE=1 configuration")
    ap.add_argument("--runs", type=int, default=3, help="launches; the clocks of the last one are read")
    ap.add_argument("--label", default="", help="first column of the row (default: the folder's name)")
    args = ap.parse_args()
    peers = load_peers()
    gpu = peers.Gpu(types.SimpleNamespace(no_flush=True, seed=1))
    np, torch = gpu.np, gpu.torch
    emit = pathlib.Path(args.emit)
    manifest = json.loads((emit / "launch.json").read_text())
    print("| build | shape | iterations | period (cycles) | offset / period | S wait | P V wait | NaN in O |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for shape in manifest["shapes"]:
        if "skipped" in shape:
            print(f"| {args.label or emit.name} | {shape['shape']} | skipped: {shape['skipped']} | | | | | |")
            continue
        if define(shape, "WS_TRACE") != 1:
            raise SystemExit("ws_trace: the emitted build is not WS_TRACE=1")
        consumers = define(shape, "WS_CONSUMERS")
        fn, out = peers.attn_tune_call(gpu, {"launch": shape, "dir": emit}, gpu.inputs(shape["fields"]))
        for _ in range(args.runs):
            fn()
        torch.cuda.synchronize()
        ws = fn.buffers["ws"].cpu().numpy()
        words = consumers * TRACE_ITERS * 3
        trace = ws[TRACE_OFFSET:TRACE_OFFSET + 8 * words].view(np.uint64).reshape(consumers, TRACE_ITERS, 3)
        n, period, offsets, s_wait, pv_wait = summarize(np, trace, consumers)
        off = ", ".join(f"{x:.3f}" for x in offsets)
        nan = int(torch.isnan(out.float()).sum().item())
        print(f"| {args.label or emit.name} | {shape['shape']} | {n} | {period:.0f} | {off} | {s_wait:.0f} | "
              f"{pv_wait:.0f} | {nan} |")


if __name__ == "__main__":
    main()
