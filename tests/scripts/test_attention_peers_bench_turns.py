#!/usr/bin/env python3
"""scripts/compare/attention_peers.py --bench-turns, without a GPU.

  ATTN_TUNE_BINARY=build/app/attn-tune python3 -m pytest tests/scripts/test_attention_peers_bench_turns.py

1. The dry run on the committed anchor leaderboards plans, per row, one `attn-tune bench` command naming the row's
   spec, kernel, best configuration and shape, cuda:0 and the leaderboard's recorded timing settings; attn-tune
   accepts that command (on a machine without CUDA it stops only at the device); without the option, none.
2. A row timed in turns (a fake GPU and a fake attn-tune) reports bench's medians, the per-repetition ratio and
   both clocks, writes one bench result per repetition, and carries an error when bench finds a wrong answer.
3. The whole run (main, on the same fakes) writes its tables and exits 1 when bench finds a wrong answer.
4. The launch function keeps the workspace tensor it launches on alive (attn_tune_call).

1 and 3 run attn-tune (marked attn_tune, skipped without ATTN_TUNE_BINARY): a CUDA build, whose emits NVRTC-compile.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "compare" / "attention_peers.py"
ANCHORS = REPO / "results" / "h200" / "agreement" / "2026-11-25-pacing"
LEADERBOARDS = [ANCHORS / "wgmma_anchor.json", ANCHORS / "decode_anchor.json"]
SHAPES = "fp16-d128-n16384-causal,bf16-d64-n4096,fp16-h32-kv8-n32768"
ATTN_TUNE = os.environ.get("ATTN_TUNE_BINARY")
NEEDS_ATTN_TUNE = "ATTN_TUNE_BINARY is not set (a CUDA build's ctest sets it to its attn-tune)"
sys.path.insert(0, str(SCRIPT.parent))
import attention_peers  # noqa: E402


def dry_run(*extra, shapes=SHAPES):
    cmd = [sys.executable, str(SCRIPT), "--attn-tune", ATTN_TUNE, "--dry-run", "--shape", shapes, "--jobs", "2"]
    for lb in LEADERBOARDS:
        cmd += ["--leaderboard", str(lb)]
    p = subprocess.run(cmd + list(extra), cwd=REPO, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def option(cmd, name):
    return cmd[cmd.index(name) + 1]


@pytest.mark.attn_tune
@unittest.skipUnless(ATTN_TUNE, NEEDS_ATTN_TUNE)
class DryRunPlansBenchCommands(unittest.TestCase):
    def test_every_row_gets_the_bench_command_of_its_spec_kernel_configuration_shape_and_timing(self):
        rc, out = dry_run("--bench-turns")
        self.assertEqual(rc, 0, out)
        planned = [shlex.split(line.split(": ", 1)[1]) for line in out.splitlines()
                   if line.startswith("  bench in turns, 3 repetition(s): ")]
        expected = []
        for path in LEADERBOARDS:
            lb = json.loads(path.read_text())
            t = lb["settings"]["timing"]
            for g in lb["groups"]:
                if g["shape"] in SHAPES.split(","):
                    best = next(e for e in g["entries"] if e["status"] == "ok" and e["rank"] == 1)
                    expected.append((lb["spec"]["path"], g["kernel"], best["key"], g["shape"], t))
        self.assertEqual(len(planned), len(expected), out)  # 1 prefill x 2 shapes + 2 decode kernels x 1 shape
        self.assertEqual(len(planned), 4, out)
        for cmd, (spec, kernel, key, shape, t) in zip(planned, expected):
            self.assertEqual(cmd[1:3], ["bench", spec])
            self.assertEqual(option(cmd, "-k"), kernel)
            self.assertEqual(option(cmd, "--set"), key)
            self.assertEqual(option(cmd, "-s"), shape)
            self.assertEqual(option(cmd, "-d"), "cuda:0")
            self.assertEqual(option(cmd, "--timing"), t["policy"])
            self.assertEqual(float(option(cmd, "--warmup-time")), t["warmup_s"])
            self.assertEqual(int(option(cmd, "--warmup")), t["warmup_runs"])
            self.assertEqual(int(option(cmd, "--min-samples")), t["min_samples"])
            self.assertEqual(int(option(cmd, "--max-samples")), t["max_samples"])
            self.assertEqual(float(option(cmd, "--max-time")), t["max_time_s"])
            self.assertAlmostEqual(float(option(cmd, "--max-noise")), 100 * t["max_noise"])
            self.assertIn("--json", cmd)
        # attn-tune itself takes the command: the spec, kernel, configuration and shape resolve, and the only
        # thing that can stop it here is a machine without CUDA
        cmd = planned[0]
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
        if p.returncode == 0:
            self.assertEqual(json.loads(p.stdout)[0]["key"], option(cmd, "--set"))
        else:
            self.assertIn("no device 'cuda:0'", p.stderr, p.stderr)

    def test_without_the_option_no_bench_command_is_planned(self):
        rc, out = dry_run("--kernel", "decode", shapes="fp16-h32-kv8-n32768")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("bench in turns", out)
        self.assertEqual(len([line for line in out.splitlines() if "launch(es)" in line]), 1, out)


# ------------------------------------------------------------------ a row in turns, on fakes
FAKE_BENCH = r'''#!/usr/bin/env python3
import json, sys
a = sys.argv[1:]
key, shape = a[a.index("--set") + 1], a[a.index("-s") + 1]
n = int(open(sys.argv[0] + ".count").read()) + 1 if __import__("os").path.exists(sys.argv[0] + ".count") else 1
open(sys.argv[0] + ".count", "w").write(str(n))
status = "incorrect" if "WRONG" in sys.argv[0] else "ok"
print(json.dumps([{"key": key, "shape": shape, "status": status, "reason": "rel_l2 0.5 over 0.01",
                   "timing": {"median_ms": 1.0 + 0.1 * n}, "clocks": {"sm_mhz_median": 1700.0 + 10 * n}}]))
sys.exit(0 if status == "ok" else 1)
'''


class FakeGpu:
    """The script's own timing: 1.1, 1.2, 1.3 ms ... at 1800, 1810 ... MHz, one per call."""

    def __init__(self):
        self.calls = 0

    def pace(self, sleep_us):
        pass

    def inputs(self, s):
        return {}

    def reference(self, s, t):
        return []

    def rel_err(self, out, ref):
        return 0.0

    def time(self, fn):
        self.calls += 1
        return {"median_ms": 1.0 + 0.11 * self.calls, "sm_mhz": 1800.0 + 10 * self.calls, "rel_noise": 0.001}


