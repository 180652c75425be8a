#!/usr/bin/env bash
# The `openssl` command with bulkcrypt's provider, a client no one here wrote:
#   list -cipher-algorithms   the provider's ciphers are listed under it
#   enc                       files of several sizes encrypted with -provider bulkcrypt give
#                             the default provider's bytes, and decrypt back; with the
#                             shipped threshold (enc's cipher BIO feeds 4 KiB pieces, which
#                             run on OpenSSL's cipher)
#                             and with threshold 0 (every piece on bulkcrypt's path), the
#                             provider's stats line showing which ran
#   speed -evp                runs 1 MiB calls on bulkcrypt's path and reports a rate
# Usage: openssl_command.sh OPENSSL PROVIDER_DIR
set -euo pipefail
openssl=$1
provider_dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$provider_dir/bulkcrypt.so" ] || fail "no bulkcrypt.so in $provider_dir"
ours=(-provider-path "$provider_dir" -provider bulkcrypt -provider default -propquery provider=bulkcrypt)

# a config whose bulkcrypt section has the given settings; its path on stdout
source "$(dirname "$0")/provider_conf.sh"
config() {  # config NAME SETTINGS...
  local f="$work/$1.cnf"
  shift
  write_provider_conf "$f" "$provider_dir" "$work/stats" "$@"
  echo "$f"
}

# ---- list
"$openssl" list -cipher-algorithms "${ours[@]}" > "$work/list"
for name in id-aes256-GCM AES-128-CTR ChaCha20-Poly1305 CAMELLIA-256-CBC SM4-CTR xchacha20-poly1305 clefia-128-ctr; do
  grep -qi -- "$name.*@ bulkcrypt" "$work/list" || fail "list -cipher-algorithms: no $name from bulkcrypt"
done
echo "list: $(grep -c '@ bulkcrypt' "$work/list") cipher entries from bulkcrypt"

# ---- enc round trips against the default provider
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=f0e0d0c0b0a090807060504030201000
for size in 0 1 4095 100000 3145733; do
  head -c "$size" /dev/urandom > "$work/plain"
  for cipher in aes-256-ctr aes-128-cbc aes-256-ecb camellia-128-cbc aria-256-ctr sm4-cbc chacha20; do
    k=$key; v=$iv
    case $cipher in *-128-*|sm4-*) k=${key:0:32};; esac
    case $cipher in *-ecb) v=;; esac
    "$openssl" enc -$cipher -K "$k" ${v:+-iv "$v"} -in "$work/plain" -out "$work/want" -provider default
    for cnf in shipped direct; do
      if [ $cnf = shipped ]; then conf=$(config shipped); else conf=$(config direct "threshold = 0" "device = cpu"); fi
      rm -f "$work/stats"
      OPENSSL_CONF=$conf "$openssl" enc -$cipher -K "$k" ${v:+-iv "$v"} -in "$work/plain" -out "$work/got" \
        -propquery provider=bulkcrypt
      cmp -s "$work/want" "$work/got" || fail "enc -$cipher ($size bytes, $cnf): differs from the default provider"
      OPENSSL_CONF=$conf "$openssl" enc -d -$cipher -K "$k" ${v:+-iv "$v"} -in "$work/got" -out "$work/back" \
        -propquery provider=bulkcrypt
      cmp -s "$work/plain" "$work/back" || fail "enc -d -$cipher ($size bytes, $cnf): no round trip"
      # which implementation ran: bulkcrypt's with threshold 0, OpenSSL's in 4 KiB pieces
      grep -q "bulkcrypt provider" "$work/stats" || fail "no stats line written"
      if [ $cnf = direct ] && [ "$size" -gt 0 ]; then
        grep -q "device-calls [1-9]" "$work/stats" || fail "enc -$cipher with threshold 0 did not run on bulkcrypt's path"
      fi
      if [ $cnf = shipped ] && [ "$size" -gt 0 ]; then
        grep -q "fallback-calls [1-9]" "$work/stats" || fail "enc -$cipher did not run OpenSSL's cipher under the threshold"
      fi
    done
  done
done
echo "enc: 5 sizes x 7 ciphers x 2 settings, both directions, identical to the default provider"

# ---- speed -evp through the provider (-propquery before -evp: speed fetches at -evp)
rm -f "$work/stats"
OPENSSL_CONF=$(config speed "device = cpu") "$openssl" speed -elapsed -seconds 1 -propquery provider=bulkcrypt \
  -bytes 1048576 -evp aes-256-gcm > "$work/speed" 2>&1 || fail "speed -evp aes-256-gcm failed: $(tail -3 "$work/speed")"
grep -qi "aes-256-gcm" "$work/speed" || fail "speed printed no aes-256-gcm line"
grep -q "device-calls [1-9]" "$work/stats" || fail "speed's 1 MiB calls did not run on bulkcrypt's path"
echo "speed: $(grep -i '^aes-256-gcm' "$work/speed" | tail -1) (bulkcrypt's path: $(sed -n 's/.*\(device-calls [0-9]*\).*/\1/p' "$work/stats"))"
echo "PASS"
