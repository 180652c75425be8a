// Every block cipher on the CPU (catalogue rows with cipher == Cipher::Block):
// libcrypto's EVP cipher (by the row's openssl_name) for ECB, CBC and CTR where
// OpenSSL has it, the generic modes (modes/block/host_modes.h) over the cipher's
// descriptor otherwise and under cpu.impl=portable. XTS runs the generic XTS.
// Large calls are cut over the thread pool on block boundaries.
//
// A cipher OpenSSL 3 keeps in its legacy provider only (SEED) is fetched from a
// library context that bulkcrypt owns, with the legacy and default providers loaded
// into it: the application's default context and configuration stay untouched. When
// the legacy provider cannot be loaded, those rows run on the portable core.
//
// The raw-mode drivers here are shared with AES's path (cpu_aes_evp.cpp): the
// EVP one for its ECB/CBC/CTR, the generic one for its portable path.
#pragma once

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/cpu_aes_evp.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/ghash.h"
#include "util/thread_pool.h"

namespace bc {

// The EVP ciphers of the catalogue's generic block-cipher rows (ECB, CBC, CTR), fetched
// once per backend from bulkcrypt's library context (util/openssl_ctx.h): the default
// provider's, else the legacy provider's; rows OpenSSL lacks have none.
class EvpBlockCiphers {
public:
    // Where a row's cipher came from.
    enum class Source { None, Default, Legacy };

    EvpBlockCiphers() = default;
    EvpBlockCiphers(const EvpBlockCiphers&) = delete;
    EvpBlockCiphers& operator=(const EvpBlockCiphers&) = delete;
    ~EvpBlockCiphers();
    void load();
    const EVP_CIPHER* find(const Algorithm* alg) const;  // nullptr when none
    Source source(const Algorithm* alg) const;
    // Whether the legacy provider is there to fetch from.
    bool legacy_loaded() const;

private:
    struct Entry {
        const Algorithm* alg;
        EVP_CIPHER* cipher;
        Source source;
    };
    std::vector<Entry> ciphers_;
};

// A generic block cipher's key: its expanded forms, made once.
struct CpuBlockKey : CpuKeyBase {
    const Algorithm* alg = nullptr;
    HostBlockSchedule k1, k2;         // k2: XTS's tweak key
    const EVP_CIPHER* evp = nullptr;  // libcrypto's cipher for this row, nullptr when none
    bc_gf128 h{0, 0};                 // GCM: H = E_K(0)
    ~CpuBlockKey() override;
};

Status cpu_block_prepare(const EvpBlockCiphers& evp, const KeyMaterial& key, std::unique_ptr<BackendKey>* out);

// ECB, CBC, CTR, XTS of a generic block cipher. portable: the generic modes only.
Status cpu_block_cipher(const KeyMaterial& key, const CpuBlockKey& k, const CipherOp& op, bool portable,
                        ThreadPool& pool, size_t chunk);

// GCM body pieces and AAD of any 16-byte block cipher through the generic CTR (GCM's
// 32-bit counter) and the host GHASH, over the pool; h = E_K(0). Also AES's portable path.
Status cpu_gcm_portable_chunk(const HostBlockKey& k, bc_gf128 h, AeadChunkOp& op, ThreadPool& pool, size_t chunk);
Status cpu_gcm_portable_mac(bc_gf128 h, MacOp& op, ThreadPool& pool, size_t chunk);

// The raw modes through the generic host modes, over the pool (k2: XTS only).
Status cpu_generic_raw(Mode mode, const HostBlockKey& k1, const HostBlockKey* k2, const CipherOp& op,
                       ThreadPool& pool, size_t chunk);

// ECB, CBC and CTR through libcrypto's cipher c (block_bytes its block), keyed with
// key.raw; CTR reuses contexts keyed once in keyed_pool.
Status cpu_evp_raw(Mode mode, const EVP_CIPHER* c, size_t block_bytes, const KeyMaterial& key,
                   EvpKeyedPool& keyed_pool, const CipherOp& op, ThreadPool& pool, size_t chunk);

}  // namespace bc
