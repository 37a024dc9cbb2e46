#!/usr/bin/env python3
"""Unit tests of spec_fuzz.py: its mutators, its classification, its process handling and one end-to-end run
against a fake attn-tune, all without the real binary.

  python3 -m unittest discover -s tests/fuzz
"""

import io
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import textwrap
import time
import unittest
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spec_fuzz as fz  # noqa: E402

SPEC = {
    "attn_tune_spec": 1,
    "name": "toy",
    "sources": {"opencl": "../kernels/opencl/toy.cl"},
    "shapes": {"small": {"B": 1, "Nq": 64, "D": 32}},
    "kernels": {
        "toy": {
            "params": {"BLOCK_M": [16, 32]},
            "constraints": ["BLOCK_M <= max(Nq, 16)", "D % 8 == 0"],
            "launches": [{"grid": ["ceil_div(Nq, BLOCK_M)"], "block": ["BLOCK_M"]}],
        }
    },
}
TEXT = json.dumps(SPEC, indent=2)


def root() -> list:
    return [fz.parse(TEXT)]


def reparse(holder: list):
    return json.loads(fz.dump(holder[0]))


class Tree(unittest.TestCase):
    def test_dump_round_trips(self):
        self.assertEqual(reparse(root()), SPEC)

    def test_raw_text_is_spliced_verbatim(self):
        self.assertEqual(fz.dump(fz.Obj([("a", fz.Raw("1e400")), ("b", [fz.Raw("NaN")])])),
                         '{\n  "a": 1e400,\n  "b": [\n    NaN\n  ]\n}')

    def test_repeated_keys_are_written(self):
        self.assertEqual(fz.dump(fz.Obj([("k", 1), ("k", 2)])).count('"k"'), 2)

    def test_slots_include_the_root_and_every_leaf(self):
        paths = [path for _, _, path in fz.slots(root())]
        self.assertIn("$", paths)
        self.assertIn("$.kernels.toy.params.BLOCK_M[1]", paths)
        self.assertIn("$.shapes.small.D", paths)


