#include "backends/cpu/cpu_stream.h"
#include "util/openssl_ctx.h"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "cores/chacha/chacha.h"
#include "cores/chacha/stream_state.h"
#include "cores/salsa/salsa.h"
#include "modes/poly1305/poly1305.h"

namespace bc {
namespace {

constexpr size_t kMinTask = 64 * 1024;   // below this a piece runs on the calling thread
constexpr size_t kMacSlice = 4096;       // XOR and MAC interleave in slices that stay in L1

// The EVP ChaCha20 cipher, fetched once per process.
const EVP_CIPHER* evp_chacha20() {
    static EVP_CIPHER* c = EVP_CIPHER_fetch(openssl_ctx(), "ChaCha20", nullptr);
    return c;
}

// Task size: a multiple of 64 bytes, at least kMinTask, about 4 tasks per thread.
size_t task_size(size_t len, const ThreadPool& pool) {
    size_t per = len / (size_t(pool.share()) * 4);
    per = (per + 63) & ~size_t(63);
    return std::max(per, kMinTask);
}

// Keystream XOR through EVP ChaCha20 with a 16-byte IV (words 12..15, the
// 32-bit counter of which will not wrap: callers checked) from byte `skip` of
// its first block.
class EvpChaCha {
public:
    EvpChaCha() : ctx_(EVP_CIPHER_CTX_new()) {}
    ~EvpChaCha() { EVP_CIPHER_CTX_free(ctx_); }
    bool init(const uint8_t* key32, const uint8_t iv16[16], unsigned skip) {
        if (!ctx_ || !evp_chacha20()) return false;
        if (EVP_EncryptInit_ex2(ctx_, evp_chacha20(), key32, iv16, nullptr) != 1) return false;
        if (skip) {
            uint8_t scratch[64] = {0};
            int outl = 0;
            bool ok = EVP_EncryptUpdate(ctx_, scratch, &outl, scratch, (int)skip) == 1;
            OPENSSL_cleanse(scratch, sizeof(scratch));
            return ok;
        }
        return true;
    }
    bool update(const uint8_t* in, uint8_t* out, size_t len) {
        while (len) {
            int n = (int)std::min<size_t>(len, size_t(1) << 30);
            int outl = 0;
            if (EVP_EncryptUpdate(ctx_, out, &outl, in, n) != 1 || outl != n) return false;
            in += n;
            out += n;
            len -= (size_t)n;
        }
        return true;
    }

private:
    EVP_CIPHER_CTX* ctx_;
};

// Runs fn(task_index, begin, length) over [0, len) in tasks of t bytes (task_size, taken
// once by the caller: the pool's share moves while other calls come and go, and a caller
// sizing per-task results must see the same count as the run). Returns the first failure.
template <class Fn>
Status run_pieces(size_t len, size_t t, ThreadPool& pool, Fn fn) {
    if (len <= t) return fn(size_t(0), size_t(0), len);
    return run_tasks(pool, (len + t - 1) / t, [&](size_t i) { return fn(i, i * t, std::min(t, len - i * t)); });
}

void words12_image(const uint32_t st[16], uint8_t iv[16]) {
    for (int i = 0; i < 4; ++i) bc_store_le32(iv + 4 * i, st[12 + i]);
}

}  // namespace

Status cpu_stream_cipher(const KeyMaterial& key, const CipherOp& op, bool portable,
                         ThreadPool& pool) {
    if (key.alg == nullptr) return Status(BC_ERR_INTERNAL, "key without algorithm");
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend takes host memory only");
    StreamState st;
    BC_TRY(make_stream_state(*key.alg, key.raw.data(), key.raw.size(), op.iv, op.iv_len, &st));
    BC_TRY(check_stream_range(st, op.offset, op.len));
    if (op.len == 0) return Status::ok();
    if (op.in == nullptr || op.out == nullptr) return Status(BC_ERR_NULL_POINTER, "null buffer");

    const bool use_evp = !portable && stream_is_chacha_ietf(*key.alg) && key.raw.size() == 32 &&
                         st.rounds == 20 && evp_chacha20() != nullptr;
    return run_pieces(op.len, task_size(op.len, pool), pool, [&](size_t, size_t begin, size_t n) -> Status {
        uint64_t off = op.offset + begin;
        if (use_evp) {
            uint32_t s2[16];
            std::memcpy(s2, st.base, sizeof(s2));
            bc_chacha_add_counter(s2, BC_CHACHA_LAYOUT_IETF, off >> 6);
            uint8_t iv[16];
            words12_image(s2, iv);
            EvpChaCha evp;
            bool ok = evp.init(key.raw.data(), iv, unsigned(off & 63)) &&
                      evp.update(op.in + begin, op.out + begin, n);
            OPENSSL_cleanse(s2, sizeof(s2));
            if (!ok) return Status(BC_ERR_INTERNAL, "EVP ChaCha20 failed");
            return Status::ok();
        }
        if (st.family == StreamFamily::ChaCha)
            bc_chacha_xor_g(st.base, st.layout, st.rounds, off, op.in + begin, op.out + begin, n);
        else
            bc_salsa_xor_g(st.base, st.rounds, off, op.in + begin, op.out + begin, n);
        return Status::ok();
    });
}

Status cpu_chachapoly_chunk(const KeyMaterial& key, AeadChunkOp& op, bool portable,
                            ThreadPool& pool) {
    std::memset(op.partial, 0, sizeof(op.partial));
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend takes host memory only");
    if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
    const uint8_t* k = op.subkey ? op.subkey : key.raw.data();
    if (op.subkey == nullptr && key.raw.size() != 32)
        return Status(BC_ERR_KEY_SIZE, "ChaCha20-Poly1305 takes a 32-byte key");
    const uint8_t* r = op.mac_key;
    if (op.len == 0) return Status::ok();  // partial of nothing is 0
    if (op.in == nullptr || op.out == nullptr) return Status(BC_ERR_NULL_POINTER, "null buffer");

    uint32_t base[16];
    bc_chacha_set_key(base, k, 32);
    bc_chacha_set_words12(base, op.ctr);
    // The 32-bit counter must not wrap within the piece.
    uint64_t nks = (op.len + 63) / 64;
    if ((uint64_t)base[12] + nks - 1 > 0xffffffffull) {
        secure_wipe(base, sizeof(base));
        return Status(BC_ERR_COUNTER_OVERFLOW, "the ChaCha20-Poly1305 block counter would wrap");
    }
    const bool use_evp = !portable && evp_chacha20() != nullptr;
    const bool decrypt = op.dir == Dir::Decrypt;

    const size_t t = task_size(op.len, pool);
    const size_t ntasks = (op.len + t - 1) / t;
    std::vector<uint8_t> partials(ntasks * 17);
    std::vector<uint64_t> counts(ntasks);

    Status s = run_pieces(op.len, t, pool, [&](size_t ti, size_t begin, size_t n) -> Status {
        Poly1305Partial mac(r);
        EvpChaCha evp;
        uint32_t s2[16];
        std::memcpy(s2, base, sizeof(s2));
        bc_chacha_add_counter(s2, BC_CHACHA_LAYOUT_IETF, begin >> 6);  // begin % 64 == 0
        if (use_evp) {
            uint8_t iv[16];
            words12_image(s2, iv);
            if (!evp.init(k, iv, 0)) {
                OPENSSL_cleanse(s2, sizeof(s2));
                return Status(BC_ERR_INTERNAL, "EVP ChaCha20 init failed");
            }
        }
        for (size_t done = 0; done < n;) {
            size_t m = std::min(kMacSlice, n - done);
            const uint8_t* in = op.in + begin + done;
            uint8_t* out = op.out + begin + done;
            if (decrypt) mac.update_padded(in, m);  // the ciphertext, before in-place XOR
            if (use_evp) {
                if (!evp.update(in, out, m)) {
                    OPENSSL_cleanse(s2, sizeof(s2));
                    return Status(BC_ERR_INTERNAL, "EVP ChaCha20 failed");
                }
            } else {
                bc_chacha_xor_g(s2, BC_CHACHA_LAYOUT_IETF, 20, done, in, out, m);
            }
            if (!decrypt) mac.update_padded(out, m);
            done += m;  // slices are multiples of 16 except the last
        }
        OPENSSL_cleanse(s2, sizeof(s2));
        mac.value(&partials[17 * ti]);
        counts[ti] = mac.block_count();
        return Status::ok();
    });
    secure_wipe(base, sizeof(base));
    if (!s.is_ok()) return s;

    // Fold: acc = acc * r^n_j + P_j; every task but the last has the same length.
    Poly1305Elem rr = poly1305_load_r(r);
    Poly1305Elem acc = poly1305_load17(&partials[0]);
    if (ntasks > 1) {
        Poly1305Elem rt = poly1305_pow(rr, counts[1]);
        for (size_t j = 1; j < ntasks; ++j) {
            Poly1305Elem rn = counts[j] == counts[1] ? rt : poly1305_pow(rr, counts[j]);
            acc = poly1305_add(poly1305_mul(acc, rn), poly1305_load17(&partials[17 * j]));
        }
        secure_wipe(&rt, sizeof(rt));
    }
    poly1305_store17(acc, op.partial);
    secure_wipe(&rr, sizeof(rr));
    secure_wipe(&acc, sizeof(acc));
    secure_wipe(partials.data(), partials.size());
    return Status::ok();
}

Status cpu_poly1305_mac(MacOp& op) {
    std::memset(op.partial, 0, sizeof(op.partial));
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend takes host memory only");
    if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
    if (op.len && op.data == nullptr) return Status(BC_ERR_NULL_POINTER, "null data");
    poly1305_partial(op.mac_key, op.data, op.len, op.partial);
    return Status::ok();
}

}  // namespace bc
