#!/usr/bin/env python3
"""attn-tune's ranked attention kernels against PyTorch SDPA (FA2, cuDNN, mem-efficient), on one GPU.

For every (kernel, shape) of the given leaderboards it takes the winner (rank
1; or --config), has attn-tune write what launches it
(`attn-tune bench SPEC --set KEY --emit-launch DIR`: the NVRTC binary, the
launches, the params struct's bytes, the arguments' sizes, FLOP counts), and
then only makes torch tensors, launches, times and compares:

  * attn-tune and each peer are timed interleaved, --reps times (A B C A B C
    ...), each time the median of --samples CUDA-event samples with the L2
    evicted before each; a row gives the median over repetitions and, per peer,
    the median of the per-repetition ratios peer ms / attn-tune ms;
  * the leaderboard's recorded median sits next to the script's own timing of
    the same configuration (script / leaderboard: the two harnesses agree?);
  * every output is checked against a float64 reference of sampled rows, and
    attn-tune's against each peer's (relative L2 over --tol fails: exit 1).

  python3 scripts/compare/attention_peers.py --leaderboard results/h200/flash_attn_fwd_wgmma.json \\
      --leaderboard results/h200/flash_attn_decode.json --out results/h200/compare/attention_peers
  python3 scripts/compare/attention_peers.py --leaderboard ... --dry-run   # plan and emit only: no GPU
"""
import argparse
import fnmatch
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import leaderboards  # noqa: E402
from nvml_clocks import SmClock  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PEERS = [("FA2", "FLASH_ATTENTION"), ("cuDNN", "CUDNN_ATTENTION"), ("mem-efficient", "EFFICIENT_ATTENTION"),
         ("flex", "FLEX")]
PEER_KEYS = {"fa2": "FA2", "cudnn": "cuDNN", "efficient": "mem-efficient", "flex": "flex"}
RATIO_PEERS = ("FA2", "cuDNN", "flex")  # the attn-tune/peer columns


class RunError(Exception):
    pass


# ---------------------------------------------------------------- plan and emit
def matches(name, patterns):
    return not patterns or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def pick_entry(group, config):
    """The group's winner, or its best-ranked entry of that key or preset; None without one."""
    return leaderboards.best(group, (lambda e: e["key"] == config or e.get("preset") == config) if config else None)


def sample_period_ms(entry):
    """The sweep's wall time per timed sample of this entry (flush, launches, its host's gap), or None."""
    t = entry["timing"]
    return 1e3 * t["wall_s"] / t["samples"] if t.get("wall_s") and t.get("samples") else None


def plan(args):
    """Items (one per (leaderboard, kernel, shape)) and what was left out."""
    items, skipped = [], []
    shapes = [p for s in args.shape for p in s.split(",") if p]
    kernels = [p for s in args.kernel for p in s.split(",") if p]
    configs = json.loads(Path(args.configs).read_text()) if args.configs else {}
    for path in args.leaderboard:
        lb = leaderboards.load(path)
        for g in lb["groups"]:
            if not (matches(g["shape"], shapes) and matches(g["kernel"], kernels)):
                continue
            where = f"{g['kernel']} / {g['shape']} ({path})"
            if lb.get("backend") != "cuda":
                skipped.append(f"{where}: a {lb.get('backend')} leaderboard (its own median: "
                               f"{(g.get('best') or {}).get('median_ms')} ms); only CUDA kernels are launched here")
                continue
            config = configs.get(g["shape"], args.config)
            entry = pick_entry(g, config)
            if entry is None:
                skipped.append(f"{where}: no ok configuration" + (f" {config}" if config else ""))
                continue
            items.append({"leaderboard": path, "spec": lb["spec"]["path"], "spec_name": lb["spec"]["name"],
                          "kernel": g["kernel"], "shape": g["shape"], "fields": g.get("shape_fields", {}),
                          "key": entry["key"], "preset": entry.get("preset", ""),
                          "lb_median_ms": entry["timing"]["median_ms"], "lb_period_ms": sample_period_ms(entry),
                          "lb_sources": lb.get("sources", {}), "lb_settings": lb.get("settings", {})})
    return items, skipped


def emit(items, args, work):
    """attn-tune writes each (spec, kernel, configuration)'s launch bundle; items get their shape's entry."""
    jobs = {}
    for it in items:
        jobs.setdefault((it["spec"], it["kernel"], it["key"]), []).append(it)

    def run(numbered):
        n, ((spec, kernel, key), its) = numbered
        out = work / f"emit{n}"
        cmd = [args.attn_tune, "bench", spec, "-k", kernel, "--set", key, "-s", ",".join(i["shape"] for i in its),
               "--emit-launch", str(out)]
        p = subprocess.run(cmd, cwd=args.repo, capture_output=True, text=True)
        if p.returncode != 0 or not (out / "launch.json").exists():
            for i in its:
                i["error"] = f"`{shlex.join(cmd)}` failed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[-400:]}"
            return
        manifest = json.loads((out / "launch.json").read_text())
        by_shape = {s["shape"]: s for s in manifest["shapes"]}
        for i in its:
            s = by_shape.get(i["shape"])
            i["dir"], i["manifest"] = out, manifest
            if s is None or "skipped" in s:
                i["error"] = f"attn-tune emitted no launch: {s.get('skipped') if s else 'shape missing'}"
                continue
            i["launch"] = s
            changed = [k for k, v in i["fields"].items() if k in s["fields"] and s["fields"][k] != v]
            if changed:
                i["error"] = f"the spec's shape differs from the leaderboard's in {changed}"
            # Older leaderboards hash the source file alone, newer ones the source and its includes.
            rec = i["lb_sources"].get("cuda") or {}
            now = manifest["source"]["sha256"] if "files" in rec else manifest["source"]["files"][0]["sha256"]
            i["notes"] = [] if rec.get("sha256") in (None, now) else \
                ["the kernel's source (or a header it includes) changed since the sweep (sha256)"]

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(run, enumerate(jobs.items())))


