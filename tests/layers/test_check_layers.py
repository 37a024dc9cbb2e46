#!/usr/bin/env python3
"""check_layers.py on small made-up trees: a clean one passes; a back-edge, a declared cycle, a folder in no
layer, an oversized layer, a stray operation name and a backend #ifdef each fail, naming the place."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import check_layers  # noqa: E402

CMAKE = """
attn_tune_layer(core)
attn_tune_layer(ops DEPENDS core)
attn_tune_layer(sweep DEPENDS ops core)
"""


def tree(files):
    root = tempfile.mkdtemp()
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return root


def lines(n):
    return "".join(f"int x{i};\n" for i in range(n))


CLEAN = {
    "tuner/CMakeLists.txt": CMAKE,
    "tuner/core/a.hpp": lines(10),
    "tuner/ops/b.hpp": '#include "tuner/core/a.hpp"\n' + lines(9),
    "tuner/ops/op.cpp": 'const char* n = "attention";\n' + lines(9),
    "tuner/sweep/c.cpp": '#include "tuner/ops/b.hpp"\n#include "tuner/core/a.hpp"\n' + lines(8),
    "tuner/sweep/d.cpp": lines(10),
    "tuner/sweep/e.cpp": lines(10),
    "tuner/core/f.cpp": lines(10),
    "tuner/ops/g.cpp": lines(10),
    "app/cmd_devices.cpp": "#ifdef ATTN_TUNE_WITH_CUDA\n#endif\n",
}


class CheckLayers(unittest.TestCase):
    def problems(self, changes):
        files = dict(CLEAN)
        files.update(changes)
        return check_layers.check(tree(files))

    def test_a_clean_tree_passes(self):
        # Three layers share this tree's 80 lines: every one is over 18%, so the share is not what is tested.
        old = check_layers.MAX_SHARE
        check_layers.MAX_SHARE = 0.5
        try:
            self.assertEqual(self.problems({}), [])
        finally:
            check_layers.MAX_SHARE = old

    def test_an_include_that_reaches_up_is_a_back_edge(self):
        p = self.problems({"tuner/core/h.cpp": '#include "tuner/sweep/c.cpp"\n'})
        self.assertTrue(any("tuner/core/h.cpp:1" in x and "back-edge" in x for x in p), p)

    def test_a_layer_that_depends_on_a_later_one_is_a_cycle(self):
        p = self.problems({"tuner/CMakeLists.txt": CMAKE.replace("attn_tune_layer(core)",
                                                                  "attn_tune_layer(core DEPENDS sweep)")})
        self.assertTrue(any("layer core depends on sweep" in x and "cycle" in x for x in p), p)

    def test_a_folder_in_no_layer_is_named(self):
        p = self.problems({"tuner/stray/x.cpp": lines(1)})
        self.assertTrue(any("tuner/stray/x.cpp" in x and "no layer" in x for x in p), p)

    def test_a_layer_over_the_share_fails(self):
        p = self.problems({"tuner/sweep/big.cpp": lines(500)})
        self.assertTrue(any("layer sweep holds" in x for x in p), p)

    def test_an_operation_named_outside_ops_fails(self):
        p = self.problems({"tuner/sweep/d.cpp": 'if (op == "attention") {}\n'})
        self.assertTrue(any("tuner/sweep/d.cpp:1" in x and '"attention"' in x for x in p), p)

    def test_a_backend_ifdef_outside_the_backend_fails(self):
        p = self.problems({"app/launch.cpp": "#ifdef ATTN_TUNE_WITH_CUDA\n#endif\n"})
        self.assertTrue(any("app/launch.cpp:1" in x and "ATTN_TUNE_WITH_CUDA" in x for x in p), p)

    def test_the_real_tree_is_layered(self):
        root = os.path.join(os.path.dirname(__file__), "..", "..")
        self.assertEqual(check_layers.check(root), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
