"""scripts/bench/search_bench.py's pure parts on the committed strategy benchmark (results/search/table.json): the
recorded spaces it takes from the leaderboards, their budgets, the quartiles and Kernel Tuner's cache file. The
strategies' runs (attn-tune replay, Kernel Tuner) are not run here."""
import json
import shlex

import pytest

import search_bench
from helpers import REPO, RESULTS

TABLE = json.loads((RESULTS / "search" / "table.json").read_text())


@pytest.fixture
def spaces(monkeypatch):
    monkeypatch.chdir(REPO)  # the table records the files relative to the repository
    files = [a for a in shlex.split(TABLE["command"])[1:] if a.endswith(".json")]
    # The large recorded space is gzipped since the table was made (results/h200/large/README.md).
    files = [a if (REPO / a).exists() else a + ".gz" for a in files]
    return search_bench.select_spaces(files, 40, 2, TABLE["large"])


def test_the_spaces_and_budgets_of_the_committed_table(spaces):
    assert [(s["label"], s["file"].removesuffix(".gz"), s["size"]) for s in spaces] == [
        (s["label"], s["file"], s["size"]) for s in TABLE["spaces"]]
    assert [search_bench.budget_of(s, TABLE["budget_fraction"], TABLE["large"]) for s in spaces] == [
        s["budget"] for s in TABLE["spaces"]]
    large = [s for s in spaces if s["size"] >= TABLE["large"]]
    assert len(large) == 4 and all(search_bench.budget_of(s, 0.1, TABLE["large"]) == 202 for s in large)


def test_the_target_is_the_fastest_recorded_median(spaces):
    g = spaces[0]["group"]
    costs = [search_bench.cost(e) for e in g["entries"]]
    assert min(c for c in costs if c is not None) == min(e["timing"]["median_ms"] for e in g["entries"] if e["status"] == "ok")


def test_quartiles_leave_unreached_runs_out():
    assert search_bench.quartiles([1, 2, 3, 4, 5]) == {"q1": 2, "median": 3, "q3": 4, "reached": 5}
    q = search_bench.quartiles([1, 2, None, None, None])
    assert (q["q1"], q["median"], q["q3"], q["reached"]) == (2, None, None, 2)
    assert search_bench.cell(q) == "- (2--)"


def test_the_kernel_tuner_cache_of_a_space(spaces, tmp_path):
    space = spaces[0]
    names, values, recorded = search_bench.kt_cache(space, tmp_path / "cache.json")
    cache = json.loads((tmp_path / "cache.json").read_text())
    assert cache["tune_params_keys"] == names == search_bench.param_names(space["group"])
    assert len(recorded) == len(cache["cache"]) == space["size"]
    ok = [e for e in space["group"]["entries"] if e["status"] == "ok"]
    key = ",".join(str(dict(ok[0]["params"])[n]) for n in names)
    assert cache["cache"][key]["time"] == ok[0]["timing"]["median_ms"]
