"""The configurations the comparison scripts take from leaderboards: each group's winner by rank (a tied or wrong
entry of a smaller median is not it), on data/tied_leaderboard.json and on the committed runs they compared."""
import argparse
import json
import struct

import pytest

import attention_peers
import attn_inputs
import deformable_torch
import similarity_torch
import window_linear_torch
from helpers import DATA, RESULTS

TIED = DATA / "tied_leaderboard.json"
FAMILIES = RESULTS / "h200" / "families"


def plan(config=None):
    args = argparse.Namespace(leaderboard=[str(TIED)], shape=[], kernel=["prefill,decode"], config=config, configs=None)
    return attention_peers.plan(args)


class TestAttentionPeers:
    def test_each_group_gives_its_winner_though_the_file_lists_rank_2_first(self):
        items, skipped = plan()
        assert {(i["kernel"], i["shape"]): i["key"] for i in items} == {
            ("prefill", "fp16-d64-n1024"): "BLOCK_M=128,BLOCK_N=64", ("decode", "fp16-h32-kv8-n4096"): "NUM_SPLITS=8,DEC_THREADS=128"}
        assert items[0]["lb_median_ms"] == 0.100
        assert skipped == ["prefill / fp16-d256-small (%s): no ok configuration" % TIED]

    def test_config_takes_that_key_where_a_group_has_it(self):
        items, skipped = plan(config="BLOCK_M=128,BLOCK_N=128")
        assert [(i["shape"], i["key"]) for i in items] == [("fp16-d64-n1024", "BLOCK_M=128,BLOCK_N=128")]
        assert len(skipped) == 2

    def test_a_wrong_answer_is_never_taken(self):
        items, skipped = plan(config="BLOCK_M=256,BLOCK_N=64")
        assert items == [] and "no ok configuration BLOCK_M=256,BLOCK_N=64" in skipped[0]


class TestSimilarity:
    def test_the_winner_not_the_smallest_median(self):
        best = similarity_torch.best_configs([TIED])
        assert best[("prefill", "fp16-d64-n1024")]["key"] == "BLOCK_M=128,BLOCK_N=64"
        assert ("prefill", "fp16-d256-small") not in best

    def test_the_strategy_tables_of_the_committed_comparison(self):
        best = similarity_torch.best_configs([FAMILIES / "similarity_projected.json", FAMILIES / "similarity_others.json"])
        report = json.loads((FAMILIES / "compare" / "similarity_torch.json").read_text())
        for n in ("n8192", "n1024"):
            table = json.loads(json.dumps(similarity_torch.strategy_table(best, n)))  # int keys as JSON has them
            assert table == report[f"strategy_table_{n}"]
        projected = next(r for r in report["strategy_table_n8192"] if r["strategy"] == "4 projected")
        assert projected["time_ratio_12_over_1"] > 1

    @pytest.mark.attn_tune
    def test_the_inputs_are_attn_tunes_own_as_bench_emits_them(self, attn_tune_binary, tmp_path):
        # q [N, D] and wq [heads * head_dim, D] of a small shape, read back by the scripts' loader: the sizes the
        # shape gives, values in the ranges tuner/ops/similarity.cpp draws, and other data for another seed
        shape = "n70-m45-d32-h1"
        spec = "configs/similarity_small.json"
        m = attn_inputs.emit(attn_tune_binary, spec, "fused", shape, 1, tmp_path / "s1")
        assert m["operation"] == "similarity" and m["seed"] == 1
        one = attn_inputs.input_bytes(tmp_path / "s1", shape)
        assert list(one)[:4] == ["q", "k", "wq", "wk"]  # then the projected keys of keys_ahead shapes
        assert len(one["q"]) == 70 * 32 * 4 and len(one["k"]) == 45 * 32 * 4 and len(one["wq"]) == 16 * 32 * 4
        q = struct.unpack(f"<{70 * 32}f", one["q"])
        assert -1 <= min(q) and max(q) < 1 and abs(sum(q) / len(q)) < 0.1
        attn_inputs.emit(attn_tune_binary, spec, "fused", shape, 2, tmp_path / "s2")
        assert attn_inputs.input_bytes(tmp_path / "s2", shape)["q"] != one["q"]
        with pytest.raises(KeyError, match="no shape 'nope'"):
            attn_inputs.input_bytes(tmp_path / "s1", "nope")


