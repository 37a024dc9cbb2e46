#!/usr/bin/env python3
"""attn-tune against Kernel Tuner: wall time to a complete, verified brute-force
sweep of one kernel on one shape, the winner each finds, and a re-sweep of the
unchanged code (attn-tune with its compile cache, Kernel Tuner with its cache file).

Both sides get the same kernel source (seed 004's CUDA port,
kernels/cuda/flash_attn_f32_f16.cu, entry `flash_attn_f32_f16`), the same space
(configs/flash_attn_f32_f16_cuda.json's `prefill` kernel: BLOCK_M x BLOCK_N x
DV_TILE with its two constraints), the same shape, the same GPU, and both check
every configuration's output (attn-tune against its CPU reference; Kernel Tuner
through `answer` + `verify` against a float64 PyTorch reference, with attn-tune's
tolerance: relative L2 <= 1e-4 and max |error| <= 2e-3).

Launch shim on the Kernel Tuner side. The kernel takes `const attn_params p` (72
bytes, kernels/common/attn_params.h) by value as its last argument. CuPy passes a
host numpy array of size one by value (its bytes), but Kernel Tuner's CuPy
backend copies every numpy array to the device first. So the struct goes as
`ByValue`, a numpy.ndarray subclass holding one structured element with the
header's layout, and two methods of kernel_tuner's CupyFunctions are wrapped:
`ready_argument_list` leaves a ByValue on the host (CuPy then copies its 72 bytes
into the launch), and `memcpy_htod` does nothing for it (there is no device copy
to refresh). Nothing else of Kernel Tuner changes: its brute-force strategy,
compile (NVRTC through CuPy, PTX JIT-ed by the driver), timing (7 iterations by
default) and cache file are its own.

Timing differs by design and is reported: attn-tune flushes L2 before every
sample and samples until the relative noise is under 0.5% (or 1 s); Kernel Tuner
runs 7 back-to-back iterations. Wall times are of whole processes (start-up,
imports, inputs, reference and compiles included), each side's cold run with an
empty cache, the warm run with the cache the cold run left.

Usage (on the GPU machine, repository root, after scripts/gpu/setup.sh; Kernel
Tuner from wheels, see scripts/compare/kernel_tuner_race.sh):
    python3 scripts/compare/kernel_tuner_race.py --attn-tune build-gpu/app/attn-tune --out "$OUT"
Writes kernel_tuner_race.md and kernel_tuner_race.json in --out, and both sides'
raw outputs (leaderboards, Kernel Tuner's cache files and results).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SPEC = "configs/flash_attn_f32_f16_cuda.json"
KERNEL = "prefill"
ENTRY = "flash_attn_f32_f16"
PARAMS_FIELDS = ["B", "Hq", "Hkv", "Nq", "Nkv", "D", "q_per_kv", "kv_offset", "causal", "window", "has_mask",
                 "has_sinks", "scale", "max_bias", "m0", "m1", "n_head_log2", "reserved0",
                 # layout fields (attn_params.h, appended): bhsd strides, no pages
                 "layout", "stride_q_b", "stride_q_h", "stride_q_n", "stride_k_b", "stride_k_h", "stride_k_n",
                 "page_size", "num_pages", "max_pages", "stride_k_page", "reserved1",
                 # mask forms, ALiBi convention, soft-capping (appended): none
                 "softcap", "alibi_mode", "mask_f32", "stride_mask_b", "stride_mask_h", "stride_mask_n"]
REL_L2, MAX_ABS = 1e-4, 2e-3  # the spec's "verify"


def resolved_spec(path):
    """The spec with its "extends" chain applied (docs/spec-format.md): top-level fields replace the base's,
    kernels merge by name field by field, null removes one."""
    spec = json.loads(path.read_text())
    if "extends" not in spec:
        return spec
    base = resolved_spec(path.parent / spec["extends"])
    kernels = dict(base.get("kernels", {}))
    for name, block in spec.get("kernels", {}).items():
        if block is None:
            kernels.pop(name, None)
        else:
            kernels[name] = {**kernels.get(name, {}), **block}
    merged = {**base, **{k: v for k, v in spec.items() if k not in ("extends", "kernels")}}
    merged["kernels"] = kernels
    return merged


def load_spec(shape_name):
    spec = resolved_spec(REPO / SPEC)
    shape = dict(spec["shapes"][shape_name])
    kernel = spec["kernels"][KERNEL]
    shape.setdefault("Hkv", shape["Hq"])
    shape.setdefault("causal", 0)
    return spec, shape, kernel


def valid_configs(kernel, D):
    """The space after the spec's constraints, in the spec's order (what both sides sweep)."""
    p = kernel["params"]
    out = []
    for bm in p["BLOCK_M"]:
        for bn in p["BLOCK_N"]:
            for dv in p["DV_TILE"]:
                if D % dv == 0 and bn * (D + dv) * 4 <= 49152:
                    out.append({"BLOCK_M": bm, "BLOCK_N": bn, "DV_TILE": dv})
    return out


def key_of(c):
    return f"BLOCK_M={c['BLOCK_M']},BLOCK_N={c['BLOCK_N']},DV_TILE={c['DV_TILE']}"


# ---- attn-tune side ----------------------------------------------------------------

def run_attn_tune(exe, shape_name, out_dir, cache_dir, label, extra=()):
    out = out_dir / f"attn_tune_{label}.json"
    cmd = [exe, "sweep", SPEC, "-k", KERNEL, "-s", shape_name, "--out", str(out), "--overwrite", "-q",
           "--cache-dir", str(cache_dir), *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    (out_dir / f"attn_tune_{label}.stderr.txt").write_text(proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"attn-tune {label} sweep failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    group = leaderboards.group(leaderboards.load(out), KERNEL, shape_name)
    if group is None:
        raise SystemExit(f"attn-tune {label} sweep: {out} has no group {KERNEL} / {shape_name}")
    winner = leaderboards.best(group)
    entries = group["entries"]
    ok = [e for e in entries if e["status"] == "ok"]
    compile_line = next((l for l in proc.stderr.splitlines() if l.startswith("compile:")), "")
    compile_ms = sum(e.get("compile_ms", 0.0) for e in entries)
    timing_s = sum(e.get("timing", {}).get("wall_s", 0.0) for e in ok)
    return {
        "command": " ".join(cmd),
        "wall_s": wall,
        "configs": len(entries),
        "verified": len(ok),
        "statuses": group.get("counts", {}),
        "winner": winner["key"] if winner else None,
        "winner_ms": leaderboards.median_ms(winner) if winner else None,
        "tied": leaderboards.tied(group),
        "compile": compile_line.split(":", 1)[1].strip() if compile_line else "",
        "compile_ms_sum": compile_ms,
        "timing_s_sum": timing_s,
        "stages": {stage: sum(1 for e in ok if e.get("stage", "thorough") == stage)
                   for stage in ("screen", "race", "confirm", "thorough")},
        "replayed": sum(1 for e in entries if e.get("replayed")),
        "medians": {e["key"]: e["timing"]["median_ms"] for e in ok},
        "noise": {e["key"]: e["timing"]["rel_noise"] for e in ok},
    }


# ---- Kernel Tuner side (run in a child process, so its wall time is a whole process's) ----

def kernel_tuner_child(args):
    t_start = time.perf_counter()
    import numpy as np
    import torch
    import kernel_tuner
    from kernel_tuner.backends import cupy as kt_cupy

    class ByValue(np.ndarray):
        """A size-one structured array that the kernel receives by value (see the top of this file)."""

    ready, htod = kt_cupy.CupyFunctions.ready_argument_list, kt_cupy.CupyFunctions.memcpy_htod

    def ready_argument_list(self, arguments):
        gpu = ready(self, [None if isinstance(a, ByValue) else a for a in arguments])
        return [a.view(np.ndarray) if isinstance(a, ByValue) else g for a, g in zip(arguments, gpu)]

    def memcpy_htod(self, dest, src):
        if isinstance(dest, np.ndarray):  # a by-value argument: nothing on the device to refresh
            return
        htod(self, dest, src)

    kt_cupy.CupyFunctions.ready_argument_list = ready_argument_list
    kt_cupy.CupyFunctions.memcpy_htod = memcpy_htod

    # Kernel Tuner 1.5.0 reads the device's UUID as uuid.UUID(bytes=props["uuid"]),
    # which needs exactly 16 bytes; CuPy 14 gives it in another form (a hex text,
    # or with a terminator), and the backend fails before tuning. It only labels
    # the environment record, so it is handed over as 16 bytes.
    import cupy
    device_properties = cupy.cuda.runtime.getDeviceProperties

    def sixteen_byte_uuid(device):
        props = dict(device_properties(device))
        raw = props.get("uuid", b"")
        if isinstance(raw, (bytes, bytearray)) and len(raw) > 16:
            raw = bytes(raw).rstrip(b"\0").decode("ascii", errors="replace")
        if isinstance(raw, str):
            text = raw.replace("-", "").removeprefix("GPU")
            raw = bytes.fromhex(text) if len(text) == 32 else raw.encode()
        props["uuid"] = bytes(raw[:16]).ljust(16, b"\0")
        return props

    cupy.cuda.runtime.getDeviceProperties = sixteen_byte_uuid

    spec, s, kernel = load_spec(args.shape)
    B, Hq, Hkv, Nq, Nkv, D = s["B"], s["Hq"], s["Hkv"], s["Nq"], s["Nkv"], s["D"]
    rng = np.random.default_rng(1)
    q = rng.uniform(-1, 1, (B, Hq, Nq, D)).astype(np.float32)
    k = rng.uniform(-1, 1, (B, Hkv, Nkv, D)).astype(np.float16)
    v = rng.uniform(-1, 1, (B, Hkv, Nkv, D)).astype(np.float16)
    scale = 1.0 / math.sqrt(D)
    n_head_log2 = 1 << (Hq.bit_length() - 1)
    dtype = np.dtype({"names": PARAMS_FIELDS, "formats": [np.int32] * 12 + [np.float32] * 4 + [np.int32] * 14
                      + [np.float32] + [np.int32] * 5})
    assert dtype.itemsize == 144, "attn_params is 144 bytes"
    params = np.zeros(1, dtype=dtype).view(ByValue)
    values = [B, Hq, Hkv, Nq, Nkv, D, Hq // Hkv, Nkv - Nq, int(s["causal"] != 0), 0, 0, 0, scale, 0.0, 1.0, 1.0,
              n_head_log2, 0,
              0, Hq * Nq * D, Nq * D, D, Hkv * Nkv * D, Nkv * D, D, 0, 0, 0, 0, 0,
              0.0, 0, 0, 0, 0, Nkv]
    for name, value in zip(PARAMS_FIELDS, values):
        params[name] = value

    # Reference: float64 on the GPU, bottom-right causal as attn-tune's.
    dev = torch.device("cuda")
    tq = torch.from_numpy(q).to(dev, torch.float64)
    tk = torch.from_numpy(k.astype(np.float32)).to(dev, torch.float64).repeat_interleave(Hq // Hkv, dim=1)
    tv = torch.from_numpy(v.astype(np.float32)).to(dev, torch.float64).repeat_interleave(Hq // Hkv, dim=1)
    scores = torch.matmul(tq, tk.transpose(-1, -2)) * scale
    if s["causal"]:
        pos = torch.arange(Nq, device=dev)[:, None] + (Nkv - Nq)
        scores = scores.masked_fill(torch.arange(Nkv, device=dev)[None, :] > pos, float("-inf"))
    reference = torch.matmul(torch.softmax(scores, dim=-1), tv).to(torch.float32).cpu().numpy()
    del tq, tk, tv, scores
    torch.cuda.empty_cache()

    o = np.zeros((B, Hq, Nq, D), dtype=np.float32)
    mask = np.zeros(1, dtype=np.float16)
    sinks = np.zeros(1, dtype=np.float32)
    ws = np.zeros(4, dtype=np.float32)
    arguments = [q, k, v, mask, sinks, o, ws, params]
    answer = [None, None, None, None, None, reference, None, None]
    failures = []

    def verify(expected, got, atol=None):
        ref, out = expected[5], np.asarray(got[5], dtype=np.float32)
        rel = float(np.linalg.norm((out - ref).ravel()) / max(np.linalg.norm(ref.ravel()), 1e-30))
        worst = float(np.max(np.abs(out - ref)))
        ok = rel <= REL_L2 and worst <= MAX_ABS and bool(np.all(np.isfinite(out)))
        if not ok:
            failures.append({"rel_l2": rel, "max_abs": worst})
        return ok

    p = kernel["params"]
    tune_params = {"BLOCK_M": p["BLOCK_M"], "BLOCK_N": p["BLOCK_N"], "DV_TILE": p["DV_TILE"], "DK": [D], "DV": [D]}
    restrictions = [f"{D} % DV_TILE == 0", f"BLOCK_N * ({D} + DV_TILE) * 4 <= 49152"]
    cuda_include = os.environ.get("CUDA_HOME", "/usr/local/cuda") + "/include"
    options = ["--std=c++17", f"-I{REPO / 'kernels'}", f"-I{cuda_include}", f"-I{cuda_include}/cccl"]
    t_tune = time.perf_counter()
    results, env = kernel_tuner.tune_kernel(
        ENTRY, str(REPO / "kernels/cuda/flash_attn_f32_f16.cu"), (Nq, Hq, B), arguments, tune_params,
        grid_div_x=["BLOCK_M"], grid_div_y=[], grid_div_z=[], block_size_names=["BLOCK_M"],
        restrictions=restrictions, answer=answer, verify=verify, lang="cupy", compiler_options=options,
        strategy="brute_force", cache=args.kt_cache, quiet=True)
    t_end = time.perf_counter()
    timed = [r for r in results if isinstance(r.get("time"), float)]
    best = min(timed, key=lambda r: r["time"]) if timed else None
    json.dump({
        "wall_in_process_s": t_end - t_start,
        "tune_kernel_s": t_end - t_tune,
        "configs": len(results),
        "verified": len(timed),
        "verification_failures": failures,
        "winner": key_of(best) if best else None,
        "winner_ms": best["time"] if best else None,
        "times": {key_of(r): r["time"] for r in timed},
        "totals": {k: env.get(k) for k in ("total_compile_time", "total_verification_time", "total_benchmark_time",
                                           "total_framework_time", "total_strategy_time", "overhead_time")},
        "kernel_tuner": kernel_tuner.__version__ if hasattr(kernel_tuner, "__version__") else "?",
    }, open(args.child_out, "w"), indent=1)


def run_kernel_tuner(shape_name, out_dir, cache_file, label, cupy_cache):
    child_out = out_dir / f"kernel_tuner_{label}.json"
    cmd = [sys.executable, __file__, "--kernel-tuner-child", "--shape", shape_name, "--kt-cache", str(cache_file),
           "--child-out", str(child_out)]
    # CuPy keeps compiled kernels in its own cache (~/.cupy/kernel_cache by default): the empty-cache run gets an
    # empty one, as attn-tune gets an empty --cache-dir; the re-run finds what the empty-cache run left.
    env = dict(os.environ, CUPY_CACHE_DIR=str(cupy_cache))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=out_dir, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    (out_dir / f"kernel_tuner_{label}.log.txt").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"Kernel Tuner {label} run failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    r = json.loads(child_out.read_text())
    r["wall_s"] = wall
    r["command"] = " ".join(cmd)
    return r


# ---- the table -----------------------------------------------------------------------

def winner_agreement(at, kt):
    if at["winner"] == kt["winner"]:
        return "same winner"
    if kt["winner"] in at.get("tied", []):
        return f"Kernel Tuner's winner is in attn-tune's declared tie set ({len(at['tied'])} configurations)"
    m = at["medians"]
    if kt["winner"] in m and at["winner"] in m:
        gap = m[kt["winner"]] / m[at["winner"]] - 1
        return f"different winners: Kernel Tuner's is {100 * gap:.2f}% slower in attn-tune's measurement"
    return "different winners"


def markdown(report):
    at_c, at_w, kt_c, kt_w = (report[k] for k in ("attn_tune_cold", "attn_tune_warm", "kernel_tuner_cold",
                                                   "kernel_tuner_warm"))
    lines = [
        "# attn-tune vs Kernel Tuner: brute force on one kernel, one shape",
        "",
        f"- device: {report['device']}",
        f"- kernel: `{SPEC}` kernel `{KERNEL}` (entry `{ENTRY}`), shape `{report['shape']}` "
        f"({report['shape_fields']}), {report['space']} configurations after the spec's constraints",
        f"- date: {report['date']}; attn-tune {report['attn_tune_version']}; Kernel Tuner {kt_c.get('kernel_tuner')}",
        f"- command: `{report['command']}`",
        "",
        f"- wall times: medians of {len(at_c['wall_s_runs'])} repetitions, each from empty caches (attn-tune's "
        "--cache-dir, CuPy's CUPY_CACHE_DIR, Kernel Tuner's cache file), one side after the other",
        f"- attn-tune's stages (empty cache): {at_c['stages']}; re-sweep: {at_w['replayed']} results replayed",
        "",
        "| run | wall s (median) | configurations verified | winner | winner ms | compile |",
        "| --- | ---: | ---: | --- | ---: | --- |",
        f"| attn-tune, empty cache | {at_c['wall_s']:.1f} | {at_c['verified']}/{at_c['configs']} | `{at_c['winner']}` | "
        f"{at_c['winner_ms']:.4f} | {at_c['compile']} |",
        f"| Kernel Tuner, empty cache | {kt_c['wall_s']:.1f} | {kt_c['verified']}/{kt_c['configs']} | `{kt_c['winner']}` | "
        f"{kt_c['winner_ms']:.4f} | {(kt_c['totals'].get('total_compile_time') or 0) / 1000:.1f} s compiling |",
        f"| attn-tune, re-sweep (compile cache, measurement store) | {at_w['wall_s']:.1f} | {at_w['verified']}/{at_w['configs']} | "
        f"`{at_w['winner']}` | {at_w['winner_ms']:.4f} | {at_w['compile']} |",
        f"| Kernel Tuner, re-run (cache file) | {kt_w['wall_s']:.1f} | {kt_w['verified']}/{kt_w['configs']} | "
        f"`{kt_w['winner']}` | {kt_w['winner_ms']:.4f} | answered from its cache file |",
        "",
        f"- complete sweep: attn-tune {kt_c['wall_s'] / at_c['wall_s']:.2f}x sooner than Kernel Tuner "
        f"(target: >= 3x)",
        f"- re-sweep: attn-tune {kt_w['wall_s'] / at_w['wall_s']:.2f}x sooner "
        f"(target vs Kernel Tuner: none); attn-tune's re-sweep {at_c['wall_s'] / at_w['wall_s']:.1f}x sooner than "
        "its first sweep (target: >= 20x)",
        f"- runs (s): " + "; ".join(f"{k} {', '.join(f'{x:.2f}' for x in r['wall_s_runs'])}" for k, r in
                                     (("attn-tune cold", at_c), ("attn-tune re-sweep", at_w),
                                      ("Kernel Tuner cold", kt_c), ("Kernel Tuner re-run", kt_w))),
        f"- compile caches warm, nothing measured kept (attn-tune --remeasure; Kernel Tuner without its cache file): "
        f"attn-tune {report['attn_tune_compiled']['wall_s']:.2f} s, Kernel Tuner "
        f"{report['kernel_tuner_compiled']['wall_s']:.2f} s: "
        f"{report['kernel_tuner_compiled']['wall_s'] / report['attn_tune_compiled']['wall_s']:.2f}x sooner",
        f"- winners (empty-cache runs): {winner_agreement(at_c, kt_c)}",
        "",
        "Where the time goes (seconds):",
        "",
        "| side | run | compile | verify | timing | other |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for label, at in (("empty cache", at_c), ("re-sweep", at_w)):
        lines.append(f"| attn-tune | {label} | {at['compile_ms_sum'] / 1000:.1f} (sum over configurations, parallel) | "
                     f"- | {at['timing_s_sum']:.1f} | {max(at['wall_s'] - at['timing_s_sum'], 0):.1f} incl. compile, "
                     "inputs, CPU reference |")
    for label, kt in (("empty cache", kt_c), ("re-run", kt_w)):
        t = kt["totals"]
        ms = lambda k: (t.get(k) or 0) / 1000  # noqa: E731
        lines.append(f"| Kernel Tuner | {label} | {ms('total_compile_time'):.1f} | {ms('total_verification_time'):.1f} | "
                     f"{ms('total_benchmark_time'):.1f} | {kt['wall_s'] - kt['tune_kernel_s']:.1f} start-up, inputs, "
                     f"reference; {ms('total_framework_time') + ms('total_strategy_time'):.1f} framework |")
    lines += ["", "Timing methods differ: attn-tune flushes L2 before each sample and samples to 0.5% noise; Kernel "
              "Tuner times 7 back-to-back runs. Both sides' medians of the common configurations are in the JSON."]
    if kt_c["verification_failures"]:
        lines.append(f"Kernel Tuner verification failures: {len(kt_c['verification_failures'])}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--attn-tune", default=str(REPO / "build-gpu/app/attn-tune"))
    ap.add_argument("--shape", default="prefill-1k-causal-gqa")
    ap.add_argument("--out", default=os.environ.get("OUT", "results/compare/kernel_tuner_race"))
    ap.add_argument("--repeats", type=int, default=3, help="repetitions of the four runs; wall times are medians")
    ap.add_argument("--kernel-tuner-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--kt-cache", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.kernel_tuner_child:
        return kernel_tuner_child(args)

    out_dir = Path(args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    spec, shape, kernel = load_spec(args.shape)
    space = len(valid_configs(kernel, shape["D"]))
    # Each repetition starts both sides from empty caches, one after the other, and then re-runs each with what
    # its first run left; the ratios are the medians over the repetitions (the files are the last repetition's).
    runs = {"attn_tune_cold": [], "attn_tune_warm": [], "kernel_tuner_cold": [], "kernel_tuner_warm": [],
            "attn_tune_compiled": [], "kernel_tuner_compiled": []}
    for _ in range(args.repeats):
        work = Path(tempfile.mkdtemp(prefix="kt-race-"))
        try:
            at_cache, kt_cache = work / "attn-tune-cache", out_dir / "kernel_tuner_cache.json"
            if kt_cache.exists():
                kt_cache.unlink()
            # Kernel Tuner first: the GPU is equally idle for both cold runs.
            runs["kernel_tuner_cold"].append(run_kernel_tuner(args.shape, out_dir, kt_cache, "cold", work / "cupy"))
            runs["attn_tune_cold"].append(run_attn_tune(args.attn_tune, args.shape, out_dir, at_cache, "cold"))
            runs["kernel_tuner_warm"].append(run_kernel_tuner(args.shape, out_dir, kt_cache, "warm", work / "cupy"))
            runs["attn_tune_warm"].append(run_attn_tune(args.attn_tune, args.shape, out_dir, at_cache, "warm"))
            # Compile caches warm, nothing measured kept: every configuration verified and timed again.
            kt_cache.unlink()
            runs["kernel_tuner_compiled"].append(run_kernel_tuner(args.shape, out_dir, kt_cache, "compiled",
                                                                  work / "cupy"))
            runs["attn_tune_compiled"].append(run_attn_tune(args.attn_tune, args.shape, out_dir, at_cache, "compiled",
                                                            ["--remeasure"]))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    last = {}
    for k, rs in runs.items():
        last[k] = dict(rs[-1])
        last[k]["wall_s_runs"] = [x["wall_s"] for x in rs]
        last[k]["wall_s"] = statistics.median(last[k]["wall_s_runs"])
    at_cold, at_warm, kt_cold, kt_warm = (last[k] for k in ("attn_tune_cold", "attn_tune_warm", "kernel_tuner_cold",
                                                            "kernel_tuner_warm"))
    lb = leaderboards.load(out_dir / "attn_tune_cold.json")
    version = subprocess.run([args.attn_tune, "--version"], capture_output=True, text=True).stdout.strip()
    report = {
        "device": lb["device"].get("name", "?"),
        "shape": args.shape,
        "shape_fields": ", ".join(f"{k}={v}" for k, v in shape.items() if k != "dtype"),
        "space": space,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "attn_tune_version": version,
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "attn_tune_cold": at_cold, "attn_tune_warm": at_warm,
        "kernel_tuner_cold": kt_cold, "kernel_tuner_warm": kt_warm,
        "attn_tune_compiled": last["attn_tune_compiled"], "kernel_tuner_compiled": last["kernel_tuner_compiled"],
    }
    (out_dir / "kernel_tuner_race.json").write_text(json.dumps(report, indent=1) + "\n")
    (out_dir / "kernel_tuner_race.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    sys.exit(main())
