"""scripts/compare/peer_tables.py from the command line, as wave_quantization.sh and power_cap_ratio.sh run it: the
rows of the tables those runs committed (their headings have been reworded since)."""
from helpers import RESULTS, run_script

RUNS = RESULTS / "h200" / "hopper_ws"


def rows(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def test_waves_gives_the_committed_rows():
    d = RUNS / "2026-12-01-wave_quantization"
    p = run_script("compare/peer_tables.py", "waves", d / "peers_winners", d / "peers_other")
    assert p.returncode == 0, p.stderr
    assert rows(p.stdout) == rows((d / "waves.md").read_text())


def test_clocks_gives_the_committed_rows():
    d = RUNS / "2026-12-01-power_cap_ratio" / "below"
    p = run_script("compare/peer_tables.py", "clocks", d / "boost", d / "capped")
    assert p.returncode == 0, p.stderr
    assert rows(p.stdout) == rows((d / "summary.md").read_text())


def test_a_wrong_command_is_a_usage_error():
    p = run_script("compare/peer_tables.py", "clocks", "only-one-folder")
    assert p.returncode == 2 and "usage:" in p.stderr
