// The objects behind the C API's opaque handles, and the checks every entry
// point shares.
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "bulkcrypt/bulkcrypt.h"
#include "cores/aes/aes.h"
#include "modes/aead/aead.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/ghash.h"

struct bc_context {
    std::string device;                      // as resolved, e.g. "cpu", "cuda:0"
    bc::ContextOptions options;
    std::unique_ptr<bc::Backend> backend;
};

struct bc_key {
    bc_context* ctx = nullptr;
    bc::KeyMaterial material;
    std::unique_ptr<bc::BackendKey> backend_key;
    // GCM needs H and E_K(J0) on the host for every message, whatever the
    // backend: kept here, expanded once, wiped on destroy. AES keeps its own
    // schedule; every other cipher its descriptor's (host_block).
    bc::AesKeySchedule host_aes{};
    bc::HostBlockSchedule host_block;
    bc_gf128 gcm_h{0, 0};
    // The cipher under GCM's set-up for this key.
    bc::GcmCipher gcm_cipher() const {
        return host_block.empty() ? bc::GcmCipher(host_aes) : bc::GcmCipher(*host_block.key().cipher, host_block.key().ks);
    }
    ~bc_key();
};

namespace bc {

// Runs an entry point's body, records the thread's last error and returns the code.
// No exception escapes the C boundary.
template <class F>
bc_status api_call(F&& body) noexcept {
    try {
        Status s = body();
        set_last_error(s);
        return s.code;
    } catch (const std::bad_alloc&) {
        Status s(BC_ERR_OUT_OF_MEMORY, "host memory exhausted");
        set_last_error(s);
        return s.code;
    } catch (...) {
        Status s(BC_ERR_INTERNAL, "unexpected exception inside bulkcrypt");
        set_last_error(s);
        return s.code;
    }
}

// bc_key_create's work once the algorithm is found: checks the key size and the
// backend, expands and uploads the key. ctx, alg and out non-null; key may be null
// only when key_len is 0. (Tests reach it with rows of their own.)
Status key_create(bc_context* ctx, const Algorithm* alg, const uint8_t* key, size_t key_len, bc_key** out);

// Whether in and out overlap without being the same buffer (what the API refuses).
inline bool partly_overlap(const void* in, size_t in_len, const void* out, size_t out_len) {
    if (in == out || in_len == 0 || out_len == 0) return false;
    auto a = reinterpret_cast<uintptr_t>(in), b = reinterpret_cast<uintptr_t>(out);
    return a < b + out_len && b < a + in_len;
}

// in and out are the same buffer or disjoint; anything else is refused.
inline Status check_aliasing(const void* in, size_t in_len, const void* out, size_t out_len) {
    if (partly_overlap(in, in_len, out, out_len))
        return Status(BC_ERR_OVERLAP, "input and output overlap without being the same buffer");
    return Status::ok();
}

inline const bc_params& params_or_default(const bc_params* p) {
    static const bc_params defaults = {};
    return p ? *p : defaults;
}

// Checks the memory kind against the key's backend.
inline Status check_memory(const bc_key* key, const bc_params& p) {
    if (p.memory != BC_MEMORY_HOST && p.memory != BC_MEMORY_DEVICE)
        return Status(BC_ERR_INVALID_ARGUMENT, "bc_params.memory is neither HOST nor DEVICE");
    if (!key->ctx->backend->supports_memory(p.memory))
        return Status(BC_ERR_NOT_SUPPORTED, std::string("the ") + key->ctx->backend->name() +
                                                " backend does not take device pointers");
    return Status::ok();
}

// Wipes an output after a failure, whatever memory it lives in.
inline void wipe_output(bc_key* key, void* out, size_t n, const bc_params& p) {
    if (out == nullptr || n == 0) return;
    if (p.memory == BC_MEMORY_HOST) secure_wipe(out, n);
    else (void)key->ctx->backend->wipe(out, n, p.memory, p.stream);
}

// ---- AEAD schemes: the per-message set-up and the MAC arithmetic -----------------

// What one AEAD message needs beyond the key.
struct AeadMessage {
    uint8_t ctr[16] = {};       // counter state of the first body block
    uint8_t mac_key[32] = {};   // Poly1305 one-time key (r || s)
    uint8_t subkey[32] = {};    // XChaCha20-Poly1305 subkey
    bool use_subkey = false;
    uint8_t tag_mask[16] = {};  // GCM: E_K(J0)
    uint8_t acc[32] = {};       // folded MAC partials so far
    ~AeadMessage();
};

Status aead_begin(const bc_key* key, const uint8_t* nonce, size_t nonce_len, AeadMessage* m);
// acc = acc * (H or r)^nblocks + partial
void aead_fold(const bc_key* key, AeadMessage* m, const uint8_t* partial, uint64_t nblocks);
// The full 16-byte tag once AAD and body are folded in.
void aead_tag(const bc_key* key, AeadMessage* m, uint64_t aad_len, uint64_t ct_len, uint8_t tag[16]);
// Granule of body pieces: every piece but the last is a multiple of it.
size_t aead_granule(const bc_key* key);
Status check_tag_len(const Algorithm* alg, size_t tag_len);

}  // namespace bc
