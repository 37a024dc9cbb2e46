#!/usr/bin/env python3
"""scripts/bench/ncu_compare.py on Nsight Compute reports of real runs (results/h200/hopper_ws/2026-11-28-ncu-peers/:
attn-tune's winner beside cuDNN's kernel, each profiled several times), no GPU needed.

  python3 -m pytest tests/scripts/test_ncu_compare.py
"""
import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
import ncu_compare  # noqa: E402

PEERS = ROOT / "results" / "h200" / "hopper_ws" / "2026-11-28-ncu-peers"
STALLS = ROOT / "results" / "h200" / "hopper_ws" / "2026-11-28-ncu-stalls"  # the same, with NCU_STALLS=1


def rows(markdown):
    """{row name: [cells]} of the table"""
    out = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) > 1:
            out[cells[0]] = cells[1:]
    return out


class ARealReportOfTwoKernels(unittest.TestCase):
    def setUp(self):
        self.kernels = ncu_compare.parse(PEERS / "fp16-d128-n1024.log")

    def test_each_kernel_once_in_report_order_though_each_was_profiled_several_times(self):
        self.assertEqual([k["name"][:20] for k in self.kernels], ["flash_attn_fwd_ws", "cudnn_generated_fort"])

    def test_its_metrics_and_launch(self):
        ours, cudnn = self.kernels
        self.assertEqual(ncu_compare.value(ours, "Elapsed Cycles"), 419529)
        self.assertEqual(ncu_compare.value(cudnn, "Elapsed Cycles"), 381154)
        self.assertEqual(ncu_compare.value(ours, "Registers Per Thread"), 168)
        self.assertEqual((ours["grid"], ours["block"]), ((132, 1, 1), (384, 1, 1)))
        self.assertEqual(ours["busiest"], ("tensor", 61.0))
        self.assertEqual(cudnn["busiest"], ("tensor", 67.1))

    def test_the_table_divides_by_the_first_kernel(self):
        t = rows(ncu_compare.table(self.kernels))
        self.assertEqual(t["elapsed cycles"], ["419,529", "381,154"])
        self.assertEqual(t["elapsed cycles / first"], ["1.00", "0.91"])
        # 381,154 x 1.63 / (419,529 x 1.76)
        self.assertEqual(t["instructions / first"], ["1.00", "0.84"])
        self.assertEqual(t["grid x block"], ["132 x 384", "132 x 384"])


class StallReasons(unittest.TestCase):
    def test_each_reason_is_a_row_the_first_kernels_largest_first(self):
        t = rows(ncu_compare.table(ncu_compare.parse(STALLS / "fp16-d128-n1024.log")))
        stalls = [name for name in t if name.startswith("stall: ")]
        self.assertEqual(stalls[0], "stall: wait (warps per issued instruction)")
        self.assertEqual(t["stall: wait (warps per issued instruction)"], ["1.29", "0.90"])
        self.assertEqual(t["stall: barrier (warps per issued instruction)"], ["0.66", "1.54"])
        # under 0.05 for both kernels (0.00 / 0.00 in the report): left out
        self.assertNotIn("stall: sleeping (warps per issued instruction)", t)
        self.assertEqual(len(stalls), 12)

    def test_a_report_without_them_has_no_stall_rows(self):
        t = rows(ncu_compare.table(ncu_compare.parse(PEERS / "fp16-d128-n1024.log")))
        self.assertFalse([name for name in t if name.startswith("stall")])


class Units(unittest.TestCase):
    def test_durations_in_ms_and_us_are_put_in_one_unit(self):
        # attn-tune's D = 256 kernel is reported in ms, cuDNN's in us
        t = rows(ncu_compare.table(ncu_compare.parse(PEERS / "d256" / "fp16-d256-n4096.log")))
        self.assertEqual(t["duration (us)"], ["1,080", "977.8"])
        self.assertEqual(t["grid x block"][0], "32x8x4 x 384")


class BadInput(unittest.TestCase):
    def test_a_file_without_a_kernel_report_is_named_in_the_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write("==PROF== Disconnected\n")
            f.flush()
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stdout(io.StringIO()):
                ncu_compare.main([f.name])
            self.assertIn(f.name, str(e.exception.code))

    def test_a_metric_missing_from_one_kernel_is_a_dash(self):
        report = ("  a (1, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
                  "    Elapsed Cycles                cycle      1,000\n"
                  "    Executed Ipc Elapsed  inst/cycle         2.00\n"
                  "  b (2, 1, 1)x(128, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
                  "    Elapsed Cycles                cycle      500\n")
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(report)
            f.flush()
            t = rows(ncu_compare.table(ncu_compare.parse(f.name)))
        self.assertEqual(t["elapsed cycles / first"], ["1.00", "0.50"])
        self.assertEqual(t["instructions per SM (cycles x IPC)"], ["2,000", "-"])
        self.assertEqual(t["instructions / first"], ["1.00", "-"])


if __name__ == "__main__":
    unittest.main()
