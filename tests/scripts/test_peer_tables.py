#!/usr/bin/env python3
"""The tables over the comparison script's results (scripts/compare/peer_tables.py, batch_invariance.py) and
the device state attention_peers.py keeps per implementation, on the files of real H200 runs, no GPU."""
import json
import math
import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "compare"))
import attention_peers  # noqa: E402
import batch_invariance  # noqa: E402
import peer_tables  # noqa: E402

RUNS = REPO / "results" / "h200" / "hopper_ws"
WAVES = RUNS / "2026-12-01-wave_quantization"
CLOCKS = RUNS / "2026-12-01-power_cap_ratio" / "below"


class Waves(unittest.TestCase):
    def setUp(self):
        self.run = peer_tables.load(WAVES / "peers_winners")
        self.rows = {w["shape"]: w for w in peer_tables.wave_rows(self.run)}

    def test_items_and_rounds_of_the_shapes(self):
        # 132 SMs; 128-row items: 33 * 2 * 32 = 2112 = 16 rounds exactly, 8 * 16 * 16 = 2048 the anchor's count
        self.assertEqual(self.run["meta"]["sm_count"], 132)
        self.assertEqual(self.rows["fp16-d128-n4096-b1-h66"]["items"], 2112)
        self.assertAlmostEqual(self.rows["fp16-d128-n4096-b1-h66"]["rounds"], 16.0)
        self.assertEqual(self.rows["fp16-d128-n1024-b16-h16"]["items"], 2048)
        self.assertEqual(self.rows["fp16-d256-n4096-b1-h33"]["items"], 1056)

    def test_times_are_relative_to_the_first_shape_of_each_series(self):
        for first in ("fp16-d128-n4096-b1-h60", "fp16-d128-n1024-b16-h16", "fp16-d256-n4096-b1-h32"):
            self.assertEqual(self.rows[first]["relative"], [1.0, 1.0, 1.0, 1.0])
        r60, r64 = self.rows["fp16-d128-n4096-b1-h60"], self.rows["fp16-d128-n4096-b1-h64"]
        per_item = (r64["ms"] / 2048) / (r60["ms"] / 1920)
        per_round = (r64["ms"] / 16) / (r60["ms"] / 15)
        self.assertAlmostEqual(r64["relative"][1], per_item)
        self.assertAlmostEqual(r64["relative"][0], per_round)
        self.assertAlmostEqual(r64["relative"][3], (r64["cudnn_ms"] / 2048) / (r60["cudnn_ms"] / 1920))

    def test_the_table_carries_the_scripts_ratio(self):
        table = peer_tables.waves([WAVES / "peers_winners", WAVES / "peers_other"])
        row = next(r for r in self.run["rows"] if r["shape"] == "fp16-d128-n4096-b1-h66")
        line = next(l for l in table.splitlines() if l.startswith("| fp16-d128-n4096-b1-h66 | persistent"))
        self.assertIn(f"| {row['peers']['cuDNN']['attn_tune_speedup']:.3f} |", line)
        self.assertEqual(table.count("| fp16-d128-n4096-b1-h66 |"), 2)  # one per run


class Clocks(unittest.TestCase):
    def test_both_runs_side_by_side(self):
        boost, capped = (peer_tables.load(CLOCKS / r) for r in ("boost", "capped"))
        table = peer_tables.clocks(CLOCKS / "boost", CLOCKS / "capped").splitlines()
        rows = [l for l in table if l.startswith("| fp16") or l.startswith("| bf16")]
        self.assertEqual(len(rows), len(boost["rows"]))
        b = next(r for r in boost["rows"] if r["shape"] == "fp16-d128-n4096")
        c = next(r for r in capped["rows"] if r["shape"] == "fp16-d128-n4096")
        line = next(l for l in rows if l.startswith("| fp16-d128-n4096 |"))
        cells = [x.strip() for x in line.strip("|").split("|")]
        self.assertEqual(cells[1], f"{b['peers']['cuDNN']['attn_tune_speedup']:.3f}")
        self.assertEqual(cells[4], f"{c['peers']['cuDNN']['attn_tune_speedup']:.3f}")
        self.assertEqual(cells[2], f"{b['attn_tune']['sm_mhz']:.0f} / {b['peers']['cuDNN']['sm_mhz']:.0f}")


class DeviceState(unittest.TestCase):
    def test_median_of_what_nvml_read(self):
        into = {}
        attention_peers.add_device_state(into, [{"sm_mhz": 1980, "watts": 300.0}, {"sm_mhz": None, "watts": 500.0},
                                                {"sm_mhz": 1600, "watts": 400.0}])
        self.assertEqual(into, {"sm_mhz": 1790.0, "watts": 400.0})

    def test_nothing_when_nvml_read_nothing(self):
        into = {}
        attention_peers.add_device_state(into, [{"sm_mhz": None}, {}])
        self.assertEqual(into, {})


class BatchInvariance(unittest.TestCase):
    def test_the_committed_run_and_a_difference(self):
        d = json.loads((WAVES / "batch_invariance" / "batch_invariance.json").read_text())
        md = batch_invariance.render(d["meta"], d["rows"])
        self.assertEqual(md.count("| cuDNN |"), 4)
        self.assertNotIn("differ", md)
        row = dict(d["rows"][0], batches={"1": {"equal": False, "elements_differing": 7, "elements": 10,
                                                "max_abs_diff": math.ldexp(1, -11)}})
        md = batch_invariance.render(d["meta"], [row])
        self.assertIn("7 differ (max 0.000488)", md)


if __name__ == "__main__":
    unittest.main()
