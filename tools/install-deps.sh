#!/usr/bin/env bash
# Installs the Debian 12 packages gpuplan builds and tests with; only the missing ones.
set -euo pipefail
# libbenchmark-dev (Google Benchmark) builds gpuplan_bench; help2man writes the man page;
# clang-14 and libclang-rt-14-dev build the fuzz preset; chromium and zlib1g-dev run the HTML
# report's browser test (a headless page load and a decoded screenshot; it SKIPs without them).
packages=(cmake ninja-build g++ libcli11-dev libfmt-dev nlohmann-json3-dev catch2 clang-14 libclang-rt-14-dev libbenchmark-dev help2man
          chromium zlib1g-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
