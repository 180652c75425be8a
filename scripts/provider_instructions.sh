#!/usr/bin/env bash
# Instructions of one small call through OpenSSL's default provider and through bulkcrypt's
# (bench/probes/provider_calls under callgrind, twice a setting: the difference of two call
# counts cancels process start and set-up). The provider's line "within 5 % of the default
# provider from 16 B to 16 KiB" in a figure that does not move from run to run.
#   scripts/provider_instructions.sh BUILD RESULTS.tsv [CIPHER...]
# TSV: cipher, bytes, OpenSSL's instructions a call, the provider's, provider over OpenSSL.
set -euo pipefail
build=$(cd "$1" && pwd)
tsv=$2
shift 2
ciphers=${*:-aes-256-gcm chacha20-poly1305 aes-128-ctr camellia-128-ctr des-ede3}
probe=$build/bench/provider_calls
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count() {  # count PROVIDER CIPHER BYTES CALLS: instructions of the whole process
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$probe" "$build/provider" "$@" > /dev/null 2> "$work/log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/log"
}
printf 'cipher\tbytes\topenssl\tprovider\tratio\n' > "$tsv"
for c in $ciphers; do
  for b in 16 256 1024 8192 16384; do
    more=$(( (1 << 20) / b )); ((more < 100)) && more=100
    per=()
    for p in default bulkcrypt; do
      lo=$(count "$p" "$c" "$b" 100)
      hi=$(count "$p" "$c" "$b" $((100 + more)))
      per+=($(( (hi - lo) / more )))
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$b" "${per[0]}" "${per[1]}" \
      "$(awk -v a="${per[0]}" -v b="${per[1]}" 'BEGIN { printf "%.3f", b / a }')" | tee -a "$tsv"
  done
done
