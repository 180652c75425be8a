#!/usr/bin/env bash
# Installs what the build and the tests need on a fresh Debian 12 machine of this
# project's kind. Idempotent: packages already present are skipped, so a warm
# machine pays nothing. Runs apt-get only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  groff-base                       # renders the manual page (docs/bulkcrypt.1) in the install test
  libssl-dev openssl              # libcrypto: the CPU backend and the differential oracle
  libgtest-dev libgmock-dev        # unit and conformance tests
  libbenchmark-dev                 # micro benchmarks
  nlohmann-json3-dev               # reads Wycheproof JSON vectors
  libcli11-dev libfmt-dev libargon2-dev  # the bulkcrypt command line (argon2: passphrase KDF)
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo  # OpenCL backend, PoCL in CI
  python3-matplotlib               # bench/report.py plots
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