# ------------------------------------------------------------ attn-tune bench, in turns
# The leaderboard's timing settings and the `attn-tune bench` option that repeats each (docs/timing.md).
BENCH_TIMING = (("warmup_runs", "--warmup", 1), ("warmup_s", "--warmup-time", 1), ("min_samples", "--min-samples", 1),
                ("max_samples", "--max-samples", 1), ("max_noise", "--max-noise", 100), ("max_time_s", "--max-time", 1))


def bench_command(item, args):
    """`attn-tune bench` on exactly this row's configuration and shape, timed as its leaderboard recorded (warm-up
    runs and time, sample counts, noise target, sampling time, policy, seed). In-process: the subprocess is the
    isolation. A leaderboard that lacks one of these settings cannot be repeated: RunError."""
    settings = item["lb_settings"]
    timing = settings.get("timing", {})
    missing = [name for name, _, _ in BENCH_TIMING if name not in timing] + ([] if "seed" in settings else ["seed"])
    if missing:
        raise RunError(f"{item['leaderboard']} records no {', '.join(missing)} in its settings: bench cannot repeat "
                       "its timing")
    policy = timing.get("policy") or ("cold" if timing.get("flush_cache", True) else "warm")
    cmd = [args.attn_tune, "bench", item["spec"], "-k", item["kernel"], "--set", item["key"], "-s", item["shape"],
           "-d", "cuda:0", "--json", "--no-isolate", "--seed", str(settings["seed"]), "--timing", policy]
    for name, flag, scale in BENCH_TIMING:
        v = timing[name] * scale
        cmd += [flag, str(v) if isinstance(v, int) else f"{v:g}"]
    return cmd


def run_bench(item, args, rep):
    """One repetition's `attn-tune bench` of the row: its median and SM clock; its result written under --out."""
    cmd = item["bench_cmd"]
    try:
        p = subprocess.run(cmd, cwd=args.repo, capture_output=True, text=True, timeout=args.bench_timeout)
    except subprocess.TimeoutExpired:
        raise RunError(f"`{shlex.join(cmd)}` ran past --bench-timeout ({args.bench_timeout} s)") from None
    try:
        results = json.loads(p.stdout)
    except json.JSONDecodeError:
        results = None
    if not isinstance(results, list) or len(results) != 1:
        raise RunError(f"`{shlex.join(cmd)}` (exit {p.returncode}) gave no result: {(p.stderr or p.stdout).strip()[-400:]}")
    r = results[0]
    out = Path(args.out) / "bench_turns" / f"{item['spec_name']}.{item['kernel']}.{item['shape']}.rep{rep}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"command": shlex.join(cmd), "exit": p.returncode, "results": results},
                              separators=(",", ":")) + "\n")
    if r.get("status") != "ok" or r.get("key") != item["key"]:
        raise RunError(f"attn-tune bench: {r.get('key')}: {r.get('status')}: {r.get('reason', '')} ({out.name})")
    return {"ms": r["timing"]["median_ms"], "sm_mhz": (r.get("clocks") or {}).get("sm_mhz_median"),
            "throttled": (r.get("clocks") or {}).get("throttled", False), "file": str(out)}


def bench_turns_summary(bench, script):
    """Per repetition, attn-tune bench's median and the script's median of the same configuration taken right after
    it: the medians, the median of the per-repetition ratios script / bench and both harnesses' SM clocks."""
    pairs = [(b, s) for b, s in zip(bench, script) if b is not None]
    if not pairs:
        return None
    ms = [b["ms"] for b, _ in pairs]
    ratios = [s["median_ms"] / b["ms"] for b, s in pairs]
    out = {"reps_ms": ms, "ms": statistics.median(ms), "reps_script_over_bench": ratios,
           "script_over_bench": statistics.median(ratios), "reps_sm_mhz": [b["sm_mhz"] for b, _ in pairs],
           "reps_script_sm_mhz": [s["sm_mhz"] for _, s in pairs], "throttled": any(b["throttled"] for b, _ in pairs),
           "files": [Path(b["file"]).name for b, _ in pairs]}
    mhz = [m for m in out["reps_sm_mhz"] if m]
    if mhz:
        out["sm_mhz"] = statistics.median(mhz)
    # the ratio of the two times in SM cycles, per repetition: what is left once the clocks are taken out
    cycles = [r * s / b for r, s, b in zip(ratios, out["reps_script_sm_mhz"], out["reps_sm_mhz"]) if s and b]
    if cycles:
        out["script_over_bench_at_equal_clock"] = statistics.median(cycles)
    return out


