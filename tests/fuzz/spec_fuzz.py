#!/usr/bin/env python3
"""Spec and CLI fuzzer for attn-tune: mutated configs/*.json must be rejected
with a message, never crash, hang or leak a raw library error.

Each mutant is a random configs/*.json with 1-3 random mutations:

  replace     a random value (anywhere in the tree, the root included) by a
              huge integer (2**63, 2**64, -2**63, 10**30), a huge float
              written as raw text (1e400, -1e999), NaN / Infinity, 0, -1,
              "", [], {}, a string where a number was, a number where a
              string or object was, a 5000-character string or file path,
              or ../../../evil
  delete      a random key
  duplicate   a random key, repeated with another value
  nest        a random value nested 60000 levels deep ([[[...]]])
  expression  a string that looks like an expression (constraints, grid,
              defines...) replaced by an overflow or a division by zero
              (-9223372036854775808 / -1, x % 0, pow(2, 10000) / -1, ...)
  truncate    the file cut at a random byte
  insert      random bytes inserted at a random byte

Tree mutations are applied first, then the file is written (raw tokens
spliced in as text, since json.dumps cannot write them), then the byte
mutations. The mutant is written into a temporary copy of the configs
directory, with the directories the specs reach through ../ (kernels/)
linked next to it, so that `extends` and relative source paths resolve as
in the repository. Every command of --commands runs on it, in that
temporary directory, with XDG_CACHE_HOME pointing into it:

  space   attn-tune space SPEC
  sweep   attn-tune sweep SPEC --device DEVICE, stopped early since sweep
          has no dry run: one (kernel, shape), the first that
          `attn-tune space --json SPEC` lists (an unclassified probe), OpenCL
          ones with valid configurations first; a search budget of one
          configuration, one timed sample, no warmup, no tie rounds

Each run is classified:

  ok        exit 0
  rejected  exit 1 or 2 with a message that is not a raw library error
  raw       exit 1 whose stderr holds a raw library message
            ([json.exception., filesystem error, std::, terminate called,
            basic_string, stoi, stol, what():)
  crash     killed by a signal
  hang      still running after --timeout seconds (its process group is
            killed)
  other     any other exit code, or exit 1 or 2 without a message

Progress (counts per class) is printed every 100 mutants, then a summary:
mutants, runs, counts per class, and for crash, raw, hang and other the
first 20 distinct (message, mutation) pairs, the message being the first
raw library line of stderr, else its first `attn-tune...` line, else its
last line. --summary writes the same as JSON, and as markdown next to it
(its suffix replaced by .md). --keep saves each failing run as DIR/<mutant>-<command>-<class>/ with the mutant spec and
run.txt (how to reproduce it from the repository root, mutations, exit
status, stdout, stderr).

Mutant i of seed S is the same on every run (its generator is seeded with
"S:i"), whatever --jobs. Exit status: 1 if any run is crash, raw, hang or
other; 2 if the binary could not be started (copy it first if a build may
relink it meanwhile); 0 otherwise.

  python3 tests/fuzz/spec_fuzz.py --binary build-ci/app/attn-tune --mutants 200 --jobs 1
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLASSES = ("ok", "rejected", "raw", "crash", "hang", "other")
FAILURES = ("crash", "raw", "hang", "other")
RAW_MARKERS = ("[json.exception.", "filesystem error", "std::", "terminate called", "basic_string", "stoi", "stol",
               "what():")
COMMANDS = ("space", "sweep")
DEPTH = 60000
LONG = 5000
DISTINCT_SHOWN = 20
PROGRESS_EVERY = 100
HEADLINE_CHARS = 300


# ---------------------------------------------------------------- JSON tree


class Obj(list):
    """A JSON object as its list of (key, value) pairs, so that a key can repeat."""


@dataclasses.dataclass(frozen=True)
class Raw:
    """Text written verbatim: what json.dumps cannot write (1e400, NaN, deep nesting)."""

    text: str


def parse(text: str):
    return json.loads(text, object_pairs_hook=Obj)


def dump(node, indent: int = 0) -> str:
    if isinstance(node, Raw):
        return node.text
    if isinstance(node, (Obj, list)) and not node:
        return "{}" if isinstance(node, Obj) else "[]"
    pad, end = "\n" + "  " * (indent + 1), "\n" + "  " * indent
    if isinstance(node, Obj):
        items = [f"{json.dumps(key)}: {dump(value, indent + 1)}" for key, value in node]
        return "{" + pad + ("," + pad).join(items) + end + "}"
    if isinstance(node, list):
        return "[" + pad + ("," + pad).join(dump(value, indent + 1) for value in node) + end + "]"
    return json.dumps(node)


def get(container: list, index: int):
    return container[index][1] if isinstance(container, Obj) else container[index]


def put(container: list, index: int, value) -> None:
    if isinstance(container, Obj):
        container[index] = (container[index][0], value)
    else:
        container[index] = value


def slots(root: list) -> list[tuple[list, int, str]]:
    """Every value of ROOT (a one-element holder, so the tree itself is a slot) as (container, index, path)."""
    found = []

    def walk(container, index, path):
        found.append((container, index, path))
        node = get(container, index)
        if isinstance(node, Obj):
            for i, (key, _) in enumerate(node):
                walk(node, i, f"{path}.{key}")
        elif isinstance(node, list):
            for i in range(len(node)):
                walk(node, i, f"{path}[{i}]")

    walk(root, 0, "$")
    return found


def label(value) -> str:
    """A short name of VALUE for a mutation's description."""
    text = value.text if isinstance(value, Raw) else dump(value)
    if len(text) <= 40:
        return text
    size = len(value) if isinstance(value, str) else len(text)  # the string's own length, not its quoted one
    return f"{text[:20]}...({size} chars)"


