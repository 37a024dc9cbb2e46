"""Every script in scripts/ answers --help: exit 0, its usage on stdout, nothing on stderr, before any work.

The scripts are found by globbing scripts/, so a new script without --help fails here. Shell scripts run with a PATH
that holds nothing but bash and awk (what the help guard uses): a script that went on to work, build or reach a GPU
would fail on a missing command and say so on stderr. Python scripts run as they are: their --help must not import
torch, cupy or numpy (none of which CI installs).
"""
import os
import shutil
import subprocess
import sys

import pytest

from helpers import REPO, SCRIPTS

SHELL = sorted(p for p in SCRIPTS.rglob("*") if p.suffix in (".sh", ".sbatch"))
PYTHON = sorted(SCRIPTS.rglob("*.py"))


def test_the_glob_finds_the_scripts():
    # a wrong glob would pass every parametrized test below by finding nothing
    assert len(SHELL) >= 30 and SCRIPTS / "gpu" / "hopper_ws.sh" in SHELL
    assert len(PYTHON) >= 20 and SCRIPTS / "lib" / "leaderboards.py" in PYTHON


@pytest.fixture(scope="module")
def bare_path(tmp_path_factory):
    """A folder with links to bash and awk only, for PATH."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for tool in ("bash", "awk"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    return str(bin_dir)


def check_usage(p, script):
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    # the usage names the script: argparse's "usage: NAME", the shell scripts' opening comment its command line
    assert script.name in p.stdout, p.stdout


@pytest.mark.parametrize("script", SHELL, ids=lambda p: str(p.relative_to(SCRIPTS)))
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_shell_script_prints_its_usage(script, flag, bare_path, tmp_path):
    p = subprocess.run([shutil.which("bash"), str(script), flag], cwd=tmp_path, capture_output=True, text=True,
                       env={"PATH": bare_path, "HOME": str(tmp_path)}, timeout=30)
    check_usage(p, script)
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("script", PYTHON, ids=lambda p: str(p.relative_to(SCRIPTS)))
def test_python_script_prints_its_usage(script, tmp_path):
    p = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), timeout=30)
    check_usage(p, script)
    assert p.stdout.startswith("usage: ")
    assert list(tmp_path.iterdir()) == []


def test_a_sourced_script_returns_to_its_shell():
    # setup.sh is sourced for its ATTN_TUNE: --help there must not end the shell that sourced it
    p = subprocess.run(["bash", "-c", f"source {SCRIPTS / 'gpu' / 'setup.sh'} --help > /dev/null; echo after"],
                       cwd=REPO, capture_output=True, text=True, timeout=30)
    assert p.stdout == "after\n"


def test_lib_sh_run_rather_than_sourced_prints_its_usage_and_fails_without_help():
    p = subprocess.run(["bash", str(SCRIPTS / "gpu" / "lib.sh")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "sourced (never run)" in p.stdout
