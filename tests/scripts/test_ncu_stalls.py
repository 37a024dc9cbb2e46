#!/usr/bin/env python3
"""scripts/bench/ncu_stalls.py --mix on the SASS listings of a real run (results/h200/hopper_ws/2026-11-28-ncu-stalls/:
attn-tune's D = 128 winner and cuDNN's kernel, profiled in one process), no GPU needed.

  python3 -m pytest tests/scripts/test_ncu_stalls.py
"""
import contextlib
import io
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
import ncu_stalls  # noqa: E402

RUN = ROOT / "results" / "h200" / "hopper_ws" / "2026-11-28-ncu-stalls"


def mix_rows():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ncu_stalls.main([str(RUN / "sass_attn_tune.log.gz"), str(RUN / "sass_cudnn.log.gz"), "--mix", "--top", "40"])
    rows = {}
    for line in out.getvalue().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


class InstructionMixOfTwoKernels(unittest.TestCase):
    def setUp(self):
        self.rows = mix_rows()

    def test_the_totals_and_their_ratio(self):
        self.assertEqual(self.rows["all"], ["106,488,536", "81,775,859", "0.77"])

    def test_math_by_full_name_flush_to_zero_folded(self):
        # one ex2 per probability in both kernels; cuDNN's FMUL.FTZ counted as FMUL
        self.assertEqual(self.rows["MUFU.EX2"], ["8,716,288", "8,650,752", "0.99"])
        self.assertEqual(self.rows["FMUL"][1], "18,088,992")
        self.assertNotIn("FMUL.FTZ", self.rows)

    def test_an_opcode_only_the_first_kernel_executes(self):
        # the polling loops' YIELD and P V's n64 pieces: attn-tune's only
        self.assertEqual(self.rows["YIELD"], ["3,287,394", "0", "0.00"])
        self.assertEqual(self.rows["HGMMA.64x64x16.F32"], ["2,097,152", "0", "0.00"])


if __name__ == "__main__":
    unittest.main()