class _Sync:
    class cuda:
        @staticmethod
        def synchronize():
            pass


def row_in_turns(tmp, bench_name):
    bench = Path(tmp) / bench_name
    bench.write_text(FAKE_BENCH)
    bench.chmod(0o755)
    lb = json.loads(LEADERBOARDS[0].read_text())
    g = lb["groups"][0]
    e = next(x for x in g["entries"] if x["status"] == "ok")
    item = {"leaderboard": str(LEADERBOARDS[0]), "spec": lb["spec"]["path"], "spec_name": lb["spec"]["name"],
            "kernel": g["kernel"], "shape": g["shape"], "fields": g["shape_fields"], "key": e["key"], "preset": "",
            "lb_median_ms": e["timing"]["median_ms"], "lb_period_ms": None, "lb_settings": lb["settings"],
            "launch": {"fields": g["shape_fields"], "args": [], "flops": 1e12, "resources": {}, "defines": ""}}
    args = attention_peers.main.__globals__["argparse"].Namespace(
        attn_tune=str(bench), repo=str(REPO), out=str(Path(tmp) / "out"), reps=3, bench_turns=True,
        bench_timeout=60.0, peer_names=[], tol=1e-2, pace="fixed", sleep_us=0.0)
    item["bench_cmd"] = attention_peers.bench_command(item, args)
    gpu = FakeGpu()
    gpu.torch = _Sync
    saved = attention_peers.attn_tune_call
    attention_peers.attn_tune_call = lambda gpu, item, t: (lambda: None, None)
    try:
        return attention_peers.run_item(gpu, item, args), args
    finally:
        attention_peers.attn_tune_call = saved


