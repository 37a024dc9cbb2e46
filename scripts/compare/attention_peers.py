#!/usr/bin/env python3
"""attn-tune's best attention kernels side by side with PyTorch SDPA, in one
process on one GPU.

For each (kernel, shape) group of one or more attn-tune leaderboards of the
"attention" operation this script

  * takes the best ok entry (or --config KEY / preset name), with its exact -D
    options ("defines"), its launches as run (entry, grid, block, shared_bytes)
    and its workspace size;
  * builds the inputs as torch tensors: q/k/v uniform in [-1, 1) from --seed,
    layout [B][H][N][D], the shape fields of the group (dtype f16 / bf16 /
    f32_f16; mask, sinks, ALiBi, window as attn-tune defines them);
  * compiles the kernel source the leaderboard names with NVRTC, with the
    options attn-tune uses (--gpu-architecture=<spec's cuda_arch or the
    device's>, -std=c++17, the entry's -D options, -I<spec include dirs>,
    -I<source dir>, -I<CUDA include dirs>, the spec's compiler_options), loads
    the CUBIN (cupy.RawModule, or the driver API through ctypes when cupy's
    argument passing fails the probe) and launches exactly the recorded launches
    with (q, k, v, mask, sinks, o, ws, attn_params) -- attn_params packed as
    kernels/common/attn_params.h (12 int32, 4 float32, 2 int32);
  * times it and SDPA's FLASH_ATTENTION (FA2), CUDNN_ATTENTION and
    EFFICIENT_ATTENTION backends on the SAME tensors the same way: CUDA events
    around each call, L2 evicted before each sample (a buffer of 2x the L2
    written), warm-up, median of --samples, relative noise; attn-tune is timed
    before and after the peers (the spread says what a difference must exceed);
  * checks numerical agreement: relative L2 of every output against a float64
    reference of sampled rows and of attn-tune's output against each peer's; a
    value over --tol (1e-2) fails the row loudly (exit status 1);
  * writes attention_peers.md and attention_peers.json under --out: one row per
    shape with attn-tune's configuration, its time (and its leaderboard median,
    the sanity check that the two harnesses agree), TFLOP/s (prefill,
    FlashAttention's convention 4*B*Hq*Nq*Nkv*D, halved for causal when
    Nq == Nkv; exact attended pairs for other causal / window shapes) or K+V
    read TB/s (decode, Nq == 1), each peer's, the speed ratios
    attn-tune/FA2 and attn-tune/cuDNN (peer ms / attn-tune ms: > 1 = attn-tune
    faster) and the largest relative error; plus the device, torch version,
    date and the exact command.

  --dry-run parses the leaderboards, builds and prints the plan and, where an
  NVRTC library is found (no GPU needed), compiles every selected kernel with
  the exact options and prints registers / spills; it imports neither numpy,
  torch nor cupy. --selftest checks the parts that need no GPU.

  python3 scripts/compare/attention_peers.py --leaderboard results/gpu/flash_attn_fwd.json \\
      --leaderboard results/gpu/flash_attn_decode.json --out results/compare/attention_peers
"""
import argparse
import ctypes
import ctypes.util
import datetime
import fnmatch
import glob
import hashlib
import json
import math
import os
import re
import shlex
import struct
import sys
import tempfile
from pathlib import Path

REPO_DEFAULT = Path(__file__).resolve().parents[2]
PARAMS_FORMAT = "<12i4f2i"  # kernels/common/attn_params.h
PARAMS_FIELDS = ["B", "Hq", "Hkv", "Nq", "Nkv", "D", "q_per_kv", "kv_offset", "causal", "window", "has_mask",
                 "has_sinks", "scale", "max_bias", "m0", "m1", "n_head_log2", "reserved0"]
PARAMS_SIZE = struct.calcsize(PARAMS_FORMAT)
ENTRY_ARGS = ["q", "k", "v", "mask", "sinks", "o", "ws", "p"]
PEERS = [("FA2", "FLASH_ATTENTION"), ("cuDNN", "CUDNN_ATTENTION"), ("mem-efficient", "EFFICIENT_ATTENTION")]
PEER_KEYS = {"fa2": "FA2", "cudnn": "cuDNN", "efficient": "mem-efficient", "mem-efficient": "mem-efficient"}


class UsageError(Exception):
    """Bad arguments or input files: exit status 2."""


class RunError(Exception):
    """A failure while running: exit status 1."""


def warn(msg):
    print(f"warning: {msg}", file=sys.stderr, flush=True)


# ---- the attention shape (tuner/ops/attention_shape.cpp) -------------------

SHAPE_DEFAULTS = {"dtype": "f32_f16", "causal": 0, "window": 0, "mask": 0, "sinks": 0, "max_bias": 0.0, "scale": None}


