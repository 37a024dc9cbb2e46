"""scripts/gpu/shard_winners.py, shard_merge.sh's winners.md, on the committed run of two shards on one H200."""
import json

from helpers import RESULTS, run_script

RUN = RESULTS / "h200" / "shards"
COMMITTED = "results/h200/flash_attn_fwd.json"  # as shard_merge.sh names it, from the repository root


def test_the_committed_winners_md():
    p = run_script("gpu/shard_winners.py", RUN / "whole.json", RUN / "merged.json", COMMITTED, 2)
    assert p.returncode == 0, p.stderr
    assert p.stdout == (RUN / "winners.md").read_text()


def test_without_a_committed_leaderboard_its_column_is_left_out(tmp_path):
    p = run_script("gpu/shard_winners.py", RUN / "whole.json", RUN / "merged.json", tmp_path / "none.json", 2)
    assert p.returncode == 0
    assert "committed winner" not in p.stdout and "| prefill / fp16-d64-n4096 |" in p.stdout


def merged_with_another_winner(tmp_path, factor):
    """The merge with its fp16-d64-n4096 rank 2 made the winner, at FACTOR times rank 1's median (nothing re-timed)."""
    merged = json.loads((RUN / "merged.json").read_text())
    g = next(g for g in merged["groups"] if g["shape"] == "fp16-d64-n4096")
    first, second = sorted((e for e in g["entries"] if e.get("rank")), key=lambda e: e["rank"])[:2]
    first["rank"], second["rank"] = 2, 1
    second["timing"]["median_ms"] = factor * first["timing"]["median_ms"]
    g.pop("retimed", None)
    (tmp_path / "merged.json").write_text(json.dumps(merged))
    return tmp_path / "merged.json"


def test_another_winner_within_the_tie_percent_is_a_tie(tmp_path):
    p = run_script("gpu/shard_winners.py", RUN / "whole.json", merged_with_another_winner(tmp_path, 0.99), COMMITTED, 2)
    assert p.returncode == 0, p.stdout
    assert "| tie (1.01% in the shards) |" in p.stdout


def test_another_winner_outside_it_is_different_and_fails(tmp_path):
    p = run_script("gpu/shard_winners.py", RUN / "whole.json", merged_with_another_winner(tmp_path, 0.9), COMMITTED, 2)
    assert p.returncode == 1
    assert "| **different** (unsharded winner 11.1% slower in the shards) |" in p.stdout
    assert "1 group(s) with different winners." in p.stdout
