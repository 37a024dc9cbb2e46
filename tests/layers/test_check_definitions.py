#!/usr/bin/env python3
"""check_definitions.py on small made-up trees: a clean one passes; a description over the limit (the spec's or a
kernel's), a seed number in tuner/ or app/, and a NOTES file under kernels/cuda/ each fail, naming the place. Then the
real repository, which must have no problem."""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_definitions  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def spec(description="A spec.", kernel_description="A kernel."):
    return json.dumps({"attn_tune_spec": 1, "name": "s", "description": description,
                       "kernels": {"k": {"description": kernel_description}, "removed": None}}, indent=2)


CLEAN = {
    "configs/a.json": spec(),
    "configs/b.json": spec("x" * check_definitions.MAX_DESCRIPTION, "y" * check_definitions.MAX_DESCRIPTION),
    "tuner/ops/examples.cpp": "// the worked examples of the multi-head operation (d_model 4, h 2)\nint seed = 7;\n",
    "tuner/core/rng.hpp": "// streams seeded from --seed (seed 42, or seed 1234: not seed numbers)\n",
    "app/main.cpp": "int main() { return 0; }  // seed 42 by default\n",
    "app/sub/tool.cpp": "",
    "kernels/cuda/kernel.cu": "// seed 002's kernel: kernels are not checked\n",
    "kernels/cuda/README.md": "not notes\n",
    "docs/kernels/decode.md": "# decode\n",
}


class CheckDefinitions(unittest.TestCase):
    def setUp(self):
        self.roots = []

    def tearDown(self):
        for r in self.roots:
            shutil.rmtree(r, ignore_errors=True)

    def tree(self, changes=None, removed=()):
        files = dict(CLEAN)
        files.update(changes or {})
        root = tempfile.mkdtemp()
        self.roots.append(root)
        for path, text in files.items():
            if path in removed:
                continue
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        return root

    def problems(self, changes=None):
        return check_definitions.check(self.tree(changes))

    def test_a_clean_tree_passes(self):
        self.assertEqual(self.problems(), [])

    def test_a_spec_description_over_the_limit_fails(self):
        p = self.problems({"configs/a.json": spec("z" * (check_definitions.MAX_DESCRIPTION + 1))})
        self.assertEqual(len(p), 1, p)
        self.assertIn("configs/a.json: description has 401 characters", p[0])

    def test_a_kernel_description_over_the_limit_fails(self):
        p = self.problems({"configs/a.json": spec(kernel_description="z" * 4919)})
        self.assertEqual(len(p), 1, p)
        self.assertIn("configs/a.json: kernels.k.description has 4919 characters", p[0])

    def test_a_description_that_is_not_a_string_fails(self):
        p = self.problems({"configs/a.json": json.dumps({"description": ["a", "b"]})})
        self.assertTrue(any("configs/a.json: description is not a string" in x for x in p), p)

    def test_a_spec_that_is_not_json_is_reported(self):
        p = self.problems({"configs/a.json": "{ not json"})
        self.assertTrue(any("configs/a.json: not readable as JSON" in x for x in p), p)

    def test_only_configs_top_level_json_files_are_specs(self):
        long = spec("z" * 1000)
        self.assertEqual(self.problems({"configs/sub/c.json": long, "tests/data/d.json": long}), [])

    def test_a_seed_number_in_tuner_fails_in_any_spelling(self):
        for text in ("// seed 002's examples", "// Seed 001", "/* SEED-003 */", "// seed004"):
            p = self.problems({"tuner/ops/deep/x.hpp": "int a;\n" + text + "\n"})
            self.assertEqual(len(p), 1, (text, p))
            self.assertIn("tuner/ops/deep/x.hpp:2: names a seed number", p[0])

    def test_a_seed_number_in_an_app_source_fails(self):
        p = self.problems({"app/cmd_sweep.cpp": 'const char* s = "the seed 000 similarity";\n'})
        self.assertEqual(len(p), 1, p)
        self.assertIn("app/cmd_sweep.cpp:1: names a seed number (\"seed 000\")", p[0])

    def test_seed_numbers_elsewhere_are_not_checked(self):
        # app/ is checked at its top level only, and neither kernels/ nor other file types of tuner/ are.
        self.assertEqual(self.problems({"app/sub/tool.cpp": "// seed 002\n", "tuner/ops/notes.txt": "seed 002\n",
                                        "kernels/cuda/x.cuh": "// seed 001\n"}), [])

    def test_a_notes_file_in_kernels_cuda_fails(self):
        for name in ("NOTES.md", "SIMILARITY_DEFORMABLE_NOTES.md", "MULTIHEAD_LINEAR_WINDOW_NOTES.md"):
            p = self.problems({"kernels/cuda/" + name: "# notes\n"})
            self.assertEqual(len(p), 1, (name, p))
            self.assertIn("kernels/cuda/" + name, p[0])

    def test_problems_of_every_kind_are_all_reported(self):
        p = self.problems({"configs/a.json": spec("z" * 500), "tuner/x.cpp": "// seed 002\n",
                           "kernels/cuda/NOTES.md": "# notes\n"})
        self.assertEqual(len(p), 3, p)

    def test_the_command_line_prints_one_line_per_problem_and_exits_1(self):
        root = self.tree({"configs/a.json": spec("z" * 500), "kernels/cuda/NOTES.md": "# notes\n"})
        out = io.StringIO()
        with redirect_stdout(out):
            rc = check_definitions.main([root])
        self.assertEqual(rc, 1)
        self.assertEqual(len(out.getvalue().splitlines()), 2, out.getvalue())
        out = io.StringIO()
        with redirect_stdout(out):
            rc = check_definitions.main([self.tree()])
        self.assertEqual((rc, out.getvalue()), (0, ""))

    def test_help(self):
        r = subprocess.run([sys.executable, os.path.join(HERE, "check_definitions.py"), "--help"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("configs/*.json", r.stdout)
        self.assertIn("ROOT", r.stdout)

    def test_the_repository_has_no_problem(self):
        r = subprocess.run([sys.executable, os.path.join(HERE, "check_definitions.py"), REPO],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
