#!/usr/bin/env bash
# The SASS of one CUDA kernel configuration, and its instruction mix: what ptxas made of a
# change, with no GPU. Two builds of the same configuration (before / after a refactor) compare
# by their mix: the same counts of HGMMA, MUFU, FFMA, ... means the same work, whatever the
# register names and the order.
#
#   scripts/bench/sass_mix.sh OUT_PREFIX KERNEL.cu -DNAME=VALUE ...
#     -> OUT_PREFIX.sass (addresses and encodings stripped), OUT_PREFIX.mix (count per opcode),
#        OUT_PREFIX.ptxas (registers, spills, compiler notes); prints the ptxas summary
#   scripts/bench/sass_mix.sh --diff A.mix B.mix    # the opcodes whose counts differ
#
# Needs nvcc (sm_90a) and nvdisasm. The CUDA toolkit has nvdisasm; where only nvcc is
# installed, PyPI's nvidia-cuda-nvdisasm wheel has it (unzip it; NVDISASM=.../bin/nvdisasm).
# docs/kernels/flash_attn_fwd_ws.md (ITEM_PIPELINE) used it.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
if [ "${1:-}" = --diff ]; then
  join -1 2 -2 2 -a1 -a2 -e0 -o 0,1.1,2.1 "$2" "$3" | awk '$2 != $3 { printf "%s %d -> %d\n", $1, $2, $3; n++ }
    END { if (!n) print "the same instruction mix" }'
  exit 0
fi
prefix="${1:?usage: sass_mix.sh OUT_PREFIX KERNEL.cu -DNAME=VALUE ...}"
src="${2:?usage: sass_mix.sh OUT_PREFIX KERNEL.cu -DNAME=VALUE ...}"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
nvdisasm="${NVDISASM:-$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)}"
[ -x "$nvdisasm" ] || { echo "sass_mix: nvdisasm not found (set NVDISASM)"; exit 2; }
# the kernels include their headers from kernels/, as NVRTC does with the spec's include_dirs
nvcc -arch=sm_90a -cubin -o "$prefix.cubin" -I"$root/kernels" "$@" "$src" -Xptxas -v > "$prefix.ptxas" 2>&1 ||
  { cat "$prefix.ptxas"; exit 1; }
"$nvdisasm" -c "$prefix.cubin" | sed -E 's@/\*[0-9a-f]{4,}\*/@@; s@ +/\* 0x[0-9a-f]+ \*/@@' | grep -v '^\s*$' > "$prefix.sass"
# the opcode, after the guard predicate if any (@P0, @!UP1, ...)
grep -oE '^\s+(@!?U?P[T0-9]+\s+)?[A-Z][A-Z0-9_.]+' "$prefix.sass" | awk '{ print $NF }' | sort | uniq -c | sort -k2 > "$prefix.mix"
grep -E 'registers|spill|C75' "$prefix.ptxas" || true