# ---------------------------------------------------------------- mutations


def replacements(old) -> list:
    """What a value may become; fresh containers each call, so mutants never share one."""
    values = [2**63, 2**64, -2**63, 10**30, Raw("1e400"), Raw("-1e999"), Raw("NaN"), Raw("Infinity"),
              Raw("-Infinity"), 0, -1, "", [], Obj(), "A" * LONG, "../kernels/" + "p" * LONG + ".cu", "../../../evil"]
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        values += [str(old), "x"]  # a string where a number was
    if isinstance(old, (str, Obj)):
        values += [42, 1.5]  # a number where a string or object was
    return values


def replace_value(root: list, rng: random.Random) -> str:
    container, index, path = rng.choice(slots(root))
    value = rng.choice(replacements(get(container, index)))
    put(container, index, value)
    return f"replace {path} by {label(value)}"


def object_slots(root: list) -> list[tuple[list, int, str]]:
    return [s for s in slots(root) if isinstance(s[0], Obj)]


def delete_key(root: list, rng: random.Random) -> str | None:
    candidates = object_slots(root)
    if not candidates:
        return None
    container, index, path = rng.choice(candidates)
    del container[index]
    return f"delete {path}"


def duplicate_key(root: list, rng: random.Random) -> str | None:
    candidates = object_slots(root)
    if not candidates:
        return None
    container, index, path = rng.choice(candidates)
    key, old = container[index]
    value = rng.choice(replacements(old))
    container.insert(index + 1, (key, value))
    return f"duplicate {path} (second value {label(value)})"


def nest_deep(root: list, rng: random.Random) -> str:
    container, index, path = rng.choice(slots(root))
    put(container, index, Raw("[" * DEPTH + "]" * DEPTH))
    return f"nest {path} {DEPTH} levels deep"


# Overflows and divisions by zero for the 64-bit expression evaluator; {var} is a
# name the expression used (so that it parses), {expr} the whole expression.
EXPRESSIONS = (
    "-9223372036854775808 / -1",
    "(-9223372036854775807 - 1) / -1",
    "(-9223372036854775807 - 1) % -1",
    "x % 0",
    "{var} % 0",
    "{var} / 0",
    "1 / 0",
    "ceil_div({var}, 0)",
    "pow(2, 10000) / -1",
    "9223372036854775807 + 1",
    "9223372036854775807 * 9223372036854775807",
    "-9223372036854775807 - 2",
    "1 << 64",
    "99999999999999999999999",
    "({expr}) / 0",
    "({expr}) * 9223372036854775807",
)
EXPRESSION_TEXT = re.compile(r"^[\w\s+\-*/%<>=!&|?:(),.]{1,200}$")
OPERATOR = re.compile(r"[+*/%<>=!&|?()]|\s-\s|^\d+$")  # a bare '-' is a name's (fp16-d64)
NAME = re.compile(r"\b[A-Za-z_]\w*\b(?!\s*\()")  # not a function's name
PATH = re.compile(r"\.\./|\.\w+$")  # ../kernels/cuda/x.cu has '/' and '.', and is no expression