class Mutators(unittest.TestCase):
    def test_replace_puts_one_of_the_replacements(self):
        for seed in range(200):
            holder = root()
            note = fz.replace_value(holder, random.Random(seed))
            self.assertTrue(note.startswith("replace $"), note)
            self.assertNotEqual(fz.dump(holder[0]), fz.dump(root()[0]), note)

    def test_replacements_cover_huge_numbers_raw_tokens_and_type_changes(self):
        texts = {fz.label(v) for v in fz.replacements(64)}
        for wanted in ("9223372036854775808", "18446744073709551616", "-9223372036854775808", "1e400", "-1e999",
                       "NaN", "Infinity", '"64"', '""', "[]", "{}", '"../../../evil"'):
            self.assertIn(wanted, texts)
        self.assertIn(42, fz.replacements("text"))
        self.assertIn(42, fz.replacements(fz.Obj()))
        self.assertNotIn(42, fz.replacements(64))
        long_paths = [v for v in fz.replacements(1) if isinstance(v, str) and len(v) >= fz.LONG and v.startswith("../")]
        self.assertEqual(len(long_paths), 1)

    def test_replacements_are_fresh_containers(self):
        first, second = ([v for v in fz.replacements(1) if isinstance(v, list)] for _ in range(2))
        self.assertEqual(len(first), 2)  # [] and {}
        for a, b in zip(first, second):
            self.assertIsNot(a, b)

    def test_delete_removes_a_key(self):
        holder = root()
        note = fz.delete_key(holder, random.Random(1))
        self.assertTrue(note.startswith("delete $."), note)
        self.assertNotEqual(reparse(holder), SPEC)

    def test_delete_and_duplicate_need_an_object(self):
        self.assertIsNone(fz.delete_key([[1, 2]], random.Random(0)))
        self.assertIsNone(fz.duplicate_key([[1, 2]], random.Random(0)))

    def test_duplicate_repeats_a_key(self):
        holder = [fz.parse('{"only": 1}')]
        note = fz.duplicate_key(holder, random.Random(0))
        self.assertTrue(note.startswith("duplicate $.only"), note)
        self.assertEqual(fz.dump(holder[0]).count('"only"'), 2)

    def test_nest_is_deep(self):
        holder = root()
        fz.nest_deep(holder, random.Random(3))
        text = fz.dump(holder[0])
        self.assertIn("[" * fz.DEPTH + "]" * fz.DEPTH, text)

    def test_expression_only_touches_expressions(self):
        for seed in range(100):
            holder = root()
            note = fz.replace_expression(holder, random.Random(seed))
            self.assertRegex(note, r"^expression \$\.kernels\.toy\.(constraints|launches)")
            self.assertEqual(reparse(holder)["sources"], SPEC["sources"])

    def test_expression_keeps_the_names_it_used(self):
        values = set()
        for seed in range(300):
            holder = [fz.parse('{"c": ["ceil_div(Nq, BLOCK_M)"]}')]
            fz.replace_expression(holder, random.Random(seed))
            values.add(reparse(holder)["c"][0])
        self.assertIn("Nq % 0", values)  # a name, never the function's
        self.assertIn("x % 0", values)
        self.assertIn("-9223372036854775808 / -1", values)
        self.assertIn("(ceil_div(Nq, BLOCK_M)) / 0", values)
        self.assertNotIn("ceil_div % 0", values)

    def test_what_looks_like_an_expression(self):
        for text in ("D % 8 == 0", "ceil_div(Nq, BLOCK_M)", "B * Hq", "0", "q_per_kv > 8 ? 16 : 8"):
            self.assertTrue(fz.looks_like_expression(text), text)
        for text in ("fp16-d64-n1024", "../kernels/cuda/x.cu", "f16", "x" * 300, "kernels/opencl/a.cl"):
            self.assertFalse(fz.looks_like_expression(text), text)

    def test_expression_without_one_is_none(self):
        self.assertIsNone(fz.replace_expression([fz.parse('{"name": "toy"}')], random.Random(0)))

    def test_truncate_shortens(self):
        data, note = fz.truncate(b"0123456789", random.Random(0))
        self.assertLess(len(data), 10)
        self.assertTrue(b"0123456789".startswith(data))
        self.assertIn("truncate at byte", note)

    def test_insert_adds_bytes(self):
        data, note = fz.insert_bytes(b"0123456789", random.Random(0))
        self.assertGreater(len(data), 10)
        self.assertIn("insert bytes", note)

    def test_mutate_applies_one_to_three_and_is_reproducible(self):
        kinds = set()
        for seed in range(300):
            data, notes = fz.mutate(TEXT, random.Random(f"7:{seed}"))
            self.assertTrue(1 <= len(notes) <= 3, notes)
            self.assertEqual((data, notes), fz.mutate(TEXT, random.Random(f"7:{seed}")))
            kinds.update(n.split()[0] for n in notes)
        self.assertEqual(kinds, set(fz.WEIGHTS))


class Classification(unittest.TestCase):
    def test_signal_is_a_crash(self):
        self.assertEqual(fz.classify(-signal.SIGSEGV, ""), "crash")
        self.assertEqual(fz.classify(-signal.SIGABRT, "terminate called after ..."), "crash")

    def test_timeout_is_a_hang(self):
        self.assertEqual(fz.classify(None, ""), "hang")

    def test_raw_library_messages(self):
        for message in ("attn-tune: error: [json.exception.type_error.302] type must be number, but is string",
                        "attn-tune: error: filesystem error: cannot open: No such file",
                        "attn-tune: error: stoi", "attn-tune: error: std::bad_alloc",
                        "attn-tune: error: basic_string::_M_create", "  what():  stol"):
            self.assertEqual(fz.classify(1, message), "raw", message)

    def test_messages_are_rejections(self):
        self.assertEqual(fz.classify(2, "attn-tune: configs/x.json: shapes.small.D: expected an integer, got \"x\""),
                         "rejected")
        self.assertEqual(fz.classify(1, "attn-tune: error: configs/x.json: no kernel source"), "rejected")
        # Exit 2 is a usage error: fine even when it quotes its cause.
        self.assertEqual(fz.classify(2, "attn-tune: x.json: not valid JSON: [json.exception.parse_error.101] ..."),
                         "rejected")

    def test_ok_and_other(self):
        self.assertEqual(fz.classify(0, ""), "ok")
        self.assertEqual(fz.classify(0, "std:: in a warning"), "ok")
        self.assertEqual(fz.classify(3, "attn-tune: error: x"), "other")
        self.assertEqual(fz.classify(130, ""), "other")
        self.assertEqual(fz.classify(1, "  \n"), "other")  # a failure that says nothing

    def test_headline_prefers_the_raw_line_then_attn_tune_then_the_last(self):
        self.assertEqual(fz.headline("device x\nwhat():  stoi\nmore\n"), "what():  stoi")
        self.assertEqual(fz.headline("1 warning generated.\nattn-tune: error: bad\nend\n"), "attn-tune: error: bad")
        self.assertEqual(fz.headline("device x\nno configuration ran ok\n"), "no configuration ran ok")
        self.assertEqual(fz.headline(""), "(no stderr)")
        self.assertLessEqual(len(fz.headline("x" * 10000)), fz.HEADLINE_CHARS + 3)

    def test_status(self):
        self.assertEqual(fz.status(-signal.SIGSEGV, 20), "SIGSEGV")
        self.assertEqual(fz.status(None, 20), "timeout after 20 s")
        self.assertEqual(fz.status(2, 20), "exit 2")