def normalize_shape(fields, where):
    """The shape fields of a leaderboard group with attn-tune's defaults applied, checked."""
    if not isinstance(fields, dict):
        raise UsageError(f"{where}: shape_fields is not an object")
    s = dict(SHAPE_DEFAULTS)
    s.update({k: v for k, v in fields.items() if v is not None or k not in SHAPE_DEFAULTS})
    for k in ("B", "Hq", "Nq", "D"):
        if k not in s:
            raise UsageError(f"{where}: shape_fields has no '{k}'")
    s.setdefault("Hkv", s["Hq"])
    s.setdefault("Nkv", s["Nq"])
    if s.get("Hkv") is None:
        s["Hkv"] = s["Hq"]
    if s.get("Nkv") is None:
        s["Nkv"] = s["Nq"]
    for k in ("B", "Hq", "Hkv", "Nq", "Nkv", "D", "causal", "window", "mask", "sinks"):
        v = s[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
            raise UsageError(f"{where}: shape field {k} = {v!r} is not an integer")
        s[k] = int(v)
    for k in ("B", "Hq", "Hkv", "Nq", "Nkv", "D"):
        if s[k] < 1:
            raise UsageError(f"{where}: shape field {k} = {s[k]} must be at least 1")
    if s["dtype"] not in ("f32_f16", "f16", "bf16"):
        raise UsageError(f"{where}: dtype {s['dtype']!r} is not f32_f16, f16 or bf16")
    if s["Hq"] % s["Hkv"]:
        raise UsageError(f"{where}: Hq ({s['Hq']}) is not a multiple of Hkv ({s['Hkv']})")
    if s["Nq"] > s["Nkv"]:
        raise UsageError(f"{where}: Nq ({s['Nq']}) exceeds Nkv ({s['Nkv']})")
    s["max_bias"] = float(s["max_bias"] or 0.0)
    s["scale_value"] = 1.0 / math.sqrt(s["D"]) if s["scale"] is None else float(s["scale"])
    s["kv_offset"] = s["Nkv"] - s["Nq"]
    s["q_per_kv"] = s["Hq"] // s["Hkv"]
    return s


def f32(x):
    """x rounded to float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def params_values(s):
    """The 18 fields of attn_params, as AttentionShape::params() fills them."""
    n_head_log2 = 1
    while n_head_log2 * 2 <= s["Hq"]:
        n_head_log2 *= 2
    m0 = 2.0 ** (-s["max_bias"] / n_head_log2)
    m1 = 2.0 ** (-s["max_bias"] / 2.0 / n_head_log2)
    return [s["B"], s["Hq"], s["Hkv"], s["Nq"], s["Nkv"], s["D"], s["q_per_kv"], s["kv_offset"], int(s["causal"] != 0),
            s["window"], int(s["mask"] != 0), int(s["sinks"] != 0), s["scale_value"], s["max_bias"], m0, m1, n_head_log2, 0]


def pack_params(s):
    return struct.pack(PARAMS_FORMAT, *params_values(s))


def alibi_slope(s, h):
    """Slope of head h from the float32 bases the kernels get, powered in double (attention_shape.cpp)."""
    if s["max_bias"] <= 0:
        return 0.0
    v = params_values(s)
    m0, m1, nl2 = f32(v[14]), f32(v[15]), v[16]
    return m0 ** (h + 1) if h < nl2 else m1 ** (2 * (h - nl2) + 1)


def key_span(s, i):
    """[first, last] keys query row i attends (attention_shape.cpp first_key / last_key)."""
    pos = s["kv_offset"] + i
    first = max(0, pos - s["window"]) if s["window"] > 0 else 0
    last = s["Nkv"] - 1
    if s["causal"]:
        last = min(last, pos)
    if s["window"] > 0:
        last = min(last, pos + s["window"])
    return first, last


def attended_pairs(s):
    if not s["causal"] and s["window"] <= 0:
        return s["Nq"] * s["Nkv"]
    return sum(max(0, b - a + 1) for a, b in (key_span(s, i) for i in range(s["Nq"])))


def fa_flops(s):
    """FlashAttention's benchmark convention: 4*B*Hq*Nq*Nkv*D, halved for causal (Nq == Nkv, no window);
    causal with Nq != Nkv and windows count the attended pairs exactly (bottom-right causal)."""
    if s["causal"] and s["Nq"] == s["Nkv"] and s["window"] <= 0:
        pairs = s["Nq"] * s["Nkv"] / 2.0
    else:
        pairs = attended_pairs(s)
    return 4.0 * s["B"] * s["Hq"] * pairs * s["D"]


def kv_bytes(s):
    """Bytes of K and V, each read once (K/V are 2-byte elements in every dtype)."""
    return 2 * s["B"] * s["Hkv"] * s["Nkv"] * s["D"] * 2


def is_decode(s):
    return s["Nq"] == 1


def shape_text(s):
    keys = ["dtype", "B", "Hq", "Hkv", "Nq", "Nkv", "D", "causal"]
    extra = [k for k in ("window", "mask", "sinks", "max_bias") if s[k]]
    if s["scale"] is not None:
        extra.append("scale")
    return " ".join(f"{k}={s[k]}" for k in keys + extra)


def peer_expressible(s):
    """What each SDPA backend is expected to do with this shape (the GPU run tries and says)."""
    notes = {}
    if s["sinks"]:
        for name, _ in PEERS:
            notes[name] = "n/a: attention sinks cannot be expressed in SDPA"
        return notes
    bias = s["mask"] or s["max_bias"] > 0 or s["window"] > 0
    causal = ""
    if s["causal"]:
        causal = ("is_causal=True" if s["Nq"] == s["Nkv"] else
                  "no mask (bottom-right causal with one query row attends every key)" if s["Nq"] == 1 else
                  "attn_mask=causal_lower_right (bottom-right)")
    for name, _ in PEERS:
        if bias:
            notes[name] = ("dense additive bias (mask/ALiBi/window folded in)" if name == "mem-efficient" else
                           "n/a: mask/ALiBi/window need a dense bias, which only mem-efficient takes")
        else:
            notes[name] = causal or "no mask"
        if s["dtype"] == "f32_f16" and not notes[name].startswith("n/a"):
            notes[name] += "; fp32 Q/K/V (K/V upcast)" if name == "mem-efficient" else "; fp16 Q and O (Q rounded)"
        if s["Hkv"] != s["Hq"] and not notes[name].startswith("n/a"):
            notes[name] += "; GQA (enable_gqa, else K/V heads expanded outside the timing)"
    return notes


# ---- leaderboards -----------------------------------------------------------

def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve_path(recorded, repo, lb_path):
    """A path as attn-tune recorded it (relative to the directory the sweep ran in, normally the repo root)."""
    p = Path(recorded)
    if p.is_absolute():
        if p.exists():
            return p
        # an absolute path of another machine: try its tail under the repo
        parts = p.parts
        for i in range(1, len(parts)):
            cand = repo.joinpath(*parts[i:])
            if cand.exists():
                return cand
        return None
    for base in [repo] + list(lb_path.resolve().parents):
        cand = base / p
        if cand.exists():
            return cand.resolve()
    return None


def parse_defines(text, where):
    """'-D A=1 -D B=2' (attn-tune's defines_string) -> ['-DA=1', '-DB=2']."""
    if text is None:
        return []
    if not isinstance(text, str):
        raise UsageError(f"{where}: 'defines' is not a string")
    toks = shlex.split(text)
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t == "-D":
            if i + 1 >= len(toks):
                raise UsageError(f"{where}: 'defines' ends with a bare -D: {text!r}")
            d, i = toks[i + 1], i + 2
        elif t.startswith("-D"):
            d, i = t[2:], i + 1
        else:
            raise UsageError(f"{where}: 'defines' holds {t!r}, not a -D option: {text!r}")
        name = d.split("=", 1)[0]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise UsageError(f"{where}: -D name {name!r} is not an identifier")
        out.append("-D" + d)
    return out


def triple(v, what, where):
    if not isinstance(v, list) or not 1 <= len(v) <= 3 or not all(isinstance(x, int) and x >= 1 for x in v):
        raise UsageError(f"{where}: {what} {v!r} is not a list of 1-3 positive integers")
    return list(v) + [1] * (3 - len(v))


def parse_launches(entry, where):
    ls = entry.get("launches")
    if not ls:
        raise UsageError(f"{where}: the entry has no 'launches' (leaderboard written by an attn-tune that did not "
                         "record them; re-run the sweep with the current attn-tune)")
    out = []
    for i, l in enumerate(ls):
        w = f"{where}: launches[{i}]"
        if not isinstance(l, dict) or not isinstance(l.get("entry"), str):
            raise UsageError(f"{w}: expected {{entry, grid, block, shared_bytes}}")
        sb = l.get("shared_bytes", 0)
        if not isinstance(sb, int) or sb < 0:
            raise UsageError(f"{w}: shared_bytes {sb!r} is not a non-negative integer")
        block = triple(l.get("block"), "block", w)
        if block[0] * block[1] * block[2] > 1024:
            raise UsageError(f"{w}: block {block} has more than 1024 threads")
        out.append({"entry": l["entry"], "grid": triple(l.get("grid"), "grid", w), "block": block, "shared_bytes": sb})
    return out


def entry_label(e):
    return e.get("key", "?") + (f" ({e['preset']})" if e.get("preset") else "")


def pick_entry(group, config, where):
    """(entry, None) or (None, why not)."""
    entries = group.get("entries") or []
    if config:
        want = config.replace(" ", "")
        hits = [e for e in entries if e.get("key", "").replace(" ", "") == want]
        if not hits:
            hits = [e for e in entries if e.get("preset") == config]
        if not hits:
            return None, f"--config {config}: not in this group"
        e = hits[0]
        if e.get("status") != "ok":
            return None, f"--config {config}: status {e.get('status')} ({e.get('reason', '')})"
        return e, None
    ok = [e for e in entries if e.get("status") == "ok" and "excluded" not in e and "timing" in e]
    if not ok:
        counts = group.get("counts", {})
        return None, "no ok entry (" + ", ".join(f"{n} {k}" for k, n in counts.items()) + ")"
    ranked = [e for e in ok if e.get("rank") == 1]
    return (ranked[0] if ranked else min(ok, key=lambda e: e["timing"]["median_ms"])), None


def matches(name, patterns):
    if not patterns:
        return True
    return any(name == p or fnmatch.fnmatchcase(name, p) for p in patterns)


def split_list(values):
    out = []
    for v in values or []:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def load_leaderboard(path):
    try:
        with open(path) as f:
            lb = json.load(f)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such leaderboard")
    except json.JSONDecodeError as e:
        raise UsageError(f"{path}: not JSON ({e})")
    if not isinstance(lb, dict) or not str(lb.get("schema", "")).startswith("attn-tune.leaderboard/"):
        raise UsageError(f"{path}: not an attn-tune leaderboard (schema {lb.get('schema') if isinstance(lb, dict) else None!r})")
    op = (lb.get("spec") or {}).get("operation")
    if op != "attention":
        raise UsageError(f"{path}: a leaderboard of operation {op!r}; this script compares the 'attention' operation")
    if not isinstance(lb.get("groups"), list):
        raise UsageError(f"{path}: 'groups' is not a list")
    return lb


def build_plan(args, repo):
    """The work: one item per selected (leaderboard, kernel, shape) group."""
    items, skipped = [], []
    shapes, kernels = split_list(args.shape), split_list(args.kernel)
    config_seen = False
    for lb_path in args.leaderboard:
        lb_path = Path(lb_path)
        lb = load_leaderboard(lb_path)
        backend = lb.get("backend")
        src_rec = (lb.get("sources") or {}).get(backend) or {}
        spec_rec = lb.get("spec") or {}
        spec_path = resolve_path(spec_rec.get("path", ""), repo, lb_path) if spec_rec.get("path") else None
        spec, spec_notes = None, []
        if spec_path is None:
            spec_notes.append(f"spec {spec_rec.get('path')!r} not found: no spec compiler options, include dir <repo>/kernels")
        else:
            try:
                spec = json.loads(spec_path.read_text())
            except (OSError, json.JSONDecodeError) as e:
                raise UsageError(f"{spec_path}: cannot read the spec ({e})")
            if spec_rec.get("sha256") and sha256_file(spec_path) != spec_rec["sha256"]:
                spec_notes.append(f"spec {spec_rec.get('path')} changed since the sweep (sha256 differs)")
        src_path = resolve_path(src_rec.get("path", ""), repo, lb_path) if src_rec.get("path") else None
        src_notes = []
        if backend == "cuda":
            if src_path is None:
                raise UsageError(f"{lb_path}: kernel source {src_rec.get('path')!r} (sources.{backend}.path) not found "
                                 f"under {repo} (give --repo)")
            if src_rec.get("sha256") and sha256_file(src_path) != src_rec["sha256"]:
                src_notes.append(f"SOURCE CHANGED since the sweep: {src_rec.get('path')} sha256 differs from the "
                                 "leaderboard's; the times may not be comparable")
        include_dirs, extra_opts, arch = [], [], args.arch
        if spec is not None:
            for d in spec.get("include_dirs", []):
                include_dirs.append((spec_path.parent / d).resolve())
            extra_opts = list((spec.get("compiler_options") or {}).get(backend, []))
            arch = arch or spec.get("cuda_arch")
        else:
            include_dirs.append((repo / "kernels").resolve())
        if src_path is not None:
            include_dirs.append(src_path.parent.resolve())
        for gi, g in enumerate(lb["groups"]):
            where = f"{lb_path}: groups[{gi}]"
            kernel, shape_name = g.get("kernel", "?"), g.get("shape", "?")
            if not matches(kernel, kernels) or not matches(shape_name, shapes):
                continue
            s = normalize_shape(g.get("shape_fields"), where)
            e, why = pick_entry(g, args.config, where)
            if args.config and (e is not None or "not in this group" not in (why or "")):
                config_seen = True
            item = {"leaderboard": str(lb_path), "spec_name": spec_rec.get("name", ""), "backend": backend,
                    "device": (lb.get("device") or {}).get("name", ""), "kernel": kernel, "shape_name": shape_name,
                    "shape": s, "notes": list(spec_notes) + list(src_notes)}
            if e is None:
                skipped.append({**item, "why": why})
                continue
            where_e = f"{where} ({shape_name}), entry {e.get('key')}"
            item["entry"] = {"key": e.get("key"), "preset": e.get("preset", ""), "rank": e.get("rank"),
                             "timing": e.get("timing", {}), "verify": e.get("verify", {}),
                             "resources": e.get("resources", {}), "flops": e.get("flops"), "bytes": e.get("bytes")}
            item["runnable"] = backend == "cuda"
            if backend != "cuda":
                item["why_not_run"] = (f"{backend} leaderboard: the script launches CUDA kernels only; its own median "
                                       "is reported and the peers are timed")
            else:
                item["defines"] = parse_defines(e.get("defines"), where_e)
                item["launches"] = parse_launches(e, where_e)
                ws = e.get("workspace_bytes", 0)
                if not isinstance(ws, int) or ws < 0:
                    raise UsageError(f"{where_e}: workspace_bytes {ws!r} is not a non-negative integer")
                item["workspace_bytes"] = ws
                item["source"] = str(src_path)
                item["source_rel"] = src_rec.get("path")
                item["include_dirs"] = [str(d) for d in dict.fromkeys(include_dirs)]
                item["extra_options"] = extra_opts
                item["arch"] = arch  # None: the device's
            item["flops_fa"] = fa_flops(s)
            item["kv_bytes"] = kv_bytes(s)
            item["params_hex"] = pack_params(s).hex()
            item["peers_expected"] = peer_expressible(s)
            items.append(item)
    if args.config and not config_seen:
        raise UsageError(f"--config {args.config}: no selected group has that configuration key or preset")
    if not items and not skipped:
        raise UsageError("no (kernel, shape) group matches --kernel/--shape in the leaderboards")
    return items, skipped


# ---- NVRTC through ctypes (no GPU needed) ---------------------------------

def toolkit_include_dirs():
    """CUDA include dirs for cuda_fp16.h & co., as attn-tune adds them ($ATTN_TUNE_CUDA_INCLUDE overrides)."""
    cands = []
    env = os.environ.get("ATTN_TUNE_CUDA_INCLUDE")
    if env:
        cands += [p for p in env.split(":") if p]
    else:
        for var in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"):
            if os.environ.get(var):
                cands += [os.path.join(os.environ[var], "include"),
                          os.path.join(os.environ[var], "targets", "x86_64-linux", "include")]
        cands += ["/usr/local/cuda/include", "/usr/local/cuda/targets/x86_64-linux/include"]
    out = []

    def add(c):
        for d in (c, os.path.join(c, "cccl")):
            if os.path.isdir(d) and os.path.realpath(d) not in [os.path.realpath(x) for x in out]:
                out.append(d)
    for c in cands:
        add(c)
    if not env and not any(os.path.exists(os.path.join(d, "cuda_fp16.h")) for d in out):
        # no toolkit: the headers of NVIDIA's pip wheels (nvidia-cuda-runtime, cu13 layout)
        for sp in sys.path:
            for c in sorted(glob.glob(os.path.join(sp, "nvidia", "*", "include"))):
                if os.path.exists(os.path.join(c, "cuda_fp16.h")):
                    add(c)
    return out


def find_nvrtc():
    env = os.environ.get("ATTN_TUNE_NVRTC")
    if env:
        return [env]
    cands = []
    roots = [os.environ[v] for v in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT") if os.environ.get(v)] + ["/usr/local/cuda"]
    for r in roots:
        for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
            cands += sorted(glob.glob(os.path.join(r, sub, "libnvrtc.so*")), key=len)
    lib = ctypes.util.find_library("nvrtc")
    if lib:
        cands.append(lib)
    for sp in sys.path:
        cands += sorted(glob.glob(os.path.join(sp, "nvidia", "*", "lib", "libnvrtc.so*")), key=len)
    return [c for c in dict.fromkeys(cands) if "builtins" not in c and ".alt." not in c]


class Nvrtc:
    def __init__(self, path):
        self.path = path
        self.lib = ctypes.CDLL(path)
        L = self.lib
        L.nvrtcGetErrorString.restype = ctypes.c_char_p
        L.nvrtcGetErrorString.argtypes = [ctypes.c_int]
        L.nvrtcVersion.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
        L.nvrtcCreateProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
        L.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        L.nvrtcGetProgramLogSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        L.nvrtcGetProgramLog.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.nvrtcGetCUBINSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        L.nvrtcGetCUBIN.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(L.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = (major.value, minor.value)

    @staticmethod
    def load():
        errors = []
        for p in find_nvrtc():
            try:
                return Nvrtc(p)
            except OSError as e:
                errors.append(f"{p}: {e}")
        return None if not errors else errors

    def _check(self, r, call, log=""):
        if r != 0:
            msg = self.lib.nvrtcGetErrorString(r).decode()
            raise RunError(f"nvrtc: {call} failed: {msg}" + (f"\n{log}" if log else ""))

    def base_options(self, arch):
        opts = [f"--gpu-architecture={arch}", "-std=c++17", "--ptxas-options=-v"]
        if self.version >= (12, 9):
            opts.append("--no-cache")  # as attn-tune: no cached result, so ptxas reports every time
        return opts

    def compile(self, source, name, options):
        """(cubin bytes, log)."""
        L = self.lib
        prog = ctypes.c_void_p()
        self._check(L.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None),
                    "nvrtcCreateProgram")
        try:
            argv = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            r = L.nvrtcCompileProgram(prog, len(options), argv)
            n = ctypes.c_size_t()
            L.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value + 1)
            L.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode(errors="replace").rstrip()
            if r != 0:
                raise RunError(f"nvrtc: {name} did not compile ({L.nvrtcGetErrorString(r).decode()}); options: "
                               f"{' '.join(options)}\n{log}")
            self._check(L.nvrtcGetCUBINSize(prog, ctypes.byref(n)), "nvrtcGetCUBINSize")
            cubin = ctypes.create_string_buffer(n.value)
            self._check(L.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
            return cubin.raw, log
        finally:
            L.nvrtcDestroyProgram(ctypes.byref(prog))


def parse_ptxas(log):
    """{function: {registers, spill_stores, spill_loads, stack, smem}} from ptxas -v output."""
    out, cur = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line) or re.search(r"Function properties for (\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur.update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["registers"] = int(m.group(1))
            m2 = re.search(r"(\d+) bytes smem", line)
            if m2:
                cur["smem"] = int(m2.group(1))
    return out


def compile_options(item, nvrtc, arch):
    opts = nvrtc.base_options(arch) if nvrtc else [f"--gpu-architecture={arch}", "-std=c++17"]
    opts += item["defines"]
    opts += ["-I" + d for d in item["include_dirs"]]
    opts += ["-I" + d for d in toolkit_include_dirs()]
    opts += item["extra_options"]
    return opts


# ---- printing the plan ----------------------------------------------------

def print_plan(items, skipped, args, nvrtc, compile_check):
    print(f"attention_peers plan: {len(items)} group(s) to compare, {len(skipped)} skipped")
    print(f"  timing: {args.samples} samples after {args.warmup} warm-up runs, median; L2 "
          f"{'evicted (2x L2 written) before each sample' if not args.no_flush else 'NOT flushed (--no-flush)'}; "
          f"{'a ~%d us GPU sleep before each start event hides host launch latency' % args.sleep_us if args.sleep_us > 0 else 'no GPU sleep before the start event'}")
    print(f"  inputs: uniform [-1, 1) from torch seed {args.seed}; reference: float64 over <= {args.ref_rows} sampled rows; "
          f"tolerance: relative L2 {args.tol:g}")
    print(f"  peers: {', '.join(p for p in args.peer_names)}; output: {args.out}")
    if isinstance(nvrtc, Nvrtc):
        print(f"  NVRTC {nvrtc.version[0]}.{nvrtc.version[1]} at {nvrtc.path}; CUDA include dirs: "
              f"{' '.join(toolkit_include_dirs()) or '(none found)'}")
    else:
        print(f"  NVRTC: not found here ({'; '.join(nvrtc) if nvrtc else 'no libnvrtc.so on the search path'})"
              " -- compile check skipped")
    ok = True
    for n, it in enumerate(items, 1):
        s = it["shape"]
        e = it["entry"]
        t = e.get("timing", {})
        print(f"\n[{n}] {it['leaderboard']}  ({it['spec_name']}, {it['backend']}, swept on {it['device'] or '?'})")
        print(f"    kernel {it['kernel']}  shape {it['shape_name']}: {shape_text(s)}")
        print(f"    attn-tune entry: {entry_label(e)}  rank {e.get('rank')}  leaderboard median "
              f"{t.get('median_ms', float('nan')):.4f} ms (noise {100 * t.get('rel_noise', 0):.2f}%, "
              f"{t.get('samples', '?')} samples); verify rel_l2 {e.get('verify', {}).get('rel_l2', float('nan')):.2g}")
        if is_decode(s):
            print(f"    metric: K+V read TB/s, {it['kv_bytes']:.6g} bytes of K and V")
        else:
            exact = f"{e['flops']:.6g}" if e.get("flops") else "not recorded"
            print(f"    metric: TFLOP/s, FlashAttention-convention FLOPs {it['flops_fa']:.6g} "
                  f"(leaderboard's exact count {exact})")
        vals = params_values(s)
        print("    attn_params: " + " ".join(f"{k}={v:.9g}" if isinstance(v, float) else f"{k}={v}"
                                           for k, v in zip(PARAMS_FIELDS, vals)))
        print(f"      packed ({PARAMS_SIZE} bytes): {it['params_hex']}")
        for note in it["notes"]:
            print(f"    NOTE: {note}")
        if not it["runnable"]:
            print(f"    attn-tune launch: not run ({it['why_not_run']})")
        else:
            arch = it["arch"] or "<device's, e.g. sm_90>"
            print(f"    source: {it['source_rel']} -> {it['source']}")
            print(f"    workspace: {it['workspace_bytes']} bytes (allocated: max(that, 16)); launches, in order:")
            for l in it["launches"]:
                print(f"      {l['entry']}  grid {l['grid']}  block {l['block']}  shared_bytes {l['shared_bytes']}"
                      + ("  (raises the max dynamic shared memory attribute)" if l["shared_bytes"] > 48 * 1024 else ""))
            opts = compile_options(it, nvrtc if isinstance(nvrtc, Nvrtc) else None, it["arch"] or "sm_90")
            print(f"    nvrtc options (arch {arch}): {' '.join(opts)}")
            if compile_check and isinstance(nvrtc, Nvrtc):
                try:
                    src = Path(it["source"]).read_text()
                    cubin, log = nvrtc.compile(src, it["source"], opts)
                    res = parse_ptxas(log)
                    entries = {l["entry"] for l in it["launches"]}
                    missing = [x for x in entries if x not in res]
                    desc = []
                    for fn in sorted(entries):
                        r = res.get(fn, {})
                        lbr = e.get("resources", {}).get(fn, {})
                        same = ""
                        if "registers" in lbr and "registers" in r:
                            same = " (= leaderboard)" if lbr["registers"] == r["registers"] else \
                                f" (leaderboard: {lbr['registers']} registers: DIFFERENT BINARY?)"
                        desc.append(f"{fn}: {r.get('registers', '?')} registers, {r.get('spill_stores', '?')}+"
                                    f"{r.get('spill_loads', '?')} spill bytes, {r.get('stack', '?')} stack{same}")
                    print(f"    compile check: ok, {len(cubin)} bytes of CUBIN; " + "; ".join(desc))
                    if missing and res:
                        print(f"    compile check: ptxas reported no entry {missing} (extern \"C\" __global__?)")
                        ok = False
                except (RunError, OSError) as ex:
                    print(f"    compile check: FAILED: {ex}")
                    ok = False
        print("    peers (expected; the GPU run tries each and says):")
        for name, _ in PEERS:
            if name in args.peer_names:
                print(f"      {name}: {it['peers_expected'][name]}")
    for sk in skipped:
        print(f"\nskipped: {sk['leaderboard']} {sk['kernel']} / {sk['shape_name']}: {sk['why']}")
    return ok


# ---- GPU run ----------------------------------------------------------------

PROBE_SOURCE = r"""
#include "common/attn_params.h"
/* Checks how the launcher passes the entry arguments: writes the 18 words of p,
 * then the 7 pointers (low, high words) into o. */
extern "C" __global__ void attn_tune_peers_probe(const float* q, const void* k, const void* v, const void* mask,
                                                 const float* sinks, float* o, float* ws, const attn_params p) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    unsigned* out = (unsigned*)o;
    const unsigned* w = (const unsigned*)&p;
    for (int i = 0; i < (int)(sizeof(attn_params) / 4); ++i) out[i] = w[i];
    const void* ptrs[7] = {q, k, v, mask, sinks, o, ws};
    for (int i = 0; i < 7; ++i) {
        const unsigned long long a = (unsigned long long)ptrs[i];
        out[18 + 2 * i] = (unsigned)a;
        out[19 + 2 * i] = (unsigned)(a >> 32);
    }
}
"""


class DriverLauncher:
    """Module load and launch through the CUDA driver API (ctypes), as attn-tune launches."""
    name = "driver"

    def __init__(self, torch):
        self.torch = torch
        lib = None
        for cand in ("libcuda.so.1", "libcuda.so", ctypes.util.find_library("cuda")):
            if not cand:
                continue
            try:
                lib = ctypes.CDLL(cand)
                break
            except OSError:
                continue
        if lib is None:
            raise RunError("driver launcher: libcuda.so.1 not found")
        self.lib = lib
        vp, P = ctypes.c_void_p, ctypes.POINTER
        lib.cuGetErrorString.argtypes = [ctypes.c_int, P(ctypes.c_char_p)]
        lib.cuInit.argtypes = [ctypes.c_uint]
        lib.cuCtxGetCurrent.argtypes = [P(vp)]
        lib.cuCtxSetCurrent.argtypes = [vp]
        lib.cuDeviceGet.argtypes = [P(ctypes.c_int), ctypes.c_int]
        lib.cuDevicePrimaryCtxRetain.argtypes = [P(vp), ctypes.c_int]
        lib.cuModuleLoadData.argtypes = [P(vp), ctypes.c_char_p]
        lib.cuModuleGetFunction.argtypes = [P(vp), vp, ctypes.c_char_p]
        lib.cuFuncGetAttribute.argtypes = [P(ctypes.c_int), ctypes.c_int, vp]
        lib.cuFuncSetAttribute.argtypes = [vp, ctypes.c_int, ctypes.c_int]
        lib.cuLaunchKernel.argtypes = [vp, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                       ctypes.c_uint, ctypes.c_uint, vp, P(vp), P(vp)]
        self._check(lib.cuInit(0), "cuInit")
        torch.empty(1, device="cuda")  # the runtime's primary context, current on this thread
        ctx = vp()
        self._check(lib.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:
            dev = ctypes.c_int()
            self._check(lib.cuDeviceGet(ctypes.byref(dev), torch.cuda.current_device()), "cuDeviceGet")
            self._check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value), "cuDevicePrimaryCtxRetain")
            self._check(lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self.modules = []

    def _check(self, r, call):
        if r != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(r, ctypes.byref(s))
            raise RunError(f"cuda: {call} failed: {s.value.decode() if s.value else r}")

    def load(self, cubin, entries):
        mod = ctypes.c_void_p()
        self._check(self.lib.cuModuleLoadData(ctypes.byref(mod), cubin), "cuModuleLoadData")
        self.modules.append(mod)
        funcs = {}
        for e in entries:
            f = ctypes.c_void_p()
            self._check(self.lib.cuModuleGetFunction(ctypes.byref(f), mod, e.encode()), f"cuModuleGetFunction({e})")
            funcs[e] = f
        return funcs

    def attributes(self, f):
        out = {}
        for name, a in (("max_threads_per_block", 0), ("shared_size_bytes", 1), ("local_size_bytes", 3), ("num_regs", 4)):
            v = ctypes.c_int()
            if self.lib.cuFuncGetAttribute(ctypes.byref(v), a, f) == 0:
                out[name] = v.value
        return out

    def set_dynamic_shared(self, f, n):
        self._check(self.lib.cuFuncSetAttribute(f, 8, int(n)), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")

    def launch(self, f, grid, block, shared, ptrs, params, stream):
        vals = [ctypes.c_uint64(p) for p in ptrs]
        pbuf = ctypes.create_string_buffer(params, len(params))
        arr = (ctypes.c_void_p * (len(vals) + 1))(*[ctypes.addressof(v) for v in vals], ctypes.addressof(pbuf))
        self._check(self.lib.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                                            ctypes.c_void_p(stream), arr, None), "cuLaunchKernel")


class CupyLauncher:
    """cupy.RawModule(path=cubin) + RawKernel calls; the struct goes as a size-one numpy array of its 72 bytes."""
    name = "cupy"

    def __init__(self, cupy, np, tmpdir, params_mode):
        self.cupy, self.np, self.tmpdir, self.params_mode = cupy, np, tmpdir, params_mode
        self.count = 0
        self.dtype = np.dtype({"names": PARAMS_FIELDS,
                               "formats": [np.int32] * 12 + [np.float32] * 4 + [np.int32] * 2})
        assert self.dtype.itemsize == PARAMS_SIZE

    def load(self, cubin, entries):
        self.count += 1
        path = os.path.join(self.tmpdir, f"module{self.count}.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        mod = self.cupy.RawModule(path=path)
        return {e: mod.get_function(e) for e in entries}

    def attributes(self, f):
        try:
            a = dict(f.attributes)
        except Exception:  # noqa: BLE001 - attributes are a diagnostic only
            return {}
        return {k: a[k] for k in ("max_threads_per_block", "shared_size_bytes", "local_size_bytes", "num_regs") if k in a}

    def set_dynamic_shared(self, f, n):
        f.max_dynamic_shared_size_bytes = int(n)

    def _params_arg(self, params):
        # A numpy.ndarray of size one: cupy passes its bytes by value (CNumpyArray), whatever the dtype.
        np = self.np
        if self.params_mode == "struct":
            return np.frombuffer(params, dtype=self.dtype).copy()
        return np.frombuffer(params, dtype=np.dtype((np.void, len(params)))).copy()

    def launch(self, f, grid, block, shared, ptrs, params, stream):
        np, cupy = self.np, self.cupy
        args = tuple(np.uint64(p) for p in ptrs) + (self._params_arg(params),)
        if stream:
            with cupy.cuda.ExternalStream(stream):
                f(tuple(grid), tuple(block), args, shared_mem=int(shared))
        else:
            f(tuple(grid), tuple(block), args, shared_mem=int(shared))


class Gpu:
    def __init__(self, args, repo):
        import numpy as np
        import torch
        if not torch.cuda.is_available():
            raise RunError("torch sees no CUDA device")
        self.np, self.torch, self.args, self.repo = np, torch, args, repo
        torch.cuda.init()
        self.dev = torch.cuda.current_device()
        p = torch.cuda.get_device_properties(self.dev)
        self.props = p
        self.arch = f"sm_{p.major}{p.minor}"
        self.l2 = int(getattr(p, "L2_cache_size", 0) or 0)
        flush_bytes = max(2 * (self.l2 or (64 << 20)), 1 << 20)
        self.flush = None if args.no_flush else torch.empty(flush_bytes, dtype=torch.uint8, device="cuda")
        self.flush_bytes = 0 if args.no_flush else flush_bytes
        self.flush_value = 0
        clock_khz = int(getattr(p, "clock_rate", 0) or 0) or 1_980_000
        self.sleep_cycles = int(args.sleep_us * clock_khz / 1000) if args.sleep_us > 0 else 0
        if self.sleep_cycles and not hasattr(torch.cuda, "_sleep"):
            warn("torch.cuda._sleep is missing: no GPU sleep before the start events")
            self.sleep_cycles = 0
        nv = Nvrtc.load()
        self.nvrtc = nv if isinstance(nv, Nvrtc) else None
        if self.nvrtc is None:
            raise RunError("no NVRTC library found (" + ("; ".join(nv) if nv else "searched $ATTN_TUNE_NVRTC, "
                           "$CUDA_PATH/lib64, /usr/local/cuda/lib64, ldconfig, site-packages/nvidia/*/lib") +
                           "); set ATTN_TUNE_NVRTC=/path/to/libnvrtc.so")
        self.tmp = tempfile.mkdtemp(prefix="attention_peers_")
        self.modules = {}
        self.launcher = self._pick_launcher()

    # -- launcher choice, verified by the probe kernel
    def _pick_launcher(self):
        torch, np, args = self.torch, self.np, self.args
        cands = []
        if args.launcher in ("auto", "cupy"):
            try:
                import cupy
                cands += [("cupy (struct params)", lambda: CupyLauncher(cupy, np, self.tmp, "struct")),
                          ("cupy (raw-bytes params)", lambda: CupyLauncher(cupy, np, self.tmp, "void"))]
                self.cupy_version = cupy.__version__
            except ImportError as e:
                if args.launcher == "cupy":
                    raise RunError(f"--launcher cupy: cannot import cupy ({e})")
                warn(f"cupy not importable ({e}); using the driver API")
        if args.launcher in ("auto", "driver"):
            cands.append(("driver API (ctypes)", lambda: DriverLauncher(torch)))
        opts = self.nvrtc.base_options(self.arch) + ["-I" + str(self.repo / "kernels")] + \
            ["-I" + d for d in toolkit_include_dirs()]
        cubin, _ = self.nvrtc.compile(PROBE_SOURCE, str(self.repo / "kernels" / "attn_tune_peers_probe.cu"), opts)
        s = normalize_shape({"dtype": "f16", "B": 3, "Hq": 12, "Hkv": 4, "Nq": 5, "Nkv": 77, "D": 64, "causal": 1,
                             "window": 9, "mask": 1, "sinks": 1, "max_bias": 8.0}, "probe")
        params = pack_params(s)
        bufs = [torch.empty(64, dtype=torch.int32, device="cuda") for _ in range(7)]
        errors = []
        for name, make in cands:
            try:
                L = make()
                f = L.load(cubin, ["attn_tune_peers_probe"])["attn_tune_peers_probe"]
                bufs[5].fill_(-1)
                L.launch(f, [1, 1, 1], [32, 1, 1], 0, [b.data_ptr() for b in bufs], params,
                         torch.cuda.current_stream().cuda_stream)
                torch.cuda.synchronize()
                got = bufs[5].cpu().numpy().astype(np.uint32)
                want_p = np.frombuffer(params, dtype=np.uint32)
                want_ptr = []
                for b in bufs:
                    a = b.data_ptr()
                    want_ptr += [a & 0xFFFFFFFF, a >> 32]
                if not (np.array_equal(got[:18], want_p) and np.array_equal(got[18:32], np.array(want_ptr, np.uint32))):
                    raise RunError(f"probe read back {got[:32].tolist()}, expected {want_p.tolist() + want_ptr}")
                self.launcher_desc = name
                if errors:
                    warn("argument probe: " + "; ".join(errors) + f"; using {name}")
                return L
            except Exception as e:  # noqa: BLE001 - try the next way of launching
                errors.append(f"{name}: {type(e).__name__}: {e}")
                try:
                    torch.cuda.synchronize()
                except Exception as e2:  # noqa: BLE001
                    raise RunError(f"the argument probe broke the CUDA context ({e2}); tried: " + "; ".join(errors))
        raise RunError("no launcher passed the argument probe:\n  " + "\n  ".join(errors))

    def precompile(self, items):
        """NVRTC for every distinct (source, options) up front, in parallel (NVRTC is thread-safe)."""
        from concurrent.futures import ThreadPoolExecutor
        todo = {}
        for it in items:
            if it["runnable"]:
                opts = compile_options(it, self.nvrtc, it["arch"] or self.arch)
                todo.setdefault((it["source"], tuple(opts)), None)

        def one(key):
            try:
                return key, self.nvrtc.compile(Path(key[0]).read_text(), key[0], list(key[1])), None
            except (RunError, OSError) as e:
                return key, None, e
        self.compiled = {}
        with ThreadPoolExecutor(max_workers=max(1, min(8, (os.cpu_count() or 2)))) as ex:
            for key, res, err in ex.map(one, list(todo)):
                self.compiled[key] = res if err is None else err
        bad = sum(1 for v in self.compiled.values() if isinstance(v, Exception))
        print(f"compiled {len(todo) - bad} of {len(todo)} distinct kernel builds with NVRTC", flush=True)

    def module(self, item, arch):
        opts = compile_options(item, self.nvrtc, arch)
        key = (item["source"], tuple(opts))
        if key not in self.modules:
            res = getattr(self, "compiled", {}).get(key)
            if res is None:
                res = self.nvrtc.compile(Path(item["source"]).read_text(), item["source"], opts)
            if isinstance(res, Exception):
                raise res
            cubin, log = res
            entries = list(dict.fromkeys(l["entry"] for l in item["launches"]))
            funcs = self.launcher.load(cubin, entries)
            self.modules[key] = (funcs, parse_ptxas(log), opts)
        return self.modules[key]

    # -- inputs, as torch tensors
    def inputs(self, s):
        torch = self.torch
        g = torch.Generator(device="cuda")
        g.manual_seed(self.args.seed)
        qdt = {"f32_f16": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[s["dtype"]]
        kvdt = torch.bfloat16 if s["dtype"] == "bf16" else torch.float16

        def uni(shape, dt, lo=-1.0, hi=1.0):
            x = torch.rand(shape, generator=g, device="cuda", dtype=torch.float32)
            return (x * (hi - lo) + lo).to(dt)
        t = {"q": uni((s["B"], s["Hq"], s["Nq"], s["D"]), qdt),
             "k": uni((s["B"], s["Hkv"], s["Nkv"], s["D"]), kvdt),
             "v": uni((s["B"], s["Hkv"], s["Nkv"], s["D"]), kvdt)}
        if s["mask"]:
            # attention.cpp: 5% -inf, else uniform [-1, 0); key clamp(pos, 0, Nkv-1) of each row never masked
            u = torch.rand((s["B"], s["Nq"], s["Nkv"]), generator=g, device="cuda")
            m = torch.rand((s["B"], s["Nq"], s["Nkv"]), generator=g, device="cuda") - 1.0
            m = torch.where(u < 0.05, torch.full_like(m, -math.inf), m)
            keep = (torch.arange(s["Nq"], device="cuda") + s["kv_offset"]).clamp(0, s["Nkv"] - 1)
            m[:, torch.arange(s["Nq"], device="cuda"), keep] = torch.rand((s["B"], s["Nq"]), generator=g,
                                                                          device="cuda") - 1.0
            t["mask"] = m.to(torch.float16)
        else:
            t["mask"] = torch.zeros(8, dtype=torch.float16, device="cuda")
        t["sinks"] = (uni((s["Hq"],), torch.float32, -2.0, 2.0) if s["sinks"]
                      else torch.zeros(4, dtype=torch.float32, device="cuda"))
        return t

    # -- float64 reference of sampled rows
    def reference(self, s, t):
        torch = self.torch
        total = s["B"] * s["Hq"] * s["Nq"]
        if total <= self.args.ref_rows:
            rows = torch.arange(total)
        else:
            g = torch.Generator()
            g.manual_seed(self.args.seed + 1)
            pick = set(torch.randperm(total, generator=g)[: self.args.ref_rows - 4].tolist())
            pick |= {0, s["Nq"] - 1, total - 1, total - s["Nq"]}
            rows = torch.tensor(sorted(pick))
        b_of = rows // (s["Hq"] * s["Nq"])
        h_of = rows // s["Nq"] % s["Hq"]
        i_of = rows % s["Nq"]
        ref = torch.zeros((len(rows), s["D"]), dtype=torch.float64, device="cuda")
        j = torch.arange(s["Nkv"], device="cuda", dtype=torch.float64)
        bh = (b_of * s["Hq"] + h_of).tolist()
        groups = {}
        for idx, key in enumerate(bh):
            groups.setdefault(key, []).append(idx)
        for key, idxs in groups.items():
            b, h = divmod(key, s["Hq"])
            sel = torch.tensor(idxs, device="cuda")
            ii = i_of[idxs].to("cuda")
            q = t["q"][b, h, ii].double() * s["scale_value"]
            kh = h // s["q_per_kv"]
            K, V = t["k"][b, kh].double(), t["v"][b, kh].double()
            sc = q @ K.T
            if s["mask"]:
                sc = sc + t["mask"][b, ii].double()
            pos = (ii + s["kv_offset"]).double()[:, None]
            slope = alibi_slope(s, h)
            if slope:
                sc = sc - slope * (pos - j[None, :]).abs()
            valid = torch.ones_like(sc, dtype=torch.bool)
            if s["causal"]:
                valid &= j[None, :] <= pos
            if s["window"] > 0:
                valid &= (pos - j[None, :]).abs() <= s["window"]
            sc = sc.masked_fill(~valid, -math.inf)
            m = sc.max(dim=1).values
            if s["sinks"]:
                m = torch.maximum(m, torch.full_like(m, float(t["sinks"][h])))
            m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
            e = torch.exp(sc - m[:, None])
            l = e.sum(dim=1)
            if s["sinks"]:
                l = l + torch.exp(float(t["sinks"][h]) - m)
            out = (e @ V) / torch.where(l > 0, l, torch.ones_like(l))[:, None]
            ref[sel] = torch.where((l > 0)[:, None], out, torch.zeros_like(out))
        return rows.to("cuda"), ref

    def rel_to_ref(self, out, rows, ref, s):
        got = out.reshape(-1, s["D"])[rows].double()
        if not bool(torch_isfinite_all(self.torch, got)):
            return math.inf, math.inf
        d = got - ref
        return float(d.norm() / ref.norm()), float(d.abs().max())

    # -- timing, the same for every implementation
    def time(self, fn):
        torch, a = self.torch, self.args
        for _ in range(a.warmup):
            fn()
        torch.cuda.synchronize()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(a.samples)]
        for st, en in ev:
            if self.flush is not None:
                self.flush_value = (self.flush_value + 1) & 0xFF
                self.flush.fill_(self.flush_value)
            if self.sleep_cycles:
                torch.cuda._sleep(self.sleep_cycles)
            st.record()
            fn()
            en.record()
        torch.cuda.synchronize()
        return stats([st.elapsed_time(en) for st, en in ev])


def torch_isfinite_all(torch, x):
    return torch.isfinite(x).all().item()


def stats(ms):
    s = sorted(ms)
    n = len(s)

    def q(p):
        pos = p * (n - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        return s[lo] + (pos - lo) * (s[hi] - s[lo])
    mean = sum(s) / n
    var = sum((x - mean) ** 2 for x in s) / (n - 1) if n > 1 else 0.0
    return {"median_ms": q(0.5), "min_ms": s[0], "max_ms": s[-1], "q1_ms": q(0.25), "q3_ms": q(0.75), "mean_ms": mean,
            "rel_noise": (math.sqrt(var) / mean) if mean > 0 else 0.0, "samples": n}


def dense_bias(gpu, s, t, dtype):
    """[B, Hq, Nq, Nkv] additive bias: mask + ALiBi, -inf outside causal / window."""
    torch = gpu.torch
    nbytes = s["B"] * s["Hq"] * s["Nq"] * s["Nkv"] * 4
    if nbytes > gpu.args.max_bias_gib * (1 << 30):
        return None, f"n/a: the dense bias would take {nbytes / (1 << 30):.1f} GiB (--max-bias-gib)"
    pos = torch.arange(s["Nq"], device="cuda", dtype=torch.float32)[:, None] + s["kv_offset"]
    j = torch.arange(s["Nkv"], device="cuda", dtype=torch.float32)[None, :]
    bias = torch.zeros((s["B"], s["Hq"], s["Nq"], s["Nkv"]), device="cuda", dtype=torch.float32)
    if s["mask"]:
        bias += t["mask"].float()[:, None]
    if s["max_bias"] > 0:
        slopes = torch.tensor([alibi_slope(s, h) for h in range(s["Hq"])], device="cuda", dtype=torch.float32)
        bias -= slopes[None, :, None, None] * (pos - j).abs()[None, None]
    valid = torch.ones((s["Nq"], s["Nkv"]), dtype=torch.bool, device="cuda")
    if s["causal"]:
        valid &= j <= pos
    if s["window"] > 0:
        valid &= (pos - j).abs() <= s["window"]
    bias = bias.masked_fill(~valid[None, None], -math.inf)
    return bias.to(dtype), None


def peer_call(gpu, name, backend, s, t):
    """(fn, notes, tensors kept) or (None, why)."""
    torch = gpu.torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if not hasattr(SDPBackend, backend):
        return None, f"n/a: this torch has no SDPBackend.{backend}"
    be = getattr(SDPBackend, backend)
    notes = []
    if s["sinks"]:
        return None, "n/a: attention sinks cannot be expressed in SDPA"
    if s["dtype"] == "f32_f16":
        if name == "mem-efficient":
            q, k, v = t["q"], t["k"].float(), t["v"].float()
            notes.append("fp32 Q/K/V (K/V upcast)")
        else:
            q, k, v = t["q"].half(), t["k"], t["v"]
            notes.append("fp16 Q and O (Q rounded)")
    else:
        q, k, v = t["q"], t["k"], t["v"]
    attn_mask, is_causal = None, False
    if s["mask"] or s["max_bias"] > 0 or s["window"] > 0:
        if name != "mem-efficient":
            return None, "n/a: mask/ALiBi/window need a dense bias, which only mem-efficient takes"
        attn_mask, why = dense_bias(gpu, s, t, q.dtype)
        if attn_mask is None:
            return None, why
        notes.append("dense additive bias")
    elif s["causal"]:
        if s["Nq"] == s["Nkv"]:
            is_causal = True
        elif s["Nq"] > 1:
            try:
                from torch.nn.attention.bias import causal_lower_right
            except ImportError:
                return None, "n/a: Nq != Nkv causal needs torch.nn.attention.bias.causal_lower_right"
            attn_mask = causal_lower_right(s["Nq"], s["Nkv"])
            notes.append("causal_lower_right")
    kw = {"attn_mask": attn_mask, "is_causal": is_causal, "scale": s["scale_value"]}

    def trial(kk, vv, extra):
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with sdpa_kernel([be]):
                    out = F.scaled_dot_product_attention(q, kk, vv, **kw, **extra)
                torch.cuda.synchronize()
                return out, None
            except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
                msgs = [str(w.message).split("\n")[0] for w in caught]
                return None, (f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}" +
                              (f" [{'; '.join(msgs[:3])}]" if msgs else ""))
    if s["Hkv"] != s["Hq"]:
        out, err = trial(k, v, {"enable_gqa": True})
        if out is not None:
            notes.append("enable_gqa")
            kk, vv, extra = k, v, {"enable_gqa": True}
        else:
            kk = k.repeat_interleave(s["q_per_kv"], dim=1)
            vv = v.repeat_interleave(s["q_per_kv"], dim=1)
            extra = {}
            out, err2 = trial(kk, vv, extra)
            if out is None:
                return None, f"n/a: {err2} (enable_gqa: {err})"
            notes.append("GQA: K/V heads expanded outside the timing")
    else:
        kk, vv, extra = k, v, {}
        out, err = trial(kk, vv, extra)
        if out is None:
            return None, f"n/a: {err}"

    def fn():
        with sdpa_kernel([be]):
            return F.scaled_dot_product_attention(q, kk, vv, **kw, **extra)
    return (fn, out, notes), None


def run_item(gpu, item):
    torch, args = gpu.torch, gpu.args
    s = item["shape"]
    row = {k: item[k] for k in ("leaderboard", "spec_name", "backend", "kernel", "shape_name", "flops_fa", "kv_bytes")}
    row.update(shape=shape_text(s), shape_fields={k: s[k] for k in s if k not in ("scale_value",)},
               decode=is_decode(s), notes=list(item["notes"]), entry=item["entry"], peers={}, errors=[])
    metric = (lambda ms: item["kv_bytes"] / (ms * 1e-3) / 1e12) if is_decode(s) else \
        (lambda ms: item["flops_fa"] / (ms * 1e-3) / 1e12)
    row["metric_unit"] = "TB/s (K+V)" if is_decode(s) else "TFLOP/s"
    t = gpu.inputs(s)
    rows, ref = gpu.reference(s, t)
    outputs = {}

    # attn-tune
    if item["runnable"]:
        arch = item["arch"] or gpu.arch
        funcs, ptxas, opts = gpu.module(item, arch)
        row["nvrtc_options"] = opts
        row["arch"] = arch
        for l in item["launches"]:
            f = funcs[l["entry"]]
            attrs = gpu.launcher.attributes(f)
            lbr = item["entry"]["resources"].get(l["entry"], {})
            row.setdefault("resources", {})[l["entry"]] = {"ptxas": ptxas.get(l["entry"], {}), "driver": attrs,
                                                           "leaderboard": lbr}
            regs = ptxas.get(l["entry"], {}).get("registers", attrs.get("num_regs"))
            if lbr.get("registers") is not None and regs is not None and lbr["registers"] != regs:
                row["notes"].append(f"{l['entry']}: {regs} registers here, {lbr['registers']} in the leaderboard: "
                                    "not the binary the sweep timed")
            threads = l["block"][0] * l["block"][1] * l["block"][2]
            if attrs.get("max_threads_per_block") and threads > attrs["max_threads_per_block"]:
                raise RunError(f"{l['entry']}: {threads} threads exceed the kernel's limit {attrs['max_threads_per_block']}")
            if l["shared_bytes"] > 48 * 1024:
                gpu.launcher.set_dynamic_shared(f, l["shared_bytes"])
        o_dtype = t["q"].dtype
        o = torch.empty_like(t["q"], dtype=o_dtype)
        ws = torch.zeros(max(item["workspace_bytes"], 16) // 4 + 1, dtype=torch.float32, device="cuda")
        params = bytes.fromhex(item["params_hex"])
        ptrs = [t["q"].data_ptr(), t["k"].data_ptr(), t["v"].data_ptr(), t["mask"].data_ptr(), t["sinks"].data_ptr(),
                o.data_ptr(), ws.data_ptr()]
        stream = torch.cuda.current_stream().cuda_stream
        launches = [(funcs[l["entry"]], l["grid"], l["block"], l["shared_bytes"]) for l in item["launches"]]

        def attn_tune():
            for f, g, b, sh in launches:
                gpu.launcher.launch(f, g, b, sh, ptrs, params, stream)
        o.fill_(math.nan)  # poisoned: an unwritten element stays NaN
        attn_tune()
        torch.cuda.synchronize()
        nonfinite = int((~torch.isfinite(o)).sum().item())
        rel, mx = gpu.rel_to_ref(o, rows, ref, s)
        row["attn_tune"] = {"vs_reference": {"rel_l2": rel, "max_abs": mx}, "nonfinite": nonfinite}
        if nonfinite:
            row["errors"].append(f"attn-tune: {nonfinite} output elements NaN/Inf (unwritten?)")
        outputs["attn-tune"] = o
        row["attn_tune"]["timing"] = gpu.time(attn_tune)
    else:
        row["attn_tune"] = {"not_run": item["why_not_run"]}

    # the peers
    for name, backend in PEERS:
        if name not in args.peer_names:
            continue
        got, why = peer_call(gpu, name, backend, s, t)
        if got is None:
            row["peers"][name] = {"not_run": why}
            continue
        fn, out, notes = got
        rel, mx = gpu.rel_to_ref(out, rows, ref, s)
        p = {"notes": notes, "vs_reference": {"rel_l2": rel, "max_abs": mx}}
        if "attn-tune" in outputs:
            a, b = outputs["attn-tune"].float(), out.float()
            p["vs_attn_tune_rel_l2"] = float((a - b).norm() / b.norm())
        p["timing"] = gpu.time(fn)
        row["peers"][name] = p
        del out

    # attn-tune a second time: the spread of one implementation timed twice
    if item["runnable"]:
        t2 = gpu.time(attn_tune)
        t1 = row["attn_tune"]["timing"]
        row["attn_tune"]["timing_again"] = t2
        row["attn_tune"]["spread"] = abs(t2["median_ms"] - t1["median_ms"]) / min(t1["median_ms"], t2["median_ms"])

    # numbers for the table
    lbm = item["entry"]["timing"].get("median_ms")
    row["leaderboard_median_ms"] = lbm
    at_ms = row["attn_tune"].get("timing", {}).get("median_ms")
    row["attn_tune_ms"] = at_ms
    row["attn_tune_ms_source"] = "script" if at_ms else "leaderboard"
    if at_ms is None:
        at_ms = lbm
    row["attn_tune_metric"] = metric(at_ms) if at_ms else None
    if row["attn_tune_ms"] and lbm:
        row["script_over_leaderboard"] = row["attn_tune_ms"] / lbm
    for name, p in row["peers"].items():
        if "timing" in p:
            p["metric"] = metric(p["timing"]["median_ms"])
            if at_ms:
                p["attn_tune_speedup"] = p["timing"]["median_ms"] / at_ms
    errs = [row["attn_tune"].get("vs_reference", {}).get("rel_l2")]
    for p in row["peers"].values():
        errs += [p.get("vs_reference", {}).get("rel_l2"), p.get("vs_attn_tune_rel_l2")]
    errs = [e for e in errs if e is not None]
    row["max_rel_err"] = max(errs) if errs else None
    bad = [e for e in errs if not e <= args.tol]
    if bad:
        row["errors"].append(f"relative L2 {max(bad):.3g} over the tolerance {args.tol:g}")
    return row


def run_gpu(items, skipped, args, repo, command, on_row=None):
    gpu = Gpu(args, repo)
    torch = gpu.torch
    p = gpu.props
    meta = {"command": command, "cwd": os.getcwd(), "date_utc": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ"), "device": p.name, "sm_count": p.multi_processor_count,
            "l2_bytes": gpu.l2, "arch": gpu.arch, "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "cupy": getattr(gpu, "cupy_version", None),
            "nvrtc": "%d.%d" % gpu.nvrtc.version, "nvrtc_path": gpu.nvrtc.path, "launcher": gpu.launcher_desc,
            "seed": args.seed, "samples": args.samples, "warmup": args.warmup, "flush_bytes": gpu.flush_bytes,
            "sleep_us": args.sleep_us if gpu.sleep_cycles else 0, "tolerance_rel_l2": args.tol,
            "ref_rows": args.ref_rows, "python": sys.version.split()[0]}
    print(f"device {p.name} ({gpu.arch}, {p.multi_processor_count} SMs, L2 {gpu.l2 >> 20} MiB); torch {torch.__version__}; "
          f"NVRTC {meta['nvrtc']}; launcher {gpu.launcher_desc}", flush=True)
    gpu.precompile(items)
    rows = []
    for n, item in enumerate(items, 1):
        label = f"[{n}/{len(items)}] {item['kernel']} / {item['shape_name']}"
        if item["device"] and item["device"] != p.name:
            item["notes"].append(f"leaderboard swept on {item['device']}, this run on {p.name}")
        try:
            row = run_item(gpu, item)
        except Exception as e:  # noqa: BLE001 - one group failing must not lose the others
            import traceback
            row = {k: item.get(k) for k in ("leaderboard", "spec_name", "backend", "kernel", "shape_name")}
            row.update(shape=shape_text(item["shape"]), decode=is_decode(item["shape"]), entry=item["entry"],
                       notes=item["notes"], peers={}, attn_tune={}, errors=[f"{type(e).__name__}: {e}"],
                       traceback=traceback.format_exc())
            try:
                torch.cuda.synchronize()
            except Exception as e2:  # noqa: BLE001
                row["errors"].append(f"the CUDA context is gone ({e2}); stopping")
                rows.append(row)
                print(f"{label}: FAILED: {row['errors']}", flush=True)
                break
        rows.append(row)
        print(f"{label}: " + one_line(row), flush=True)
        if on_row:
            on_row(meta, rows)  # the report so far: a run cut short still leaves its rows
        torch.cuda.empty_cache()
    return meta, rows


def fmt_ms(t):
    return f"{t['median_ms']:.4f} ±{100 * t['rel_noise']:.1f}%"


def one_line(row):
    if row.get("errors"):
        return "FAILED: " + "; ".join(row["errors"])
    u = row.get("metric_unit", "")
    parts = []
    at = row.get("attn_tune", {})
    if "timing" in at:
        parts.append(f"attn-tune {fmt_ms(at['timing'])} ms ({row['attn_tune_metric']:.1f} {u}; leaderboard "
                     f"{row['leaderboard_median_ms']:.4f} ms)")
    for name, p in row["peers"].items():
        parts.append(f"{name} " + (f"{p['timing']['median_ms']:.4f} ms ({p['metric']:.1f})" if "timing" in p else "n/a"))
    parts.append(f"max rel err {row['max_rel_err']:.2g}" if row.get("max_rel_err") is not None else "")
    return ", ".join(x for x in parts if x)


# ---- report -----------------------------------------------------------------

def write_report(out_dir, meta, rows, skipped, cross):
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = {"meta": meta, "rows": rows, "skipped": [{k: v for k, v in s.items() if k in
                                                     ("leaderboard", "kernel", "shape_name", "why")} for s in skipped],
           "cross_leaderboard": cross}
    (out_dir / "attention_peers.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    md = render_markdown(meta, rows, skipped, cross)
    (out_dir / "attention_peers.md").write_text(md)
    return md


def render_markdown(meta, rows, skipped, cross):
    L = ["# attn-tune vs PyTorch SDPA", "",
         f"- device: {meta.get('device')} ({meta.get('arch')}, {meta.get('sm_count')} SMs, L2 "
         f"{(meta.get('l2_bytes') or 0) >> 20} MiB)",
         f"- torch {meta.get('torch')} (CUDA {meta.get('torch_cuda')}, cuDNN {meta.get('cudnn')}), cupy "
         f"{meta.get('cupy')}, NVRTC {meta.get('nvrtc')}, launcher {meta.get('launcher')}",
         f"- date (UTC): {meta.get('date_utc')}" + (f" — PARTIAL: {meta['partial']} so far" if meta.get("partial") else ""),
         f"- command: `{meta.get('command')}` (in `{meta.get('cwd')}`)",
         f"- method: the same for every column, on the same tensors: CUDA events around each call, "
         f"{meta.get('warmup')} warm-up calls, median of {meta.get('samples')} samples (± relative standard "
         f"deviation), L2 evicted before each sample by writing {(meta.get('flush_bytes') or 0) >> 20} MiB"
         + (f", a {meta.get('sleep_us')} us GPU sleep before each start event (host launch latency hidden)"
            if meta.get("sleep_us") else "") + f"; inputs uniform [-1, 1), torch seed {meta.get('seed')}",
         "- attn-tune ms: this script's measurement of the leaderboard's best configuration (the leaderboard's own "
         "median in parentheses, the sanity check of the two harnesses); × = its ratio; spread = attn-tune timed "
         "before and after the peers",
         "- ratios: attn-tune/FA2 and attn-tune/cuDNN = peer ms / attn-tune ms (> 1: attn-tune faster)",
         f"- max rel err: largest relative L2 of attn-tune and each peer against a float64 reference of sampled rows, "
         f"and of attn-tune against each peer; tolerance {meta.get('tolerance_rel_l2')}", ""]
    notes = []

    def note(text):
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    for decode in (False, True):
        sel = [r for r in rows if bool(r.get("decode")) == decode]
        if not sel:
            continue
        unit = "TB/s (K+V)" if decode else "TFLOP/s"
        L += [f"## {'Decode (Nq = 1): K+V read bandwidth' if decode else 'Prefill: TFLOP/s (FlashAttention convention)'}",
              "", f"| shape | kernel (spec) | attn-tune config | attn-tune ms (leaderboard) | {unit} | FA2 | cuDNN | "
              "mem-efficient | attn-tune/FA2 | attn-tune/cuDNN | max rel err |",
              "| --- | --- | --- | --- | ---: | --- | --- | --- | ---: | ---: | ---: |"]
        for r in sel:
            e = r.get("entry") or {}
            marks = "".join(note(n) for n in r.get("notes", []))
            if r.get("errors"):
                marks += note(f"{r['kernel']} / {r['shape_name']}: FAILED: " + "; ".join(r["errors"]))
            at = r.get("attn_tune", {})
            lbm = r.get("leaderboard_median_ms") or (e.get("timing") or {}).get("median_ms")
            if "timing" in at:
                ratio = f", ×{r['script_over_leaderboard']:.2f}" if r.get("script_over_leaderboard") else ""
                spread = f", spread {100 * at['spread']:.1f}%" if "spread" in at else ""
                at_cell = f"{fmt_ms(at['timing'])} ({lbm:.4f}{ratio}{spread})"
            elif lbm:
                at_cell = f"– ({lbm:.4f}) " + note(at.get("not_run", "not run"))
            else:
                at_cell = "–"
            metric = f"{r['attn_tune_metric']:.2f}" if r.get("attn_tune_metric") else "–"
            cells = []
            for name, _ in PEERS:
                p = r.get("peers", {}).get(name)
                if p is None:
                    cells.append("–")
                elif "timing" in p:
                    extra = "".join(note(f"{name}: {n}") for n in p.get("notes", [])
                                    if n not in ("enable_gqa",))
                    cells.append(f"{p['metric']:.2f} ({p['timing']['median_ms']:.4f} ms){extra}")
                else:
                    cells.append("n/a" + note(f"{name}: {p.get('not_run', '')}"))

            def ratio_cell(name):
                p = r.get("peers", {}).get(name, {})
                if "attn_tune_speedup" not in p:
                    return "–"
                return f"{p['attn_tune_speedup']:.2f}" + ("" if r.get("attn_tune_ms_source") == "script" else
                                                          note("ratio against the leaderboard's median (attn-tune not "
                                                               "launched by this script)"))
            err = r.get("max_rel_err")
            err_cell = "–" if err is None else (f"{err:.2g}" + (" **FAIL**" if r.get("errors") else ""))
            L.append(f"| {r['shape_name']}{marks} | {r['kernel']} ({r.get('spec_name', '')}) | "
                     f"{entry_label(e)} | {at_cell} | {metric} | {' | '.join(cells)} | {ratio_cell('FA2')} | "
                     f"{ratio_cell('cuDNN')} | {err_cell} |")
        L.append("")
    if cross:
        L += ["## Same shape in several leaderboards (their own medians)", "",
              "| shape | leaderboard (backend) | best config | median ms | slowest / this |", "| --- | --- | --- | ---: | ---: |"]
        for c in cross:
            worst = max(x["median_ms"] for x in c["entries"])
            for x in c["entries"]:
                L.append(f"| {c['shape']} | {x['leaderboard']} ({x['backend']}) | {x['config']} | {x['median_ms']:.4f} | "
                         f"{worst / x['median_ms']:.2f} |")
        L.append("")
    if skipped:
        L += ["## Not compared", ""] + [f"- {s['kernel']} / {s['shape_name']} ({s['leaderboard']}): {s['why']}"
                                        for s in skipped] + [""]
    if notes:
        L += ["## Notes", ""] + [f"{i}. {n}" for i, n in enumerate(notes, 1)] + [""]
    return "\n".join(L)


def cross_leaderboard(items):
    """Groups of items whose shapes are identical across leaderboards (e.g. seed 004 through CUDA and OpenCL)."""
    by = {}
    for it in items:
        key = json.dumps({k: it["shape"][k] for k in sorted(it["shape"])}, sort_keys=True)
        by.setdefault(key, []).append(it)
    out = []
    for its in by.values():
        if len({it["leaderboard"] for it in its}) < 2:
            continue
        out.append({"shape": its[0]["shape_name"] + " — " + shape_text(its[0]["shape"]),
                    "entries": [{"leaderboard": it["leaderboard"], "backend": it["backend"], "kernel": it["kernel"],
                                 "config": entry_label(it["entry"]), "median_ms": it["entry"]["timing"]["median_ms"]}
                                for it in its if it["entry"].get("timing", {}).get("median_ms")]})
    return [c for c in out if len(c["entries"]) >= 2]


# ---- self-test (no GPU) -----------------------------------------------------

def selftest():
    fails = []

    def check(cond, what):
        if not cond:
            fails.append(what)
    # attn_params: 72 bytes, field offsets as the header
    check(PARAMS_SIZE == 72, f"attn_params is {PARAMS_SIZE} bytes, want 72")
    hdr = (REPO_DEFAULT / "kernels" / "common" / "attn_params.h").read_text()
    names = re.findall(r"^\s*(?:int|float)\s+(\w+);", hdr, re.M)
    types = re.findall(r"^\s*(int|float)\s+\w+;", hdr, re.M)
    check(names == PARAMS_FIELDS, f"attn_params.h fields {names} != {PARAMS_FIELDS}")
    want_fmt = "<" + "".join("i" if t == "int" else "f" for t in types)
    check(struct.calcsize(want_fmt) == 72 and struct.pack(want_fmt, *range(18)) == struct.pack(PARAMS_FORMAT, *range(18)),
          f"struct format {PARAMS_FORMAT} does not follow the header's types ({want_fmt})")
    s = normalize_shape({"dtype": "f16", "B": 2, "Hq": 12, "Hkv": 4, "Nq": 5, "Nkv": 9, "D": 64, "causal": 1,
                         "max_bias": 8.0, "scale": None}, "selftest")
    v = params_values(s)
    check(v[:12] == [2, 12, 4, 5, 9, 64, 3, 4, 1, 0, 0, 0], f"int fields {v[:12]}")
    check(v[16] == 8 and abs(v[12] - 0.125) < 1e-12 and abs(v[14] - 2 ** -1) < 1e-12 and abs(v[15] - 2 ** -0.5) < 1e-12,
          f"scale/m0/m1/n_head_log2 {v[12:]}")
    raw = pack_params(s)
    check(len(raw) == 72 and struct.unpack_from("<i", raw, 64)[0] == 8 and struct.unpack_from("<f", raw, 48)[0] == 0.125,
          "packed bytes: n_head_log2 at offset 64, scale at 48")
    check(abs(alibi_slope(s, 0) - 0.5) < 1e-12 and abs(alibi_slope(s, 8) - f32(2 ** -0.5)) < 1e-9, "ALiBi slopes")
    # FLOPs and pairs
    c = normalize_shape({"dtype": "f16", "B": 1, "Hq": 1, "Nq": 4, "D": 8, "causal": 1}, "t")
    check(attended_pairs(c) == 10 and fa_flops(c) == 4 * 8 * 8.0, f"causal 4x4: pairs {attended_pairs(c)}, flops {fa_flops(c)}")
    br = normalize_shape({"dtype": "f16", "B": 1, "Hq": 1, "Nq": 2, "Nkv": 5, "D": 8, "causal": 1}, "t")
    check(attended_pairs(br) == 4 + 5 and fa_flops(br) == 4 * 9 * 8.0, "bottom-right causal 2x5 attends 4 + 5 pairs")
    w = normalize_shape({"dtype": "f16", "B": 1, "Hq": 1, "Nq": 6, "D": 8, "window": 1}, "t")
    check(attended_pairs(w) == 16, f"window 1 over 6 rows: {attended_pairs(w)} pairs, want 16")
    d = normalize_shape({"dtype": "f16", "B": 8, "Hq": 32, "Hkv": 8, "Nq": 1, "Nkv": 4096, "D": 128, "causal": 1}, "t")
    check(kv_bytes(d) == 2 * 8 * 8 * 4096 * 128 * 2 and fa_flops(d) == 4.0 * 8 * 32 * 4096 * 128,
          "decode: K+V bytes, and causal with one row attends every key")
    # defines
    check(parse_defines("-D BLOCK_M=64 -D DK=128 -DX=1", "t") == ["-DBLOCK_M=64", "-DDK=128", "-DX=1"], "defines parse")
    for bad in ("-D", "BLOCK_M=1", "-D 1X=2"):
        try:
            parse_defines(bad, "t")
            fails.append(f"defines {bad!r} accepted")
        except UsageError:
            pass
    # shape checks
    for bad in ({"B": 1, "Hq": 6, "Hkv": 4, "Nq": 1, "D": 8}, {"B": 1, "Hq": 1, "Nq": 9, "Nkv": 3, "D": 8}, {"B": 1}):
        try:
            normalize_shape(dict(bad, dtype="f16"), "t")
            fails.append(f"shape {bad} accepted")
        except UsageError:
            pass
    # ptxas parsing
    log = ("ptxas info    : Compiling entry function 'k1' for 'sm_90'\nptxas info    : Function properties for k1\n"
           "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
           "ptxas info    : Used 255 registers, used 1 barriers, 16384 bytes smem, 456 bytes cmem[0]\n")
    check(parse_ptxas(log) == {"k1": {"stack": 8, "spill_stores": 4, "spill_loads": 12, "registers": 255, "smem": 16384}},
          f"ptxas parse {parse_ptxas(log)}")
    # the report renders with and without numbers
    fake_t = {"median_ms": 1.0, "rel_noise": 0.01, "min_ms": 1, "max_ms": 1, "q1_ms": 1, "q3_ms": 1, "mean_ms": 1,
              "samples": 3}
    row = {"leaderboard": "lb.json", "spec_name": "x", "backend": "cuda", "kernel": "prefill", "shape_name": "s",
           "decode": False, "notes": ["n1"], "errors": [], "entry": {"key": "A=1", "preset": "A", "timing": fake_t},
           "attn_tune": {"timing": fake_t, "spread": 0.01}, "attn_tune_ms": 1.0, "attn_tune_ms_source": "script",
           "leaderboard_median_ms": 1.0, "script_over_leaderboard": 1.0, "attn_tune_metric": 100.0, "max_rel_err": 1e-3,
           "metric_unit": "TFLOP/s",
           "peers": {"FA2": {"timing": fake_t, "metric": 100.0, "attn_tune_speedup": 1.0, "notes": ["enable_gqa"]},
                     "cuDNN": {"not_run": "n/a: x"}}}
    md = render_markdown({"device": "fake"}, [row, dict(row, decode=True, errors=["boom"])], [], [])
    check("| s[1] |" in md and "**FAIL**" in md and "n/a[" in md, "markdown rendering")
    check(one_line(row).startswith("attn-tune 1.0000"), "one-line summary")
    # planning the synthetic CUDA-shaped leaderboards of tests/data/compare (no compile)
    fx = sorted((REPO_DEFAULT / "tests" / "data" / "compare").glob("synthetic_*.json"))
    if fx:
        a = parse_args(sum([["--leaderboard", str(f)] for f in fx], []) + ["--dry-run"])
        items, skipped = build_plan(a, REPO_DEFAULT)
        by = {(it["spec_name"], it["shape_name"]): it for it in items}
        dec = by.get(("flash_attn_decode", "fp16-h32-kv8-n32768"))
        fwd = by.get(("flash_attn_fwd", "fp16-d128-n4096"))
        check(len(items) == 5 and not skipped, f"fixtures: {len(items)} items, {len(skipped)} skipped")
        check(dec is not None and [l["entry"] for l in dec["launches"]] == ["flash_attn_decode_split",
              "flash_attn_decode_combine"] and dec["workspace_bytes"] == 4 * 8 * 32 * 16 * 130 and dec["arch"] == "sm_90",
              "fixture decode: two launches, workspace, the spec's arch")
        check(fwd is not None and fwd["launches"][0]["shared_bytes"] == 98304 and "-DHEAD_DIM=128" in fwd["defines"]
              and any(d.endswith("/kernels") for d in fwd["include_dirs"]), "fixture prefill: shared bytes, defines, -I")
        a2 = parse_args(sum([["--leaderboard", str(f)] for f in fx], []) + ["--config", "deterministic", "--dry-run"])
        items2, skipped2 = build_plan(a2, REPO_DEFAULT)
        check(len(items2) == 1 and len(skipped2) == 4, "--config by preset name selects one group, skips the rest")
    if fails:
        print("selftest FAILED:\n  " + "\n  ".join(fails))
        return 1
    print("selftest ok: attn_params layout (72 bytes, fields as kernels/common/attn_params.h), ALiBi bases, FLOP "
          f"conventions, K+V bytes, defines, shape checks, ptxas parsing, markdown, plans of {len(fx)} fixture leaderboards")
    return 0


# ---- main -------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description="attn-tune's best attention configurations vs PyTorch SDPA "
                                 "(FA2, cuDNN, mem-efficient), one process, one GPU.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--leaderboard", action="append", default=[], metavar="JSON",
                    help="an attn-tune leaderboard of the attention operation (repeatable)")
    ap.add_argument("--shape", action="append", default=[], metavar="NAMES",
                    help="only these shape names (comma list or repeated; exact or glob)")
    ap.add_argument("--kernel", action="append", default=[], metavar="NAMES", help="only these spec kernels (prefill, decode, ...)")
    ap.add_argument("--config", metavar="KEY", help="use this configuration key (e.g. BLOCK_M=64,BLOCK_N=64) or preset "
                    "name instead of each group's best")
    ap.add_argument("--samples", type=int, default=30, help="timed samples per implementation (median reported)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed calls before the samples")
    ap.add_argument("--seed", type=int, default=1, help="torch seed of the inputs")
    ap.add_argument("--tol", type=float, default=1e-2, help="largest relative L2 error allowed")
    ap.add_argument("--ref-rows", type=int, default=2048, help="rows of the float64 reference (sampled when more)")
    ap.add_argument("--peers", default="fa2,cudnn,efficient", help="SDPA backends to time: fa2, cudnn, efficient")
    ap.add_argument("--out", default=str(REPO_DEFAULT / "results" / "compare" / "attention_peers"),
                    help="directory for attention_peers.md and attention_peers.json")
    ap.add_argument("--repo", default=str(REPO_DEFAULT), help="repository root the leaderboards' paths are relative to")
    ap.add_argument("--arch", help="NVRTC target (default: the spec's cuda_arch, else the device's)")
    ap.add_argument("--launcher", choices=["auto", "cupy", "driver"], default="auto",
                    help="how to load and launch the CUBIN: cupy.RawModule, or the CUDA driver API through ctypes; "
                    "auto = cupy if it passes the argument probe, else the driver API")
    ap.add_argument("--no-flush", action="store_true", help="do not evict the L2 before each sample (warm timing)")
    ap.add_argument("--sleep-us", type=float, default=100.0,
                    help="GPU sleep before each start event so the launch's host latency stays out (0: off)")
    ap.add_argument("--max-bias-gib", type=float, default=4.0, help="largest dense bias built for mem-efficient")
    ap.add_argument("--dry-run", action="store_true", help="parse, plan, compile-check with NVRTC if found; no GPU, "
                    "no numpy/torch/cupy")
    ap.add_argument("--no-compile", action="store_true", help="with --dry-run: skip the NVRTC compile check")
    ap.add_argument("--selftest", action="store_true", help="check what needs no GPU, then exit")
    a = ap.parse_args(argv)
    if a.selftest:
        return a
    if not a.leaderboard:
        ap.error("give at least one --leaderboard")
    if a.samples < 3:
        ap.error("--samples must be at least 3")
    if a.warmup < 0:
        ap.error("--warmup must be >= 0")
    if a.ref_rows < 8:
        ap.error("--ref-rows must be at least 8")
    if not a.tol > 0:
        ap.error("--tol must be positive")
    if a.sleep_us < 0:
        ap.error("--sleep-us must be >= 0")
    if a.arch and not re.fullmatch(r"(sm|compute)_\d+[a-z]?", a.arch):
        ap.error(f"--arch {a.arch!r}: expected sm_XY or compute_XY")
    names = []
    for p in split_list([a.peers]):
        if p.lower() not in PEER_KEYS:
            ap.error(f"--peers: unknown backend {p!r} (fa2, cudnn, efficient)")
        names.append(PEER_KEYS[p.lower()])
    a.peer_names = list(dict.fromkeys(names))
    return a


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.selftest:
        return selftest()
    repo = Path(args.repo).resolve()
    if not (repo / "kernels" / "common" / "attn_params.h").exists():
        raise UsageError(f"--repo {repo}: no kernels/common/attn_params.h there")
    command = "python3 " + " ".join(shlex.quote(x) for x in [os.path.relpath(sys.argv[0])] + argv)
    items, skipped = build_plan(args, repo)
    if args.dry_run:
        nv = None if args.no_compile else Nvrtc.load()
        ok = print_plan(items, skipped, args, nv, not args.no_compile)
        print("\ndry run: nothing launched" + ("" if ok else "; COMPILE CHECK FAILED"))
        return 0 if ok else 1
    out = Path(args.out)
    cross = cross_leaderboard(items)
    meta, rows = run_gpu(items, skipped, args, repo, command,
                         on_row=lambda m, r: write_report(out, dict(m, partial=f"{len(r)} of {len(items)} rows"),
                                                          r, skipped, cross))
    md = write_report(out, meta, rows, skipped, cross)
    print("\n" + md)
    failed = [r for r in rows if r.get("errors")]
    print(f"wrote {out / 'attention_peers.md'} and {out / 'attention_peers.json'}")
    if failed:
        print(f"\nFAILED: {len(failed)} of {len(rows)} row(s):", file=sys.stderr)
        for r in failed:
            print(f"  {r['kernel']} / {r['shape_name']}: {'; '.join(r['errors'])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except UsageError as e:
        print(f"attention_peers: {e}", file=sys.stderr)
        sys.exit(2)
    except RunError as e:
        print(f"attention_peers: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