class ARowInTurns(unittest.TestCase):
    def test_reports_bench_medians_per_repetition_ratios_and_both_clocks(self):
        with tempfile.TemporaryDirectory() as tmp:
            row, args = row_in_turns(tmp, "attn-tune")
            b = row["bench_turns"]
            self.assertEqual(row["errors"], [])
            self.assertEqual(len(b["reps_ms"]), 3)  # one bench run per repetition
            for got, want in zip(b["reps_ms"], [1.1, 1.2, 1.3]):
                self.assertAlmostEqual(got, want)
            self.assertAlmostEqual(b["ms"], 1.2)
            script = [1.11, 1.22, 1.33]  # the script's repetitions come right after each bench run
            self.assertEqual(len(b["reps_script_over_bench"]), 3)
            for got, s, bench in zip(b["reps_script_over_bench"], script, [1.1, 1.2, 1.3]):
                self.assertAlmostEqual(got, s / bench)
            self.assertAlmostEqual(b["script_over_bench"], statistics.median(s / x for s, x in zip(script, [1.1, 1.2, 1.3])))
            self.assertEqual(b["reps_sm_mhz"], [1710.0, 1720.0, 1730.0])
            self.assertEqual(b["reps_script_sm_mhz"], [1810.0, 1820.0, 1830.0])
            self.assertAlmostEqual(b["script_over_bench_at_equal_clock"], statistics.median(
                s / x * sm / bm for s, x, sm, bm in zip(script, [1.1, 1.2, 1.3], [1810, 1820, 1830], [1710, 1720, 1730])))
            files = sorted((Path(args.out) / "bench_turns").iterdir())
            self.assertEqual([f.name for f in files], [f"{row['spec_name']}.{row['kernel']}.{row['shape']}.rep{n}.json"
                                                       for n in (1, 2, 3)])
            self.assertEqual(json.loads(files[0].read_text())["results"][0]["key"], row["key"])
            md = "\n".join(attention_peers.render_bench_turns({"reps": 3, "bench_turns": True}, [row]))
            self.assertIn("## attn-tune bench, in turns", md)
            self.assertIn("leaderboard ms (sweep, earlier)", md)
            self.assertIn(f"| {b['ms']:.4f} (1.1000, 1.2000, 1.3000) | {row['attn_tune']['ms']:.4f} | "
                          f"{b['script_over_bench']:.3f} | {b['script_over_bench_at_equal_clock']:.3f} | 1720 | 1820 |", md)
            self.assertIn("within 3%: 1 of 1; at equal clock, within 3%: 0 of 1.", md)  # x1.017, x1.076

    def test_a_wrong_answer_from_bench_is_an_error_of_the_row(self):
        with tempfile.TemporaryDirectory() as tmp:
            row, _ = row_in_turns(tmp, "attn-tune-WRONG")
            self.assertIsNone(row["bench_turns"])
            self.assertEqual(len(row["errors"]), 3, row["errors"])  # one per repetition, naming its result file
            for n, e in enumerate(row["errors"], 1):
                self.assertIn(": incorrect: rel_l2 0.5 over 0.01", e)
                self.assertIn(f".rep{n}.json", e)
            self.assertIn("attn_tune", row)  # the script's own timing is still kept