def looks_like_expression(text: str) -> bool:
    return bool(EXPRESSION_TEXT.match(text) and OPERATOR.search(text) and not PATH.search(text))


def replace_expression(root: list, rng: random.Random) -> str | None:
    candidates = [s for s in slots(root) if isinstance(get(s[0], s[1]), str) and looks_like_expression(get(s[0], s[1]))]
    if not candidates:
        return None
    container, index, path = rng.choice(candidates)
    old = get(container, index)
    name = NAME.search(old)
    value = rng.choice(EXPRESSIONS).format(var=name.group(0) if name else "x", expr=old)
    put(container, index, value)
    return f"expression {path}: {old!r} -> {value!r}"


def truncate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    at = rng.randrange(len(data)) if data else 0
    return data[:at], f"truncate at byte {at} of {len(data)}"


def insert_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    noise = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    at = rng.randrange(len(data) + 1)
    return data[:at] + noise + data[at:], f"insert bytes {noise.hex()} at byte {at}"


TREE_MUTATIONS = {"replace": replace_value, "delete": delete_key, "duplicate": duplicate_key, "nest": nest_deep,
                  "expression": replace_expression}
TEXT_MUTATIONS = {"truncate": truncate, "insert": insert_bytes}
WEIGHTS = {"replace": 4, "delete": 1, "duplicate": 1, "nest": 1, "expression": 2, "truncate": 1, "insert": 1}


def mutate(text: str, rng: random.Random) -> tuple[bytes, list[str]]:
    """TEXT (a spec) with 1-3 random mutations, and their descriptions."""
    kinds = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()), k=rng.randint(1, 3))
    root = [parse(text)]
    notes = []
    for kind in (k for k in kinds if k in TREE_MUTATIONS):
        # A mutation with nothing to act on (no expression in the spec) becomes a replace.
        notes.append(TREE_MUTATIONS[kind](root, rng) or replace_value(root, rng))
    data = (dump(root[0]) + "\n").encode()
    for kind in (k for k in kinds if k in TEXT_MUTATIONS):
        data, note = TEXT_MUTATIONS[kind](data, rng)
        notes.append(note)
    return data, notes


# ---------------------------------------------------------------- running


class HarnessError(Exception):
    """The fuzzer cannot go on (the binary cannot be started): not a finding."""


@dataclasses.dataclass
class Run:
    command: str
    argv: list[str]
    returncode: int | None  # None: timed out
    stdout: str
    stderr: str
    seconds: float

    @property
    def cls(self) -> str:
        return classify(self.returncode, self.stderr)


def raw_marker(stderr: str) -> str | None:
    return next((m for m in RAW_MARKERS if m in stderr), None)


def classify(returncode: int | None, stderr: str) -> str:
    if returncode is None:
        return "hang"
    if returncode < 0:
        return "crash"
    if returncode == 0:
        return "ok"
    if returncode == 1 and raw_marker(stderr):
        return "raw"  # an exception's what() that reached main; exit 2 is a usage error that wraps its cause
    if returncode in (1, 2):
        return "rejected" if stderr.strip() else "other"
    return "other"


def headline(stderr: str) -> str:
    """What went wrong, in a line: the first raw library message, else the first line attn-tune wrote itself
    (`attn-tune: ...`), else the last line (the sweep's progress and compiler warnings come first)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "(no stderr)"
    own = next((x for x in lines if x.startswith("attn-tune")), lines[-1])
    line = next((x for x in lines if raw_marker(x)), own)
    return line if len(line) <= HEADLINE_CHARS else line[:HEADLINE_CHARS] + "..."


def status(returncode: int | None, timeout: float) -> str:
    if returncode is None:
        return f"timeout after {timeout:g} s"
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit {returncode}"


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_process(argv: list[str], cwd: Path, env: dict, timeout: float) -> tuple[int | None, str, str, float]:
    """(exit status or None on timeout, stdout, stderr, seconds); a hang's whole process group is killed."""
    start = time.monotonic()
    try:
        # A session of its own, so that a hang's workers die with it.
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:  # no mutant's doing: the binary is gone or being relinked
        raise HarnessError(f"cannot run {argv[0]}: {e}") from e
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a child left the group and holds the pipes
            out, err = b"", b""
            proc.wait()
        code = None
    return code, as_text(out), as_text(err), time.monotonic() - start