class TestDeformable:
    def test_the_best_ranked_of_each_warp_split(self):
        # WARP_SPLIT=0,QPB=32 has the smallest median (0.049 ms) but rank 3: the WARP_SPLIT 0 pick is rank 1's
        assert deformable_torch.best_by_split([TIED]) == {"detr-small": {
            "best": "WARP_SPLIT=0,QPB=16", "split0": "WARP_SPLIT=0,QPB=16", "split": "WARP_SPLIT=2,QPB=16"}}

    def test_the_configurations_the_committed_comparison_timed(self):
        picks = deformable_torch.best_by_split([FAMILIES / "deformable_detr-p4.json"])
        report = json.loads((FAMILIES / "compare" / "deformable_torch.json").read_text())
        (row,) = report["results"]
        assert picks[row["shape"]] == {label: r["key"] for label, r in row["attn_tune"].items()}


class TestWindowLinear:
    def test_the_winner_of_each_shape(self, tmp_path):
        board = json.loads(TIED.read_text())
        board["groups"] = [g for g in board["groups"] if g["kernel"] != "deformable"]  # the attention groups
        (tmp_path / "attention.json").write_text(json.dumps(board))
        best = window_linear_torch.best_from_leaderboards([tmp_path / "attention.json"])
        by_shape = {(v["kernel"], v["config"]) for v in best.values()}
        assert by_shape == {("prefill", "BLOCK_M=128,BLOCK_N=64"), ("decode", "NUM_SPLITS=8,DEC_THREADS=128")}

    def test_the_join_the_committed_runs_made(self):
        for run in ("full", "rest"):
            d = RESULTS / "h200" / "hopper_ws" / run
            best = window_linear_torch.best_from_leaderboards([d / "flash_attn_fwd_ws.json.gz"])
            want = json.loads((d / "window_torch" / "window_linear_torch.json").read_text())["attn_tune_best"]
            assert {k: dict(v, file=None) for k, v in best.items()} == {k: dict(v, file=None) for k, v in want.items()}

    def test_in_window_pairs(self):
        # n = 4, w = 1: rows attend 2, 3, 3, 2 keys
        assert window_linear_torch.in_window_pairs(4, 1) == 10
        assert window_linear_torch.in_window_pairs(8192, 8192) == 8192 ** 2


class TestTheirTables:
    """The markdown each comparison writes from its JSON: the committed runs' .md files (titles aside, reworded since)."""

    def body(self, text):
        return text.splitlines()[1:]

    def test_similarity(self):
        report = json.loads((FAMILIES / "compare" / "similarity_torch.json").read_text())
        for name in ("strategy_table_n8192", "strategy_table_n1024"):
            for row in report[name]:  # the head counts, int keys before JSON made them strings
                row["pairs_per_s"] = {int(h): v for h, v in row["pairs_per_s"].items()}
        md = similarity_torch.markdown(report)
        assert self.body(md) == self.body((FAMILIES / "compare" / "similarity_torch.md").read_text())
        assert "| 4 projected |" in md

    def test_deformable(self):
        report = json.loads((FAMILIES / "compare" / "deformable_torch.json").read_text())
        md = deformable_torch.markdown(report)
        assert self.body(md) == self.body((FAMILIES / "compare" / "deformable_torch.md").read_text())
        assert "| detr-p4 |" in md

    def test_window_linear(self):
        d = RESULTS / "h200" / "hopper_ws" / "full" / "window_torch"
        doc = json.loads((d / "window_linear_torch.json").read_text())
        md = window_linear_torch.markdown(doc["meta"], doc["results"], doc["attn_tune_best"])
        assert md == (d / "window_linear_torch.md").read_text()