# ------------------------------------------------------------------- the GPU side
class Gpu:
    def __init__(self, args):
        import numpy as np
        import torch
        import cupy
        if not torch.cuda.is_available():
            raise RunError("torch sees no CUDA device")
        self.np, self.torch, self.cupy, self.args = np, torch, cupy, args
        self.props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = int(getattr(self.props, "L2_cache_size", 0) or (64 << 20))
        self.flush = None if args.no_flush else torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.flush_value = 0
        clock_khz = int(getattr(self.props, "clock_rate", 0) or 0) or 1_980_000
        self.clock_khz = clock_khz if hasattr(torch.cuda, "_sleep") else 0
        self.sleep_cycles = 0
        self.flush_ms = self.time_flush() if self.flush is not None else 0.0
        uuid = getattr(self.props, "uuid", None)
        self.clock = SmClock(f"GPU-{uuid}" if uuid is not None else None, torch.cuda.current_device())
        self.modules = {}

    def function(self, path, entry, shared):
        if path not in self.modules:
            self.modules[path] = self.cupy.RawModule(path=str(path))
        f = self.modules[path].get_function(entry)
        if shared > 48 * 1024:
            f.max_dynamic_shared_size_bytes = int(shared)
        return f

    def inputs(self, s):
        """q, k, v, mask, sinks as attn_params.h lays them out; uniform [-1, 1), mask 5% -inf."""
        torch = self.torch
        g = torch.Generator(device="cuda")
        g.manual_seed(self.args.seed)
        qdt = {"f32_f16": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[s["dtype"]]
        kvdt = torch.bfloat16 if s["dtype"] == "bf16" else torch.float16

        def uni(shape, dt, lo=-1.0, hi=1.0):
            return (torch.rand(shape, generator=g, device="cuda") * (hi - lo) + lo).to(dt)
        t = {"q": uni((s["B"], s["Hq"], s["Nq"], s["D"]), qdt), "k": uni((s["B"], s["Hkv"], s["Nkv"], s["D"]), kvdt),
             "v": uni((s["B"], s["Hkv"], s["Nkv"], s["D"]), kvdt)}
        t["mask"] = torch.zeros(8, dtype=torch.float16, device="cuda")
        if s.get("mask"):
            m = uni((s["B"], s["Nq"], s["Nkv"]), torch.float32, -1.0, 0.0)
            m[torch.rand(m.shape, generator=g, device="cuda") < 0.05] = -math.inf
            keep = (torch.arange(s["Nq"], device="cuda") + s["Nkv"] - s["Nq"]).clamp(0, s["Nkv"] - 1)
            m[:, torch.arange(s["Nq"], device="cuda"), keep] = -0.5  # every row attends a key
            t["mask"] = m.half()
        t["sinks"] = uni((s["Hq"],), torch.float32, -2.0, 2.0) if s.get("sinks") else \
            torch.zeros(4, dtype=torch.float32, device="cuda")
        return t

    def reference(self, s, t):
        """float64 outputs of sampled rows of a few (b, h): causal (bottom-right), window, mask, sinks; None with ALiBi."""
        if s.get("max_bias"):
            return None
        torch = self.torch
        gen = torch.Generator().manual_seed(0)
        pairs = torch.randperm(s["B"] * s["Hq"], generator=gen)[:8].tolist()
        per = max(1, self.args.ref_rows // len(pairs))
        scale = s.get("scale") or 1.0 / math.sqrt(s["D"])
        j = torch.arange(s["Nkv"], device="cuda")[None, :]
        out = []
        for bh in pairs:
            b, h = divmod(bh, s["Hq"])
            hk = h // (s["Hq"] // s["Hkv"])
            i = torch.randperm(s["Nq"], generator=gen)[:per].sort().values.cuda()
            sc = t["q"][b, h, i].double() @ t["k"][b, hk].double().T * scale  # [rows, Nkv]
            if s.get("mask"):
                sc = sc + t["mask"][b, i].double()
            sc = sc.masked_fill(~attends(i[:, None], j, s), -math.inf)
            m = sc.max(dim=1, keepdim=True).values
            sink = t["sinks"][h].double() if s.get("sinks") else None
            if sink is not None:
                m = torch.maximum(m, sink)
            p = torch.exp(sc - m)
            den = p.sum(dim=1, keepdim=True) + (torch.exp(sink - m) if sink is not None else 0)
            out.append((b, h, i, (p @ t["v"][b, hk].double()) / den))
        return out

    def rel_err(self, out, ref):
        if ref is None:
            return None
        got = self.torch.cat([out[b, h, i].double() for b, h, i, _ in ref])
        want = self.torch.cat([r for *_, r in ref])
        return float((got - want).norm() / want.norm()) if self.torch.isfinite(got).all() else math.inf

    def time_flush(self):
        """The median time of one L2 eviction (the pacing subtracts it from the sweep's sample period)."""
        torch = self.torch
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(20)]
        for i, (st, en) in enumerate(ev):
            st.record()
            self.flush.fill_(i & 0xFF)
            en.record()
        torch.cuda.synchronize()
        return statistics.median(st.elapsed_time(en) for st, en in ev[5:])

    def pace(self, sleep_us):
        """The GPU sleep queued before each start event from now on."""
        self.sleep_cycles = int(sleep_us * self.clock_khz / 1000)

    def sample(self, fn, st=None, en=None):
        """One sample as attn-tune's `cold` policy takes it: L2 evicted, then the call between two events."""
        if self.flush is not None:
            self.flush_value = (self.flush_value + 1) & 0xFF
            self.flush.fill_(self.flush_value)
        if self.sleep_cycles:
            self.torch.cuda._sleep(self.sleep_cycles)
        if st is not None:
            st.record()
        fn()
        if en is not None:
            en.record()

    def time(self, fn):
        """The median of --samples samples after --warmup calls and then --warmup-time seconds of the same
        samples, so that each implementation is timed at the clock it sustains, as attn-tune's sweep times it
        (docs/timing.md); with the SM clock NVML read while the samples ran."""
        torch, a = self.torch, self.args
        for _ in range(a.warmup):
            self.sample(fn)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < a.warmup_time:
            for _ in range(8):
                self.sample(fn)
            torch.cuda.synchronize()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(a.samples)]
        for st, en in ev:
            self.sample(fn, st, en)
        mhz, watts = self.clock.mhz(), self.clock.watts()  # the samples are queued or running: what they run at
        torch.cuda.synchronize()
        ms = sorted(st.elapsed_time(en) for st, en in ev)
        return {"median_ms": statistics.median(ms), "min_ms": ms[0], "max_ms": ms[-1], "sm_mhz": mhz, "watts": watts,
                "rel_noise": statistics.stdev(ms) / statistics.mean(ms) if len(ms) > 1 else 0.0}


