// The catalogue: every algorithm bulkcrypt knows, its sizes and which cipher
// core and mode implement it. Names follow OpenSSL's spelling.
//
// The rows are collected at build time from the cipher folders: each
// src/cores/<cipher>/catalog.inc lists its algorithms (BC_ALGORITHM) and, for a
// block cipher, registers its descriptor (BC_BLOCK_CIPHER). A leaf: it includes
// nothing of bulkcrypt above the public header.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bulkcrypt/bulkcrypt.h"
#include "catalog/block_cipher.h"

namespace bc {

// The families with code of their own. Any other block cipher is Cipher::Block:
// it runs through the generic modes over its BlockCipher descriptor alone.
enum class Cipher {
    AES,             // also a BlockCipher: the generic modes run it, beside its own fast kernels
    ChaCha20,        // RFC 8439 layout (32-bit counter, 96-bit nonce) or original (64/64)
    XChaCha20,
    Salsa20,
    XSalsa20,
    Noop,            // transfers only; the pipeline's ceiling (engine benchmarks)
    Block,           // a block cipher served by the generic modes (Camellia, ...)
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
    const BlockCipher* block;  // the block cipher under a block mode, nullptr for stream ciphers
    // A cipher of variable key length (Blowfish, CAST5): the shortest and longest key
    // it takes, key_size being the default. Both 0 (rows leave these last two columns
    // out) when key_size is the only length.
    size_t key_min = 0, key_max = 0;
};

// The key lengths a row takes: [key_min_bytes, key_max_bytes], key_size alone for most.
inline size_t key_min_bytes(const Algorithm& a) { return a.key_max ? a.key_min : a.key_size; }
inline size_t key_max_bytes(const Algorithm& a) { return a.key_max ? a.key_max : a.key_size; }
inline bool key_length_ok(const Algorithm& a, size_t len) {
    return len >= key_min_bytes(a) && len <= key_max_bytes(a);
}

// Case-insensitive lookup; nullptr when unknown.
const Algorithm* find_algorithm(const char* name);
// The i-th entry, nullptr past the end.
const Algorithm* algorithm_at(size_t i);

// The catalogue the C API shows (bc_algorithm_query, bc_algorithm_name, bc_key_create):
// every entry but the benchmarks' own. "noop" (output = input, the transfer-only baseline
// of the benchmarks) would write plaintext with exit code 0 if a user could pick it, so
// it is there only after allow_benchmark_algorithms(true), which benchmark programs,
// `bulkcrypt bench` and the tests call (the internal library's, not exported).
void allow_benchmark_algorithms(bool on);
const Algorithm* find_public_algorithm(const char* name);
const Algorithm* public_algorithm_at(size_t i);

// True for the raw and AEAD modes built over a block cipher.
inline bool is_block_mode(Mode m) {
    return m == Mode::ECB || m == Mode::CBC || m == Mode::CTR || m == Mode::XTS || m == Mode::GCM;
}

// GCM's per-message bound: 2^39 - 256 bits of plaintext (NIST SP 800-38D).
constexpr uint64_t kGcmMaxMessage = (uint64_t(1) << 36) - 32;

// A 64-bit block cipher's per-message bound: 2^32 blocks, the birthday bound past
// which one key's ciphertext blocks start to collide (Sweet32).
constexpr uint64_t kBlock64MaxMessage = uint64_t(8) << 32;

}  // namespace bc
