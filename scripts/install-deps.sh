#!/usr/bin/env bash
# Installs what attn-tune needs to build and test, from Debian/Ubuntu packages.
# Only missing packages are installed; run as root or with sudo available.
# The CUDA toolkit is not installed here: when /usr/local/cuda (or nvcc on PATH)
# exists the CUDA backend is built, otherwise attn-tune builds without it.
#
#   bash scripts/install-deps.sh

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libmuparser-dev libssl-dev zlib1g-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  slurm-wlm munge
  libgtest-dev libvalijson-dev
  clang-format  # the format check test (tests/format_check.cmake)
  python3-pytest  # the tests of scripts/ (tests/scripts/)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
