#!/usr/bin/env python3
"""Checks that the definitions (specs, sources, kernel notes) say what things are, and leave measurements to results/.

  check_definitions.py [ROOT]    ROOT: the repository (default: two folders up)

It fails, one line per problem, when:
  - a "description" in configs/*.json (the spec's own, or a kernel's under "kernels") is longer than
    MAX_DESCRIPTION characters, or is not a string;
  - a seed number ("seed 002", "Seed-001", "seed003": the regex seed[ -]?0\\d\\d, any case) appears in the C++
    sources of tuner/ (*.cpp, *.hpp, in every folder) or of app/ (app/*.cpp): say what the thing is instead;
  - kernels/cuda/ holds a *NOTES*.md file: kernel notes live in docs/kernels/, one page per kernel family.
A configs/*.json that is not valid JSON is reported too. Exit 0 when all hold, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import sys

MAX_DESCRIPTION = 400
SEED_NUMBER = re.compile(r"seed[ -]?0\d\d", re.IGNORECASE)


def descriptions(spec):
    """[(where, value)] for the spec's description and each kernel's, where each is present."""
    out = []
    if not isinstance(spec, dict):
        return out
    if "description" in spec:
        out.append(("description", spec["description"]))
    kernels = spec.get("kernels")
    if isinstance(kernels, dict):
        for name, kernel in kernels.items():
            if isinstance(kernel, dict) and "description" in kernel:
                out.append((f"kernels.{name}.description", kernel["description"]))
    return out


def check_descriptions(root):
    problems = []
    for path in sorted(glob.glob(os.path.join(root, "configs", "*.json"))):
        rel = os.path.relpath(path, root)
        try:
            with open(path, encoding="utf-8") as f:
                spec = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{rel}: not readable as JSON ({e})")
            continue
        for where, value in descriptions(spec):
            if not isinstance(value, str):
                problems.append(f"{rel}: {where} is not a string")
            elif len(value) > MAX_DESCRIPTION:
                problems.append(f"{rel}: {where} has {len(value)} characters (at most {MAX_DESCRIPTION}: say what the "
                                "spec or kernel is; measured figures belong in results/, explanations in docs/kernels/)")
    return problems


def cpp_sources(root):
    for d, _, files in os.walk(os.path.join(root, "tuner")):
        for f in sorted(files):
            if f.endswith((".cpp", ".hpp")):
                yield os.path.join(d, f)
    yield from sorted(glob.glob(os.path.join(root, "app", "*.cpp")))


def check_seed_numbers(root):
    problems = []
    for path in sorted(cpp_sources(root)):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = SEED_NUMBER.search(line)
                if m:
                    problems.append(f"{rel}:{n}: names a seed number (\"{m.group(0)}\"): say what the thing is instead")
    return problems


def check_notes(root):
    notes = sorted(glob.glob(os.path.join(root, "kernels", "cuda", "*NOTES*.md")))
    return [f"{os.path.relpath(p, root)}: kernel notes belong in docs/kernels/ (one page per kernel family)" for p in notes]


def check(root):
    return check_descriptions(root) + check_seed_numbers(root) + check_notes(root)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                        help="the repository (default: two folders above this script)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "configs")):
        print(f"{root}: no configs/ folder: not the repository?")
        return 1
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
