"""scripts/lib/leaderboards.py, the one reader of leaderboards: winners by rank, never by the smallest median.

data/tied_leaderboard.json: in prefill / fp16-d64-n1024 the winner (rank 1, 0.100 ms) is slower than rank 2
(0.098 ms, tied with it) and than a wrong answer (0.050 ms, no rank); its entries are not in rank order in the file.
In decode / fp16-h32-kv8-n4096 an ok entry that failed a required check (0.040 ms) has no rank.
"""
import gzip
import json
import shutil

import pytest

import leaderboards
from helpers import DATA, RESULTS, run_script

TIED = DATA / "tied_leaderboard.json"
WINNER, FASTER_TIED, FAST_WRONG = "BLOCK_M=128,BLOCK_N=64", "BLOCK_M=64,BLOCK_N=64", "BLOCK_M=256,BLOCK_N=64"


@pytest.fixture
def board():
    return leaderboards.load(TIED)


def prefill(board):
    return leaderboards.group(board, "prefill", "fp16-d64-n1024")


def test_the_winner_is_rank_1_though_others_have_smaller_medians(board):
    g = prefill(board)
    medians = {e["key"]: leaderboards.median_ms(e) for e in g["entries"] if leaderboards.median_ms(e)}
    assert medians[FASTER_TIED] < medians[WINNER] and medians[FAST_WRONG] < medians[WINNER]
    assert leaderboards.best(g)["key"] == WINNER
    assert leaderboards.winners(board)[("prefill", "fp16-d64-n1024")]["key"] == WINNER


def test_an_entry_failing_a_required_check_is_no_winner(board):
    g = leaderboards.group(board, "decode", "fp16-h32-kv8-n4096")
    excluded = next(e for e in g["entries"] if "excluded" in e)
    assert excluded["status"] == "ok" and leaderboards.median_ms(excluded) < leaderboards.median_ms(leaderboards.best(g))
    assert leaderboards.best(g)["key"] == "NUM_SPLITS=8,DEC_THREADS=128"
    assert excluded["key"] not in leaderboards.medians(g)


def test_ranked_entries_are_the_ok_ones_in_rank_order(board):
    g = prefill(board)
    assert [e["key"] for e in g["entries"]][:2] == [FASTER_TIED, WINNER]  # the file's order is not the ranks'
    assert [e["key"] for e in leaderboards.ranked(g)] == [WINNER, FASTER_TIED, "BLOCK_M=128,BLOCK_N=128"]
    assert list(leaderboards.medians(g)) == [WINNER, FASTER_TIED, "BLOCK_M=128,BLOCK_N=128"]
    assert leaderboards.medians(g)[WINNER] == pytest.approx(0.100)


def test_the_best_of_a_part_of_the_group_is_its_best_ranked(board):
    g = leaderboards.group(board, "deformable", "detr-small")
    split = leaderboards.params
    assert leaderboards.best(g, lambda e: split(e)["WARP_SPLIT"] == 0)["key"] == "WARP_SPLIT=0,QPB=16"  # not QPB=32's 0.049
    assert leaderboards.best(g, lambda e: split(e)["WARP_SPLIT"] > 0)["key"] == "WARP_SPLIT=2,QPB=16"
    assert leaderboards.best(g, lambda e: split(e)["QPB"] == 64) is None


def test_a_group_without_a_ranked_entry_has_no_winner(board):
    assert leaderboards.best(leaderboards.group(board, "prefill", "fp16-d256-small")) is None
    assert set(leaderboards.winners(board)) == {("prefill", "fp16-d64-n1024"), ("decode", "fp16-h32-kv8-n4096"),
                                               ("deformable", "detr-small")}


def test_groups_by_name_or_glob(board):
    assert [g["shape"] for g in leaderboards.groups(board, kernel="prefill")] == ["fp16-d64-n1024", "fp16-d256-small"]
    assert [g["kernel"] for g in leaderboards.groups(board, shape="fp16-*")] == ["prefill", "decode", "prefill"]
    assert leaderboards.group(board, "decode", "fp16-d64-n1024") is None


