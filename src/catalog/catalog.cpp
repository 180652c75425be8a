#include "engine/algorithms.h"

#include <strings.h>

namespace bc {
namespace {

constexpr uint64_t kUnbounded = UINT64_MAX;

// Raw modes: ECB/CBC refuse partial blocks (unless padding), CTR is a stream,
// XTS needs a whole block per data unit. The CTR bound is enforced per call
// from the counter value (2^128 blocks), so the table says unbounded.
const Algorithm kAlgorithms[] = {
    // name            cipher       mode         kind                 key  iv  min max tag min max blk max         rounds openssl
    {"aes-128-ecb", Cipher::AES, Mode::ECB, BC_KIND_BLOCK_MODE, 16, 0, 0, 0, 0, 0, 0, 16, kUnbounded, 10, "AES-128-ECB"},
    {"aes-192-ecb", Cipher::AES, Mode::ECB, BC_KIND_BLOCK_MODE, 24, 0, 0, 0, 0, 0, 0, 16, kUnbounded, 12, "AES-192-ECB"},
    {"aes-256-ecb", Cipher::AES, Mode::ECB, BC_KIND_BLOCK_MODE, 32, 0, 0, 0, 0, 0, 0, 16, kUnbounded, 14, "AES-256-ECB"},
    {"aes-128-cbc", Cipher::AES, Mode::CBC, BC_KIND_BLOCK_MODE, 16, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 10, "AES-128-CBC"},
    {"aes-192-cbc", Cipher::AES, Mode::CBC, BC_KIND_BLOCK_MODE, 24, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 12, "AES-192-CBC"},
    {"aes-256-cbc", Cipher::AES, Mode::CBC, BC_KIND_BLOCK_MODE, 32, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 14, "AES-256-CBC"},
    {"aes-128-ctr", Cipher::AES, Mode::CTR, BC_KIND_STREAM, 16, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 10, "AES-128-CTR"},
    {"aes-192-ctr", Cipher::AES, Mode::CTR, BC_KIND_STREAM, 24, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 12, "AES-192-CTR"},
    {"aes-256-ctr", Cipher::AES, Mode::CTR, BC_KIND_STREAM, 32, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 14, "AES-256-CTR"},
    // XTS: IEEE 1619 allows 2^20 blocks per data unit; enforced per data unit.
    {"aes-128-xts", Cipher::AES, Mode::XTS, BC_KIND_XTS, 32, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 10, "AES-128-XTS"},
    {"aes-256-xts", Cipher::AES, Mode::XTS, BC_KIND_XTS, 64, 16, 16, 16, 0, 0, 0, 16, kUnbounded, 14, "AES-256-XTS"},
    {"aes-128-gcm", Cipher::AES, Mode::GCM, BC_KIND_AEAD, 16, 12, 1, 1024, 16, 4, 16, 16, kGcmMaxMessage, 10, "AES-128-GCM"},
    {"aes-192-gcm", Cipher::AES, Mode::GCM, BC_KIND_AEAD, 24, 12, 1, 1024, 16, 4, 16, 16, kGcmMaxMessage, 12, "AES-192-GCM"},
    {"aes-256-gcm", Cipher::AES, Mode::GCM, BC_KIND_AEAD, 32, 12, 1, 1024, 16, 4, 16, 16, kGcmMaxMessage, 14, "AES-256-GCM"},
    // BC_STREAM_CIPHER_ENTRIES: the stream-cipher family goes here.
    // Stream ciphers: block_size 1, any byte offset. "chacha20" is OpenSSL's: IV = le32(block
    // counter) || 96-bit nonce; its 32-bit counter must not wrap, so one message from counter 0
    // holds 2^32 blocks = 2^38 bytes (checked per call from the IV's counter).
    // "chacha20-djb" is the original ChaCha20: 8-byte nonce (counter 0), or 16 bytes
    // le64(counter) || nonce(8); 64-bit counter. Salsa20 (8-byte nonce), XSalsa20 and XChaCha20
    // (24-byte nonce) have 64-bit counters from 0, so a 64-bit byte offset never wraps them.
    {"chacha20", Cipher::ChaCha20, Mode::Stream, BC_KIND_STREAM, 32, 16, 16, 16, 0, 0, 0, 1, uint64_t(1) << 38, 20, "ChaCha20"},
    {"chacha20-djb", Cipher::ChaCha20, Mode::Stream, BC_KIND_STREAM, 32, 8, 8, 16, 0, 0, 0, 1, kUnbounded, 20, nullptr},
    {"xchacha20", Cipher::XChaCha20, Mode::Stream, BC_KIND_STREAM, 32, 24, 24, 24, 0, 0, 0, 1, kUnbounded, 20, nullptr},
    {"salsa20", Cipher::Salsa20, Mode::Stream, BC_KIND_STREAM, 32, 8, 8, 8, 0, 0, 0, 1, kUnbounded, 20, nullptr},
    {"salsa20-128", Cipher::Salsa20, Mode::Stream, BC_KIND_STREAM, 16, 8, 8, 8, 0, 0, 0, 1, kUnbounded, 20, nullptr},
    {"salsa20-12", Cipher::Salsa20, Mode::Stream, BC_KIND_STREAM, 32, 8, 8, 8, 0, 0, 0, 1, kUnbounded, 12, nullptr},
    {"salsa20-12-128", Cipher::Salsa20, Mode::Stream, BC_KIND_STREAM, 16, 8, 8, 8, 0, 0, 0, 1, kUnbounded, 12, nullptr},
    {"salsa20-8", Cipher::Salsa20, Mode::Stream, BC_KIND_STREAM, 32, 8, 8, 8, 0, 0, 0, 1, kUnbounded, 8, nullptr},
    {"salsa20-8-128", Cipher::Salsa20, Mode::Stream, BC_KIND_STREAM, 16, 8, 8, 8, 0, 0, 0, 1, kUnbounded, 8, nullptr},
    {"xsalsa20", Cipher::XSalsa20, Mode::Stream, BC_KIND_STREAM, 32, 24, 24, 24, 0, 0, 0, 1, kUnbounded, 20, nullptr},
    // ChaCha20-Poly1305 (RFC 8439) and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha): the body
    // uses block counters 1 .. 2^32-1, so at most (2^32 - 1) * 64 bytes per message.
    {"chacha20-poly1305", Cipher::ChaCha20, Mode::ChaChaPoly, BC_KIND_AEAD, 32, 12, 12, 12, 16, 16, 16, 1, ((uint64_t(1) << 32) - 1) * 64, 20, "ChaCha20-Poly1305"},
    {"xchacha20-poly1305", Cipher::XChaCha20, Mode::ChaChaPoly, BC_KIND_AEAD, 32, 24, 24, 24, 16, 16, 16, 1, ((uint64_t(1) << 32) - 1) * 64, 20, nullptr},
    // NO-OP: output = input, no key, no IV, no kernel; only the transfers of a backend's
    // path (engine benchmarks: the ceiling every cipher on that path lives under).
    {"noop", Cipher::Noop, Mode::Stream, BC_KIND_STREAM, 0, 0, 0, 0, 0, 0, 0, 1, kUnbounded, 0, nullptr},
};

}  // namespace

const Algorithm* find_algorithm(const char* name) {
    if (name == nullptr) return nullptr;
    for (const Algorithm& a : kAlgorithms)
        if (strcasecmp(a.name, name) == 0) return &a;
    return nullptr;
}

const Algorithm* algorithm_at(size_t i) {
    return i < sizeof(kAlgorithms) / sizeof(kAlgorithms[0]) ? &kAlgorithms[i] : nullptr;
}

}  // namespace bc
