#!/usr/bin/env python3
"""The SM clock of one GPU through NVML (libnvidia-ml.so.1, loaded with ctypes as attn-tune loads it).

No Python package is needed; where NVML is missing the clock reads as None (not zero), as in
attn-tune's results (docs/timing.md). attention_peers.py imports SmClock; run alone, it prints one
reading:

  python3 scripts/compare/nvml_clocks.py [--index N]
"""
import argparse
import ctypes

NVML_CLOCK_SM = 1


class SmClock:
    def __init__(self, uuid=None, index=0):
        self.lib, self.handle = None, ctypes.c_void_p()
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
        except OSError:
            return
        if lib.nvmlInit_v2() != 0:
            return
        # the CUDA device's UUID names the same GPU in NVML; the index order may differ
        if not (uuid and lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(self.handle)) == 0):
            if lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self.handle)) != 0:
                return
        self.lib = lib

    def mhz(self):
        """The SM clock now, in MHz, or None without NVML."""
        if self.lib is None:
            return None
        c = ctypes.c_uint()
        return c.value if self.lib.nvmlDeviceGetClockInfo(self.handle, NVML_CLOCK_SM, ctypes.byref(c)) == 0 else None

    def watts(self):
        """The board's power draw now, in W (NVML averages it over about a second), or None without NVML."""
        if self.lib is None:
            return None
        mw = ctypes.c_uint()
        return mw.value / 1000 if self.lib.nvmlDeviceGetPowerUsage(self.handle, ctypes.byref(mw)) == 0 else None

    def max_mhz(self):
        if self.lib is None:
            return None
        c = ctypes.c_uint()
        return c.value if self.lib.nvmlDeviceGetMaxClockInfo(self.handle, NVML_CLOCK_SM, ctypes.byref(c)) == 0 else None


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=int, default=0, help="NVML's index of the GPU")
    clock = SmClock(index=ap.parse_args().index)
    print(f"SM {clock.mhz()} MHz (max {clock.max_mhz()}), {clock.watts()} W")
