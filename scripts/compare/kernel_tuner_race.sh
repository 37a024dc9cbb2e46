#!/usr/bin/env bash
# One command on the GPU machine: build attn-tune, install Kernel Tuner from the
# wheels in .whl/ (no network there), and race the two (kernel_tuner_race.py).
#   bash scripts/compare/kernel_tuner_race.sh            # writes under $OUT (or results/compare/kernel_tuner_race)
# Wheels (pip download --no-deps ... -d .whl, see the device notes): kernel_tuner and those of its
# needs the machine lacks (python-constraint2, xmltodict, jsonschema and its deps, pymoo, ...).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -eo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/results/compare/kernel_tuner_race}"
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/kt-site .whl/*.whl
  export PYTHONPATH=/tmp/kt-site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c "import kernel_tuner, cupy, torch" || { echo "kernel_tuner_race: kernel_tuner, cupy and torch must import"; exit 2; }
source scripts/gpu/setup.sh >/dev/null
python3 scripts/compare/kernel_tuner_race.py --attn-tune "$root/build-gpu/app/attn-tune" --out "$out" "$@"