class Summary(unittest.TestCase):
    def failure(self, mutant, command, message="attn-tune: error: stoi", mutation="replace $.a by 0", cls="raw"):
        return {"mutant": mutant, "command": command, "class": cls, "message": message, "mutation": mutation,
                "config": "x.json", "status": "exit 1", "kept": None}

    def test_distinct_pairs_gather_their_commands_and_stop_at_twenty(self):
        failures = [self.failure(0, "sweep"), self.failure(0, "space"), self.failure(1, "space", mutation="delete $.a")]
        failures += [self.failure(i, "space", message=f"m{i}", cls="crash") for i in range(2, 40)]
        shown = fz.distinct(failures)
        self.assertEqual([f["commands"] for f in shown["raw"]], [["space", "sweep"], ["space"]])
        self.assertEqual(len(shown["crash"]), fz.DISTINCT_SHOWN)
        self.assertEqual(shown["crash"][0]["message"], "m2")
        self.assertEqual(shown["hang"], [])

    def test_summary_files(self):
        report = {"seed": 1, "mutants": 1, "runs": 2, "commands": ["space", "sweep"],
                  "counts": dict.fromkeys(fz.CLASSES, 0) | {"raw": 2},
                  "distinct": fz.distinct([self.failure(0, "space"), self.failure(0, "sweep")]), "failures": []}
        self.assertIn("[space, sweep #0 x.json, exit 1] attn-tune: error: stoi", fz.summary_text(report))
        with tempfile.TemporaryDirectory() as tmp:
            fz.write_summary(Path(tmp) / "s.json", report)
            self.assertEqual(json.loads((Path(tmp) / "s.json").read_text())["counts"]["raw"], 2)
            self.assertIn("| 0 | 0 | 2 |", (Path(tmp) / "s.md").read_text())


