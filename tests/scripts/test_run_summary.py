"""scripts/gpu/run_summary.py, head_dims.sh's summary.md, on the committed head-dims run: the status counts of each
leaderboard are those the committed summary.md recorded, and each group's winner is its rank 1."""
import ast
import shutil

import leaderboards
import run_summary
from helpers import RESULTS

RUN = RESULTS / "h200" / "head_dims"


def sections(text):
    """{file name: the section's lines}"""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            name = line[3:]
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def test_the_status_counts_of_the_committed_summary():
    got, committed = sections(run_summary.summary(str(RUN))), sections((RUN / "summary.md").read_text())
    assert set(committed) <= set(got)  # the summary was written before the second call's decode sweep
    for name, lines in committed.items():
        assert ast.literal_eval(got[name][1]) == ast.literal_eval(lines[1]), name
    assert ast.literal_eval(got["flash_attn_decode.json"][1]) == {"skipped": 36, "ok": 468}  # the README's counts


def test_the_winners_tables_leave_out_the_correctness_sweeps():
    got = sections(run_summary.summary(str(RUN)))
    assert not any(line.startswith("| ") for line in got["flash_attn_fwd_head_dims.json"])
    board = leaderboards.load(RUN / "flash_attn_fwd_wgmma.json")
    rows = [line for line in got["flash_attn_fwd_wgmma.json"] if line.startswith("| prefill_wgmma")]
    assert rows == [f"| {k} | {s} | {e['key']} | {leaderboards.median_ms(e)} |"
                    for (k, s), e in leaderboards.winners(board).items()]
    assert len(rows) == 16


def test_a_cut_leaderboard_is_named_and_other_json_left_out(tmp_path):
    shutil.copy(RUN / "flash_attn_fwd.json", tmp_path)
    (tmp_path / "partial.json").write_text('{"groups": [')
    (tmp_path / "bench.json").write_text("[]")
    text = run_summary.summary(str(tmp_path))
    assert "- partial.json: unreadable (" in text
    assert "bench.json" not in text and "## flash_attn_fwd.json" in text
