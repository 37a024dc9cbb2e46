"""scripts/compare/agreement_clocks.py on the agreement run of 2026-11-27 (the two harnesses in turns): the table
and counts it prints are the run's agreement.md (whose first line is the heading agreement.sh adds)."""
import agreement_clocks
from helpers import RESULTS, run_script

RUN = RESULTS / "h200" / "agreement" / "2026-11-27-turns"


def test_the_runs_agreement_md():
    p = run_script("compare/agreement_clocks.py", RUN, RUN / "turns" / "attention_peers.json")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "".join((RUN / "agreement.md").read_text().splitlines(keepends=True)[1:])
    assert "within 3%: 19 of 20" in p.stdout


def test_the_leaderboards_entries_by_kernel_shape_and_key():
    e = agreement_clocks.entries_by_key(RUN)
    assert len({(k, s) for k, s, _ in e}) == 20  # 15 prefill and 5 decode anchors
    assert all(x["status"] == "ok" for x in e.values())
