#!/usr/bin/env python3
"""Checks that tuner/ is a stack of layers, as tuner/CMakeLists.txt declares them.

  check_layers.py [ROOT]    ROOT: the repository (default: two folders up)

Each attn_tune_layer(NAME [DIRS d...] [DEPENDS l...]) call declares one layer, bottom-up. It fails, naming the file
and line, when:
  - a layer depends on one declared after it (a cycle in the link graph);
  - a file includes "tuner/X/..." from a layer that does not link X, directly or through the layers below;
  - a folder of tuner/ with sources belongs to no layer;
  - one layer holds more than 18% of tuner/'s lines;
  - the string literal "attention" appears outside tuner/ops/ (operations are named only where they live);
  - ATTN_TUNE_WITH_CUDA is tested outside tuner/backend/ and the CLI's device listing.
Exit 0 when all hold, 1 otherwise.
"""
import os
import re
import sys

MAX_SHARE = 0.18
CUDA_IFDEF_ALLOWED = ("tuner/backend/", "app/cmd_devices.cpp")
SOURCE_EXT = (".hpp", ".cpp", ".h", ".in")


def parse_layers(cmake_text):
    """[(name, dirs, depends)] in declaration order."""
    layers = []
    text = re.sub(r"#[^\n]*", "", cmake_text)
    for m in re.finditer(r"attn_tune_layer\(([^)]*)\)", text):
        words = m.group(1).split()
        if not words or words[0] == "name":  # the function's own definition
            continue
        name, dirs, depends, key = words[0], [], [], None
        for w in words[1:]:
            if w in ("DIRS", "DEPENDS", "PRIVATE_LIBS"):
                key = w
            elif key == "DIRS":
                dirs.append(w)
            elif key == "DEPENDS":
                depends.append(w)
        layers.append((name, dirs, depends))
    return layers


def source_files(root, top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                yield os.path.relpath(os.path.join(d, f), root)


def check(root):
    problems = []
    cmake = os.path.join(root, "tuner", "CMakeLists.txt")
    with open(cmake) as f:
        layers = parse_layers(f.read())
    if not layers:
        return [f"{cmake}: no attn_tune_layer(...) calls"]
    order = {name: i for i, (name, _, _) in enumerate(layers)}
    below = {}
    for name, _, depends in layers:
        reach = set()
        for dep in depends:
            if dep not in order:
                problems.append(f"tuner/CMakeLists.txt: layer {name} depends on {dep}, which is no layer")
            elif order[dep] >= order[name]:
                problems.append(f"tuner/CMakeLists.txt: layer {name} depends on {dep}, declared after it (a cycle)")
            else:
                reach |= {dep} | below.get(dep, set())
        below[name] = reach

    # Which layer a folder belongs to: the longest declared prefix (backend/cuda before backend).
    prefixes = sorted(((d, name) for name, dirs, _ in layers for d in [name] + dirs), key=lambda p: -len(p[0]))

    def layer_of(path):  # path relative to tuner/
        for prefix, name in prefixes:
            if path == prefix or path.startswith(prefix + "/"):
                return name
        return None

    lines = {name: 0 for name in order}
    include = re.compile(r'\s*#\s*include\s*"tuner/([^"]+)"')
    for path in source_files(root, "tuner"):
        rel = path[len("tuner/"):]
        if "/" not in rel:
            continue
        layer = layer_of(os.path.dirname(rel))
        if layer is None:
            problems.append(f"{path}: its folder belongs to no layer of tuner/CMakeLists.txt")
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.readlines()
        lines[layer] += len(text)
        for n, line in enumerate(text, 1):
            m = include.match(line)
            if not m:
                continue
            target = layer_of(os.path.dirname(m.group(1)))
            if target is None:
                problems.append(f"{path}:{n}: includes tuner/{m.group(1)}, which belongs to no layer")
            elif target != layer and target not in below[layer]:
                problems.append(f"{path}:{n}: layer {layer} includes tuner/{m.group(1)} of layer {target}, "
                                f"which {layer} does not link (a back-edge)")
        for n, line in enumerate(text, 1):
            if '"attention"' in line and not rel.startswith("ops/"):
                problems.append(f'{path}:{n}: names the operation "attention" outside tuner/ops/')

    total = sum(lines.values())
    for name, count in sorted(lines.items()):
        if total and count / total > MAX_SHARE:
            problems.append(f"layer {name} holds {count} of tuner/'s {total} lines ({count / total:.1%}, "
                            f"more than {MAX_SHARE:.0%}): split it")

    for top in ("tuner", "app"):
        for path in source_files(root, top):
            if path.startswith(CUDA_IFDEF_ALLOWED):
                continue
            with open(os.path.join(root, path), errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if re.match(r"\s*#\s*(if|ifdef|ifndef|elif)\b.*ATTN_TUNE_WITH_CUDA", line):
                        problems.append(f"{path}:{n}: tests ATTN_TUNE_WITH_CUDA outside the backend: "
                                        "ask the backend interface instead")
    return problems


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)")
        return 1
    print("check_layers: tuner/ is layered as tuner/CMakeLists.txt declares")
    return 0


if __name__ == "__main__":
    sys.exit(main())
