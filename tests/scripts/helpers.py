"""Paths and a runner the tests of scripts/ share (conftest.py puts the scripts' folders on sys.path)."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
RESULTS = REPO / "results"
DATA = Path(__file__).resolve().parent / "data"


def run_script(script, *args, cwd=REPO, **kwargs):
    """python3 scripts/SCRIPT ARGS... with the interpreter running the tests; its CompletedProcess, output as text."""
    return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, **kwargs)
