#!/usr/bin/env python3
"""scripts/compare/attention_peers.py --configs (a configuration per shape), on a committed leaderboard, no GPU.

The shape the file names gets that configuration, the others their group's best, and a key the group lacks
leaves the shape out with the key in the reason.
"""
import argparse
import json
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "compare"))
import attention_peers  # noqa: E402

LEADERBOARD = REPO / "results" / "h200" / "agreement" / "2026-11-25-pacing" / "wgmma_anchor.json"
SHAPES = ["fp16-d128-n16384-causal", "bf16-d64-n4096"]


def ok_keys(shape):
    g = next(g for g in json.loads(LEADERBOARD.read_text())["groups"] if g["shape"] == shape)
    return [e["key"] for e in sorted((e for e in g["entries"] if e["status"] == "ok"), key=lambda e: e["rank"])]


def plan(configs):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(configs, f)
        f.flush()
        args = argparse.Namespace(leaderboard=[str(LEADERBOARD)], shape=[",".join(SHAPES)], kernel=[], config=None,
                                  configs=f.name)
        return attention_peers.plan(args)


class ConfigsPerShape(unittest.TestCase):
    def test_the_named_shape_gets_its_configuration_the_others_their_best(self):
        second = ok_keys(SHAPES[0])[1]
        items, skipped = plan({SHAPES[0]: second})
        self.assertEqual(skipped, [])
        keys = {i["shape"]: i["key"] for i in items}
        self.assertEqual(keys, {SHAPES[0]: second, SHAPES[1]: ok_keys(SHAPES[1])[0]})
        self.assertNotEqual(second, ok_keys(SHAPES[0])[0])

    def test_a_key_the_group_lacks_leaves_the_shape_out_and_says_which(self):
        items, skipped = plan({SHAPES[1]: "BLOCK_M=7"})
        self.assertEqual([i["shape"] for i in items], [SHAPES[0]])
        self.assertEqual(len(skipped), 1)
        self.assertIn(SHAPES[1], skipped[0])
        self.assertIn("BLOCK_M=7", skipped[0])


if __name__ == "__main__":
    unittest.main()
