// The CUDA backend's generic block-cipher path: every Cipher::Block algorithm
// (and AES under aes=generic) through the kernels of block_kernels_impl.cuh, found by
// the cipher's name, over its descriptor (catalog/block_cipher.h) alone. Nothing
// here names a cipher.
//
// Device memory runs straight on the caller's stream; host memory through the
// device's shared pipeline (cuda_pipeline.h). CBC encryption is serial: on the
// host, through libcrypto where it has the algorithm (openssl_name), else the
// generic host modes. XTS ciphertext stealing (a partial last block) runs on the
// host too, after the kernels have done the unit's whole blocks. GCM: the CTR kernel
// with GCM's 32-bit counter and AES's GHASH kernels (ghash_kernels.cu), through
// CudaBackend::gcm_view.
#include <cuda_runtime_api.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_pipeline.h"
#include "util/openssl_ctx.h"
#include "dialect/bc_dialect.h"
#include "modes/aead/aead.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/ghash.h"
#include "modes/block/xts_tweak.h"
#include "util/secure.h"

namespace bc {
namespace cuda {

namespace {


// The cipher the kernels run for alg: its own, or its table form under <cipher>=table.
const BlockCipher* device_cipher(const Algorithm& alg, const ContextOptions& opt) {
    if (alg.block == nullptr) return nullptr;
    for (const std::string& t : opt.table_forms)
        if (t == alg.block->name) return find_block_cipher((t + "_table").c_str());
    return alg.block;
}

// The kernels of alg's cipher where they cover its mode, else nullptr.
const BlockKernels* kernels_for(const Algorithm& alg, const ContextOptions& opt) {
    const BlockCipher* c = device_cipher(alg, opt);
    if (c == nullptr) return nullptr;
    const BlockKernels* k = find_block_kernels(c->name);
    if (k == nullptr || k->block_bytes != c->block_bytes || k->ks_words != c->ks_words) return nullptr;
    switch (alg.mode) {
    case Mode::ECB: case Mode::CBC: case Mode::CTR: return k;
    case Mode::XTS: return k->xts ? k : nullptr;
    case Mode::GCM: return k->block_bytes == 16 ? k : nullptr;
    default: return nullptr;
    }
}

// CBC encryption of host buffers: libcrypto when its default provider has the
// algorithm under its catalogue name with this key length, else the generic host
// modes (serial).
Status cbc_encrypt_host(const KeyMaterial& key, const CudaBlockKey& k, const uint8_t* iv, const uint8_t* in,
                        uint8_t* out, size_t len) {
    const size_t bb = k.kernels->block_bytes;
    // From bulkcrypt's library context (util/openssl_ctx.h): the default provider's, or the
    // legacy one's (SEED); a cipher OpenSSL lacks takes the generic host modes.
    EVP_CIPHER* evp = key.alg->openssl_name ? EVP_CIPHER_fetch(openssl_ctx(), key.alg->openssl_name, nullptr) : nullptr;
    ERR_clear_error();
    struct Free {
        EVP_CIPHER* c;
        ~Free() { EVP_CIPHER_free(c); }
    } free_evp{evp};
    if (evp && size_t(EVP_CIPHER_key_length(evp)) == key.raw.size() && size_t(EVP_CIPHER_block_size(evp)) == bb &&
        size_t(EVP_CIPHER_iv_length(evp)) == bb) {
        EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
        int l = 0;
        bool ok = c && EVP_EncryptInit_ex(c, evp, nullptr, key.raw.data(), iv) == 1 &&
                  EVP_CIPHER_CTX_set_padding(c, 0) == 1;
        for (size_t done = 0; ok && done < len;) {
            const size_t n = std::min<size_t>(len - done, size_t(1) << 30);
            ok = EVP_EncryptUpdate(c, out + done, &l, in + done, int(n)) == 1;
            done += n;
        }
        EVP_CIPHER_CTX_free(c);
        return ok ? Status::ok() : Status(BC_ERR_INTERNAL, "libcrypto CBC encryption failed");
    }
    uint8_t chain[16];
    std::memcpy(chain, iv, bb);
    block_cbc_encrypt(k.h1.key(), chain, in, out, len / bb);
    secure_wipe(chain, sizeof chain);
    return Status::ok();
}

}  // namespace

CudaBlockKey::~CudaBlockKey() {
    wipe_device_memory(device, dev_mem, dev_bytes);
}

bool CudaBackend::generic_block(const Algorithm& alg) const {
    if (alg.cipher != Cipher::Block && !(alg.cipher == Cipher::AES && opt_.aes_generic)) return false;
    return kernels_for(alg, opt_) != nullptr;
}

LaunchShape CudaBackend::block_shape(const Algorithm& alg, const BlockCipher* cipher) const {
    LaunchShape sh = shape(alg.mode);
    // AES's own entries tune its own kernels: its generic path is "aes-generic".
    const std::string family = alg.cipher == Cipher::AES ? "aes-generic" : cipher->name;
    const tuning::Tuning& t = tuning::select_tuning(traits_, family.c_str(), tuning::mode_name(alg.mode));
    if (opt_.tuning.blocks_per_sm > 0) sh.blocks_per_sm = opt_.tuning.blocks_per_sm;  // cuda.blocks_per_sm=
    else if (t.kernel.blocks_per_sm > 0) sh.blocks_per_sm = t.kernel.blocks_per_sm;
    // An entry for exactly (device, cipher, "xts") names the XTS layout; else the default.
    sh.xts_layout = alg.mode == Mode::XTS && t.mode && std::strcmp(t.mode, "xts") == 0 ? t.kernel.variant : 0;
    if (opt_.tuning.xts_layout >= 0) sh.xts_layout = opt_.tuning.xts_layout;  // cuda.xts_layout=
    return sh;
}

Status CudaBackend::prepare_block_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) {
    const Algorithm& alg = *key.alg;
    auto k = std::make_unique<CudaBlockKey>();
    k->device = dev_;
    k->alg = &alg;
    k->kernels = kernels_for(alg, opt_);
    if (k->kernels == nullptr)
        return Status(BC_ERR_NOT_SUPPORTED, std::string("the CUDA backend has no generic kernels for ") + alg.name);
    const BlockCipher* cipher = device_cipher(alg, opt_);
    k->shape = block_shape(alg, cipher);
    const bool xts = alg.mode == Mode::XTS;
    const size_t half = xts ? key.raw.size() / 2 : key.raw.size();
    if (!k->h1.expand(cipher, key.raw.data(), half) || (xts && !k->h2.expand(cipher, key.raw.data() + half, half)))
        return Status(BC_ERR_KEY_SIZE, std::string(alg.name) + ": key length not accepted by the cipher");
    const size_t words = cipher->ks_words;
    const size_t ks_bytes = sizeof(uint32_t) * words * (xts ? 2 : 1);
    const bool gcm = alg.mode == Mode::GCM;
    k->dev_bytes = ks_bytes + (gcm ? ghash_table_bytes() : 0);
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    BC_CUDA_TRY(cudaMalloc(&k->dev_mem, k->dev_bytes), "cudaMalloc (block key)");
    uint32_t* d = static_cast<uint32_t*>(k->dev_mem);
    if (gcm) {
        // H = E_K(0) and GHASH's tables of its multiples, after the schedule.
        std::vector<uint8_t> tables(ghash_table_bytes());
        uint8_t h[16];
        k->h = gcm_hash_subkey(GcmCipher(*cipher, k->h1.key().ks));
        bc_gf128_store(h, k->h);
        ghash_build_tables(h, tables.data());
        uint8_t* at = static_cast<uint8_t*>(k->dev_mem) + ks_bytes;
        const cudaError_t e = cudaMemcpy(at, tables.data(), tables.size(), cudaMemcpyHostToDevice);
        secure_wipe(h, sizeof h);
        secure_wipe(tables.data(), tables.size());
        BC_CUDA_TRY(e, "cudaMemcpy (GHASH tables)");
        k->ghash_tables = at;
    }
    BC_CUDA_TRY(cudaMemcpy(d, k->h1.key().ks, sizeof(uint32_t) * words, cudaMemcpyHostToDevice),
                "cudaMemcpy (block key)");
    k->d1 = d;
    if (xts) {
        BC_CUDA_TRY(cudaMemcpy(d + words, k->h2.key().ks, sizeof(uint32_t) * words, cudaMemcpyHostToDevice),
                    "cudaMemcpy (block key)");
        k->d2 = d + words;
    }
    *out = std::move(k);
    return Status::ok();
}

Status CudaBackend::block_on_device(const CudaBlockKey& k, Mode mode, Dir dir, const uint8_t* iv, uint64_t offset,
                                    uint64_t data_unit, const uint8_t* in, uint8_t* out, size_t len,
                                    cudaStream_t s) {
    const BlockKernels& kn = *k.kernels;
    const size_t bb = kn.block_bytes;
    const bool enc = dir == Dir::Encrypt;
    switch (mode) {
    case Mode::ECB:
        return cuda_status(kn.ecb(enc, k.d1, in, out, len / bb, k.shape, s), "ECB kernel launch (generic)");
    case Mode::CTR:
        return cuda_status(kn.ctr(k.d1, iv, offset / bb, unsigned(offset % bb), false, in, out, len, k.shape, s),
                           "CTR kernel launch (generic)");
    case Mode::CBC: {
        if (enc) return Status(BC_ERR_INTERNAL, "CBC encryption does not run on device buffers");
        Scratch sc;
        BC_TRY(sc.alloc(kn.cbc_dec_scratch_bytes(len / bb), s, pool_));
        return cuda_status(kn.cbc_decrypt(k.d1, iv, in, out, len / bb, sc.p, k.shape, s),
                           "CBC kernel launch (generic)");
    }
    case Mode::XTS: {
        if (len == 0) return Status::ok();
        if (kn.xts == nullptr) return Status(BC_ERR_NOT_SUPPORTED, "XTS needs a 16-byte block cipher");
        const uint64_t unit = data_unit ? data_unit : len;
        const uint64_t nunits = (len + unit - 1) / unit;
        const uint64_t last_len = len - (nunits - 1) * unit;
        if (last_len < 16) return Status(BC_ERR_INPUT_LENGTH, "XTS data unit under 16 bytes");
        if (unit % 16 != 0) {
            // Every unit steals: the generic host modes run them all (rare: sector sizes are whole blocks).
            std::vector<uint8_t> h(len);
            BC_CUDA_TRY(cudaMemcpyAsync(h.data(), in, len, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (xts)");
            BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts)");
            bool ok = true;
            for (uint64_t u = 0; u < nunits && ok; ++u) {
                uint8_t tw[16];
                std::memcpy(tw, iv, 16);
                add_le128(tw, u);
                const size_t l = size_t(std::min<uint64_t>(unit, len - u * unit));
                ok = block_xts_unit(k.h1.key(), k.h2.key(), enc, tw, h.data() + u * unit, h.data() + u * unit, l);
            }
            Status st = ok ? Status::ok() : Status(BC_ERR_INTERNAL, "host XTS refused a data unit");
            if (st) st = cuda_status(cudaMemcpyAsync(out, h.data(), len, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (xts)");
            if (st) st = cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts)");
            secure_wipe(h.data(), h.size());
            return st;
        }
        const uint64_t full = unit / 16;
        const uint64_t lm = last_len / 16, lr = last_len % 16;
        const uint64_t last_blocks = lr ? lm - 1 : lm;
        {
            Scratch sc;
            BC_TRY(sc.alloc(kn.xts_scratch_bytes(nunits, full), s, pool_));
            BC_CUDA_TRY(kn.xts(enc, k.d1, k.d2, iv, in, out, unit, nunits, full, last_blocks, sc.p, k.shape, s),
                        "XTS kernel launch (generic)");
        }
        if (lr == 0) return Status::ok();
        // Ciphertext stealing of the last unit on the host: its last full block (index
        // lm - 1) and the partial one after it, with that block's tweak E(T) * alpha^(lm-1).
        const uint64_t at = (nunits - 1) * unit + 16 * (lm - 1);
        const size_t tail = size_t(16 + lr);
        uint8_t buf[32], res[32], t[16];
        BC_CUDA_TRY(cudaMemcpyAsync(buf, in + at, tail, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (xts tail)");
        BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts tail)");
        std::memcpy(t, iv, 16);
        add_le128(t, nunits - 1);
        k.h2.key().cipher->encrypt(k.h2.key().ks, t, t, 1);
        uint64_t lo = bc_load_le64(t), hi = bc_load_le64(t + 8), a_lo = 0, a_hi = 0;
        bc_xts_alpha_pow(lm - 1, &a_lo, &a_hi);
        bc_xts_mul_public(&lo, &hi, a_lo, a_hi);
        block_xts_steal(k.h1.key(), enc, lo, hi, buf, res, tail);
        Status st = cuda_status(cudaMemcpyAsync(out + at, res, tail, cudaMemcpyHostToDevice, s),
                                "cudaMemcpyAsync (xts tail)");
        if (st) st = cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts tail)");
        secure_wipe(buf, sizeof buf);
        secure_wipe(res, sizeof res);
        secure_wipe(t, sizeof t);
        secure_wipe_object(lo);
        secure_wipe_object(hi);
        return st;
    }
    default:
        return Status(BC_ERR_NOT_SUPPORTED, "not a raw block mode");
    }
}

Status CudaBackend::block_cipher(const KeyMaterial& key, const CudaBlockKey& k, const CipherOp& op) {
    const Mode mode = key.alg->mode;
    if (op.len == 0) return Status::ok();
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    const bool dev_mem = op.memory == BC_MEMORY_DEVICE;
    if (dev_mem && (!is_device_pointer(op.in, dev_) || !is_device_pointer(op.out, dev_)))
        return Status(BC_ERR_INVALID_ARGUMENT, "BC_MEMORY_DEVICE buffers must be device memory of " + name_);
    cudaStream_t s = static_cast<cudaStream_t>(op.stream);

    if (mode == Mode::CBC && op.dir == Dir::Encrypt) {
        if (!dev_mem) return cbc_encrypt_host(key, k, op.iv, op.in, op.out, op.len);
        std::vector<uint8_t> tmp(op.len);
        BC_CUDA_TRY(cudaMemcpyAsync(tmp.data(), op.in, op.len, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (CBC)");
        BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (CBC)");
        Status st = cbc_encrypt_host(key, k, op.iv, tmp.data(), tmp.data(), op.len);
        if (st) st = cuda_status(cudaMemcpyAsync(op.out, tmp.data(), op.len, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (CBC)");
        if (st) st = cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (CBC)");
        secure_wipe(tmp.data(), tmp.size());
        return st;
    }

    if (dev_mem) {
        BC_TRY(block_on_device(k, mode, op.dir, op.iv, op.offset, op.data_unit, op.in, op.out, op.len, s));
        return cuda_status(cudaStreamSynchronize(s), "kernel execution");
    }
    auto work = [&](const uint8_t* iv, uint64_t offset, const uint8_t* in, uint8_t* out, size_t n, cudaStream_t st) {
        return block_on_device(k, mode, op.dir, iv, offset, op.data_unit, in, out, n, st);
    };
    return pipelined_block_cipher(dev_, mode, k.kernels->block_bytes, op, pipe_chunk_, pipe_depth_, work);
}

}  // namespace cuda
}  // namespace bc