def encode_tensor_map(np, a, address):
    """The 128 bytes of a CUtensorMap for the launch bundle's tensor-map argument A over the tensor at ADDRESS,
    from the driver's cuTensorMapEncodeTiled (what attn-tune's CUDA backend calls), as a by-value struct."""
    import ctypes
    global _LIBCUDA
    if "_LIBCUDA" not in globals():
        _LIBCUDA = ctypes.CDLL("libcuda.so.1")
    rank = len(a["dims"])
    u64, u32 = ctypes.c_uint64, ctypes.c_uint32
    raw = ctypes.create_string_buffer(128 + 64)  # CUtensorMap is 64-byte aligned
    out = ctypes.addressof(raw) + (-ctypes.addressof(raw)) % 64
    data_type = {"f16": 6, "f32": 7, "bf16": 9}[a["element"]]  # CU_TENSOR_MAP_DATA_TYPE_*
    swizzle = {0: 0, 32: 1, 64: 2, 128: 3}[a["swizzle"]]  # CU_TENSOR_MAP_SWIZZLE_*
    r = _LIBCUDA.cuTensorMapEncodeTiled(
        ctypes.c_void_p(out), ctypes.c_int(data_type), u32(rank), ctypes.c_void_p(address),
        (u64 * rank)(*a["dims"]), (u64 * max(1, rank - 1))(*a["strides"]), (u32 * rank)(*a["box"]),
        (u32 * rank)(*([1] * rank)), ctypes.c_int(0), ctypes.c_int(swizzle), ctypes.c_int(2), ctypes.c_int(0))
    if r != 0:
        raise RunError(f"{a['name']}: cuTensorMapEncodeTiled failed with CUresult {r}")
    return np.frombuffer(ctypes.string_at(out, 128), dtype=np.dtype([(f"w{n}", np.uint64) for n in range(16)])).copy()