@pytest.mark.attn_tune
@unittest.skipUnless(ATTN_TUNE, NEEDS_ATTN_TUNE)
class TheWholeRunInTurns(unittest.TestCase):
    """main() on a fake GPU and a fake torch, with a fake attn-tune bench (emits go to the real attn-tune)."""

    def run_main(self, tmp, bench_name):
        import types
        bench = Path(tmp) / bench_name
        bench.write_text(FAKE_BENCH.replace("import json, sys\n", "import json, os, sys\nif '--emit-launch' in sys.argv "
                                            f"or '--version' in sys.argv: os.execv({ATTN_TUNE!r}, [{ATTN_TUNE!r}] + "
                                            "sys.argv[1:])\n", 1))
        bench.chmod(0o755)
        torch = types.SimpleNamespace(__version__="fake", version=types.SimpleNamespace(cuda="13.0"),
                                      backends=types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 0)),
                                      cuda=_Sync.cuda)
        saved = dict(attention_peers.__dict__)
        saved_modules = {m: sys.modules.get(m) for m in ("torch", "cupy")}
        sys.modules["torch"], sys.modules["cupy"] = torch, types.SimpleNamespace(__version__="fake")

        def fake_gpu(args):
            g = FakeGpu()
            g.torch, g.flush_ms = _Sync, 0.0
            g.props = types.SimpleNamespace(name="fake GPU", multi_processor_count=1)
            g.clock = types.SimpleNamespace(max_mhz=lambda: 1980)
            return g
        attention_peers.Gpu = fake_gpu
        attention_peers.attn_tune_call = lambda gpu, item, t: (lambda: None, None)
        out = Path(tmp) / "out"
        try:
            rc = attention_peers.main(["--attn-tune", str(bench), "--leaderboard", str(LEADERBOARDS[1]), "--shape",
                                       "fp16-h32-kv8-n4096", "--kernel", "decode_cpasync", "--peers", "",
                                       "--bench-turns", "--out", str(out)])
        finally:
            attention_peers.__dict__.update(saved)
            for m, v in saved_modules.items():
                if v is None:
                    sys.modules.pop(m, None)
                else:
                    sys.modules[m] = v
        return rc, json.loads((out / "attention_peers.json").read_text()), (out / "attention_peers.md").read_text()

    def test_writes_the_rows_in_turns_and_exits_0(self):
        with tempfile.TemporaryDirectory() as tmp:
            rc, doc, md = self.run_main(tmp, "attn-tune")
            self.assertEqual(rc, 0, doc)
            (row,) = doc["rows"]
            self.assertTrue(doc["meta"]["bench_turns"])
            self.assertEqual(len(row["bench_turns"]["reps_ms"]), 3)
            self.assertIn("attn-tune bench decode_cpasync", "attn-tune bench " + row["bench_turns_command"].split(" -k ")[1])
            self.assertIn("## attn-tune bench, in turns", md)

    def test_exits_1_when_bench_finds_a_wrong_answer(self):
        with tempfile.TemporaryDirectory() as tmp:
            rc, doc, md = self.run_main(tmp, "attn-tune-WRONG")
            self.assertEqual(rc, 1)
            self.assertIn("incorrect", doc["rows"][0]["errors"][0])
            self.assertIn("FAILED: attn-tune bench", md)


class TheLaunchKeepsItsWorkspace(unittest.TestCase):
    """attn_tune_call makes the workspace tensor; the returned launch function holds only its raw pointer, so the
    tensor must live as long as the function: freed, its memory goes to the next tensor, and a kernel keeping
    counters there (the persistent prefill's work queue) reads that tensor's data (seen on an H200: 0.04 ms for a
    0.25 ms kernel, 2026-11-27)."""

    def test_the_workspace_lives_as_long_as_the_launch_function(self):
        import gc
        import weakref

        made = []

        class Tensor:
            def __init__(self, n):
                self.n = n
                made.append(weakref.ref(self))

            def data_ptr(self):
                return 4096 + id(self) % 4096

        class Torch:
            uint8 = "uint8"

            @staticmethod
            def zeros(n, dtype=None, device=None):
                return Tensor(n)

            @staticmethod
            def full_like(t, value):
                return Tensor(t.n)

        class Gpu:
            torch = Torch
            function = staticmethod(lambda binary, entry, shared: lambda *a, **k: None)

        class Np:  # the pointers only (numpy is not needed without a GPU)
            uint64 = int

        Gpu.np = Np
        t = {name: Tensor(64) for name in ("q", "k", "v", "mask", "sinks")}
        launch = {"args": [{"kind": "workspace", "bytes": 16}], "program": {"file": "k.cubin"},
                  "launches": [{"entry": "k", "grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0}]}
        fn, o = attention_peers.attn_tune_call(Gpu, {"launch": launch, "dir": Path(".")}, t)
        gc.collect()
        workspace = [r for r in made if r() is not None and r().n == 16]
        self.assertEqual(len(workspace), 1, "the workspace tensor was freed while the launch function lives")
        del fn
        gc.collect()
        self.assertIsNone(workspace[0](), "the launch function should be what keeps the workspace")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
