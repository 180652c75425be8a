#include "catalog/catalog.h"

#include <strings.h>

#include <atomic>

namespace bc {

// Each cipher folder's catalog.inc, in folder order (generated at configure time).
// First pass: the block ciphers' descriptors, defined in their folders.
#define BC_BLOCK_CIPHER(id) extern const BlockCipher kBlockCipher_##id;
#define BC_ALGORITHM(...)
#include "bc_cipher_catalogs.inc"
#undef BC_BLOCK_CIPHER
#undef BC_ALGORITHM

namespace {

constexpr uint64_t kUnbounded = UINT64_MAX;

#define BC_BLOCK_CIPHER_REF(id) &kBlockCipher_##id

const BlockCipher* const kBlockCiphers[] = {
#define BC_BLOCK_CIPHER(id) BC_BLOCK_CIPHER_REF(id),
#define BC_ALGORITHM(...)
#include "bc_cipher_catalogs.inc"
#undef BC_BLOCK_CIPHER
#undef BC_ALGORITHM
};

// Raw modes: ECB/CBC refuse partial blocks (unless padding), CTR is a stream,
// XTS needs a whole block per data unit.
const Algorithm kAlgorithms[] = {
#define BC_BLOCK_CIPHER(id)
#define BC_ALGORITHM(...) {__VA_ARGS__},
#include "bc_cipher_catalogs.inc"
#undef BC_BLOCK_CIPHER
#undef BC_ALGORITHM
    // NO-OP: output = input, no key, no IV, no kernel; only the transfers of a backend's
    // path (engine benchmarks: the ceiling every cipher on that path lives under).
    {"noop", Cipher::Noop, Mode::Stream, BC_KIND_STREAM, 0, 0, 0, 0, 0, 0, 0, 1, kUnbounded, 0, nullptr, nullptr},
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

namespace {
std::atomic<bool> g_benchmark_algorithms{false};
bool shown(const Algorithm& a) {
    return a.cipher != Cipher::Noop || g_benchmark_algorithms.load(std::memory_order_relaxed);
}
}  // namespace

void allow_benchmark_algorithms(bool on) { g_benchmark_algorithms.store(on, std::memory_order_relaxed); }

const Algorithm* find_public_algorithm(const char* name) {
    const Algorithm* a = find_algorithm(name);
    return a && shown(*a) ? a : nullptr;
}

const Algorithm* public_algorithm_at(size_t i) {
    for (const Algorithm& a : kAlgorithms)
        if (shown(a) && i-- == 0) return &a;
    return nullptr;
}

const BlockCipher* find_block_cipher(const char* name) {
    if (name == nullptr) return nullptr;
    for (const BlockCipher* c : kBlockCiphers)
        if (strcasecmp(c->name, name) == 0) return c;
    return nullptr;
}

const BlockCipher* block_cipher_at(size_t i) {
    return i < sizeof(kBlockCiphers) / sizeof(kBlockCiphers[0]) ? kBlockCiphers[i] : nullptr;
}

}  // namespace bc
