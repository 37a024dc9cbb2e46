#!/usr/bin/env python3
"""scripts/gpu/recheck_files.py on the files of real H200 runs (results/h200/hopper_ws/), no GPU.

1. copy: the sustained copy of a leaderboard keeps the named shapes' groups, changes only the timing
   settings, and names a shape the leaderboard lacks.
2. winners: on the re-timing of 2026-11-29 the D = 256 winners at the sustained clock are the BLOCK_N 80
   configurations the run reported, the three shapes where another configuration is 1% faster are the
   ones listed for the peers, none where the recorded winner held (all with --all), and winners.md is the
   table the GPU machine wrote.
3. compare: the experiment's table is the one the GPU machine wrote, its title aside.
"""
import gzip
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gpu" / "recheck_files.py"
RUNS = REPO / "results" / "h200" / "hopper_ws"
REST = RUNS / "sustained_recheck" / "rest"
QUICK = RUNS / "sustained_recheck" / "quick"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


class Copy(unittest.TestCase):
    def test_keeps_the_named_groups_and_changes_only_the_timing(self):
        source = RUNS / "2026-11-29-rest" / "flash_attn_fwd_ws.json.gz"
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "s.json"
            p = run("copy", source, "fp16-d256-n4096,fp16-d128-n16384", out, 1.5, 0.4)
            self.assertEqual(p.returncode, 0, p.stderr)
            before = json.load(gzip.open(source, "rt"))
            after = json.loads(out.read_text())
        self.assertEqual([g["shape"] for g in after["groups"]],
                         [g["shape"] for g in before["groups"] if g["shape"] in ("fp16-d256-n4096", "fp16-d128-n16384")])
        self.assertEqual(len(after["groups"]), 2)
        t = after["settings"]["timing"]
        self.assertEqual((t["warmup_s"], t["max_time_s"], t["min_samples"]), (1.5, 0.4, 20))
        for k, v in before["settings"]["timing"].items():
            if k not in ("warmup_s", "max_time_s", "min_samples"):
                self.assertEqual(t[k], v, k)
        self.assertEqual({k: v for k, v in after.items() if k not in ("groups", "settings")},
                         {k: v for k, v in before.items() if k not in ("groups", "settings")})

    def test_a_shape_the_leaderboard_lacks_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = run("copy", RUNS / "2026-11-29-rest" / "flash_attn_fwd_ws.json.gz", "fp16-d256-n4096,fp16-d512-n1",
                    Path(tmp) / "s.json", 1.5, 0.4)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("fp16-d512-n1", p.stderr)
            self.assertFalse((Path(tmp) / "s.json").exists())


class Winners(unittest.TestCase):
    def winners(self, log, *extra):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        p = run("winners", log, tmp.name, *extra)
        self.assertEqual(p.returncode, 0, p.stderr)
        d = Path(tmp.name)
        return (json.loads((d / "winners.json").read_text()), (d / "changed.txt").read_text().split("\n")[:-1],
                (d / "winners.md").read_text())

    def test_the_sustained_winners_of_a_real_run(self):
        keys, changed, table = self.winners(REST / "recheck.log")
        self.assertEqual(set(keys), {"fp16-d128-n16384", "fp16-d256-n4096", "fp16-d256-n4096-causal"})
        self.assertIn("BLOCK_N=80,", keys["fp16-d256-n4096"])
        self.assertIn("OVERLAP=0,", keys["fp16-d256-n4096"])
        self.assertIn("PERSISTENT=1,", keys["fp16-d256-n4096-causal"])
        self.assertIn("PINGPONG=1,", keys["fp16-d128-n16384"])
        self.assertEqual(changed, [f"{s} {keys[s]}" for s in keys])
        self.assertEqual(table, (REST / "winners.md").read_text())

    def test_no_comparison_where_the_recorded_winner_held_unless_asked(self):
        keys, changed, table = self.winners(QUICK / "recheck.log")
        self.assertEqual(len(keys), 4)
        self.assertEqual(changed, [])
        self.assertEqual(table, (QUICK / "winners.md").read_text())
        _, every, _ = self.winners(QUICK / "recheck.log", "--all")
        self.assertEqual(every, [f"{s} {keys[s]}" for s in keys])

    def test_a_log_with_nothing_re_timed_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "recheck.log"
            log.write_text("re-timing x.json on NVIDIA H200 (cuda:0), timing policy cold\n")
            p = run("winners", log, tmp)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("no re-timed configuration", p.stderr)


class Compare(unittest.TestCase):
    def test_the_table_of_a_real_experiment(self):
        d = RUNS / "d256_persistent"
        p = run("compare", d / "sustained_recheck" / "recheck.log", d / "experiment.json")
        self.assertEqual(p.returncode, 0, p.stderr)
        body = lambda text: [l for l in text.splitlines() if l.startswith("|")]
        self.assertEqual(body(p.stdout), body((d / "compare.md").read_text()))
        self.assertIn("| fp16-d256-n4096-causal | 0.5715 | 0.5297 | 1: 1.079 |", p.stdout)


if __name__ == "__main__":
    unittest.main()