def attn_tune_call(gpu, item, t):
    """A function launching the emitted configuration on T, and its output tensor."""
    np, torch, s = gpu.np, gpu.torch, item["launch"]
    o = torch.full_like(t["q"], math.nan)  # unwritten elements stay NaN
    buffers = {"q": t["q"], "k": t["k"], "v": t["v"], "mask": t["mask"], "sinks": t["sinks"], "o": o}
    ptrs = []
    for a in s["args"]:
        if a["kind"] == "value":
            raw = bytes.fromhex(a["hex"])  # passed by value: a one-element struct of 4-byte words, as the C struct
            ptrs.append(np.frombuffer(raw, dtype=np.dtype([(f"w{n}", np.int32) for n in range(len(raw) // 4)])).copy())
        elif a["kind"] == "tensor_map":
            ptrs.append(encode_tensor_map(np, a, buffers[a["buffer"]].data_ptr()))
        elif a["kind"] == "null":
            ptrs.append(np.uint64(0))  # an optional input the shape turns off: a null pointer
        elif a["kind"] == "workspace":
            buffers["ws"] = torch.zeros(a["bytes"], dtype=torch.uint8, device="cuda")
            ptrs.append(np.uint64(buffers["ws"].data_ptr()))
        else:
            x = buffers[a["name"]]
            if a["name"] in ("q", "k", "v", "o") and x.numel() * x.element_size() != a["bytes"]:
                raise RunError(f"{a['name']}: attn-tune expects {a['bytes']} bytes, the tensor has "
                               f"{x.numel() * x.element_size()}")
            ptrs.append(np.uint64(x.data_ptr()))
    binary = item["dir"] / s["program"]["file"]
    launches = [(gpu.function(binary, l["entry"], l["shared_bytes"]), tuple(l["grid"]), tuple(l["block"]),
                 l["shared_bytes"]) for l in s["launches"]]
    args = tuple(ptrs)  # in the bundle's argument order

    def fn():
        for f, grid, block, shared in launches:
            f(grid, block, args, shared_mem=int(shared))
    # The launches hold raw pointers: the tensors behind them (the workspace is made here) live as long as fn.
    # Freed, the caching allocator would hand the workspace to the next tensor, and a kernel that keeps counters
    # there (the persistent prefill's work queue) would read that tensor's data.
    fn.buffers = buffers
    return fn, o


def attends(q_idx, kv_idx, s):
    """Whether query row q_idx attends key kv_idx under the shape's causal flag and window, as attn-tune and
    the reference define them: bottom-right aligned (row i sits at position i + Nkv - Nq), causal keeps keys up to
    that position, a window W keeps keys within W of it. Ints or tensors (flex_attention's mask_mod)."""
    pos = q_idx + (s["Nkv"] - s["Nq"])
    keep = kv_idx <= pos if s.get("causal") else kv_idx >= 0
    if s.get("window"):
        keep = keep & (abs(pos - kv_idx) <= s["window"])
    return keep


def flex_call(gpu, s, t):
    """(fn, out, notes) for flex_attention (torch.compile'd, a block mask of the window), or (None, why). Window shapes
    only: SDPA's fused kernels cover the others."""
    if not s.get("window"):
        return None, "n/a: flex_attention is compared on window shapes only"
    if s.get("sinks") or s.get("mask") or s.get("max_bias") or s["dtype"] == "f32_f16":
        return None, "n/a: mask, ALiBi, sinks and f32 Q are not compared with flex_attention"
    torch = gpu.torch
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    if not hasattr(gpu, "flex"):
        gpu.flex = torch.compile(flex_attention, dynamic=False)
    block_mask = create_block_mask(lambda b, h, qi, kj: attends(qi, kj, s), B=None, H=None, Q_LEN=s["Nq"],
                                   KV_LEN=s["Nkv"], device="cuda")
    kw = {"block_mask": block_mask, "scale": s.get("scale"), "enable_gqa": s["Hkv"] != s["Hq"]}

    def fn():
        return gpu.flex(t["q"], t["k"], t["v"], **kw)
    try:
        out = fn()  # compiles for this shape, outside the timing
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 (torch.compile raises many kinds)
        return None, f"n/a: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return (fn, out, ["flex_attention, torch.compile'd, block mask of the window"]), None


def peer_call(gpu, backend, s, t):
    """(fn, out, notes) for an SDPA backend or flex_attention, or (None, why)."""
    if backend == "FLEX":
        return flex_call(gpu, s, t)
    torch = gpu.torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if s.get("sinks") or s.get("mask") or s.get("max_bias") or s.get("window"):
        return None, "n/a: mask, ALiBi, window and sinks are not compared with SDPA"
    q, k, v, notes = t["q"], t["k"], t["v"], []
    if s["dtype"] == "f32_f16":
        q, notes = q.half(), ["fp16 Q and O (Q rounded)"]
    kw = {"scale": s.get("scale")}
    if s.get("causal") and s["Nq"] == s["Nkv"]:
        kw["is_causal"] = True
    elif s.get("causal") and s["Nq"] > 1:
        from torch.nn.attention.bias import causal_lower_right
        kw["attn_mask"], notes = causal_lower_right(s["Nq"], s["Nkv"]), notes + ["causal_lower_right"]

    def call(k, v, extra):
        def fn():
            with sdpa_kernel([getattr(SDPBackend, backend)]):
                return F.scaled_dot_product_attention(q, k, v, **kw, **extra)
        try:
            out = fn()
            torch.cuda.synchronize()
            return fn, out, None
        except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
            return None, None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    fn, out, err = call(k, v, {"enable_gqa": True} if s["Hkv"] != s["Hq"] else {})
    if fn is None and s["Hkv"] != s["Hq"]:
        rep = s["Hq"] // s["Hkv"]
        fn, out, err2 = call(k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1), {})
        notes.append("GQA: K/V heads expanded outside the timing")
        err = f"{err2} (enable_gqa: {err})"
    if fn is None:
        return None, f"n/a: {err}"
    return (fn, out, notes), None


def pace_us(gpu, item, args):
    """The GPU sleep before each sample of this row. `--pace sweep`: for kernels of 0.1 ms or more, the
    sweep's own idle time per sample (its sample period less the kernel and the flush), so that the script
    keeps the GPU as busy as the sweep did and the power controller settles at the same clock
    (docs/timing.md); shorter kernels keep --sleep-us, which lets the host queue stay ahead of the GPU."""
    period = item.get("lb_period_ms")
    if args.pace != "sweep" or period is None or item["lb_median_ms"] < 0.1:
        return args.sleep_us
    return max(0.0, 1e3 * (period - item["lb_median_ms"] - gpu.flush_ms))


def run_item(gpu, item, args):
    s = item["launch"]["fields"]
    decode = s["Nq"] == 1
    kv_bytes = sum(a["bytes"] for a in item["launch"]["args"] if a["name"] in ("k", "v"))
    work, unit = (kv_bytes / 1e12, "TB/s (K+V)") if decode else (item["launch"]["flops"] / 1e12, "TFLOP/s")
    row = {k: item[k] for k in ("leaderboard", "spec_name", "kernel", "shape", "key", "preset", "lb_median_ms")}
    row.update(fields=s, decode=decode, unit=unit, notes=list(item.get("notes", [])), errors=[], peers={},
               resources=item["launch"]["resources"], defines=item["launch"]["defines"])
    row["sleep_us"] = pace_us(gpu, item, args)
    gpu.pace(row["sleep_us"])
    t = gpu.inputs(s)
    ref = gpu.reference(s, t)
    if ref is None:
        row["notes"].append("ALiBi: no reference here (attn-tune's sweep verified this configuration); "
                            "outputs compared with each other only")
    fn, o = attn_tune_call(gpu, item, t)
    fn()
    gpu.torch.cuda.synchronize()
    impls = {"attn-tune": (fn, o)}
    errs = {"attn-tune": gpu.rel_err(o, ref)}
    for name, backend in PEERS:
        if name not in args.peer_names:
            continue
        got, why = peer_call(gpu, backend, s, t)
        if got is None:
            row["peers"][name] = {"not_run": why}
            continue
        impls[name] = got[:2]
        row["peers"][name] = {"notes": got[2]}
        errs[name] = gpu.rel_err(got[1], ref)
        errs[f"attn-tune vs {name}"] = float((o.float() - got[1].float()).norm() / got[1].float().norm())
    row["rel_err"] = errs
    bad = {k: e for k, e in errs.items() if e is not None and not e <= args.tol}
    if bad:
        row["errors"].append("relative L2 over the tolerance: " + ", ".join(f"{k} {e:.3g}" for k, e in bad.items()))
    # interleaved repetitions: every implementation once per repetition, in the same order
    reps = {name: [] for name in impls}
    bench = []
    for rep in range(1, args.reps + 1):
        if args.bench_turns:  # attn-tune's own harness right before the script's: the same clock state
            try:
                bench.append(run_bench(item, args, rep))
            except RunError as e:
                bench.append(None)
                if str(e) not in row["errors"]:
                    row["errors"].append(str(e))
        for name, (f, _) in impls.items():
            reps[name].append(gpu.time(f))
        if args.bench_turns:
            b, a = bench[-1], reps["attn-tune"][-1]
            print(f"  repetition {rep} of {args.reps}: bench " + (f"{b['ms']:.4f} ms at {b['sm_mhz'] or '?'} MHz"
                  if b else "failed") + f", script {a['median_ms']:.4f} ms at {a['sm_mhz'] or '?'} MHz", flush=True)
    at = [r["median_ms"] for r in reps["attn-tune"]]
    row["attn_tune"] = {"ms": statistics.median(at), "reps_ms": at, "noise": statistics.median(r["rel_noise"] for r in
                                                                                                reps["attn-tune"]),
                        "spread": (max(at) - min(at)) / statistics.median(at)}
    row["attn_tune"]["metric"] = work / (row["attn_tune"]["ms"] * 1e-3)
    add_device_state(row["attn_tune"], reps["attn-tune"])
    row["attn_tune"]["reps_sm_mhz"] = [r["sm_mhz"] for r in reps["attn-tune"]]
    row["script_over_leaderboard"] = row["attn_tune"]["ms"] / item["lb_median_ms"]
    if args.bench_turns:
        row["bench_turns"] = bench_turns_summary(bench, reps["attn-tune"])
        row["bench_turns_command"] = shlex.join(item["bench_cmd"])
    for name in impls:
        if name == "attn-tune":
            continue
        ms = [r["median_ms"] for r in reps[name]]
        p = row["peers"][name]
        p.update(ms=statistics.median(ms), reps_ms=ms, metric=work / (statistics.median(ms) * 1e-3),
                 attn_tune_speedup=statistics.median(b / a for a, b in zip(at, ms)))
        add_device_state(p, reps[name])
    return row


def add_device_state(into, reps):
    """The median over repetitions of the SM clock and the board power NVML read while the samples ran."""
    for key in ("sm_mhz", "watts"):
        vals = [r[key] for r in reps if r.get(key) is not None]
        if vals:
            into[key] = statistics.median(vals)


# ------------------------------------------------------------------------- report
def render(meta, rows, skipped):
    L = ["# attn-tune vs PyTorch SDPA", "",
         f"- device: {meta['device']} ({meta['sm_count']} SMs); torch {meta['torch']} (CUDA {meta['torch_cuda']}, "
         f"cuDNN {meta['cudnn']}), cupy {meta['cupy']}; {meta['attn_tune']}",
         f"- date (UTC): {meta['date_utc']}; command: `{meta['command']}`",
         f"- method: attn-tune's own build (`bench --emit-launch`: its NVRTC binary, launches and params bytes) and "
         f"each peer on the same tensors, timed interleaved {meta['reps']} times (attn-tune, FA2, cuDNN, "
         f"mem-efficient, flex, attn-tune, ...: those asked for); each time the median of {meta['samples']} CUDA-event samples after "
         f"{meta['warmup']} warm-up calls and {meta.get('warmup_time_s', 0)} s of warm-up samples, the L2 evicted "
         f"before each sample"
         + (f", a {meta['sleep_us']} us GPU sleep before each start event" if meta.get("pace") == "fixed" else
            f", before each start event a GPU sleep of the sweep's own idle time per sample for kernels of 0.1 ms "
            f"or more (column `sleep`), else {meta['sleep_us']} us")
         + f"; inputs uniform [-1, 1), torch seed {meta['seed']}",
         "- attn-tune ms: the median over repetitions (± the samples' relative noise); in parentheses the "
         "leaderboard's recorded median of the same configuration, script / leaderboard, the spread of the "
         "repetitions ((max - min) / median) and the SM clock NVML read while attn-tune's samples ran (median)",
         "- attn-tune/FA2, attn-tune/cuDNN, attn-tune/flex: the median over repetitions of peer ms / attn-tune ms (> 1: attn-tune faster)",
         "- TFLOP/s: attn-tune's FLOP count (4 B Hq D x the attended (query, key) pairs); TB/s: K and V bytes read once",
         f"- max rel err: relative L2 of each output against a float64 reference of sampled rows, and of attn-tune's "
         f"against each peer's; tolerance {meta['tol']}", ""]
    notes = []

    def note(text):
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"
    for decode in (False, True):
        sel = [r for r in rows if r.get("decode") == decode]
        if not sel:
            continue
        L += ["## " + ("Decode (Nq = 1): K+V read bandwidth" if decode else "Prefill: TFLOP/s"), "",
              f"| shape | kernel (spec) | attn-tune config | attn-tune ms (leaderboard) | {'TB/s (K+V)' if decode else 'TFLOP/s'} | "
              + " | ".join(n for n, _ in PEERS) + " | " + " | ".join(f"attn-tune/{n}" for n in RATIO_PEERS)
              + " | max rel err |",
              "| --- | --- | --- | --- | ---: |" + " --- |" * len(PEERS) + " ---: |" * len(RATIO_PEERS) + " ---: |"]
        for r in sel:
            marks = "".join(note(n) for n in r["notes"]) + "".join(note(f"{r['kernel']} / {r['shape']}: FAILED: {e}")
                                                                    for e in r["errors"])
            label = r["key"] + (f" ({r['preset']})" if r["preset"] else "")
            if "attn_tune" not in r:
                L.append(f"| {r['shape']}{marks} | {r['kernel']} ({r['spec_name']}) | {label} | – ({r['lb_median_ms']:.4f})"
                         " |" + " – |" * (2 + len(PEERS) + len(RATIO_PEERS)))
                continue
            a = r["attn_tune"]
            clock = (f", {a['sm_mhz']:.0f} MHz" if a.get("sm_mhz") else "") + f", sleep {r['sleep_us']:.0f} us"
            cells = []
            for name, _ in PEERS:
                p = r["peers"].get(name)
                if p is None:
                    cells.append("–")
                elif "ms" in p:
                    cells.append(f"{p['metric']:.2f} ({p['ms']:.4f} ms)" + "".join(note(f"{name}: {n}") for n in p["notes"]))
                else:
                    cells.append("n/a" + note(f"{name}: {p['not_run']}"))
            ratio = [f"{r['peers'][n]['attn_tune_speedup']:.2f}" if "ms" in r["peers"].get(n, {}) else "–"
                     for n in RATIO_PEERS]
            errs = [e for e in r["rel_err"].values() if e is not None]
            err = (f"{max(errs):.2g}" if errs else "–") + (" **FAIL**" if r["errors"] else "")
            L.append(f"| {r['shape']}{marks} | {r['kernel']} ({r['spec_name']}) | {label} | {a['ms']:.4f} "
                     f"±{100 * a['noise']:.1f}% ({r['lb_median_ms']:.4f}, ×{r['script_over_leaderboard']:.3f}, spread "
                     f"{100 * a['spread']:.1f}%{clock}) | {a['metric']:.2f} | {' | '.join(cells)} | {' | '.join(ratio)} | {err} |")
        L.append("")
    by_shape = {}
    for r in rows:
        if "attn_tune" in r:
            by_shape.setdefault(json.dumps(r["fields"], sort_keys=True), []).append(r)
    cross = [rs for rs in by_shape.values() if len({(r["leaderboard"], r["kernel"]) for r in rs}) > 1]
    if cross:
        L += ["## Same shape, several kernels (this script's medians)", "",
              "| shape | kernel (spec) | config | ms | this / fastest |", "| --- | --- | --- | ---: | ---: |"]
        for rs in cross:
            best = min(r["attn_tune"]["ms"] for r in rs)
            L += [f"| {r['shape']} | {r['kernel']} ({r['spec_name']}) | {r['key']} | {r['attn_tune']['ms']:.4f} | "
                  f"{r['attn_tune']['ms'] / best:.2f} |" for r in rs]
        L.append("")
    L += render_bench_turns(meta, rows)
    agree = [r["script_over_leaderboard"] for r in rows if "script_over_leaderboard" in r]
    if agree:
        worst = max(agree, key=lambda x: abs(x - 1))
        L += [f"Script / leaderboard over {len(agree)} rows: median ×{statistics.median(agree):.3f}, farthest from 1 "
              f"×{worst:.3f}; {sum(abs(x - 1) <= 0.03 for x in agree)} of {len(agree)} within 3%.", ""]
    if skipped:
        L += ["## Not compared", ""] + [f"- {s}" for s in skipped] + [""]
    if notes:
        L += ["## Notes", ""] + [f"{n}. {t}" for n, t in enumerate(notes, 1)] + [""]
    return "\n".join(L)


def render_bench_turns(meta, rows):
    """The table of --bench-turns: attn-tune bench and the script, each repetition one right after the other."""
    sel = [r for r in rows if r.get("bench_turns")]
    if not sel:
        return []

    def mhz(v):
        return f"{v:.0f}" if v else "–"
    L = ["## attn-tune bench, in turns", "",
         f"In each of the {meta['reps']} repetitions, `attn-tune bench` timed the configuration (as the leaderboard "
         "times it: its recorded warm-up, samples and policy) right before this script timed it, so both ran under "
         "the same clock state. `bench` and `script`: the median over repetitions; script / bench: the median of "
         "the per-repetition ratios; at equal clock: the same with each time multiplied by the SM clock it ran at "
         "(bench: its `clocks.sm_mhz_median`; script: NVML while its samples ran). The sweep's leaderboard median "
         "was taken earlier, in the sweep, and is shown for reference only.", "",
         "| shape | kernel | bench ms (per repetition) | script ms | script / bench | at equal clock | bench SM MHz "
         "| script SM MHz | leaderboard ms (sweep, earlier) | script / leaderboard |",
         "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in sel:
        b, a = r["bench_turns"], r["attn_tune"]
        cyc = b.get("script_over_bench_at_equal_clock")
        L.append(f"| {r['shape']} | {r['kernel']} | {b['ms']:.4f} ({', '.join(f'{x:.4f}' for x in b['reps_ms'])})"
                 f"{' THROTTLED' if b['throttled'] else ''} | {a['ms']:.4f} | {b['script_over_bench']:.3f} | "
                 f"{f'{cyc:.3f}' if cyc else '–'} | {mhz(b.get('sm_mhz'))} | {mhz(a.get('sm_mhz'))} | "
                 f"{r['lb_median_ms']:.4f} | {r['script_over_leaderboard']:.3f} |")
    ratio = [r["bench_turns"]["script_over_bench"] for r in sel]
    cyc = [r["bench_turns"]["script_over_bench_at_equal_clock"] for r in sel
           if "script_over_bench_at_equal_clock" in r["bench_turns"]]
    worst = max(ratio, key=lambda x: abs(x - 1))
    failed = len(rows) - len(sel)
    L += ["", f"Script / bench in turns over {len(sel)} rows: median ×{statistics.median(ratio):.3f}, farthest from 1 "
          f"×{worst:.3f}; within 3%: {sum(abs(x - 1) <= 0.03 for x in ratio)} of {len(sel)}; at equal clock, within 3%: "
          f"{sum(abs(x - 1) <= 0.03 for x in cyc)} of {len(cyc)}" + (f"; {failed} rows without a bench timing" if failed
                                                                     else "") + ".", ""]
    return L


def write_outputs(out, meta, rows, skipped):
    """The JSON and the Markdown of the rows so far (written after every row: a run cut short keeps its rows)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "attention_peers.json").write_text(json.dumps({"meta": meta, "rows": rows, "skipped": skipped}, indent=1,
                                                         default=str) + "\n")
    (out / "attention_peers.md").write_text(render(meta, rows, skipped))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--leaderboard", action="append", default=[], required=True, metavar="JSON")
    ap.add_argument("--shape", action="append", default=[], metavar="PATTERNS", help="shape names or globs, comma-separated")
    ap.add_argument("--kernel", action="append", default=[], metavar="NAMES", help="only these spec kernels")
    ap.add_argument("--config", metavar="KEY", help="this configuration key or preset instead of each group's best")
    ap.add_argument("--configs", metavar="JSON", help="a file of {shape: configuration key}: that shape's configuration "
                    "instead of its group's best (or --config), e.g. scripts/gpu/sustained_recheck.sh's winners.json")
    ap.add_argument("--reps", type=int, default=3, help="interleaved repetitions (at least 3 for a ratio)")
    ap.add_argument("--samples", type=int, default=30, help="timed samples per implementation and repetition")
    ap.add_argument("--warmup", type=int, default=5, help="untimed samples first")
    ap.add_argument("--warmup-time", type=float, default=0.5, metavar="S",
                    help="then untimed samples for S seconds, so each implementation is timed at the clock it "
                    "sustains (attn-tune's --warmup-time; 0: by count only)")
    ap.add_argument("--seed", type=int, default=1, help="torch seed of the inputs")
    ap.add_argument("--tol", type=float, default=1e-2, help="largest relative L2 error allowed")
    ap.add_argument("--ref-rows", type=int, default=1024, help="rows of the float64 reference")
    ap.add_argument("--peers", default="fa2,cudnn,efficient", help="SDPA backends: fa2, cudnn, efficient; "
                    "flex: flex_attention on the window shapes")
    ap.add_argument("--no-flush", action="store_true", help="do not evict the L2 before each sample")
    ap.add_argument("--sleep-us", type=float, default=100.0, help="GPU sleep queued before each start event "
                    "(keeps the host's launch latency out of the samples; 0: none)")
    ap.add_argument("--pace", choices=("sweep", "fixed"), default="sweep",
                    help="sweep: rows of 0.1 ms or more sleep only the sweep's own idle time per sample (its "
                    "recorded wall time / samples, less the kernel and the flush), so both harnesses keep the GPU "
                    "equally busy; fixed: every row sleeps --sleep-us")
    ap.add_argument("--attn-tune", default=os.environ.get("ATTN_TUNE", "build-gpu/app/attn-tune"),
                    help="the attn-tune binary (default $ATTN_TUNE, else build-gpu/app/attn-tune)")
    ap.add_argument("--repo", default=str(REPO), help="where the leaderboards' spec paths are relative to")
    ap.add_argument("--jobs", type=int, default=4, help="attn-tune emits run in parallel")
    ap.add_argument("--out", default=str(REPO / "results" / "compare" / "attention_peers"))
    ap.add_argument("--bench-turns", action="store_true",
                    help="in every repetition, right before the script times attn-tune's configuration, run "
                    "`attn-tune bench` on exactly that configuration and shape with the leaderboard's recorded timing "
                    "settings (its result under OUT/bench_turns/): both harnesses time it under the same clock state")
    ap.add_argument("--bench-timeout", type=float, default=300.0, metavar="S",
                    help="--bench-turns: seconds one `attn-tune bench` may take (its CPU verification included)")
    ap.add_argument("--dry-run", action="store_true", help="plan and emit only (no GPU, no torch); with "
                    "--bench-turns, also print the bench command of each row")
    args = ap.parse_args(argv)
    args.peer_names = [PEER_KEYS[p.strip()] for p in args.peers.split(",") if p.strip()]
    if args.reps < 1 or args.samples < 2:
        raise RunError("--reps must be at least 1 and --samples at least 2")
    args.attn_tune = str(Path(args.attn_tune).resolve()) if os.sep in args.attn_tune else args.attn_tune
    items, skipped = plan(args)
    work = Path(tempfile.mkdtemp(prefix="attention_peers_"))
    emit(items, args, work)
    for it in items:
        if args.bench_turns and "error" not in it:
            try:
                it["bench_cmd"] = bench_command(it, args)
            except RunError as e:
                it["error"] = str(e)
        status = it.get("error") or f"{it['launch']['program']['file']}, {len(it['launch']['launches'])} launch(es)"
        print(f"{it['kernel']} / {it['shape']}: {it['key']}: {status}")
        if "bench_cmd" in it:
            print(f"  bench in turns, {args.reps} repetition(s): {shlex.join(it['bench_cmd'])}")
    if args.dry_run:
        return 1 if any("error" in i for i in items) else 0

    gpu = Gpu(args)
    import cupy
    import torch
    meta = {"device": gpu.props.name, "sm_count": gpu.props.multi_processor_count, "torch": torch.__version__,
            "torch_cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "cupy": cupy.__version__,
            "attn_tune": subprocess.run([args.attn_tune, "--version"], capture_output=True, text=True).stdout.strip(),
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": shlex.join(sys.argv),
            "reps": args.reps, "samples": args.samples, "warmup": args.warmup, "warmup_time_s": args.warmup_time,
            "sm_mhz_max": gpu.clock.max_mhz(), "sleep_us": args.sleep_us, "pace": args.pace,
            "flush_ms": gpu.flush_ms,
            "seed": args.seed, "tol": args.tol, "bench_turns": args.bench_turns}
    out = Path(args.out)
    rows = []
    start = time.perf_counter()
    for n, it in enumerate(items, 1):
        print(f"[{n} of {len(items)}, {time.perf_counter() - start:.0f} s] {it['kernel']} / {it['shape']}", flush=True)
        if "error" in it:
            rows.append({k: it[k] for k in ("leaderboard", "spec_name", "kernel", "shape", "key", "preset",
                                             "lb_median_ms")} | {"decode": it["fields"].get("Nq") == 1, "notes": [],
                                                                  "errors": [it["error"]], "unit": ""})
            continue
        try:
            rows.append(run_item(gpu, it, args))
        except Exception as e:  # noqa: BLE001 - a row fails, the comparison goes on
            rows.append({k: it[k] for k in ("leaderboard", "spec_name", "kernel", "shape", "key", "preset",
                                             "lb_median_ms")} | {"decode": it["fields"].get("Nq") == 1, "notes": [],
                                                                  "errors": [f"{type(e).__name__}: {e}"], "unit": ""})
        print(f"{it['kernel']} / {it['shape']}: " + (f"{rows[-1]['attn_tune']['ms']:.4f} ms (leaderboard "
              f"{it['lb_median_ms']:.4f})" if "attn_tune" in rows[-1] else "; ".join(rows[-1]["errors"]))
              + (f"; bench in turns {rows[-1]['bench_turns']['ms']:.4f} ms, script / bench "
                 f"×{rows[-1]['bench_turns']['script_over_bench']:.3f}" if rows[-1].get("bench_turns") else ""),
              flush=True)
        write_outputs(out, meta, rows, skipped)
    write_outputs(out, meta, rows, skipped)
    print(f"wrote {out / 'attention_peers.md'} and {out / 'attention_peers.json'}")
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RunError as e:
        print(f"attention_peers: {e}", file=sys.stderr)
        sys.exit(2)
