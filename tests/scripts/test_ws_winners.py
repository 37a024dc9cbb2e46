"""scripts/gpu/ws_winners.py, the tables hopper_ws.sh writes, on the committed sweeps of the warp-specialized kernel.

Where each group's winner (rank 1) is also its smallest median, the tables are the committed winners.md (written
when the script picked the smallest median); where a tie put another first, the winner's row is rank 1's."""
import pytest

import leaderboards
import ws_winners
from helpers import RESULTS, run_script

RUNS = RESULTS / "h200" / "hopper_ws"


@pytest.mark.parametrize("run", ["2026-11-28-d256", "2026-11-28-store_o_tma-d128"])
def test_the_committed_winners_md(run):
    p = run_script("gpu/ws_winners.py", "winners", RUNS / run / "flash_attn_fwd_ws.json.gz")
    assert p.returncode == 0, p.stderr
    assert p.stdout == (RUNS / run / "winners.md").read_text()


def test_a_tied_shapes_row_is_its_rank_1():
    board = leaderboards.load(RUNS / "2026-11-28-block_n176" / "flash_attn_fwd_ws.json.gz")
    g = leaderboards.group(board, "prefill_ws", "window-n8192-w256-d64")
    first = leaderboards.best(g)
    fastest = min(leaderboards.ranked(g), key=leaderboards.median_ms)
    assert "STAGES=2" in first["key"] and "STAGES=3" in fastest["key"]  # rank 2, 0.1432 ms against 0.1436
    table = ws_winners.winners_table(board).splitlines()
    assert f"| window-n8192-w256-d64 | {first['key']} | 0.1436 | 236 | 168 | 0/0 |" in table
    assert f"winner on 1 shape(s): {first['key']}" in table
    # the persistent grid's column: the best-ranked PERSISTENT=1 against the best-ranked without it
    assert "| window-n8192-w256-d64 | 1.000 | 1.102 | 0.718 | 0.720 |" in table


def test_the_most_frequent_winner_comes_first():
    lines = ws_winners.winners_table(leaderboards.load(RUNS / "2026-11-29-quick" / "flash_attn_fwd_ws.json.gz"))
    counts = [int(l.split()[2]) for l in lines.splitlines() if l.startswith("winner on ")]
    assert counts == sorted(counts, reverse=True) and sum(counts) == 10  # the 10 shapes of --quick


@pytest.mark.parametrize("run", ["2026-11-29-rest", "2026-11-28-rest-store_o_tma", "2026-11-28-rest"])
def test_the_committed_pingpong_pairs(run):
    board = next((RUNS / run).glob("pingpong0.json*"))
    p = run_script("gpu/ws_winners.py", "pairs", board)
    assert p.returncode == 0, p.stderr
    assert p.stdout == (RUNS / run / "pingpong0.md").read_text()


def test_knob_defaults():
    assert ws_winners.knob({"key": "PERSISTENT=1,STAGES=2"}, "PERSISTENT") == 1
    assert ws_winners.knob({"key": "PERSISTENT=1"}, "CLUSTER") == 1  # a key without CLUSTER: one CTA per cluster
    assert ws_winners.knob({"key": "STAGES=2"}, "PERSISTENT") == 0
