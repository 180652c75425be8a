#!/usr/bin/env bash
# TLS between `openssl s_server` and `openssl s_client` over loopback, both processes
# given bulkcrypt's provider by a config file (default_properties = ?provider=bulkcrypt,
# so libssl fetches its record ciphers from bulkcrypt), moving a file byte for byte:
# TLS 1.3 with AES-256-GCM and with ChaCha20-Poly1305, TLS 1.2 with both (its record
# parameters go to OpenSSL's cipher inside the provider). Each under the shipped threshold
# (records run on OpenSSL's cipher) and with threshold 0 (TLS 1.3 records on bulkcrypt's
# own path). The provider's stats lines, written by each process as it unloads, prove it
# ran the records.
# Usage: tls_loopback.sh OPENSSL PROVIDER_DIR
set -euo pipefail
openssl=$1
provider_dir=$(cd "$2" && pwd)
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$work/server.log" ] && tail -5 "$work/server.log"; exit 1; }

[ -f "$provider_dir/bulkcrypt.so" ] || fail "no bulkcrypt.so in $provider_dir"
here=$(cd "$(dirname "$0")" && pwd)
cd "$work"
"$openssl" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem -out cert.pem \
  -subj /CN=localhost -days 1 2> /dev/null
head -c 1048579 /dev/urandom > data.bin  # 1 MiB + 3: 65 records of up to 16 KiB

source "$here/provider_conf.sh"
BC_CONF_PREFER=1 write_provider_conf shipped.cnf "$provider_dir" "$work/stats"
BC_CONF_PREFER=1 write_provider_conf direct.cnf "$provider_dir" "$work/stats" "threshold = 0" "device = cpu"

transfer() {  # transfer CONFIG PROTOCOL-OPTIONS...
  local conf=$1; shift
  rm -f stats server.log
  OPENSSL_CONF=$conf "$openssl" s_server -accept 0 -naccept 1 -cert cert.pem -key key.pem -WWW "$@" \
    > server.log 2>&1 &
  server_pid=$!
  local port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^ACCEPT .*:\([0-9][0-9]*\)$/\1/p' server.log)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "s_server did not start"
  printf 'GET /data.bin HTTP/1.0\r\n\r\n' |
    OPENSSL_CONF=$conf timeout 60 "$openssl" s_client -connect "127.0.0.1:$port" -quiet -ign_eof "$@" \
      > response 2> client.log || true
  wait "$server_pid" || true
  server_pid=
  # the body after the -WWW server's header
  python3 -c 'import sys; d=open("response","rb").read(); i=d.find(b"\r\n\r\n"); sys.stdout.buffer.write(d[i+4:] if i>=0 else b"")' > body
  cmp -s data.bin body || fail "$conf $*: the file did not arrive byte for byte ($(stat -c %s body) bytes)"
  [ "$(grep -c 'bulkcrypt provider' stats)" -ge 2 ] || fail "$conf $*: no stats from both processes"
}

# the sum of a counter over the stats lines of both processes
total() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" stats | awk '{s+=$1} END {print s+0}'; }

for suite in TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256; do
  transfer shipped.cnf -tls1_3 -ciphersuites "$suite"
  [ "$(total fallback-calls)" -ge 130 ] || fail "TLS 1.3 $suite: $(total fallback-calls) records through the provider"
  echo "TLS 1.3 $suite, shipped threshold: file intact, $(total fallback-calls) messages on OpenSSL's cipher, $(total device-calls) on bulkcrypt's"
  transfer direct.cnf -tls1_3 -ciphersuites "$suite"
  [ "$(total device-calls)" -ge 130 ] || fail "TLS 1.3 $suite, threshold 0: $(total device-calls) records on bulkcrypt's path"
  [ "$(total fallback-calls)" -eq 0 ] || fail "TLS 1.3 $suite, threshold 0: OpenSSL's cipher ran"
  echo "TLS 1.3 $suite, threshold 0: file intact, $(total device-calls) messages on bulkcrypt's path"
done
for suite in ECDHE-ECDSA-AES256-GCM-SHA384 ECDHE-ECDSA-CHACHA20-POLY1305; do
  transfer direct.cnf -tls1_2 -cipher "$suite"
  [ "$(total fallback-calls)" -ge 130 ] || fail "TLS 1.2 $suite: $(total fallback-calls) records through the provider"
  echo "TLS 1.2 $suite: file intact, $(total fallback-calls) records through the provider (OpenSSL's cipher)"
done
echo "PASS"
