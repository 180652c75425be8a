#!/usr/bin/env bash
# Packs what a run on the lent GPU machine needs into .device-build/ (ignored by
# git, carried by the device tool): the test and benchmark binaries of a CUDA
# build made here, and the shared libraries they link that the GPU machine's
# image may lack (OpenSSL 3.0 of this Debian, OpenCL ICD loader, fmt, argon2),
# plus the openssl command for `openssl speed` in the same run.
#   scripts/pack_device.sh BUILD [NAME...]   (names default to every test and bench program;
#   the tool carries 64 MiB at most, so pack what one call needs)
set -euo pipefail
build=${1:-build-cuda}
shift || true
dst=.device-build
rm -rf "$dst"
mkdir -p "$dst/bin" "$dst/lib"
for f in "$build"/tests/bc_unit_tests "$build"/tests/bc_conformance "$build"/tests/provider/bc_provider_tests \
         "$build"/cli/bulkcrypt "$build"/bench/*; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  if (($#)); then
    keep=0
    for n in "$@"; do [ "$(basename "$f")" = "$n" ] && keep=1; done
    ((keep)) || continue
  fi
  cp "$f" "$dst/bin/"
done
# KEEP_SYMBOLS=1 keeps the symbol tables (function names in cuda-gdb's stacks of a hung run).
strip ${KEEP_SYMBOLS:+--strip-debug} "$dst"/bin/* 2>/dev/null || true
for lib in libcrypto.so.3 libssl.so.3 libOpenCL.so.1 libfmt.so.9 libargon2.so.1; do
  p=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF}' | head -n 1) || true
  [ -n "$p" ] && cp -L "$p" "$dst/lib/"
done
cp "$(command -v openssl)" "$dst/bin/openssl"
# The OpenSSL provider (when bc_provider_tests is packed): the module and the shared
# library it links, which hold the same GPU code as the binaries (xz keeps one copy).
if [ -x "$dst/bin/bc_provider_tests" ] && [ -f "$build/provider/bulkcrypt.so" ]; then
  mkdir -p "$dst/lib/provider"
  cp "$build/provider/bulkcrypt.so" "$dst/lib/provider/"
  cp -L "$build/libbulkcrypt.so.0" "$dst/lib/"
  strip "$dst/lib/provider/bulkcrypt.so" "$dst/lib/libbulkcrypt.so.0"
fi
# PYSTAGE=<folder>: the Python package staged for the GPU machine's interpreter (its
# bulkcrypt/ folder, from a build of python/ for that Python), under python/, with the
# shared library it links under lib/ (device_run.sh python).
if [ -n "${PYSTAGE:-}" ]; then
  mkdir -p "$dst/python"
  cp -r "$PYSTAGE" "$dst/python/bulkcrypt"
  rm -rf "$dst/python/bulkcrypt/__pycache__"
  cp -L "$build/libbulkcrypt.so.0" "$dst/lib/"
  strip "$dst/lib/libbulkcrypt.so.0"
fi
# OpenSSL's legacy provider (DES, Blowfish, CAST5, SEED): the library's CPU backend and
# `openssl speed` load it from OPENSSL_MODULES, which device_run.sh points here.
mods=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')
[ -f "$mods/legacy.so" ] && mkdir -p "$dst/lib/ossl-modules" && cp "$mods/legacy.so" "$dst/lib/ossl-modules/"
# OLD=<build folder>: that build's GPU benchmarks too, under old/bin (device_run.sh
# compare, blocks-old), in the same archive: their GPU code is mostly the new build's.
if [ -n "${OLD:-}" ]; then
  mkdir -p "$dst/old/bin"
  for n in gpu_bench gpu_stream_bench block_bench; do [ -x "$OLD/bench/$n" ] && cp "$OLD/bench/$n" "$dst/old/bin/"; done
  strip "$dst"/old/bin/* 2>/dev/null || true
fi
# Every binary holds the same GPU code (~87 MB each with the 64-bit ciphers): compressed
# together with a window larger than one binary, each copy after the first costs little,
# so they fit the tool's 64 MiB; scripts/device_run.sh unpacks them (xz needs about the
# window's size of memory to unpack).
XZ_OPT="--lzma2=preset=9,dict=256MiB" tar -C "$dst" -cJf "$dst.tar.xz" bin lib $( [ -d "$dst/old" ] && echo old ) $( [ -d "$dst/python" ] && echo python )
rm -rf "$dst" && mkdir -p "$dst" && mv "$dst.tar.xz" "$dst/"
# The source folder the binaries were built from: they find tests/vectors there.
(cd "$build" && sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' CMakeCache.txt) > "$dst/srcdir"
# Scripts and the vector files the conformance suite reads live in the tree itself.
du -sh "$dst"
