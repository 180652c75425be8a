// The CPU backend: libcrypto where it has the cipher, bulkcrypt's portable
// cores elsewhere (and everywhere with cpu.impl=portable), over a thread pool.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/cpu/cpu_aes_evp.h"
#include "backends/cpu/cpu_block.h"
#include "util/thread_pool.h"

#if __has_include("backends/cpu/cpu_stream.h")
#include "backends/cpu/cpu_stream.h"
#define BC_CPU_HAS_STREAM 1
#else
#define BC_CPU_HAS_STREAM 0
#endif

namespace bc {
namespace {

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            if (p != std::string::npos) return line.substr(p + 2);
        }
    }
    return "unknown CPU";
}

// Keys of algorithms whose CPU code works from the raw key bytes alone.
struct RawKey : CpuKeyBase {};

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(const ContextOptions& opt) : opt_(opt), pool_(opt.threads) {}

    Status init() {
        BC_TRY(evp_.load());
        evp_block_.load();
        return Status::ok();
    }

    const char* name() const override { return "cpu"; }

    std::string device_name() const override {
        return cpu_model() + " (" + std::to_string(pool_.size()) + " threads, " +
               (opt_.cpu_portable ? "bulkcrypt portable cores" : "OpenSSL libcrypto") + ")";
    }

    bool supports(const Algorithm& alg) const override {
        if (alg.cipher == Cipher::Noop) return true;  // transfers only: a copy when out != in
        // Every block cipher of the catalogue through its descriptor; GCM over 16-byte blocks.
        if (alg.block) return alg.mode != Mode::GCM || alg.block->block_bytes == 16;
        return BC_CPU_HAS_STREAM != 0;
    }

    bool supports_memory(bc_memory m) const override { return m == BC_MEMORY_HOST; }
    bool is_cpu() const override { return true; }

    Status prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) override {
        if (key.alg->cipher == Cipher::AES) return cpu_aes_prepare(key, out);
        if (key.alg->block) return cpu_block_prepare(evp_block_, key, out);
        *out = std::make_unique<RawKey>();
        return Status::ok();
    }

    Status cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) override {
        ThreadPool::Caller counted(pool_, op.len > kSplitMin);
        if (key.alg->cipher == Cipher::Noop) return noop(op);
        if (key.alg->cipher == Cipher::AES)
            return cpu_aes_cipher(evp_, key, static_cast<const CpuAesKey&>(bkey), op,
                                  opt_.cpu_portable, pool_, opt_.chunk);
        if (key.alg->block)
            return cpu_block_cipher(key, static_cast<const CpuBlockKey&>(bkey), op, opt_.cpu_portable, pool_,
                                    opt_.chunk);
#if BC_CPU_HAS_STREAM
        if (key.alg->mode == Mode::Stream) return cpu_stream_cipher(key, op, opt_.cpu_portable, pool_);
#endif
        return Status(BC_ERR_NOT_SUPPORTED, std::string(key.alg->name) + " is not available on the CPU backend");
    }

    Status aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) override {
        ThreadPool::Caller counted(pool_, op.len > kSplitMin);
        if (key.alg->mode == Mode::GCM && key.alg->cipher == Cipher::AES)
            return cpu_gcm_chunk(evp_, key, static_cast<const CpuAesKey&>(bkey), op,
                                 opt_.cpu_portable, pool_, opt_.chunk);
        if (key.alg->mode == Mode::GCM && key.alg->block) {
            const auto& k = static_cast<const CpuBlockKey&>(bkey);
            return cpu_gcm_portable_chunk(k.k1.key(), k.h, op, pool_, opt_.chunk);
        }
#if BC_CPU_HAS_STREAM
        if (key.alg->mode == Mode::ChaChaPoly) return cpu_chachapoly_chunk(key, op, opt_.cpu_portable, pool_);
#endif
        return Status(BC_ERR_NOT_SUPPORTED, std::string(key.alg->name) + " is not available on the CPU backend");
    }

    Status mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) override {
        ThreadPool::Caller counted(pool_, op.len > kSplitMin);
        if (key.alg->mode == Mode::GCM && key.alg->cipher == Cipher::AES)
            return cpu_gcm_mac(evp_, key, static_cast<const CpuAesKey&>(bkey), op, opt_.cpu_portable,
                               pool_, opt_.chunk);
        if (key.alg->mode == Mode::GCM && key.alg->block)
            return cpu_gcm_portable_mac(static_cast<const CpuBlockKey&>(bkey).h, op, pool_, opt_.chunk);
#if BC_CPU_HAS_STREAM
        if (key.alg->mode == Mode::ChaChaPoly) return cpu_poly1305_mac(op);
#endif
        return Status(BC_ERR_NOT_SUPPORTED, std::string(key.alg->name) + " is not available on the CPU backend");
    }

    Status aead_oneshot(const KeyMaterial& key, const BackendKey& bkey, Dir dir, const uint8_t* nonce, size_t nonce_len,
                        const uint8_t* aad, size_t aad_len, const uint8_t* in, uint8_t* out, size_t len,
                        uint8_t* tag, size_t tag_len, bc_memory memory) override {
        // Whole messages go straight to libcrypto when splitting would not pay:
        // small ones, or a single thread (of the pool, or of its share while other
        // large calls run). Large ones use the parallel pieces.
        ThreadPool::Caller counted(pool_, len > kSplitMin);
        const bool small = len <= kOneShotMax || pool_.share() == 1;
        if (opt_.cpu_portable || memory != BC_MEMORY_HOST || !small) return Status(BC_ERR_NOT_SUPPORTED);
        const EVP_CIPHER* cipher = nullptr;
        if (key.alg->mode == Mode::GCM && key.alg->cipher == Cipher::AES && nonce_len <= kEvpMaxGcmIv) {
            const size_t k = key.raw.size();
            cipher = evp_.gcm[k == 16 ? 0 : k == 24 ? 1 : 2];
        } else if (key.alg->mode == Mode::GCM && key.alg->block && nonce_len <= kEvpMaxGcmIv) {
            cipher = evp_block_.find(key.alg);  // libcrypto's, where it has the cipher's GCM
        } else if (key.alg->mode == Mode::ChaChaPoly && nonce_len == 12) {
            cipher = evp_.chacha20_poly1305;
        }
        if (!cipher) return Status(BC_ERR_NOT_SUPPORTED);
        auto& pool = static_cast<const CpuKeyBase&>(bkey).keyed_pool;
        return cpu_evp_aead_oneshot(cipher, key, pool, dir, nonce, nonce_len, aad, aad_len, in, out, len, tag, tag_len);
    }

    Status wipe(void* p, size_t n, bc_memory memory, void*) override {
        if (memory != BC_MEMORY_HOST) return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend has no device memory");
        secure_wipe(p, n);
        return Status::ok();
    }

