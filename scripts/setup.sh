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
  python3-dev python3-venv         # the Python package: headers, and the virtual environment below
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

# The Python package's build and test tools, in a virtual environment of the project's
# (.venv, or $BC_VENV): pip stays out of the system's Python. Reinstalled only when
# python/requirements-dev.txt changed since the last run.
venv=${BC_VENV:-.venv}
req=python/requirements-dev.txt
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating the Python environment $venv"
  python3 -m venv "$venv"
fi
if ! cmp -s "$req" "$venv/.requirements-installed"; then
  echo "setup: installing $req into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  cp "$req" "$venv/.requirements-installed"
fi
