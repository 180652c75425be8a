// AES on the CPU through OpenSSL's libcrypto (AES-NI, VAES, stitched AES-GCM),
// split over the thread pool. Each task owns its own EVP context.
#pragma once

#include <openssl/evp.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/ghash.h"
#include "util/thread_pool.h"

namespace bc {

// libcrypto contexts already keyed with one key, reused across calls: keying a
// fresh context (allocation, key schedule, GHASH table) costs more than sealing
// a 4 KiB message. Contexts are freed, and so wiped, with the key.
class EvpKeyedPool {
public:
    EvpKeyedPool() = default;
    EvpKeyedPool(const EvpKeyedPool&) = delete;
    EvpKeyedPool& operator=(const EvpKeyedPool&) = delete;
    ~EvpKeyedPool();
    EVP_CIPHER_CTX* acquire();            // a keyed context, or nullptr when none is free
    void release(EVP_CIPHER_CTX* c);      // back to the pool, still keyed (AEADs: at the default IV length)

private:
    // Sharded by calling thread, so many threads on one key rarely share a lock. The first
    // thread to use a shard owns its `own` slot: only that thread reads or writes it, so it
    // takes its context back with a plain load and store (a locked exchange costs 6.9 ns on
    // the H100 host, two a call, ~1.5 % of a 4 KiB job). Other threads of the shard use
    // `last` (one exchange each way), then the list under the lock.
    static constexpr unsigned kShardBits = 4;
    static constexpr size_t kShards = size_t(1) << kShardBits;
    struct alignas(64) Shard {
        std::atomic<uint64_t> owner{0};              // thread_handle() of the owner; 0: none yet
        std::atomic<EVP_CIPHER_CTX*> own{nullptr};   // the owner's context (relaxed: one thread)
        std::atomic<EVP_CIPHER_CTX*> last{nullptr};  // the latest release by another thread
        std::mutex mu;
        std::vector<EVP_CIPHER_CTX*> free;           // the others
    };
    Shard shards_[kShards];
};

// What every CPU key carries: contexts keyed for encryption, for the modes whose
// cipher runs forward in both directions (CTR, GCM, ChaCha20-Poly1305).
struct CpuKeyBase : BackendKey {
    mutable EvpKeyedPool keyed_pool;
};

// Everything the CPU backend derives from an AES key, once.
struct CpuAesKey : CpuKeyBase {
    const Algorithm* alg = nullptr;
    size_t half = 0;                 // XTS: bytes per key; else the key length
    HostBlockSchedule k1, k2;        // AES's descriptor schedules for the generic modes (k2: XTS tweak key)
    bool xts_equal_halves = false;   // OpenSSL refuses these; the portable path takes them
    // GCM: H, H^-2 (to aim EVP's stitched GCM at any counter), E_K(0^96 || 1).
    bc_gf128 h{0, 0}, h_inv2{0, 0};
    uint8_t ek_zero_j0[16] = {};
    // One block through AES's portable core under k1.
    void aes_block(const uint8_t in[16], uint8_t out[16]) const {
        const HostBlockKey hk = k1.key();
        hk.cipher->encrypt(hk.ks, in, out, 1);
    }
    ~CpuAesKey() override;
};

// Resolved EVP ciphers, fetched once per backend.
struct EvpCiphers {
    EVP_CIPHER* ecb[3] = {};   // by key size index 0:128 1:192 2:256
    EVP_CIPHER* cbc[3] = {};
    EVP_CIPHER* ctr[3] = {};
    EVP_CIPHER* gcm[3] = {};
    EVP_CIPHER* xts[3] = {};   // 128 and 256 only
    EVP_CIPHER* chacha20_poly1305 = nullptr;
    ~EvpCiphers();
    Status load();
};

Status cpu_aes_prepare(const KeyMaterial& key, std::unique_ptr<BackendKey>* out);

// Raw modes (ECB, CBC, CTR, XTS). portable: use bulkcrypt's cores, not libcrypto.
Status cpu_aes_cipher(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k,
                      const CipherOp& op, bool portable, ThreadPool& pool, size_t chunk);
// One GCM body piece: CTR (inc32) and the GHASH partial of the ciphertext.
Status cpu_gcm_chunk(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k,
                     AeadChunkOp& op, bool portable, ThreadPool& pool, size_t chunk);
// The GHASH partial of the AAD.
Status cpu_gcm_mac(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k, MacOp& op,
                   bool portable, ThreadPool& pool, size_t chunk);

// A whole AEAD message through libcrypto (AES-GCM, ChaCha20-Poly1305): the
// small-message path. Decrypt checks tag[0..tag_len) itself.
Status cpu_evp_aead_oneshot(const EVP_CIPHER* cipher, const KeyMaterial& key, EvpKeyedPool& pool, Dir dir,
                            const uint8_t* nonce,
                            size_t nonce_len, const uint8_t* aad, size_t aad_len, const uint8_t* in, uint8_t* out,
                            size_t len, uint8_t* tag, size_t tag_len);

}  // namespace bc