def as_text(output: bytes | None) -> str:
    return (output or b"").decode("utf-8", "replace")  # a mutant's random bytes may come back in a message


def with_memory_limit(argv: list[str], memory_mb: int) -> list[str]:
    """ARGV under `ulimit -v`: a shell execs it, so no Python runs between fork and exec in a threaded process."""
    if memory_mb <= 0:
        return argv
    return ["/bin/sh", "-c", 'ulimit -v "$1" && shift && exec "$@"', "sh", str(memory_mb * 1024), *argv]


def pick_pair(space_json: str) -> tuple[str | None, str | None]:
    """The (kernel, shape) of `space --json` output to sweep: OpenCL and non-empty first; else (None, None)."""
    try:
        pairs = [p for p in json.loads(space_json)["pairs"] if isinstance(p, dict)]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None, None
    if not pairs:
        return None, None
    best = min(pairs, key=lambda p: ("opencl" not in (p.get("backends") or []), not p.get("valid")))
    kernel, shape = best.get("kernel"), best.get("shape")
    return (kernel if isinstance(kernel, str) else None), (shape if isinstance(shape, str) else None)


def sweep_argv(binary: str, spec: str, sandbox: Path, device: str, target: tuple[str | None, str | None]) -> list[str]:
    """A sweep that stops early: `sweep` has no dry run, so one (kernel, shape), one configuration, one sample."""
    argv = [binary, "sweep", spec, "--device", device, "--out", str(sandbox / "out.json"), "--overwrite", "-q",
            "--strategy", "random", "--budget-evals", "1", "--warmup", "0", "--warmup-time", "0",
            "--min-samples", "1", "--max-samples", "1", "--max-time", "0", "--tie-rounds", "0", "--watchdog", "10"]
    kernel, shape = target
    if kernel:
        argv.append(f"--kernel={kernel}")
    if shape and "," not in shape and "=" not in shape:  # else --shape would read a list or an override
        argv.append(f"--shape={shape}")
    return argv


def run_commands(opts: argparse.Namespace, spec: str, sandbox: Path) -> list[Run]:
    env = dict(os.environ, XDG_CACHE_HOME=str(sandbox / "cache"))  # no compile cache outside the sandbox

    def run(argv):
        return run_process(with_memory_limit(argv, opts.memory_mb), sandbox, env, opts.timeout)

    runs = []
    for command in opts.commands:
        if command == "space":
            argv = [opts.binary, "space", spec]
        else:
            # The spec resolved (extends) says which kernels and shapes exist; a probe, not classified.
            probe = run([opts.binary, "space", "--json", spec])
            target = pick_pair(probe[1]) if probe[0] == 0 else (None, None)
            argv = sweep_argv(opts.binary, spec, sandbox, opts.device, target)
        code, out, err, seconds = run(argv)
        runs.append(Run(command, [a.replace(str(sandbox), "<sandbox>") for a in argv], code, out, err, seconds))
    return runs


# ---------------------------------------------------------------- mutants


@dataclasses.dataclass
class Mutant:
    index: int
    config: str
    mutations: list[str]
    data: bytes
    runs: list[Run]


def linked_dirs(configs: Path) -> list[str]:
    """The directories next to CONFIGS that specs reach through ../NAME/ (kernels)."""
    names = set()
    for path in configs.glob("*.json"):
        names.update(re.findall(r'"\.\./([^/"\\]+)/', path.read_text(errors="replace")))
    return sorted(n for n in names if (configs.parent / n).is_dir())


def make_sandbox(configs: Path, links: list[str], name: str, data: bytes) -> Path:
    """A temporary copy of CONFIGS' layout with the mutant DATA as configs/NAME."""
    root = Path(tempfile.mkdtemp(prefix="spec-fuzz-"))
    shutil.copytree(configs, root / "configs", symlinks=True)
    for link in links:
        (root / link).symlink_to(configs.parent.resolve() / link, target_is_directory=True)
    (root / "configs" / name).write_bytes(data)
    return root


