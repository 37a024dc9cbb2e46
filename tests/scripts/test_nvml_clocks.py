"""scripts/compare/nvml_clocks.py where NVML is missing (CI): every reading is None, not zero (docs/timing.md)."""
import ctypes

import pytest

import nvml_clocks
from helpers import run_script


def no_nvml():
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return True
    return False


@pytest.mark.skipif(not no_nvml(), reason="this machine has NVML: its readings are real numbers")
def test_without_nvml_the_readings_are_none():
    clock = nvml_clocks.SmClock()
    assert (clock.mhz(), clock.max_mhz(), clock.watts()) == (None, None, None)
    p = run_script("compare/nvml_clocks.py")
    assert (p.returncode, p.stdout) == (0, "SM None MHz (max None), None W\n")
