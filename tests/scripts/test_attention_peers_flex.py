#!/usr/bin/env python3
"""scripts/compare/attention_peers.py's flex_attention peer, without a GPU.

  python3 -m pytest tests/scripts/test_attention_peers_flex.py

1. Its mask (`attends`: flex_attention's mask_mod and the script's float64 reference both use it) keeps exactly the (query, key) pairs attn-tune's operation keeps:
   bottom-right aligned rows, causal up to the row's position, a window of W on both sides.
2. It is a peer the script's --peers accepts, with its own attn-tune/flex column, and it runs on window shapes only.
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "compare"))
import attention_peers  # noqa: E402


def kept(nq, nkv, causal=0, window=0):
    s = {"Nq": nq, "Nkv": nkv, "causal": causal, "window": window}
    return {(i, j) for i in range(nq) for j in range(nkv) if attention_peers.attends(i, j, s)}


class TheFlexMaskIsAttnTunesOperation(unittest.TestCase):
    def test_no_flag_keeps_every_pair(self):
        self.assertEqual(len(kept(3, 5)), 15)

    def test_causal_rows_are_aligned_bottom_right(self):
        # 3 queries over 5 keys: the last query is at position 4 and sees every key, the first sees keys 0..2
        self.assertEqual(kept(3, 5, causal=1), {(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (1, 3),
                                                 (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)})

    def test_a_window_keeps_keys_within_w_on_both_sides(self):
        self.assertEqual({j for i, j in kept(8, 8, window=2) if i == 4}, {2, 3, 4, 5, 6})
        self.assertEqual({j for i, j in kept(8, 8, window=2) if i == 0}, {0, 1, 2})

    def test_causal_and_window_keep_the_last_w_keys_and_the_own(self):
        self.assertEqual({j for i, j in kept(4, 10, causal=1, window=3) if i == 1}, {4, 5, 6, 7})


class FlexIsAPeer(unittest.TestCase):
    def test_the_peers_option_names_it_and_the_table_has_its_ratio(self):
        self.assertEqual(attention_peers.PEER_KEYS["flex"], "flex")
        self.assertIn("flex", attention_peers.RATIO_PEERS)
        self.assertIn(("flex", "FLEX"), attention_peers.PEERS)

    def test_shapes_without_a_window_are_left_to_sdpa(self):
        fn, why = attention_peers.flex_call(None, {"Nq": 64, "Nkv": 64, "dtype": "f16", "causal": 1}, {})
        self.assertIsNone(fn)
        self.assertIn("window shapes only", why)

    def test_sinks_are_not_compared(self):
        fn, why = attention_peers.flex_call(None, {"Nq": 64, "Nkv": 64, "dtype": "f16", "window": 8, "sinks": 1}, {})
        self.assertIsNone(fn)
        self.assertIn("sinks", why)


if __name__ == "__main__":
    unittest.main()
