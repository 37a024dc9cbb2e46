"""scripts/bench/ws_trace_spec.py (the spec of a traced build) and the pure parts of scripts/bench/ws_trace.py (its
launch and the clocks need a GPU, torch and cupy: --help covers the rest)."""
import json

import pytest

import ws_trace
from helpers import REPO, run_script


def test_the_spec_sets_the_knobs_over_fa3_and_turns_the_trace_on():
    p = run_script("bench/ws_trace_spec.py", REPO, "PINGPONG=1,STAGES=3")
    assert p.returncode == 0, p.stderr
    spec = json.loads(p.stdout)
    fa3 = json.loads((REPO / "configs" / "flash_attn_fwd_ws.json").read_text())["kernels"]["prefill_ws"]["presets"]["FA3"]
    kernel = spec["kernels"]["prefill_ws"]
    assert spec["extends"] == f"{REPO}/configs/flash_attn_fwd_ws.json"
    assert kernel["presets"]["T"] == dict(fa3, PINGPONG=1, STAGES=3, WS_TRACE=1)
    assert kernel["params"] == {k: [v] for k, v in kernel["presets"]["T"].items()}
    assert kernel["workspace_bytes"] == "16 + 8 * 3 * 2048 * 3"


def test_a_parameter_the_kernel_lacks_is_named():
    p = run_script("bench/ws_trace_spec.py", REPO, "NO_SUCH_KNOB=1")
    assert p.returncode == 1 and "NO_SUCH_KNOB is not a parameter of prefill_ws" in p.stderr


def test_define_reads_the_emitted_compile_options():
    shape = {"defines": "-D WS_CONSUMERS=3 -DWS_TRACE=1 -D HEAD_DIM=64"}
    assert (ws_trace.define(shape, "WS_CONSUMERS"), ws_trace.define(shape, "WS_TRACE")) == (3, 1)
    with pytest.raises(SystemExit, match="no STAGES define"):
        ws_trace.define(shape, "STAGES")


def test_summarize_the_clocks_of_two_consumers():
    np = pytest.importorskip("numpy")  # not installed in CI: the trace is a numpy array
    trace = np.zeros((2, ws_trace.TRACE_ITERS, 3), dtype=np.uint64)
    for i in range(8):  # consumer 0 issues every 100 cycles, consumer 1 ten cycles later
        trace[0, i] = (1000 + 100 * i, 1030 + 100 * i, 1080 + 100 * i)
        trace[1, i] = (1010 + 100 * i, 1040 + 100 * i, 1090 + 100 * i)
    n, period, offsets, s_wait, pv_wait = ws_trace.summarize(np, trace, 2)
    assert (n, period, offsets, s_wait, pv_wait) == (8, 100, [0.1], 30, 80)