def fuzz_one(index: int, opts: argparse.Namespace, files: list[Path], links: list[str]) -> Mutant:
    rng = random.Random(f"{opts.seed}:{index}")
    config = rng.choice(files)
    data, mutations = mutate(config.read_text(), rng)
    sandbox = make_sandbox(opts.configs, links, config.name, data)
    try:
        return Mutant(index, config.name, mutations, data, run_commands(opts, f"configs/{config.name}", sandbox))
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)


def keep(mutant: Mutant, run: Run, directory: Path, timeout: float) -> Path:
    folder = directory / f"{mutant.index:05d}-{run.command}-{run.cls}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / mutant.config).write_bytes(mutant.data)
    # Under another name in configs/, so that its relative paths resolve and the original stays.
    spec, copy = f"configs/{mutant.config}", f"configs/fuzz-{mutant.config}"
    argv = [copy if a == spec else a.replace("<sandbox>", "/tmp") for a in run.argv]
    (folder / "run.txt").write_text(
        f"reproduce: cp {shlex.quote(str(folder / mutant.config))} {copy} && {shlex.join(argv)}\n"
        f"config:    {mutant.config}\n"
        f"mutations: {'; '.join(mutant.mutations)}\n"
        f"status:    {status(run.returncode, timeout)} ({run.cls}) after {run.seconds:.1f} s\n"
        f"--- stdout\n{run.stdout[-20000:]}\n--- stderr\n{run.stderr[-20000:]}\n")
    return folder / mutant.config


def failure_record(mutant: Mutant, run: Run, kept: Path | None, timeout: float) -> dict:
    return {"mutant": mutant.index, "config": mutant.config, "command": run.command, "class": run.cls,
            "status": status(run.returncode, timeout), "message": headline(run.stderr),
            "mutation": "; ".join(mutant.mutations), "argv": run.argv, "kept": str(kept) if kept else None}


# ---------------------------------------------------------------- summary


def counts_text(counts: dict) -> str:
    return " ".join(f"{c}={counts[c]}" for c in CLASSES)


def distinct(failures: list[dict]) -> dict[str, list[dict]]:
    """Per failing class, the first DISTINCT_SHOWN distinct (message, mutation) pairs in mutant order, each with
    the commands that failed so (space and sweep often share one cause)."""
    shown: dict[str, list[dict]] = {c: [] for c in FAILURES}
    first: dict[tuple, dict] = {}
    for f in sorted(failures, key=lambda f: (f["mutant"], f["command"])):
        key = (f["class"], f["message"], f["mutation"])
        if key in first:
            if f["command"] not in first[key]["commands"]:
                first[key]["commands"].append(f["command"])
        elif len(shown[f["class"]]) < DISTINCT_SHOWN:
            first[key] = dict(f, commands=[f["command"]])
            shown[f["class"]].append(first[key])
    return shown


def summary_text(report: dict) -> str:
    lines = [f"mutants: {report['mutants']}, runs: {report['runs']} (seed {report['seed']})",
             counts_text(report["counts"])]
    for cls, items in report["distinct"].items():
        if not items:
            continue
        lines.append(f"{cls} ({report['counts'][cls]} runs; first {len(items)} distinct):")
        for f in items:
            lines.append(f"  [{', '.join(f['commands'])} #{f['mutant']} {f['config']}, {f['status']}] {f['message']}")
            lines.append(f"      mutation: {f['mutation']}" + (f"\n      kept: {f['kept']}" if f["kept"] else ""))
    return "\n".join(lines)


def summary_markdown(report: dict) -> str:
    lines = ["# attn-tune spec fuzz", "", f"{report['mutants']} mutants, {report['runs']} runs, seed {report['seed']}, "
             f"commands {', '.join(report['commands'])}.", "", "| " + " | ".join(CLASSES) + " |",
             "|" + "---|" * len(CLASSES), "| " + " | ".join(str(report["counts"][c]) for c in CLASSES) + " |"]
    for cls, items in report["distinct"].items():
        if items:
            lines += ["", f"## {cls}", ""]
            lines += [f"- `{', '.join(f['commands'])}` on {f['config']} ({f['status']}): `{f['message']}`; "
                      f"mutation: {f['mutation']}" + (f"; kept: `{f['kept']}`" if f["kept"] else "") for f in items]
    return "\n".join(lines) + "\n"


