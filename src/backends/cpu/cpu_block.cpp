#include "backends/cpu/cpu_block.h"
#include "util/openssl_ctx.h"

#include <openssl/err.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/cpu_evp.h"
#include "modes/aead/aead.h"
#include "modes/gcm/gcm.h"
#include "util/secure.h"

namespace bc {

EvpBlockCiphers::~EvpBlockCiphers() {
    for (auto& e : ciphers_) EVP_CIPHER_free(e.cipher);
}

bool EvpBlockCiphers::legacy_loaded() const { return openssl_legacy_loaded(); }

namespace {

// Whether libcrypto's cipher takes keys of lo and hi bytes. Asked of a context: OpenSSL
// 3.0's provider ciphers do not report EVP_CIPH_VARIABLE_LENGTH in their flags.
bool takes_key_lengths(const EVP_CIPHER* c, size_t lo, size_t hi) {
    EVP_CIPHER_CTX* x = EVP_CIPHER_CTX_new();
    bool ok = x && EVP_CipherInit_ex2(x, c, nullptr, nullptr, 1, nullptr) == 1;
    for (size_t len : {lo, hi})
        ok = ok && EVP_CIPHER_CTX_set_key_length(x, static_cast<int>(len)) == 1 &&
             EVP_CIPHER_CTX_get_key_length(x) == static_cast<int>(len);
    EVP_CIPHER_CTX_free(x);
    return ok;
}

}  // namespace

void EvpBlockCiphers::load() {
    for (size_t i = 0; const Algorithm* a = algorithm_at(i); ++i) {
        if (a->cipher != Cipher::Block || !a->openssl_name || !a->block) continue;
        // XTS: libcrypto has AES's only; CTR: its counter is 128 bits wide; GCM: whole
        // messages (aead_oneshot), the pieces of a split message take the generic path.
        if (a->mode != Mode::ECB && a->mode != Mode::CBC && a->mode != Mode::CTR && a->mode != Mode::GCM) continue;
        if (a->mode == Mode::CTR && a->block->block_bytes != 16) continue;
        Source from = Source::Default;
        EVP_CIPHER* c = EVP_CIPHER_fetch(openssl_ctx(), a->openssl_name, "provider=default");
        if (!c) {  // not in the default provider: the legacy one, else the generic modes
            from = Source::Legacy;
            c = EVP_CIPHER_fetch(openssl_ctx(), a->openssl_name, "provider=legacy");
        }
        if (!c) continue;
        // A row with a range of key lengths needs a cipher that takes them (set per key).
        const bool variable = key_max_bytes(*a) != key_min_bytes(*a);
        if (static_cast<size_t>(EVP_CIPHER_get_key_length(c)) != a->key_size ||
            (variable && !takes_key_lengths(c, key_min_bytes(*a), key_max_bytes(*a))) ||
            (a->mode != Mode::CTR && a->mode != Mode::GCM &&
             static_cast<unsigned>(EVP_CIPHER_get_block_size(c)) != a->block->block_bytes)) {
            EVP_CIPHER_free(c);
            continue;
        }
        ciphers_.push_back(Entry{a, c, from});
    }
    ERR_clear_error();
}

const EVP_CIPHER* EvpBlockCiphers::find(const Algorithm* alg) const {
    for (const auto& e : ciphers_)
        if (e.alg == alg) return e.cipher;
    return nullptr;
}

EvpBlockCiphers::Source EvpBlockCiphers::source(const Algorithm* alg) const {
    for (const auto& e : ciphers_)
        if (e.alg == alg) return e.source;
    return Source::None;
}

Status cpu_block_prepare(const EvpBlockCiphers& evp, const KeyMaterial& key, std::unique_ptr<BackendKey>* out) {
    const Algorithm* alg = key.alg;
    if (!alg || !alg->block) return Status(BC_ERR_NOT_SUPPORTED, "not a block-cipher algorithm");
    auto k = std::make_unique<CpuBlockKey>();
    k->alg = alg;
    const bool xts = alg->mode == Mode::XTS;
    const size_t half = xts ? key.raw.size() / 2 : key.raw.size();
    if (!k->k1.expand(alg->block, key.raw.data(), half) ||
        (xts && !k->k2.expand(alg->block, key.raw.data() + half, half)))
        return Status(BC_ERR_KEY_SIZE, std::string(alg->name) + ": the cipher refuses a " + std::to_string(half) +
                                           "-byte key");
    k->evp = evp.find(alg);
    if (alg->mode == Mode::GCM) {
        if (alg->block->block_bytes != 16) return Status(BC_ERR_NOT_SUPPORTED, "GCM needs a 16-byte block cipher");
        k->h = gcm_hash_subkey(GcmCipher(*alg->block, k->k1.key().ks));
    }
    *out = std::move(k);
    return Status::ok();
}

CpuBlockKey::~CpuBlockKey() { secure_wipe_object(h); }

Status cpu_gcm_portable_chunk(const HostBlockKey& k, bc_gf128 h, AeadChunkOp& op, ThreadPool& pool, size_t chunk) {
    const size_t piece = piece_size(op.len, pool.share(), chunk, 16);
    const size_t n = op.len == 0 ? 0 : (op.len + piece - 1) / piece;
    std::vector<bc_gf128> partials(n);
    const bool enc = op.dir == Dir::Encrypt;
    BC_TRY(run_tasks(pool, n, [&](size_t i) -> Status {
        const size_t off = i * piece, len = std::min(piece, op.len - off);
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        gcm_inc32(ctr, off / 16);
        const uint8_t* in = op.in + off;
        uint8_t* out = op.out + off;
        if (!enc) partials[i] = ghash_partial(h, in, len);  // before an in-place write
        block_ctr(k, ctr, 0, true, in, out, len);
        if (enc) partials[i] = ghash_partial(h, out, len);
        secure_wipe(ctr, sizeof ctr);
        return Status::ok();
    }));
    bc_gf128 acc = ghash_fold_pieces(partials.data(), n, piece, op.len, h);
    std::memset(op.partial, 0, sizeof op.partial);
    bc_gf128_store(op.partial, acc);
    secure_wipe_object(acc);
    return Status::ok();
}

Status cpu_gcm_portable_mac(bc_gf128 h, MacOp& op, ThreadPool& pool, size_t chunk) {
    const size_t piece = piece_size(op.len, pool.share(), chunk, 16);
    const size_t n = op.len == 0 ? 0 : (op.len + piece - 1) / piece;
    std::vector<bc_gf128> partials(n);
    BC_TRY(run_tasks(pool, n, [&](size_t i) -> Status {
        const size_t off = i * piece;
        partials[i] = ghash_partial(h, op.data + off, std::min(piece, op.len - off));
        return Status::ok();
    }));
    bc_gf128 acc = ghash_fold_pieces(partials.data(), n, piece, op.len, h);
    std::memset(op.partial, 0, sizeof op.partial);
    bc_gf128_store(op.partial, acc);
    secure_wipe_object(acc);
    return Status::ok();
}

Status cpu_block_cipher(const KeyMaterial& key, const CpuBlockKey& k, const CipherOp& op, bool portable,
                        ThreadPool& pool, size_t chunk) {
    const Mode mode = key.alg->mode;
    if (!portable && k.evp && mode != Mode::XTS)
        return cpu_evp_raw(mode, k.evp, k.alg->block->block_bytes, key, k.keyed_pool, op, pool, chunk);
    const HostBlockKey k2 = k.k2.key();
    return cpu_generic_raw(mode, k.k1.key(), mode == Mode::XTS ? &k2 : nullptr, op, pool, chunk);
}

Status cpu_generic_raw(Mode mode, const HostBlockKey& k1, const HostBlockKey* k2, const CipherOp& op,
                       ThreadPool& pool, size_t chunk) {
    const size_t bb = k1.cipher->block_bytes;
    const bool enc = op.dir == Dir::Encrypt;
    if (op.memory != BC_MEMORY_HOST) return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend has no device memory");
    if (op.len == 0) return Status::ok();

    switch (mode) {
    case Mode::ECB: {
        const size_t piece = piece_size(op.len, pool.share(), chunk, bb);
        const size_t n = (op.len + piece - 1) / piece;
        return run_tasks(pool, n, [&](size_t i) -> Status {
            const size_t off = i * piece, len = std::min(piece, op.len - off);
            block_ecb(k1, enc, op.in + off, op.out + off, len / bb);
            return Status::ok();
        });
    }
    case Mode::CBC: {
        if (enc) {  // serial by nature
            uint8_t chain[16];
            std::memcpy(chain, op.iv, bb);
            block_cbc_encrypt(k1, chain, op.in, op.out, op.len / bb);
            secure_wipe(chain, sizeof chain);
            return Status::ok();
        }
        // Decryption is parallel: each piece chains from the ciphertext block before
        // it, saved first because an in-place piece overwrites it.
        const size_t piece = piece_size(op.len, pool.share(), chunk, bb);
        const size_t n = (op.len + piece - 1) / piece;
        std::vector<uint8_t> chains(bb * n);
        std::memcpy(chains.data(), op.iv, bb);
        for (size_t i = 1; i < n; ++i) std::memcpy(&chains[bb * i], op.in + i * piece - bb, bb);
        return run_tasks(pool, n, [&](size_t i) -> Status {
            const size_t off = i * piece, len = std::min(piece, op.len - off);
            block_cbc_decrypt(k1, &chains[bb * i], op.in + off, op.out + off, len / bb);
            return Status::ok();
        });
    }
    case Mode::CTR: {
        // Pieces start on keystream block boundaries after the first.
        const size_t piece = piece_size(op.len, pool.share(), chunk, bb);
        const size_t head = piece - op.offset % bb;  // data bytes in piece 0
        const size_t n = op.len <= head ? 1 : 1 + (op.len - head + piece - 1) / piece;
        return run_tasks(pool, n, [&](size_t i) -> Status {
            const size_t off = i == 0 ? 0 : head + (i - 1) * piece;
            const size_t len = std::min(i == 0 ? head : piece, op.len - off);
            block_ctr(k1, op.iv, op.offset + off, false, op.in + off, op.out + off, len);
            return Status::ok();
        });
    }
    case Mode::XTS: {
        if (!k2 || bb != 16) return Status(BC_ERR_NOT_SUPPORTED, "XTS needs a 16-byte block cipher");
        const size_t unit = op.data_unit ? op.data_unit : op.len;
        const size_t nunits = (op.len + unit - 1) / unit;
        const size_t per_task = std::max<size_t>(1, piece_size(op.len, pool.share(), chunk, 16) / unit);
        const size_t n = (nunits + per_task - 1) / per_task;
        return run_tasks(pool, n, [&](size_t t) -> Status {
            for (size_t u = t * per_task; u < std::min(nunits, (t + 1) * per_task); ++u) {
                const size_t off = u * unit, len = std::min(unit, op.len - off);
                uint8_t tweak[16];
                std::memcpy(tweak, op.iv, 16);
                add_le(tweak, 16, u);
                const bool ok = block_xts_unit(k1, *k2, enc, tweak, op.in + off, op.out + off, len);
                secure_wipe(tweak, sizeof tweak);
                if (!ok) return Status(BC_ERR_INPUT_LENGTH, "XTS data unit under 16 bytes");
            }
            return Status::ok();
        });
    }
    default:
        return Status(BC_ERR_NOT_SUPPORTED, "not a raw block mode");
    }
}

namespace {

// EVP_CipherInit_ex2 with key.raw. OpenSSL reads as many key bytes as the context's key
// length, the cipher's default unless told: a cipher of variable key length (Blowfish,
// CAST5) given another length is set up first and told it, then keyed.
bool evp_init_key(EVP_CIPHER_CTX* c, const EVP_CIPHER* cipher, const KeyMaterial& key, const uint8_t* iv, int enc) {
    const int len = static_cast<int>(key.raw.size());
    if (EVP_CIPHER_get_key_length(cipher) == len)
        return EVP_CipherInit_ex2(c, cipher, key.raw.data(), iv, enc, nullptr) == 1;
    return EVP_CipherInit_ex2(c, cipher, nullptr, nullptr, enc, nullptr) == 1 &&
           EVP_CIPHER_CTX_set_key_length(c, len) == 1 && EVP_CIPHER_CTX_get_key_length(c) == len &&
           EVP_CipherInit_ex2(c, nullptr, key.raw.data(), iv, enc, nullptr) == 1;
}

}  // namespace

Status cpu_evp_raw(Mode mode, const EVP_CIPHER* cipher, size_t block_bytes, const KeyMaterial& key,
                   EvpKeyedPool& keyed_pool, const CipherOp& op, ThreadPool& pool, size_t chunk) {
    const size_t bb = block_bytes;
    const bool enc = op.dir == Dir::Encrypt;
    if (op.memory != BC_MEMORY_HOST) return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend has no device memory");
    if (op.len == 0) return Status::ok();
    auto failed = [cipher]() {
        return Status(BC_ERR_INTERNAL,
                      openssl_error((std::string("libcrypto ") + EVP_CIPHER_get0_name(cipher) + " failed").c_str()));
    };

    switch (mode) {
    case Mode::ECB: {
        const size_t piece = piece_size(op.len, pool.share(), chunk, bb);
        const size_t n = (op.len + piece - 1) / piece;
        return run_tasks(pool, n, [&](size_t i) -> Status {
            const size_t off = i * piece, len = std::min(piece, op.len - off);
            EvpCtx c;
            if (!c || !evp_init_key(c.get(), cipher, key, nullptr, enc) ||
                EVP_CIPHER_CTX_set_padding(c.get(), 0) != 1 || !evp_update(c.get(), op.out + off, op.in + off, len))
                return failed();
            return Status::ok();
        });
    }
    case Mode::CBC: {
        if (enc) {  // serial by nature
            EvpCtx c;
            if (!c || !evp_init_key(c.get(), cipher, key, op.iv, 1) ||
                EVP_CIPHER_CTX_set_padding(c.get(), 0) != 1 || !evp_update(c.get(), op.out, op.in, op.len))
                return failed();
            return Status::ok();
        }
        // Decryption is parallel: each piece chains from the ciphertext block before
        // it, saved first because an in-place piece overwrites it.
        const size_t piece = piece_size(op.len, pool.share(), chunk, bb);
        const size_t n = (op.len + piece - 1) / piece;
        std::vector<uint8_t> chains(bb * n);
        std::memcpy(chains.data(), op.iv, bb);
        for (size_t i = 1; i < n; ++i) std::memcpy(&chains[bb * i], op.in + i * piece - bb, bb);
        return run_tasks(pool, n, [&](size_t i) -> Status {
            const size_t off = i * piece, len = std::min(piece, op.len - off);
            EvpCtx c;
            if (!c || !evp_init_key(c.get(), cipher, key, &chains[bb * i], 0) ||
                EVP_CIPHER_CTX_set_padding(c.get(), 0) != 1 || !evp_update(c.get(), op.out + off, op.in + off, len))
                return failed();
            return Status::ok();
        });
    }
    case Mode::CTR: {
        // Pieces start on keystream block boundaries after the first.
        const size_t piece = piece_size(op.len, pool.share(), chunk, bb);
        const size_t head = piece - op.offset % bb;  // data bytes in piece 0
        const size_t n = op.len <= head ? 1 : 1 + (op.len - head + piece - 1) / piece;
        return run_tasks(pool, n, [&](size_t i) -> Status {
            const size_t off = i == 0 ? 0 : head + (i - 1) * piece;
            const size_t len = std::min(i == 0 ? head : piece, op.len - off);
            const uint64_t koff = op.offset + off;  // keystream position of this piece
            // The counter block of the piece's first block (a job's first piece: the IV itself).
            uint8_t ctr[16];
            const uint8_t* start = op.iv;
            if (koff >= bb) {
                std::memcpy(ctr, op.iv, bb);
                add_be(ctr, bb, koff / bb);
                start = ctr;
            }
            // A context keyed once per key; only the counter block is set per piece.
            EVP_CIPHER_CTX* c = keyed_pool.acquire();
            if (!c && (c = EVP_CIPHER_CTX_new()) != nullptr && !evp_init_key(c, cipher, key, nullptr, 1)) {
                EVP_CIPHER_CTX_free(c);
                c = nullptr;
            }
            bool ok = c && EVP_CipherInit_ex2(c, nullptr, nullptr, start, 1, nullptr) == 1;
            if (ok && koff % bb) {  // advance inside the first block
                uint8_t skip[16] = {0};
                ok = evp_update(c, skip, skip, koff % bb);
                secure_wipe(skip, sizeof skip);
            }
            ok = ok && evp_update(c, op.out + off, op.in + off, len);
            if (!ok) {
                EVP_CIPHER_CTX_free(c);
                return failed();
            }
            keyed_pool.release(c);
            return Status::ok();
        });
    }
    default:
        return Status(BC_ERR_NOT_SUPPORTED, "no libcrypto path for this mode");
    }
}

}  // namespace bc
