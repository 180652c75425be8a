// OpenSSL EVP, called directly (not through bulkcrypt): the reference of the
// differential tests.
#pragma once

#include <string>

#include "common.h"

namespace conf {

// One-shot EVP cipher (ECB, CBC, CTR, XTS, ChaCha20). pad: PKCS#7 on/off for
// ECB/CBC. Returns false (with *err) when OpenSSL refuses. A cipher the default
// provider lacks is fetched from the legacy provider, loaded into a library context
// of the suite's own (SEED). A key of another length than the cipher's default is
// passed as it is (EVP_CIPHER_CTX_set_key_length), for ciphers of variable key length.
bool evp_cipher(const std::string& name, bool encrypt, const Bytes& key, const Bytes& iv, const Bytes& in, bool pad,
                Bytes* out, std::string* err);

// AEAD seal (GCM with any IV length, ChaCha20-Poly1305): ct and a tag of tag_len bytes.
bool evp_aead_seal(const std::string& name, const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& pt,
                   size_t tag_len, Bytes* ct, Bytes* tag, std::string* err);

}  // namespace conf