def write_summary(path: Path, report: dict) -> None:
    path.write_text(json.dumps(report, indent=2) + "\n")
    markdown = path.with_suffix(".md")
    if markdown == path:
        markdown = path.with_name(path.name + ".md")
    markdown.write_text(summary_markdown(report))


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = parser.add_argument
    add("--binary", required=True, metavar="PATH", help="the attn-tune executable (e.g. build-ci/app/attn-tune)")
    add("--configs", type=Path, metavar="DIR", default=REPO / "configs", help="specs to mutate (default: %(default)s)")
    add("--mutants", type=int, metavar="N", default=2000, help="mutants to run (default: %(default)s)")
    add("--seed", type=int, metavar="S", help="seed of the mutations (default: random, printed)")
    add("--timeout", type=float, metavar="SECONDS", default=20,
        help="seconds per run before it is a hang (default: %(default)s)")
    add("--jobs", type=int, metavar="J", default=2, help="mutants run at once (default: %(default)s)")
    add("--summary", type=Path, metavar="FILE",
        help="write the summary as JSON to FILE, and as markdown to FILE with the suffix .md")
    add("--keep", type=Path, metavar="DIR", help="save each failing run's mutant, command and output under DIR")
    add("--commands", default=",".join(COMMANDS), metavar="LIST",
        help=f"comma-separated commands to run on each mutant, of {', '.join(COMMANDS)} (default: %(default)s)")
    add("--device", default="opencl:0:0", metavar="ID", help="device of `sweep` (default: %(default)s)")
    add("--memory-mb", type=int, default=0, metavar="MB",
        help="address-space limit of each run (ulimit -v), so that a runaway allocation fails instead of swapping the "
             "machine; 0: none (default)")
    opts = parser.parse_args(argv)
    opts.commands = [c for c in opts.commands.split(",") if c]
    if unknown := [c for c in opts.commands if c not in COMMANDS]:
        parser.error(f"unknown command {', '.join(unknown)} in --commands (known: {', '.join(COMMANDS)})")
    if not (os.path.isfile(opts.binary) and os.access(opts.binary, os.X_OK)):
        parser.error(f"--binary {opts.binary}: not an executable file")
    opts.binary = os.path.abspath(opts.binary)  # runs start in the sandbox
    if not sorted(opts.configs.glob("*.json")):
        parser.error(f"--configs {opts.configs}: no *.json")
    if opts.mutants < 1 or opts.jobs < 1 or opts.timeout <= 0:
        parser.error("--mutants and --jobs must be >= 1, --timeout > 0")
    if opts.seed is None:
        opts.seed = random.SystemRandom().randrange(2**32)
    return opts


def fuzz(opts: argparse.Namespace) -> dict:
    files = sorted(opts.configs.glob("*.json"))
    links = linked_dirs(opts.configs)
    counts = {c: 0 for c in CLASSES}
    failures: list[dict] = []
    done = 0
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        futures = [pool.submit(fuzz_one, i, opts, files, links) for i in range(opts.mutants)]
        try:
            for future in concurrent.futures.as_completed(futures):
                mutant = future.result()
                for run in mutant.runs:
                    counts[run.cls] += 1
                    if run.cls in FAILURES:
                        kept = keep(mutant, run, opts.keep, opts.timeout) if opts.keep else None
                        failures.append(failure_record(mutant, run, kept, opts.timeout))
                done += 1
                if done % PROGRESS_EVERY == 0:
                    print(f"[{done}/{opts.mutants}] {counts_text(counts)}", flush=True)
        except KeyboardInterrupt:
            print(f"interrupted after {done} mutants; waiting for the runs in flight", file=sys.stderr)
            pool.shutdown(cancel_futures=True)
    return {"seed": opts.seed, "binary": opts.binary, "commands": opts.commands, "mutants": done,
            "runs": sum(counts.values()), "seconds": round(time.monotonic() - started, 1), "counts": counts, "distinct": distinct(failures),
            "failures": sorted(failures, key=lambda f: (f["mutant"], f["command"]))}


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    print(f"seed {opts.seed}: {opts.mutants} mutants of {opts.configs}, commands {','.join(opts.commands)}", flush=True)
    try:
        report = fuzz(opts)
    except HarnessError as e:
        print(f"spec_fuzz: {e}", file=sys.stderr)
        return 2
    print(summary_text(report))
    if opts.summary:
        write_summary(opts.summary, report)
    return 1 if any(report["counts"][c] for c in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
