"""scripts/compare/kernel_tuner_race.py without a GPU or Kernel Tuner: the space both sides sweep, attn-tune's side
read from its leaderboard (a fake attn-tune writes data/tied_leaderboard.json), and the winners' verdict.
The race itself (Kernel Tuner's side, the GPU timings) runs on the GPU machine only: --help covers it here."""
import json
import sys

import kernel_tuner_race
from helpers import DATA, RESULTS

FAKE_SWEEP = f"""#!{sys.executable}
import shutil, sys
shutil.copy({str(DATA / "tied_leaderboard.json")!r}, sys.argv[sys.argv.index("--out") + 1])
print("compile: 3 compiled, 0 from cache", file=sys.stderr)
"""


def test_the_space_of_the_committed_race():
    report = json.loads((RESULTS / "h200" / "kernel_tuner_race" / "kernel_tuner_race.json").read_text())
    spec, shape, kernel = kernel_tuner_race.load_spec(report["shape"])
    configs = kernel_tuner_race.valid_configs(kernel, shape["D"])
    assert len(configs) == report["space"] == 44
    assert kernel_tuner_race.key_of(configs[0]).startswith("BLOCK_M=")
    assert report["attn_tune_cold"]["winner"] in {kernel_tuner_race.key_of(c) for c in configs}


def test_attn_tunes_side_is_its_leaderboards_winner_by_rank(tmp_path):
    exe = tmp_path / "attn-tune"
    exe.write_text(FAKE_SWEEP)
    exe.chmod(0o755)
    side = kernel_tuner_race.run_attn_tune(str(exe), "fp16-d64-n1024", tmp_path, tmp_path / "cache", "cold")
    assert side["winner"] == "BLOCK_M=128,BLOCK_N=64"  # rank 1; rank 2 has the smaller median
    assert side["winner_ms"] == 0.100
    assert side["tied"] == ["BLOCK_M=128,BLOCK_N=64", "BLOCK_M=64,BLOCK_N=64"]
    assert (side["configs"], side["verified"]) == (5, 3)
    assert set(side["medians"]) == {"BLOCK_M=128,BLOCK_N=64", "BLOCK_M=64,BLOCK_N=64", "BLOCK_M=128,BLOCK_N=128"}
    assert side["compile"] == "3 compiled, 0 from cache"


def test_winner_agreement():
    at = {"winner": "A", "tied": ["A", "B"], "medians": {"A": 1.0, "B": 1.01, "C": 1.1}}
    assert kernel_tuner_race.winner_agreement(at, {"winner": "A"}) == "same winner"
    assert "declared tie set (2 configurations)" in kernel_tuner_race.winner_agreement(at, {"winner": "B"})
    assert "10.00% slower" in kernel_tuner_race.winner_agreement(at, {"winner": "C"})
