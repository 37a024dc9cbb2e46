"""scripts/gpu/compare_builds.py with two fake builds of attn-tune: it benches each group's winner (rank 1), old and
new in turns, and tabulates both medians and the median of the ratios old / new."""
import json
import sys

from helpers import DATA, run_script

FAKE_BENCH = f"""#!{sys.executable}
import json, sys
a = sys.argv[1:]
with open(sys.argv[0] + ".calls", "a") as f:
    f.write(a[a.index("--set") + 1] + "\\n")
print(json.dumps([{{"shape": a[a.index("-s") + 1], "status": "ok", "timing": {{"median_ms": MS}}}}]))
"""


def fake(tmp_path, name, ms):
    exe = tmp_path / name
    exe.write_text(FAKE_BENCH.replace("MS", str(ms)))
    exe.chmod(0o755)
    return exe


def test_the_winner_is_benched_by_both_builds_in_turns(tmp_path):
    old, new = fake(tmp_path, "old", 1.01), fake(tmp_path, "new", 1.0)
    out = tmp_path / "winners.md"
    p = run_script("gpu/compare_builds.py", "--old-root", tmp_path, "--old-bin", old, "--new-root", tmp_path,
                   "--new-bin", new, "--leaderboard", DATA / "tied_leaderboard.json", "--spec", "configs/x.json",
                   "--shape", "fp16-d64-n1024", "--reps", "3", "--out", out)
    assert p.returncode == 0, p.stderr
    # rank 1, not rank 2 of the smaller median
    assert (tmp_path / "old.calls").read_text() == "BLOCK_M=128,BLOCK_N=64\n" * 3
    assert (tmp_path / "new.calls").read_text() == "BLOCK_M=128,BLOCK_N=64\n" * 3
    rows = [line for line in out.read_text().splitlines() if line.startswith("| prefill")]
    assert rows == ["| prefill | fp16-d64-n1024 | `BLOCK_M=128,BLOCK_N=64` | 1.0100 | 1.0000 | 1.0100 | 1.0100–1.0100 | 3 |"]
    assert "1 of 1 configurations timed; ratios 1.0100–1.0100; within ±2%: 1 of 1." in out.read_text()


def test_a_build_that_prints_no_json_fails_the_row(tmp_path):
    old, new = fake(tmp_path, "old", 1.0), tmp_path / "broken"
    new.write_text(f"#!{sys.executable}\nprint('error: no device')\n")
    new.chmod(0o755)
    p = run_script("gpu/compare_builds.py", "--old-root", tmp_path, "--old-bin", old, "--new-root", tmp_path,
                   "--new-bin", new, "--leaderboard", DATA / "tied_leaderboard.json", "--spec", "configs/x.json",
                   "--shape", "fp16-h32-*", "--reps", "1")
    assert p.returncode == 1
    assert "| decode | fp16-h32-kv8-n4096 | `NUM_SPLITS=8,DEC_THREADS=128` | – | – | failed | | 0 |" in p.stdout
    assert "printed no JSON" in p.stderr
