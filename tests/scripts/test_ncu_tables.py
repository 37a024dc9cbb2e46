"""scripts/bench/ncu_compare.py and ncu_stalls.py from the command line: the tables the committed Nsight Compute runs
wrote (results/h200/hopper_ws/2026-11-28-ncu-*), printed again from their reports."""
import os
import tarfile

import pytest

from helpers import RESULTS, run_script

RUNS = RESULTS / "h200" / "hopper_ws"


@pytest.mark.parametrize("report", ["2026-11-28-ncu-peers/fp16-d128-n1024", "2026-11-28-ncu-peers/d256/fp16-d256-n4096",
                                    "2026-11-28-ncu-stalls/fp16-d128-n4096"])
def test_ncu_compare_prints_the_committed_table(report):
    p = run_script("bench/ncu_compare.py", RUNS / f"{report}.log")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (RUNS / f"{report}.md").read_text()


def test_ncu_stalls_mix_prints_the_committed_instruction_mix():
    run = RUNS / "2026-11-28-ncu-stalls"
    p = run_script("bench/ncu_stalls.py", "sass_attn_tune.log.gz", "sass_cudnn.log.gz", "--mix", "--top", "24", cwd=run)
    assert p.returncode == 0, p.stderr
    assert p.stdout == (run / "instruction_mix.md").read_text()


def test_ncu_stalls_prints_the_committed_pc_sampling_table(tmp_path):
    run = RUNS / "2026-11-28-ncu-stalls"
    with tarfile.open(run / "pc_sampling.tgz") as t:
        t.extractall(tmp_path, members=[m for m in t.getmembers() if m.name.endswith(".sass.log")])
    p = run_script("bench/ncu_stalls.py", "pp1.sass.log", "pp0.sass.log", "--top", "12", cwd=tmp_path / "ncu")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (run / "pc_sampling.md").read_text()
    assert "| all | 25903 | 26043 |" in p.stdout


def test_ncu_compare_orders_equal_stall_reasons_the_same_in_every_run():
    # math_pipe_throttle and no_instruction both 0.04 for the first kernel: report order, whatever the hash seed
    report = RUNS / "2026-11-28-ncu-stalls" / "fp16-d128-n4096"
    for seed in "0123":
        p = run_script("bench/ncu_compare.py", f"{report}.log", env=dict(os.environ, PYTHONHASHSEED=seed))
        assert p.stdout == (RUNS / f"{report}.md").read_text(), seed
