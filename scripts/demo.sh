#!/usr/bin/env bash
# The main job, on this machine: generate a 1 GiB file, encrypt it into the
# authenticated container (AES-256-GCM, key file), decrypt it, check that the
# round trip is exact, and print the rates.
set -euo pipefail
build=${1:-build}
bc="$build/cli/bulkcrypt"
[ -x "$bc" ] || { echo "demo: $bc is missing; run make build" >&2; exit 1; }
size_mib=${DEMO_MIB:-1024}

work=$(mktemp -d "${TMPDIR:-/tmp}/bulkcrypt-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== bulkcrypt demo: $size_mib MiB through the authenticated file format"
"$bc" devices
# Pseudo-random plaintext quickly: AES-CTR keystream from openssl, not /dev/urandom.
# (head closes the pipe on purpose; the SIGPIPE that stops openssl is expected.)
{ openssl enc -aes-128-ctr -nosalt -pass pass:demo -in /dev/zero 2>/dev/null || true; } | head -c "$((size_mib << 20))" > "$work/plain.bin"
[ "$(stat -c %s "$work/plain.bin")" -eq "$((size_mib << 20))" ] || { echo "demo: could not generate the input" >&2; exit 1; }
"$bc" keygen "$work/demo.key"

ms() { date +%s%N | cut -b1-13; }
t0=$(ms); "$bc" encrypt -q -k "$work/demo.key" "$work/plain.bin" "$work/cipher.bcx"; t1=$(ms)
"$bc" decrypt -q -k "$work/demo.key" "$work/cipher.bcx" "$work/back.bin"; t2=$(ms)

cmp "$work/plain.bin" "$work/back.bin" || { echo "demo: round trip FAILED" >&2; exit 1; }
bytes=$((size_mib << 20))
awk -v b="$bytes" -v e="$((t1 - t0))" -v d="$((t2 - t1))" -v c="$(stat -c %s "$work/cipher.bcx")" 'BEGIN {
  printf "encrypt: %.1f MiB in %.2f s = %.2f GB/s (file to file)\n", b/1048576, e/1000, b/e/1e6;
  printf "decrypt: %.1f MiB in %.2f s = %.2f GB/s (file to file)\n", b/1048576, d/1000, b/d/1e6;
  printf "container overhead: %d bytes (%.4f%%)\n", c-b, 100*(c-b)/b }'
# Tamper with one byte in the middle: decryption must refuse and leave no output.
printf '\x01' | dd of="$work/cipher.bcx" bs=1 seek=$((bytes / 2)) conv=notrunc status=none
if "$bc" decrypt -q -k "$work/demo.key" "$work/cipher.bcx" "$work/tampered.bin" 2>/dev/null; then
  echo "demo: tampered file was accepted!" >&2; exit 1
fi
[ ! -e "$work/tampered.bin" ] || { echo "demo: tampered output left behind" >&2; exit 1; }
echo "tampered copy rejected (exit code 3), no output written: OK"
echo "round trip exact: OK"
