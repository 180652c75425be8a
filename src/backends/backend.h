// The interface every backend (cpu, cuda, opencl) implements.
//
// The C API layer (src/capi) checks every argument, handles padding, streaming
// state and tag comparison; a backend only transforms bytes it is given, with
// arguments that are already valid. Work is expressed so that it can be split:
//   - raw modes carry their start position (counter block, chaining value,
//     tweak, keystream byte offset), so any piece can run anywhere;
//   - AEADs are a keystream part plus a linear MAC (GHASH, Poly1305) whose
//     per-piece partial results are combined with powers of H or r by
//     src/modes (see modes/gcm/ghash.h, modes/poly1305).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"
#include "tuning/tuning.h"
#include "util/secure.h"
#include "util/status.h"

namespace bc {

enum class Dir { Encrypt, Decrypt };

// Options parsed from bc_context_create's option string, shared by backends.
struct ContextOptions {
    unsigned threads = 0;             // 0 = all cores
    bool cpu_portable = false;        // cpu.impl=portable: bulkcrypt's own cores, not libcrypto
    bool aes_table = false;           // aes=table: the table-based GPU AES (not constant time)
    bool aes_generic = false;         // aes=generic: AES through the generic block-mode kernels
    // <cipher>=table: the CUDA kernels run the cipher's table form (a block cipher
    // registered as "<cipher>_table": not constant time, for measurement)
    std::vector<std::string> table_forms;
    size_t chunk = 0;                 // 0 = the tuning entry's (src/tuning)
    tuning::Overrides tuning;         // depth=, cuda.aes_variant=, cuda.ghash=, cuda.pair_cc_waves=,
                                      // cuda.xts_layout=
};

// A key as the host holds it: raw bytes plus the algorithm. Backends derive
// their own expanded forms (BackendKey) from it once.
struct KeyMaterial {
    const Algorithm* alg = nullptr;
    SecureBytes raw;
};

// A backend's expanded key (device copies included). Destroying it wipes them.
class BackendKey {
public:
    virtual ~BackendKey() = default;
};

// Raw-mode work: ECB, CBC, CTR, XTS, stream ciphers. Lengths are already valid
// for the mode (whole blocks for ECB/CBC, >= 16 per XTS data unit).
struct CipherOp {
    Dir dir = Dir::Encrypt;
    // Start state, mode by mode (16 bytes unless said):
    //   CBC: the chaining value (IV, or the previous ciphertext block)
    //   CTR: the counter block of the first block of this piece
    //   XTS: the tweak of the first data unit of this piece
    //   Stream ciphers: the nonce (iv_len bytes); position is given by offset
    const uint8_t* iv = nullptr;
    size_t iv_len = 0;
    const uint8_t* in = nullptr;
    uint8_t* out = nullptr;
    size_t len = 0;
    uint64_t offset = 0;          // stream ciphers (and CTR): byte offset into the keystream
    uint64_t data_unit = 0;       // XTS: bytes per data unit, 0 = whole piece is one unit
    bc_memory memory = BC_MEMORY_HOST;
    void* stream = nullptr;       // CUDA stream for device memory
};

// One piece of an AEAD message body: keystream plus the MAC partial of the
// ciphertext piece (the MAC always covers ciphertext, whichever direction).
//   GCM: ctr is the counter block of the piece's first block (J0 + 1 + block
//        index, 32-bit increment); partial (16 bytes) = H * GHASH_H(piece)
//        where GHASH_H(X1..Xn) = sum Xi * H^(n-i+1), the last block zero-padded.
//   ChaCha20-Poly1305: ctr holds the 16-byte ChaCha state words 12..15 (block
//        counter then nonce) of the piece's first block; mac_key is the 32-byte
//        one-time Poly1305 key; partial (17 bytes, little-endian, < 2^130)
//        = sum mi * r^(n-i+1) mod 2^130-5 over the zero-padded 16-byte blocks.
// Every piece but the last of a message is a multiple of 64 bytes.
struct AeadChunkOp {
    Dir dir = Dir::Encrypt;
    uint8_t ctr[16] = {};
    const uint8_t* mac_key = nullptr;
    // XChaCha20-Poly1305: the per-message HChaCha20 subkey (32 bytes) that replaces
    // the key for this message; nullptr = use the key itself.
    const uint8_t* subkey = nullptr;
    const uint8_t* in = nullptr;
    uint8_t* out = nullptr;
    size_t len = 0;
    bc_memory memory = BC_MEMORY_HOST;
    void* stream = nullptr;
    uint8_t partial[32] = {};     // out
};

// The MAC partial over arbitrary data (the AAD), same definition as above.
struct MacOp {
    const uint8_t* mac_key = nullptr;  // Poly1305 only
    const uint8_t* data = nullptr;
    size_t len = 0;
    bc_memory memory = BC_MEMORY_HOST;
    void* stream = nullptr;
    uint8_t partial[32] = {};     // out
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual const char* name() const = 0;          // "cpu", "cuda", "opencl"
    virtual std::string device_name() const = 0;   // one line for humans
    virtual bool supports(const Algorithm& alg) const = 0;
    virtual bool supports_memory(bc_memory m) const = 0;

    // Expands the key for this backend (and uploads it to the device).
    virtual Status prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) = 0;

    virtual Status cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) = 0;
    virtual Status aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) = 0;
    virtual Status mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) = 0;

    // Optional fast path for a whole AEAD message in one call (small messages,
    // where per-piece set-up would dominate). Encrypt: writes the full 16-byte tag
    // to tag. Decrypt: checks the first tag_len bytes of tag and returns
    // BC_ERR_AUTH_FAILED on a mismatch (the caller wipes the output).
    // BC_ERR_NOT_SUPPORTED means "use aead_chunk and mac instead".
    virtual Status aead_oneshot(const KeyMaterial& key, const BackendKey& bkey, Dir dir, const uint8_t* nonce,
                                size_t nonce_len, const uint8_t* aad, size_t aad_len, const uint8_t* in,
                                uint8_t* out, size_t len, uint8_t* tag, size_t tag_len, bc_memory memory) {
        return Status(BC_ERR_NOT_SUPPORTED);
    }

    // Zeroes n bytes of memory of the given kind (used to wipe outputs on failure).
    virtual Status wipe(void* p, size_t n, bc_memory memory, void* stream) = 0;

    // What a scheduler over several backends asks them (src/engine), answered without
    // knowing it: whether this is the CPU backend (jobs it keeps for itself), whether p
    // is device memory of this backend's device (device jobs go to their owner), and
    // whether host pointer p is page-locked for this backend's transfers.
    virtual bool is_cpu() const { return false; }
    virtual bool owns_device_pointer(const void* p) const { return false; }
    virtual bool host_pinned(const void* p) const { return false; }
};

// Factories; each returns BC_ERR_NO_DEVICE (with a reason) when unavailable.
Status make_cpu_backend(const ContextOptions& opt, std::unique_ptr<Backend>* out);
Status make_cuda_backend(int index, const ContextOptions& opt, std::unique_ptr<Backend>* out);
Status make_opencl_backend(int index, const ContextOptions& opt, std::unique_ptr<Backend>* out);
// CUDA devices present (0 without CUDA, or without a driver).
int cuda_device_count();

}  // namespace bc
