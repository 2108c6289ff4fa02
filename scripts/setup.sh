#!/usr/bin/env bash
# Installs the Debian packages the build needs (when missing) and builds evalforge in build/.
# CUDA targets are built too when nvcc is on the PATH (or in /usr/local/cuda/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(g++ cmake ninja-build pkg-config python3 libfmt-dev libcli11-dev libtomlplusplus-dev librandom123-dev
          nlohmann-json3-dev zlib1g-dev libcurl4-openssl-dev libssl-dev libzip-dev ca-certificates libgtest-dev libbenchmark-dev gnuplot-nox
          openmpi-bin libopenmpi-dev
          pybind11-dev python3-pybind11 python3-numpy python3-pytest python3-dev)
missing=()
# EF_EXTRA_PACKAGES: more Debian packages to install the same way (CI adds the sanitizer toolchain).
read -r -a extra <<< "${EF_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$(nproc)"
