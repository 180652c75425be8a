// bulkcrypt's own OpenSSL library context: the default provider and, where it is installed,
// the legacy one (DES, Blowfish, CAST5, SEED). Every cipher and digest bulkcrypt fetches
// comes from here, never from the application's default context, so the application's
// configuration neither changes what bulkcrypt runs nor sends bulkcrypt's own calls back
// into bulkcrypt (an openssl.cnf may route AES-256-GCM to bulkcrypt's provider).
#pragma once

#include <openssl/types.h>

namespace bc {

// Made on first use and kept for the life of the process.
OSSL_LIB_CTX* openssl_ctx();
// Whether the legacy provider loaded into it.
bool openssl_legacy_loaded();

}  // namespace bc
