#!/usr/bin/env bash
# CPU backend beside `openssl speed -multi <cores>` for the same algorithms, same run.
set -euo pipefail
build=${1:-build}
out=${BENCH_OUT:-$build/bench-results}
mkdir -p "$out"
for alg in aes-256-gcm aes-128-ctr aes-128-gcm; do
  "$build/bench/cpu_bench" --alg "$alg" --json "$out/cpu_$alg.json"
done
