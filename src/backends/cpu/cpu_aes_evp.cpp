#include "backends/cpu/cpu_aes_evp.h"
#include "util/openssl_ctx.h"

#include <openssl/err.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <vector>

#include "backends/cpu/cpu_block.h"
#include "backends/cpu/cpu_evp.h"
#include "modes/aead/aead.h"
#include "modes/gcm/gcm.h"
#include "util/thread_shard.h"

namespace bc {
namespace {

// The IV length of a freshly keyed AES-GCM or ChaCha20-Poly1305 context.
constexpr size_t kEvpAeadDefaultIv = 12;

int size_index(size_t key_bytes) { return key_bytes == 16 ? 0 : key_bytes == 24 ? 1 : 2; }


// GMAC of data through EVP's GCM AAD path (CLMUL GHASH): returns the partial
// H * GHASH_H(data). With IV 0^96, the EVP tag is E_K(J0z) ^ GHASH_H(data || L),
// and GHASH_H(data || L) = H * GHASH_H(data) + L * H.
Status evp_ghash_partial(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k,
                         const uint8_t* data, size_t len, bc_gf128* partial) {
    EvpCtx c;
    static const uint8_t zero_iv[12] = {0};
    uint8_t tag[16];
    int outl = 0;
    if (!c || EVP_EncryptInit_ex2(c.get(), evp.gcm[size_index(k.half)], key.raw.data(), zero_iv,
                                  nullptr) != 1 ||
        !evp_update(c.get(), nullptr, data, len) ||
        EVP_EncryptFinal_ex(c.get(), tag, &outl) != 1 ||
        EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
        return Status(BC_ERR_INTERNAL, openssl_error("libcrypto GMAC failed"));
    bc_gf128 y = bc_gf128_xor(bc_gf128_load(tag), bc_gf128_load(k.ek_zero_j0));
    *partial = bc_gf128_xor(y, bc_gf128_mul(gcm_length_block(len, 0), k.h));
    secure_wipe(tag, sizeof tag);
    return Status::ok();
}

// CTR with GCM's inc32 from counter block ctr, through EVP's stitched AES-GCM:
// pick the 16-byte IV whose J0 is ctr - 1 (IV' = (J0 + L16*H) * H^-2, since
// J0 = GHASH_H(IV' || L16) = IV'*H^2 + L16*H), so EVP's first counter is ctr.
// When want_partial, also returns H * GHASH_H(out) from EVP's tag.
Status evp_gcm_ctr(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k,
                   const uint8_t ctr[16], const uint8_t* in, uint8_t* out, size_t len,
                   bool want_partial, bc_gf128* partial) {
    uint8_t j0[16];
    std::memcpy(j0, ctr, 16);
    gcm_inc32(j0, 0xffffffffu);  // minus one, modulo 2^32
    bc_gf128 ivp = bc_gf128_mul(bc_gf128_xor(bc_gf128_load(j0), bc_gf128_mul(gcm_length_block(0, 16), k.h)),
                                k.h_inv2);
    uint8_t iv[16], tag[16];
    bc_gf128_store(iv, ivp);
    EvpCtx c;
    int outl = 0;
    bool ok = c && EVP_EncryptInit_ex2(c.get(), evp.gcm[size_index(k.half)], nullptr, nullptr,
                                       nullptr) == 1 &&
              EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_IVLEN, 16, nullptr) == 1 &&
              EVP_EncryptInit_ex2(c.get(), nullptr, key.raw.data(), iv, nullptr) == 1 &&
              evp_update(c.get(), out, in, len) &&
              EVP_EncryptFinal_ex(c.get(), tag, &outl) == 1 &&
              EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    if (!ok) return Status(BC_ERR_INTERNAL, openssl_error("libcrypto AES-GCM failed"));
    if (want_partial) {
        uint8_t ek[16];
        k.aes_block(j0, ek);  // E_K(J0'), the tag mask EVP applied
        bc_gf128 y = bc_gf128_xor(bc_gf128_load(tag), bc_gf128_load(ek));
        *partial = bc_gf128_xor(y, bc_gf128_mul(gcm_length_block(0, len), k.h));
        secure_wipe(ek, sizeof ek);
    }
    secure_wipe(tag, sizeof tag);
    secure_wipe(j0, sizeof j0);
    return Status::ok();
}

}  // namespace

// ---------------------------------------------------------------------------------

EvpCiphers::~EvpCiphers() {
    for (auto* arr : {ecb, cbc, ctr, gcm, xts})
        for (int i = 0; i < 3; ++i) EVP_CIPHER_free(arr[i]);
    EVP_CIPHER_free(chacha20_poly1305);
}

Status EvpCiphers::load() {
    static const char* const bits[3] = {"128", "192", "256"};
    for (int i = 0; i < 3; ++i) {
        std::string b = bits[i];
        ecb[i] = EVP_CIPHER_fetch(openssl_ctx(), ("AES-" + b + "-ECB").c_str(), nullptr);
        cbc[i] = EVP_CIPHER_fetch(openssl_ctx(), ("AES-" + b + "-CBC").c_str(), nullptr);
        ctr[i] = EVP_CIPHER_fetch(openssl_ctx(), ("AES-" + b + "-CTR").c_str(), nullptr);
        gcm[i] = EVP_CIPHER_fetch(openssl_ctx(), ("AES-" + b + "-GCM").c_str(), nullptr);
        if (i != 1) xts[i] = EVP_CIPHER_fetch(openssl_ctx(), ("AES-" + b + "-XTS").c_str(), nullptr);
        if (!ecb[i] || !cbc[i] || !ctr[i] || !gcm[i] || (i != 1 && !xts[i]))
            return Status(BC_ERR_INTERNAL, openssl_error("libcrypto lacks an AES cipher"));
    }
    chacha20_poly1305 = EVP_CIPHER_fetch(openssl_ctx(), "ChaCha20-Poly1305", nullptr);  // optional
    return Status::ok();
}

CpuAesKey::~CpuAesKey() {
    secure_wipe_object(h);
    secure_wipe_object(h_inv2);
    secure_wipe(ek_zero_j0, sizeof ek_zero_j0);
}

Status cpu_aes_prepare(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) {
    auto k = std::make_unique<CpuAesKey>();
    k->alg = key.alg;
    const bool xts = key.alg->mode == Mode::XTS;
    k->half = xts ? key.raw.size() / 2 : key.raw.size();
    const BlockCipher* aes = key.alg->block;
    if (!k->k1.expand(aes, key.raw.data(), k->half) ||
        (xts && !k->k2.expand(aes, key.raw.data() + k->half, k->half)))
        return Status(BC_ERR_KEY_SIZE, "AES key must be 16, 24 or 32 bytes");
    if (xts) k->xts_equal_halves = ct_equal(key.raw.data(), key.raw.data() + k->half, k->half);
    if (key.alg->mode == Mode::GCM) {
        const HostBlockKey hk = k->k1.key();
        k->h = gcm_hash_subkey(GcmCipher(*hk.cipher, hk.ks));
        uint8_t block[16] = {0};
        bc_gf128 inv = gf128_inverse(k->h);  // H = 0 has probability 2^-128; see cpu_gcm_chunk
        k->h_inv2 = bc_gf128_mul(inv, inv);
        std::memset(block, 0, sizeof block);
        block[15] = 1;
        k->aes_block(block, k->ek_zero_j0);
        secure_wipe(block, sizeof block);
        secure_wipe_object(inv);
    }
    *out = std::move(k);
    return Status::ok();
}

Status cpu_aes_cipher(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k,
                      const CipherOp& op, bool portable, ThreadPool& pool, size_t chunk) {
    const int si = size_index(k.half);
    const bool enc = op.dir == Dir::Encrypt;
    if (op.len == 0) return Status::ok();
    const Mode mode = key.alg->mode;

    // The generic modes over AES's descriptor: cpu.impl=portable, and XTS keys whose
    // halves are equal (libcrypto refuses them).
    if (portable || (mode == Mode::XTS && k.xts_equal_halves)) {
        const HostBlockKey k2 = k.k2.key();
        return cpu_generic_raw(mode, k.k1.key(), mode == Mode::XTS ? &k2 : nullptr, op, pool, chunk);
    }
    switch (mode) {
    case Mode::ECB: return cpu_evp_raw(mode, evp.ecb[si], 16, key, k.keyed_pool, op, pool, chunk);
    case Mode::CBC: return cpu_evp_raw(mode, evp.cbc[si], 16, key, k.keyed_pool, op, pool, chunk);
    case Mode::CTR: return cpu_evp_raw(mode, evp.ctr[si], 16, key, k.keyed_pool, op, pool, chunk);
    case Mode::XTS: {
        const size_t unit = op.data_unit ? op.data_unit : op.len;
        const size_t nunits = (op.len + unit - 1) / unit;
        const size_t per_task = std::max<size_t>(1, piece_size(op.len, pool.share(), chunk, 16) / unit);
        const size_t n = (nunits + per_task - 1) / per_task;
        return run_tasks(pool, n, [&](size_t t) -> Status {
            EvpCtx c;
            if (!c || EVP_CipherInit_ex2(c.get(), evp.xts[si], key.raw.data(), nullptr, enc, nullptr) != 1)
                return Status(BC_ERR_INTERNAL, openssl_error("libcrypto AES-XTS failed"));
            for (size_t u = t * per_task; u < std::min(nunits, (t + 1) * per_task); ++u) {
                size_t off = u * unit, len = std::min(unit, op.len - off);
                uint8_t tweak[16];
                std::memcpy(tweak, op.iv, 16);
                add_le(tweak, 16, u);
                if (EVP_CipherInit_ex2(c.get(), nullptr, nullptr, tweak, enc, nullptr) != 1 ||
                    !evp_update(c.get(), op.out + off, op.in + off, len))
                    return Status(BC_ERR_INTERNAL, openssl_error("libcrypto AES-XTS failed"));
            }
            return Status::ok();
        });
    }
    default:
        return Status(BC_ERR_NOT_SUPPORTED, "not an AES raw mode");
    }
}

Status cpu_gcm_chunk(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k,
                     AeadChunkOp& op, bool portable, ThreadPool& pool, size_t chunk) {
    // H = 0 would make H^-1 undefined (probability 2^-128); the portable path needs none.
    if (portable || (k.h.hi == 0 && k.h.lo == 0)) return cpu_gcm_portable_chunk(k.k1.key(), k.h, op, pool, chunk);
    const size_t piece = piece_size(op.len, pool.share(), chunk, 16);
    const size_t n = op.len == 0 ? 0 : (op.len + piece - 1) / piece;
    std::vector<bc_gf128> partials(n);
    const bool enc = op.dir == Dir::Encrypt;
    Status s = run_tasks(pool, n, [&](size_t i) -> Status {
        size_t off = i * piece, len = std::min(piece, op.len - off);
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        gcm_inc32(ctr, off / 16);
        const uint8_t* in = op.in + off;
        uint8_t* out = op.out + off;
        if (enc) return evp_gcm_ctr(evp, key, k, ctr, in, out, len, true, &partials[i]);
        BC_TRY(evp_ghash_partial(evp, key, k, in, len, &partials[i]));
        return evp_gcm_ctr(evp, key, k, ctr, in, out, len, false, nullptr);
    });
    if (!s) return s;
    bc_gf128 acc = ghash_fold_pieces(partials.data(), n, piece, op.len, k.h);
    std::memset(op.partial, 0, sizeof op.partial);
    bc_gf128_store(op.partial, acc);
    return Status::ok();
}

Status cpu_gcm_mac(const EvpCiphers& evp, const KeyMaterial& key, const CpuAesKey& k, MacOp& op,
                   bool portable, ThreadPool& pool, size_t chunk) {
    if (portable || (k.h.hi == 0 && k.h.lo == 0)) return cpu_gcm_portable_mac(k.h, op, pool, chunk);
    const size_t piece = piece_size(op.len, pool.share(), chunk, 16);
    const size_t n = op.len == 0 ? 0 : (op.len + piece - 1) / piece;
    std::vector<bc_gf128> partials(n);
    Status s = run_tasks(pool, n, [&](size_t i) -> Status {
        size_t off = i * piece, len = std::min(piece, op.len - off);
        return evp_ghash_partial(evp, key, k, op.data + off, len, &partials[i]);
    });
    if (!s) return s;
    bc_gf128 acc = ghash_fold_pieces(partials.data(), n, piece, op.len, k.h);
    std::memset(op.partial, 0, sizeof op.partial);
    bc_gf128_store(op.partial, acc);
    return Status::ok();
}

EvpKeyedPool::~EvpKeyedPool() {
    for (Shard& sh : shards_) {
        EVP_CIPHER_CTX_free(sh.own.load());  // freeing cleanses the key schedule
        EVP_CIPHER_CTX_free(sh.last.load());
        for (EVP_CIPHER_CTX* c : sh.free) EVP_CIPHER_CTX_free(c);
    }
}

// One thread calling again and again (the small-job case) owns its shard's `own` slot and
// swaps its context in and out without a locked instruction; another thread of the same
// shard swaps `last` with one atomic exchange each way; the rest goes to the locked list.
EVP_CIPHER_CTX* EvpKeyedPool::acquire() {
    const uint64_t me = thread_handle();
    Shard& sh = shards_[shard_of(me, kShardBits)];
    uint64_t owner = sh.owner.load(std::memory_order_relaxed);
    if (owner == 0 && sh.owner.compare_exchange_strong(owner, me, std::memory_order_relaxed)) owner = me;
    if (owner == me) {
        if (EVP_CIPHER_CTX* c = sh.own.load(std::memory_order_relaxed)) {
            sh.own.store(nullptr, std::memory_order_relaxed);
            return c;
        }
    }
    if (EVP_CIPHER_CTX* c = sh.last.exchange(nullptr, std::memory_order_acquire)) return c;
    std::lock_guard<std::mutex> lk(sh.mu);
    if (sh.free.empty()) return nullptr;
    EVP_CIPHER_CTX* c = sh.free.back();
    sh.free.pop_back();
    return c;
}

void EvpKeyedPool::release(EVP_CIPHER_CTX* c) {
    const uint64_t me = thread_handle();
    Shard& sh = shards_[shard_of(me, kShardBits)];
    if (sh.owner.load(std::memory_order_relaxed) == me && !sh.own.load(std::memory_order_relaxed)) {
        sh.own.store(c, std::memory_order_relaxed);
        return;
    }
    EVP_CIPHER_CTX* older = sh.last.exchange(c, std::memory_order_acq_rel);
    if (!older) return;
    std::lock_guard<std::mutex> lk(sh.mu);
    sh.free.push_back(older);
}

Status cpu_evp_aead_oneshot(const EVP_CIPHER* cipher, const KeyMaterial& key, EvpKeyedPool& pool, Dir dir,
                            const uint8_t* nonce, size_t nonce_len, const uint8_t* aad, size_t aad_len,
                            const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag, size_t tag_len) {
    EVP_CIPHER_CTX* c = pool.acquire();
    if (!c) {  // first use on this many threads at once: key a new context
        c = EVP_CIPHER_CTX_new();
        if (!c || EVP_CipherInit_ex2(c, cipher, key.raw.data(), nullptr, 1, nullptr) != 1) {
            EVP_CIPHER_CTX_free(c);
            return Status(BC_ERR_INTERNAL, openssl_error("libcrypto AEAD set-up failed"));
        }
    }
    const int enc = dir == Dir::Encrypt;
    int outl = 0;
    uint8_t full[16];
    // Only the IV changes per message; the key schedule stays in the context.
    // Pooled contexts keep the default IV length, so a 12-byte nonce needs no
    // control call (in OpenSSL 3 each one is a parameter lookup by name).
    const bool other_iv_len = nonce_len != kEvpAeadDefaultIv;
    bool ok = (!other_iv_len ||
               EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce_len), nullptr) == 1) &&
              EVP_CipherInit_ex2(c, nullptr, nullptr, nonce, enc, nullptr) == 1 &&
              (aad_len == 0 || evp_update(c, nullptr, aad, aad_len)) && evp_update(c, out, in, len);
    Status s;
    if (!ok) {
        s = Status(BC_ERR_INTERNAL, openssl_error("libcrypto AEAD failed"));
    } else if (enc) {
        if (EVP_CipherFinal_ex(c, full, &outl) != 1 || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1)
            s = Status(BC_ERR_INTERNAL, openssl_error("libcrypto AEAD failed"));
    } else {
        std::memcpy(full, tag, tag_len);
        if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag_len), full) != 1) {
            s = Status(BC_ERR_INTERNAL, openssl_error("libcrypto AEAD failed"));
        } else if (EVP_CipherFinal_ex(c, full, &outl) != 1) {
            ERR_clear_error();
            s = Status(BC_ERR_AUTH_FAILED, "the tag does not match: message rejected");
        }
    }
    secure_wipe(full, sizeof full);
    // A context in an unknown state is not reused, nor one left at another IV length.
    bool reuse = s.is_ok() || s.code == BC_ERR_AUTH_FAILED;
    if (reuse && other_iv_len &&
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(kEvpAeadDefaultIv), nullptr) != 1) {
        ERR_clear_error();
        reuse = false;
    }
    if (reuse) pool.release(c);
    else EVP_CIPHER_CTX_free(c);
    return s;
}

}  // namespace bc
