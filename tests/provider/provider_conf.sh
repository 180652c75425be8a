# Sourced by the provider's scripts: write_provider_conf FILE PROVIDER_DIR STATS SETTINGS...
# writes an openssl.cnf that activates OpenSSL's default provider and bulkcrypt's (module
# from PROVIDER_DIR, its counters appended to STATS at unload, then the given lines of its
# section, e.g. "threshold = 0"). BC_CONF_PREFER=1 adds default_properties =
# ?provider=bulkcrypt, so that fetches prefer bulkcrypt's algorithms (what libssl needs);
# BC_CONF_LEGACY=1 activates OpenSSL's legacy provider too (DES, Blowfish, CAST5, SEED).
write_provider_conf() {
  local file=$1 dir=$2 stats=$3
  shift 3
  {
    echo "openssl_conf = openssl_init"
    echo "[openssl_init]"
    echo "providers = provider_sect"
    if [ "${BC_CONF_PREFER:-0}" = 1 ]; then
      echo "alg_section = algorithm_sect"
      echo "[algorithm_sect]"
      echo "default_properties = ?provider=bulkcrypt"
    fi
    echo "[provider_sect]"
    echo "default = default_sect"
    echo "bulkcrypt = bulkcrypt_sect"
    [ "${BC_CONF_LEGACY:-0}" = 1 ] && echo "legacy = default_sect"
    echo "[default_sect]"
    echo "activate = 1"
    echo "[bulkcrypt_sect]"
    echo "module = $dir/bulkcrypt.so"
    echo "activate = 1"
    echo "stats = $stats"
    local s
    for s in "$@"; do echo "$s"; done
  } > "$file"
}