def test_entries_params_ties_and_statuses(board):
    assert len(leaderboards.entries(board)) == 14
    assert leaderboards.params(leaderboards.best(prefill(board))) == {"BLOCK_M": 128, "BLOCK_N": 64}
    assert leaderboards.tied(prefill(board)) == [WINNER, FASTER_TIED]
    assert leaderboards.tied(leaderboards.group(board, "decode", "fp16-h32-kv8-n4096")) == []
    assert leaderboards.median_ms(prefill(board)["entries"][-1]) is None  # skipped: never timed
    assert leaderboards.status_counts(board) == {"ok": 10, "incorrect": 1, "skipped": 3}
    assert not leaderboards.all_ok(board)  # the wrong answer


def test_all_ok_needs_an_ok_entry_and_nothing_but_ok_or_skipped(board):
    board["groups"] = [g for g in board["groups"] if g["shape"] != "fp16-d64-n1024"]
    assert leaderboards.all_ok(board)
    board["groups"] = [leaderboards.group(board, "prefill", "fp16-d256-small")]
    assert not leaderboards.all_ok(board)  # skipped only


def test_a_gzipped_leaderboard_reads_the_same(tmp_path):
    with open(TIED, "rb") as f, gzip.open(tmp_path / "tied.json.gz", "wb") as g:
        shutil.copyfileobj(f, g)
    assert leaderboards.load(tmp_path / "tied.json.gz") == leaderboards.load(TIED)


def test_a_file_that_is_no_leaderboard_is_named(tmp_path):
    (tmp_path / "bench.json").write_text(json.dumps([{"key": "A=1", "status": "ok"}]))
    with pytest.raises(ValueError, match="bench.json"):
        leaderboards.load(tmp_path / "bench.json")


def test_a_real_tie_of_an_h200_sweep():
    # pingpong0 of 2026-11-27: STAGES=3 timed 1.2187 ms, STAGES=2 1.2262 ms; within the noise, STAGES=2 won the tie
    board = leaderboards.load(RESULTS / "h200" / "hopper_ws" / "2026-11-27-rest" / "pingpong0.json")
    g = leaderboards.group(board, "prefill_ws", "bf16-d64-n4096")
    first, second = leaderboards.ranked(g)[:2]
    assert leaderboards.median_ms(second) < leaderboards.median_ms(first)
    assert "STAGES=2" in leaderboards.best(g)["key"] and leaderboards.best(g)["key"] == g["ties"]["winner"]


class TestCommandLine:
    def test_winners_prints_each_groups_rank_1(self):
        p = run_script("lib/leaderboards.py", "winners", TIED)
        assert p.returncode == 0, p.stderr
        rows = [line.split("\t") for line in p.stdout.splitlines()]
        assert [r[:3] for r in rows] == [["prefill", "fp16-d64-n1024", WINNER],
                                         ["decode", "fp16-h32-kv8-n4096", "NUM_SPLITS=8,DEC_THREADS=128"],
                                         ["deformable", "detr-small", "WARP_SPLIT=0,QPB=16"]]
        assert float(rows[0][3]) == pytest.approx(0.100)

    def test_winners_of_one_shape_key_only(self):
        p = run_script("lib/leaderboards.py", "winners", TIED, "--kernel", "prefill", "--shape", "fp16-d64-*",
                       "--key-only")
        assert p.stdout == WINNER + "\n"

    def test_statuses_name_the_wrong_answer_and_fail(self):
        p = run_script("lib/leaderboards.py", "statuses", TIED)
        assert p.returncode == 1
        assert p.stdout.splitlines() == ["incorrect 1, ok 10, skipped 3",
                                         f"  {FAST_WRONG} on fp16-d64-n1024: incorrect rel_l2 0.5 over 0.01"]

    def test_statuses_of_a_real_verification_pass(self):
        p = run_script("lib/leaderboards.py", "statuses", RESULTS / "h200" / "hopper_ws" / "2026-11-27-rest" / "verify.json.gz")
        assert (p.returncode, p.stdout) == (0, "ok 710, skipped 6\n")