private:
    // NO-OP (engine benchmarks): output = input, copied over the pool in 1 MiB pieces.
    Status noop(const CipherOp& op) {
        if (op.memory != BC_MEMORY_HOST) return Status(BC_ERR_NOT_SUPPORTED, "the CPU backend has no device memory");
        if (op.out == op.in || op.len == 0) return Status::ok();
        const size_t piece = size_t(1) << 20, n = (op.len + piece - 1) / piece;
        pool_.parallel_for(n, [&](size_t i) {
            const size_t at = i * piece;
            std::memcpy(op.out + at, op.in + at, std::min(piece, op.len - at));
        });
        return Status::ok();
    }

    // AEAD messages up to kOneShotMax take one libcrypto call; calls over kSplitMin may be cut
    // over the pool: they count as its callers (ThreadPool::share). The host's tuning entry.
    const size_t kOneShotMax = tuning::select_tuning(tuning::DeviceTraits{}).engine.oneshot_max;
    const size_t kSplitMin = tuning::select_tuning(tuning::DeviceTraits{}).engine.split_min;
    static constexpr size_t kEvpMaxGcmIv = 128;  // OpenSSL 3's GCM IV buffer; longer IVs take bulkcrypt's J0
    ContextOptions opt_;
    mutable ThreadPool pool_;
    EvpCiphers evp_;
    EvpBlockCiphers evp_block_;
};

}  // namespace

Status make_cpu_backend(const ContextOptions& opt, std::unique_ptr<Backend>* out) {
    auto b = std::make_unique<CpuBackend>(opt);
    BC_TRY(b->init());
    *out = std::move(b);
    return Status::ok();
}

}  // namespace bc
