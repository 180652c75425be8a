#!/usr/bin/env bash
# `openssl speed -evp` with and without bulkcrypt's provider, one process each, in turns on
# the same machine: the rates the issue of the provider asks for, and the threshold's
# measurement. Writes one TSV line a run: setting, cipher, direction, bytes, bytes/s.
#   scripts/provider_speed.sh PROVIDER_DIR RESULTS.tsv [quick | gpu | lines]
# gpu: the GPU's ciphers only; lines: the issue's lines alone (small and large calls, no
# threshold sweep). SMALL_REPS: pairs of small-call runs a size (default 1), in turns, so
# that drift of the machine's speed shows as spread rather than as a ratio.
# Settings: openssl (OpenSSL's default and legacy providers alone), shipped (the provider
# as installed: device auto, the measured thresholds), cpu / cuda (device cpu or cuda:0),
# direct-cpu / direct-cuda (threshold 0 on that device: every call on bulkcrypt's path, to
# find where it overtakes OpenSSL's one core).
set -uo pipefail
dir=$(cd "$1" && pwd)
tsv=$2
quick=${3:-}
gpu_only=; [ "$quick" = gpu ] && gpu_only=1 && quick=
lines=; [ "$quick" = lines ] && lines=1 && quick=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../tests/provider/provider_conf.sh"
for s in shipped cpu cuda direct-cpu direct-cuda; do
  case $s in
    shipped) set -- ;;
    cpu) set -- "device = cpu" ;;
    cuda) set -- "device = cuda:0" ;;
    direct-cpu) set -- "threshold = 0" "device = cpu" ;;
    direct-cuda) set -- "threshold = 0" "device = cuda:0" ;;
  esac
  BC_CONF_LEGACY=1 write_provider_conf "$work/$s.cnf" "$dir" "$work/stats" "$@"
done

# seconds a run: 2 for the small calls (their 5 % line), 1 for the rest
secs=1
run() {  # run SETTING CIPHER DIRECTION BYTES
  local setting=$1 cipher=$2 dirn=$3 bytes=$4 args=() rate dev=- fb=- name=-
  [ "$dirn" = decrypt ] && args+=(-decrypt)
  rm -f "$work/stats"
  # -elapsed: wall-clock time (speed's default divides by the process's CPU user time, which
  # counts every thread of bulkcrypt's pool and none of a GPU's time). -propquery before
  # -evp: speed fetches the cipher when it reads -evp.
  if [ "$setting" = openssl ]; then
    rate=$(openssl speed -mr -elapsed -seconds "$secs" -provider default -provider legacy -bytes "$bytes" \
           "${args[@]}" -evp "$cipher" 2>/dev/null | sed -n 's/^+F:[0-9]*:[^:]*:\([0-9.]*\)$/\1/p')
  else
    rate=$(OPENSSL_CONF=$work/$setting.cnf openssl speed -mr -elapsed -seconds "$secs" -propquery provider=bulkcrypt \
           -bytes "$bytes" "${args[@]}" -evp "$cipher" 2>/dev/null | sed -n 's/^+F:[0-9]*:[^:]*:\([0-9.]*\)$/\1/p')
  fi
  if [ -f "$work/stats" ]; then
    dev=$(sed -n 's/.*device-calls \([0-9]*\).*/\1/p' "$work/stats" | tail -1)
    fb=$(sed -n 's/.*fallback-calls \([0-9]*\).*/\1/p' "$work/stats" | tail -1)
    name=$(sed -n 's/.*device "\([^"]*\)".*/\1/p' "$work/stats" | tail -1)
    # every call failed (speed then times nothing): no rate
    [ "${dev:-0}" = 0 ] && [ "${fb:-0}" = 0 ] && rate=failed
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$setting" "$cipher" "$dirn" "$bytes" "${rate:-failed}" "$dev" "$fb" "$name" |
    tee -a "$tsv"
}

# 1. Small calls: the threshold keeps them on OpenSSL's cipher (within 5 %).
small_ciphers="aes-256-gcm chacha20-poly1305 aes-128-ctr camellia-128-ctr des-ede3"
[ -n "$quick" ] && small_ciphers="aes-256-gcm"
secs=${SMALL_SECS:-2}
[ -n "$gpu_only" ] && small_ciphers=
for c in $small_ciphers; do
  for b in 16 256 1024 8192 16384; do
    for _ in $(seq "${SMALL_REPS:-1}"); do
      run openssl "$c" encrypt "$b"
      run shipped "$c" encrypt "$b"
    done
  done
done
# 2. The thresholds: bulkcrypt's path for each call size against OpenSSL's cipher, on the
# device auto gives the cipher's class (AES and ChaCha20: the CPU pool; others: the GPU).
secs=1
sweep() {  # sweep SETTING CIPHERS SIZES
  local c b
  for c in $2; do for b in $3; do run openssl "$c" encrypt "$b"; run "$1" "$c" encrypt "$b"; done; done
}
if [ -n "$lines" ]; then
  :
elif [ -n "$gpu_only" ]; then
  sweep direct-cuda "des-ede3 camellia-128-ctr seed-ecb" "65536 262144 1048576 4194304"
elif [ -n "$quick" ]; then
  sweep direct-cpu "aes-256-gcm" "262144 1048576 4194304"
  sweep direct-cuda "des-ede3" "65536 262144"
else
  sweep direct-cpu "aes-256-gcm aes-128-ctr chacha20-poly1305" "65536 262144 1048576 4194304 16777216"
  sweep direct-cuda "des-ede3 camellia-128-ctr seed-ecb" "16384 65536 131072 262144 1048576 4194304"
fi
# 3. Large calls: one process, 16 and 64 MiB, the provider as installed. Legacy ciphers in
# the modes that run in parallel (ECB, CTR; CBC decryption).
large="aes-256-gcm:encrypt chacha20-poly1305:encrypt aes-128-ctr:encrypt camellia-128-ctr:encrypt
camellia-256-ecb:encrypt camellia-128-cbc:decrypt des-ede3:encrypt des-ede3-cbc:decrypt bf-ecb:encrypt
bf-cbc:decrypt cast5-ecb:encrypt seed-ecb:encrypt seed-cbc:decrypt"
[ -n "$quick" ] && large="aes-256-gcm:encrypt des-ede3:encrypt"
[ -n "$gpu_only" ] && large=$(echo "$large" | tr ' ' '\n' | grep -v -e '^aes' -e '^chacha')
for entry in $large; do
  c=${entry%%:*}; d=${entry##*:}
  for b in 16777216 67108864; do
    for s in openssl shipped; do run "$s" "$c" "$d" "$b"; done
  done
done
