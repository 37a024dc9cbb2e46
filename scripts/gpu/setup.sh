#!/usr/bin/env bash
# Builds attn-tune on an NVIDIA GPU host and makes its OpenCL driver visible.
# Source it (`source scripts/gpu/setup.sh`) to get ATTN_TUNE and the library
# path in your shell; run it to only build.
#
# What it needs on the host: the CUDA toolkit (nvcc, NVRTC, cuda.h) and the
# driver (libcuda.so.1), cmake >= 3.25, a C++20 compiler, and the Debian/Ubuntu
# -dev packages of scripts/install-deps.sh. Hosts without a package registry
# (the lent GPU machines) lack libmuparser-dev: put its .deb files in
# .devdeps/ (`apt-get download libmuparser-dev libmuparser2v5` on a machine
# that has a registry) and this script unpacks them under /tmp/attn-tune-deps.

# -h, --help: the opening comment, before any work
# (sourced, it returns to the shell that sourced it)
case "${1:-}" in
  -h | --help)
    awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
    return 0 2>/dev/null || exit 0 ;;
esac
set -eo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

deps=/tmp/attn-tune-deps
if compgen -G "$root/.devdeps/*.deb" >/dev/null; then
  mkdir -p "$deps"
  for deb in "$root"/.devdeps/*.deb; do dpkg -x "$deb" "$deps"; done
  export CMAKE_PREFIX_PATH="$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# NVIDIA's OpenCL driver ships as libnvidia-opencl.so.1; the ICD loader finds it
# only through a file in /etc/OpenCL/vendors.
if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
  lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl.so.1/{print $NF; exit}')
  [ -z "$lib" ] && lib=$(find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libnvidia-opencl.so.1' 2>/dev/null | head -n1)
  if [ -z "$lib" ]; then
    echo "setup: NVIDIA's OpenCL driver (libnvidia-opencl.so.1) not found; OpenCL lists other platforms only"
  elif mkdir -p /etc/OpenCL/vendors 2>/dev/null && echo "$lib" > /etc/OpenCL/vendors/nvidia.icd 2>/dev/null; then
    echo "setup: registered $lib as an OpenCL ICD"
  else
    echo "setup: cannot write /etc/OpenCL/vendors/nvidia.icd (run as root to use NVIDIA's OpenCL)"
  fi
fi

export PATH="/usr/local/cuda/bin:$PATH"
build="${ATTN_TUNE_BUILD_DIR:-$root/build-gpu}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTN_TUNE_BUILD_TESTS="${ATTN_TUNE_BUILD_TESTS:-OFF}" >/dev/null
cmake --build "$build" -j "$(nproc)"
export ATTN_TUNE="$build/app/attn-tune"
"$ATTN_TUNE" devices