class Processes(unittest.TestCase):
    def run_python(self, code: str, timeout: float = 10):
        return fz.run_process([sys.executable, "-c", code], Path.cwd(), dict(os.environ), timeout)

    def test_killed_by_a_signal_is_a_crash(self):
        code, _, _, _ = self.run_python("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
        self.assertEqual(fz.classify(code, ""), "crash")

    def test_exit_status_and_output(self):
        code, out, err, _ = self.run_python("import sys; print('out'); sys.exit('attn-tune: bad spec')")
        self.assertEqual((code, out, err.strip()), (1, "out\n", "attn-tune: bad spec"))

    def test_a_hang_kills_the_whole_group(self):
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = Path(tmp) / "child"
            start = time.monotonic()
            code, _, _, _ = fz.run_process(["/bin/sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], Path(tmp),
                                           dict(os.environ), 0.5)
            self.assertLess(time.monotonic() - start, 10)
            self.assertEqual(fz.classify(code, ""), "hang")
            child = int(pid_file.read_text())
            for _ in range(50):  # the grandchild is gone once init reaps it
                try:
                    os.kill(child, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                self.fail("the sleep the hung shell started is still running")

    def test_a_binary_that_cannot_start_stops_the_fuzzer(self):
        with self.assertRaises(fz.HarnessError):
            fz.run_process(["/nonexistent/attn-tune"], Path.cwd(), dict(os.environ), 10)

    def test_memory_limit_wraps_in_a_shell(self):
        self.assertEqual(fz.with_memory_limit(["a", "b"], 0), ["a", "b"])
        code, out, _, _ = fz.run_process(fz.with_memory_limit(["/bin/sh", "-c", "ulimit -v"], 512), Path.cwd(),
                                         dict(os.environ), 10)
        self.assertEqual((code, out.strip()), (0, str(512 * 1024)))


class Sweep(unittest.TestCase):
    def test_pick_pair_prefers_opencl_with_valid_configurations(self):
        pairs = {"pairs": [{"kernel": "cu", "shape": "s", "backends": ["cuda"], "valid": 4},
                           {"kernel": "empty", "shape": "s", "backends": ["opencl"], "valid": 0},
                           {"kernel": "cl", "shape": "t", "backends": ["opencl"], "valid": 2}]}
        self.assertEqual(fz.pick_pair(json.dumps(pairs)), ("cl", "t"))
        self.assertEqual(fz.pick_pair(json.dumps({"pairs": pairs["pairs"][:1]})), ("cu", "s"))
        for broken in ("", "{", "[]", '{"pairs": 3}', '{"pairs": []}', '{"pairs": [1]}'):
            self.assertEqual(fz.pick_pair(broken), (None, None), broken)

    def test_sweep_argv_stops_early_and_guards_names(self):
        argv = fz.sweep_argv("bin", "configs/x.json", Path("/sb"), "opencl:0:0", ("-k", "a,b"))
        self.assertEqual(argv[:4], ["bin", "sweep", "configs/x.json", "--device"])
        self.assertIn("--kernel=-k", argv)  # one argument, never read as an option
        self.assertFalse(any(a.startswith("--shape") for a in argv))  # a list: not a name
        for option in ("--budget-evals", "--max-samples", "--out"):
            self.assertIn(option, argv)


FAKE_BINARY = textwrap.dedent("""\
    #!{python}
    # A fake attn-tune: judges the spec as JSON and fails the way the real one might.
    import json, os, signal, sys
    text = open(sys.argv[2], "rb").read()
    try:
        spec = json.loads(text)
    except (ValueError, RecursionError):
        sys.exit("attn-tune: error: [json.exception.parse_error.101] syntax error")
    if not isinstance(spec, dict):
        os.kill(os.getpid(), signal.SIGSEGV)
    sys.exit(0 if spec.get("name") == "toy" else "attn-tune: bad name")
    """)


class EndToEnd(unittest.TestCase):
    def test_fuzz_with_a_fake_binary(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "configs").mkdir()
            (tmp / "kernels" / "opencl").mkdir(parents=True)
            (tmp / "kernels" / "opencl" / "toy.cl").write_text("kernel void toy() {}\n")
            (tmp / "configs" / "toy.json").write_text(TEXT)
            binary = tmp / "attn-tune"
            binary.write_text(FAKE_BINARY.format(python=sys.executable))
            binary.chmod(0o755)
            argv = ["--binary", str(binary), "--configs", str(tmp / "configs"), "--mutants", "30", "--seed", "5",
                    "--jobs", "2", "--commands", "space", "--keep", str(tmp / "keep"), "--summary", str(tmp / "s.json")]
            with redirect_stdout(io.StringIO()) as out:
                status = fz.main(argv)
            report = json.loads((tmp / "s.json").read_text())
            self.assertEqual(report["mutants"], 30)
            self.assertEqual(report["runs"], 30)
            self.assertEqual(sum(report["counts"].values()), 30)
            failing = sum(report["counts"][c] for c in fz.FAILURES)
            self.assertEqual(status, 1 if failing else 0)
            self.assertGreater(report["counts"]["raw"], 0, out.getvalue())
            self.assertEqual(len(report["failures"]), failing)
            for failure in report["failures"]:
                kept = Path(failure["kept"])
                self.assertTrue(kept.is_file())
                self.assertTrue((kept.parent / "run.txt").is_file())
            self.assertTrue((tmp / "s.md").is_file())
            self.assertIn("mutants: 30, runs: 30", out.getvalue())

    def test_sandbox_resolves_relative_paths(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "configs").mkdir()
            (tmp / "kernels" / "opencl").mkdir(parents=True)
            (tmp / "kernels" / "opencl" / "toy.cl").write_text("x")
            (tmp / "configs" / "toy.json").write_text(TEXT)
            (tmp / "configs" / "child.json").write_text('{"extends": "toy.json"}')
            self.assertEqual(fz.linked_dirs(tmp / "configs"), ["kernels"])
            sandbox = fz.make_sandbox(tmp / "configs", ["kernels"], "child.json", b"mutant")
            try:
                self.assertEqual((sandbox / "configs" / "child.json").read_bytes(), b"mutant")
                self.assertEqual((sandbox / "configs" / "toy.json").read_text(), TEXT)
                self.assertEqual((sandbox / "configs" / "../kernels/opencl/toy.cl").read_text(), "x")
                self.assertEqual((tmp / "configs" / "child.json").read_text(), '{"extends": "toy.json"}')
            finally:
                shutil.rmtree(sandbox)


if __name__ == "__main__":
    unittest.main()
