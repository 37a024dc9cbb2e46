"""pytest's setup for the tests of scripts/: the scripts' folders on sys.path (a test imports a script as a module,
as the scripts import each other), the attn_tune marker and its binary."""
import os
import sys

import pytest

from helpers import SCRIPTS

for folder in ("lib", "compare", "bench", "gpu"):
    if str(SCRIPTS / folder) not in sys.path:
        sys.path.insert(0, str(SCRIPTS / folder))


def pytest_configure(config):
    config.addinivalue_line("markers", "attn_tune: runs the built attn-tune binary named by ATTN_TUNE_BINARY "
                            "(tests/scripts/CMakeLists.txt sets it in CUDA builds)")


@pytest.fixture
def attn_tune_binary():
    """The attn-tune binary of the build; the test is skipped where ATTN_TUNE_BINARY is not set."""
    binary = os.environ.get("ATTN_TUNE_BINARY")
    if not binary:
        pytest.skip("ATTN_TUNE_BINARY is not set (a CUDA build's ctest sets it to its attn-tune)")
    return binary
