// The catalogue: every algorithm bulkcrypt knows, its sizes and which cipher
// core and mode implement it. Names follow OpenSSL's spelling.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bulkcrypt/bulkcrypt.h"

namespace bc {

enum class Cipher {
    AES,
    ChaCha20,        // RFC 8439 layout (32-bit counter, 96-bit nonce) or original (64/64)
    XChaCha20,
    Salsa20,
    XSalsa20,
    Noop,            // transfers only; the pipeline's ceiling (engine benchmarks)
};

enum class Mode {
    ECB,
    CBC,
    CTR,
    XTS,
    GCM,
    Stream,          // a native stream cipher (ChaCha20, Salsa20, ...)
    ChaChaPoly,      // ChaCha20-Poly1305 family (RFC 8439 construction)
};

struct Algorithm {
    const char* name;
    Cipher cipher;
    Mode mode;
    bc_kind kind;
    size_t key_size;        // bytes; XTS: both keys
    size_t iv_size, iv_min, iv_max;
    size_t tag_size, tag_min, tag_max;
    size_t block_size;
    uint64_t max_message;   // bytes per message/IV; UINT64_MAX = unbounded
    int rounds;             // cipher rounds where the family has variants (Salsa20/8/12/20)
    const char* openssl_name;  // the EVP cipher name, nullptr when OpenSSL lacks it
};

// Case-insensitive lookup; nullptr when unknown.
const Algorithm* find_algorithm(const char* name);
// The i-th entry, nullptr past the end.
const Algorithm* algorithm_at(size_t i);

// GCM's per-message bound: 2^39 - 256 bits of plaintext (NIST SP 800-38D).
constexpr uint64_t kGcmMaxMessage = (uint64_t(1) << 36) - 32;

}  // namespace bc
