"""attn-tune's own inputs for a shape, as `attn-tune bench SPEC --emit-inputs DIR` writes them
(tuner/export/problem_inputs.hpp: DIR/inputs.json, schema attn-tune.inputs/1, and one raw .bin per input buffer).

A comparison script runs on exactly the data attn-tune verified its kernels on by reading these files, never
by re-implementing attn-tune's random streams.
"""
import json
import subprocess
from pathlib import Path

SCHEMA = "attn-tune.inputs/1"


def emit(binary, spec, kernel, shape, seed, out_dir):
    """Runs `attn-tune bench SPEC -k KERNEL -s SHAPE --seed SEED --emit-inputs OUT_DIR` (no device needed) and
    returns the manifest."""
    cmd = [str(binary), "bench", str(spec), "-k", kernel, "-s", shape, "--seed", str(seed), "--emit-inputs", str(out_dir)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return manifest(out_dir)


def manifest(out_dir):
    m = json.loads((Path(out_dir) / "inputs.json").read_text())
    if m.get("schema") != SCHEMA:
        raise ValueError(f"{out_dir}/inputs.json: schema {m.get('schema')!r}, expected {SCHEMA}")
    if m.get("byte_order") != "little":
        raise ValueError(f"{out_dir}/inputs.json: byte_order {m.get('byte_order')!r}; these readers take little-endian")
    return m


def input_bytes(out_dir, shape):
    """{buffer name: its bytes} of SHAPE's inputs, in the operation's order."""
    m = manifest(out_dir)
    for s in m["shapes"]:
        if s["shape"] == shape:
            return {b["name"]: (Path(out_dir) / b["file"]).read_bytes() for b in s["buffers"] if b["role"] == "input"}
    raise KeyError(f"{out_dir}/inputs.json has no shape {shape!r} (it has {[s['shape'] for s in m['shapes']]})")


def arrays(out_dir, shape, dtype="float32"):
    """SHAPE's inputs as flat numpy arrays of DTYPE (needs numpy)."""
    import numpy as np
    return {name: np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<")).copy()
            for name, data in input_bytes(out_dir, shape).items()}


def main(argv=None):
    """`attn_inputs.py DIR SHAPE`: what DIR holds for SHAPE (each input's name and size)."""
    import argparse
    ap = argparse.ArgumentParser(prog="attn_inputs.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="a directory `attn-tune bench --emit-inputs` wrote")
    ap.add_argument("shape", help="one of its shapes")
    args = ap.parse_args(argv)
    for name, data in input_bytes(args.dir, args.shape).items():
        print(f"{name}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
