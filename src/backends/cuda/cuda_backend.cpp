#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_pipeline.h"
#include "tuning/tuned.h"
#include "util/openssl_ctx.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cores/aes/aes_block.h"
#include "cores/aes/aes_table.h"
#include "modes/block/host_modes.h"
#include "modes/block/xts_tweak.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"
#include "backends/cuda/stream_kernels.h"
#include "util/secure.h"

namespace bc {
namespace cuda {

Status cuda_status(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Status::ok();
    bc_status code = BC_ERR_DEVICE;
    if (e == cudaErrorMemoryAllocation) code = BC_ERR_OUT_OF_MEMORY;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) code = BC_ERR_NO_DEVICE;
    // Clear a non-sticky error so the next call on this thread starts clean.
    (void)cudaGetLastError();
    return Status(code, std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

namespace {

constexpr size_t kHostMacMax = 2048;  // host-memory AAD up to this is hashed on the host
constexpr uint64_t kScratchKeep = uint64_t(64) << 20;  // scratch bytes the pool keeps mapped


// AES's schedule in its descriptor's layout (cores/aes/aes_block.h: rounds, three
// zero words, the bitsliced masks) for the generic host modes; wiped when dropped.
struct AesHostKey {
    std::vector<uint32_t> ks;
    explicit AesHostKey(const AesKeySchedule& s) : ks(BC_AES_KS_WORDS, 0) {
        ks[0] = static_cast<uint32_t>(s.rounds);
        std::memcpy(ks.data() + BC_AES_KS_HEADER, s.bs, sizeof(uint32_t) * 128 * size_t(s.rounds + 1));
    }
    ~AesHostKey() { secure_wipe(ks.data(), ks.size() * sizeof(uint32_t)); }
    HostBlockKey key() const { return {find_block_cipher("aes"), ks.data()}; }
};

// AES-CBC from bulkcrypt's library context (util/openssl_ctx.h), fetched once a key size.
const EVP_CIPHER* evp_cbc(size_t key_len) {
    static EVP_CIPHER* const c[3] = {EVP_CIPHER_fetch(openssl_ctx(), "AES-128-CBC", nullptr),
                                     EVP_CIPHER_fetch(openssl_ctx(), "AES-192-CBC", nullptr),
                                     EVP_CIPHER_fetch(openssl_ctx(), "AES-256-CBC", nullptr)};
    return c[key_len == 16 ? 0 : key_len == 24 ? 1 : 2];
}

}  // namespace

bool is_device_pointer(const void* p, int device) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) && a.device == device;
}

void wipe_device_memory(int device, void* mem, size_t bytes) {
    if (!mem) return;
    int prev = 0;
    (void)cudaGetDevice(&prev);
    (void)cudaSetDevice(device);
    (void)cudaMemset(mem, 0, bytes);
    (void)cudaDeviceSynchronize();
    (void)cudaFree(mem);
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
}

CudaAesKey::~CudaAesKey() {
    wipe_device_memory(device, dev_mem, dev_bytes);
    aes_wipe(&k1);
    aes_wipe(&k2);
    secure_wipe_object(h);
}

CudaBackend::CudaBackend(int device, const ContextOptions& opt) : dev_(device), opt_(opt) {}

CudaBackend::~CudaBackend() {
    (void)cudaSetDevice(dev_);
    for (int i = 0; i < kSlots; ++i) {
        if (streams_[i]) (void)cudaStreamSynchronize(streams_[i]);
        if (dbuf_[i]) {
            (void)cudaMemset(dbuf_[i], 0, stage_bytes_);
            (void)cudaFree(dbuf_[i]);
        }
        if (pinned_[i]) {
            secure_wipe(pinned_[i], stage_bytes_);
            (void)cudaFreeHost(pinned_[i]);
        }
        if (streams_[i]) (void)cudaStreamDestroy(streams_[i]);
    }
    if (tables_mem_) (void)cudaFree(tables_mem_);
    if (alpha_mem_) (void)cudaFree(alpha_mem_);
    // (scratch still being freed on a user's stream is released once those frees complete)
    if (pool_) (void)cudaMemPoolDestroy(pool_);
    (void)cudaGetLastError();
}

Status CudaBackend::init() {
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    cudaDeviceProp p;
    BC_CUDA_TRY(cudaGetDeviceProperties(&p, dev_), "cudaGetDeviceProperties");
    // Grid caps, AES and GHASH variants and MAC staging from the device's tuning entry
    // (src/tuning), with this context's overrides.
    const tuning::DeviceTraits traits{tuning::DeviceKind::Cuda, p.name, p.major, p.minor, p.multiProcessorCount,
                                      true, !opt_.tuning.shipped_only};
    traits_ = traits;
    tuning::warn_once(tuning::load_tuned(identity(), traits_));  // this machine's tuned entries, if any
    // AES's shapes by mode; an override and a tuned entry of the same numbers launch alike.
    for (int m = 0; m < kModes; ++m) {
        const char* mode = tuning::mode_name(static_cast<Mode>(m));
        shapes_[m] = launch_shape(tuning::apply_overrides(tuning::select_tuning(traits, "aes", mode), opt_.tuning),
                                  p.multiProcessorCount);
    }
    const tuning::Tuning aes = tuning::apply_overrides(tuning::select_tuning(traits, "aes", "*"), opt_.tuning);
    stage_default_ = aes.pipeline.stage_bytes;
    // Host memory's pipeline: the device's own entry (generic, *); chunk= and depth= override it.
    const tuning::Tuning host = tuning::select_tuning(traits, "generic", "*");
    pipe_chunk_ = opt_.chunk ? opt_.chunk : host.pipeline.chunk_bytes;
    pipe_depth_ = opt_.tuning.depth > 0 ? opt_.tuning.depth : host.pipeline.depth;
    size_t total = 0;
    BC_CUDA_TRY(cudaMemGetInfo(&free_mem_, &total), "cudaMemGetInfo");
    char bus[32] = "?";
    (void)cudaDeviceGetPCIBusId(bus, sizeof bus, dev_);
    char line[512];
    std::snprintf(line, sizeof line, "%s (cuda:%d, sm_%d%d, %d SMs, %.1f GiB, PCI %s, aes=%s)", p.name, dev_,
                  p.major, p.minor, p.multiProcessorCount, double(total) / double(1u << 30), bus,
                  opt_.aes_table ? "table" : opt_.aes_generic ? "generic" : "bitsliced");
    name_ = line;
    // The table variant's tables (public), and the XTS multiplier tables (public).
    uint32_t te[256], td[256], isb[64];
    aes_table_words(te, td, isb);
    BC_CUDA_TRY(cudaMalloc(&tables_mem_, sizeof te + sizeof td + sizeof isb), "cudaMalloc (tables)");
    uint8_t* tm = static_cast<uint8_t*>(tables_mem_);
    BC_CUDA_TRY(cudaMemcpy(tm, te, sizeof te, cudaMemcpyHostToDevice), "cudaMemcpy (tables)");
    BC_CUDA_TRY(cudaMemcpy(tm + sizeof te, td, sizeof td, cudaMemcpyHostToDevice), "cudaMemcpy (tables)");
    BC_CUDA_TRY(cudaMemcpy(tm + sizeof te + sizeof td, isb, sizeof isb, cudaMemcpyHostToDevice), "cudaMemcpy (tables)");
    tables_.te = reinterpret_cast<const uint32_t*>(tm);
    tables_.td = reinterpret_cast<const uint32_t*>(tm + sizeof te);
    tables_.isb = reinterpret_cast<const uint32_t*>(tm + sizeof te + sizeof td);
    std::vector<uint8_t> alpha(xts_alpha_table_bytes());
    xts_build_alpha_tables(alpha.data());
    BC_CUDA_TRY(cudaMalloc(&alpha_mem_, alpha.size()), "cudaMalloc (xts tables)");
    BC_CUDA_TRY(cudaMemcpy(alpha_mem_, alpha.data(), alpha.size(), cudaMemcpyHostToDevice), "cudaMemcpy (xts tables)");
    for (int i = 0; i < kSlots; ++i)
        BC_CUDA_TRY(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking), "cudaStreamCreate");
    // Scratch (XTS tweaks, CBC chaining blocks, GHASH partials) comes from a pool of our own
    // that keeps up to kScratchKeep bytes mapped between calls: the default pool gives its
    // memory back at every synchronization, so each call mapped its scratch afresh (H100,
    // 1 GiB in GPU memory: XTS 367 -> 394 GB/s, CBC decryption 315 -> 336, GCM 229 -> 237
    // with this pool, bench/notes/aes-gpu.md). Where pools are missing: cudaMallocAsync.
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev_;
    if (cudaMemPoolCreate(&pool_, &props) == cudaSuccess) {
        uint64_t keep = kScratchKeep;
        (void)cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep);
    } else {
        pool_ = nullptr;
        (void)cudaGetLastError();
    }
    return Status::ok();
}

Status CudaBackend::staging(size_t need) {
    if (need <= stage_bytes_) return Status::ok();
    for (int i = 0; i < kSlots; ++i) {
        if (dbuf_[i]) (void)cudaFree(dbuf_[i]);
        if (pinned_[i]) (void)cudaFreeHost(pinned_[i]);
        dbuf_[i] = nullptr;
        pinned_[i] = nullptr;
    }
    stage_bytes_ = 0;
    for (int i = 0; i < kSlots; ++i) {
        BC_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&dbuf_[i]), need), "cudaMalloc (staging)");
        BC_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&pinned_[i]), need), "cudaMallocHost (staging)");
    }
    stage_bytes_ = need;
    return Status::ok();
}

StreamLaunch CudaBackend::stream_launch(const Algorithm& alg) const {
    // threads a block, grid cap an SM, 64-byte blocks a thread an iteration; 0 keeps the
    // kernels' own default
    const tuning::Tuning t = tuning::apply_overrides(tuning::select_tuning(traits_, alg), opt_.tuning);
    StreamLaunch lp;
    if (t.kernel.threads_per_block > 0) lp.threads_per_block = t.kernel.threads_per_block;
    if (t.kernel.blocks_per_sm > 0) lp.blocks_per_sm = t.kernel.blocks_per_sm;
    if (t.kernel.items_per_thread > 0) lp.unroll = t.kernel.items_per_thread;
    lp.scratch_pool = pool_;
    return lp;
}

bool CudaBackend::supports(const Algorithm& alg) const {
    if (alg.mode == Mode::Stream || alg.mode == Mode::ChaChaPoly) return true;  // stream_kernels.cu
    if (generic_block(alg)) return true;  // block_kernels_impl.cuh (cuda_block.cpp)
    if (alg.cipher != Cipher::AES) return false;
    switch (alg.mode) {
    case Mode::ECB: case Mode::CBC: case Mode::CTR: case Mode::XTS: case Mode::GCM: return true;
    default: return false;
    }
}

Status CudaBackend::prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) {
    if (!key.alg || !supports(*key.alg))
        return Status(BC_ERR_NOT_SUPPORTED, std::string("the CUDA backend has no kernels for ") +
                                                (key.alg ? key.alg->name : "this algorithm") + " yet");
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    if (key.alg->mode == Mode::Stream || key.alg->mode == Mode::ChaChaPoly) {
        *out = std::make_unique<BackendKey>();  // the stream kernels take the key state as parameters
        return Status::ok();
    }
    if (generic_block(*key.alg)) return prepare_block_key(key, out);
    auto k = std::make_unique<CudaAesKey>();
    k->device = dev_;
    k->alg = key.alg;
    const bool xts = key.alg->mode == Mode::XTS;
    const size_t half = xts ? key.raw.size() / 2 : key.raw.size();
    if (!aes_expand_key(key.raw.data(), half, &k->k1) ||
        (xts && !aes_expand_key(key.raw.data() + half, half, &k->k2)))
        return Status(BC_ERR_KEY_SIZE, "AES key length must be 16, 24 or 32 bytes (per XTS half)");
    // Device blob: per key masks (15*128 words), le_enc (60), le_dec (60).
    const size_t per_key = (15 * 128 + 120) * 4;
    const bool gcm = key.alg->mode == Mode::GCM;
    const size_t gbytes = gcm ? ghash_table_bytes() : 0;
    const size_t total = per_key * (xts ? 2 : 1) + gbytes;
    std::vector<uint8_t> blob(total, 0);
    auto put_key = [&](const AesKeySchedule& s, size_t at, DevAesKey* d, uint8_t* base) {
        const int words = 4 * (s.rounds + 1);
        std::memcpy(blob.data() + at, s.bs, 128 * 4 * (s.rounds + 1));
        uint32_t le[60];
        bc_aes_table_le_keys(s.enc, words, le);
        std::memcpy(blob.data() + at + 15 * 128 * 4, le, 4 * words);
        bc_aes_table_le_keys(s.dec, words, le);
        std::memcpy(blob.data() + at + 15 * 128 * 4 + 240, le, 4 * words);
        secure_wipe(le, sizeof le);
        d->bs = reinterpret_cast<const uint32_t*>(base + at);
        d->le_enc = reinterpret_cast<const uint32_t*>(base + at + 15 * 128 * 4);
        d->le_dec = reinterpret_cast<const uint32_t*>(base + at + 15 * 128 * 4 + 240);
        d->rounds = s.rounds;
    };
    cudaError_t e = cudaMalloc(&k->dev_mem, total);
    if (e != cudaSuccess) {
        k->dev_mem = nullptr;
        return cuda_status(e, "cudaMalloc (key schedule)");
    }
    k->dev_bytes = total;
    uint8_t* base = static_cast<uint8_t*>(k->dev_mem);
    put_key(k->k1, 0, &k->d1, base);
    if (xts) put_key(k->k2, per_key, &k->d2, base);
    if (gcm) {
        uint8_t h[16];
        k->h = gcm_hash_subkey(GcmCipher(k->k1));
        bc_gf128_store(h, k->h);
        ghash_build_tables(h, blob.data() + per_key);
        k->ghash_tables = base + per_key;
        secure_wipe(h, sizeof h);
    }
    e = cudaMemcpy(k->dev_mem, blob.data(), total, cudaMemcpyHostToDevice);
    secure_wipe(blob.data(), blob.size());
    BC_TRY(cuda_status(e, "cudaMemcpy (key schedule)"));
    *out = std::move(k);
    return Status::ok();
}

// ---------------------------------------------------------------- device-side work

Status CudaBackend::xts_tail(const CudaAesKey& k, bool enc, const uint8_t tweak_unit[16], uint64_t first_block,
                             const uint8_t* in, uint8_t* out, size_t len, bool device_mem, cudaStream_t s) {
    // len = 16 + r bytes: the last full block of a unit and its partial tail.
    uint8_t buf[32], res[32];
    if (device_mem) {
        BC_CUDA_TRY(cudaMemcpyAsync(buf, in, len, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (xts tail)");
        BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts tail)");
    } else {
        std::memcpy(buf, in, len);
    }
    // The tweak of block first_block (the unit's last full one), then the stealing step.
    uint8_t t[16];
    const AesHostKey k1(k.k1), k2(k.k2);
    k2.key().cipher->encrypt(k2.key().ks, tweak_unit, t, 1);
    uint64_t lo = bc_load_le64(t), hi = bc_load_le64(t + 8), a_lo = 0, a_hi = 0;
    bc_xts_alpha_pow(first_block, &a_lo, &a_hi);
    bc_xts_mul_public(&lo, &hi, a_lo, a_hi);
    block_xts_steal(k1.key(), enc, lo, hi, buf, res, len);
    secure_wipe(t, sizeof t);
    secure_wipe_object(lo);
    secure_wipe_object(hi);
    Status st;
    if (device_mem) {
        st = cuda_status(cudaMemcpyAsync(out, res, len, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (xts tail)");
        if (st) st = cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts tail)");
    } else {
        std::memcpy(out, res, len);
    }
    secure_wipe(buf, sizeof buf);
    secure_wipe(res, sizeof res);
    return st;
}

Status CudaBackend::aes_on_device(const CudaAesKey& k, Mode mode, Dir dir, const uint8_t* iv, uint64_t offset,
                                  uint64_t data_unit, const uint8_t* in, uint8_t* out, size_t len,
                                  cudaStream_t s) {
    const bool enc = dir == Dir::Encrypt;
    switch (mode) {
    case Mode::ECB:
        return cuda_status(launch_ecb(impl(), enc, k.d1, tables_, in, out, len / 16, shape(mode), s),
                           "ECB kernel launch");
    case Mode::CTR:
        return cuda_status(launch_ctr(impl(), k.d1, tables_, iv, offset / 16, unsigned(offset % 16), false, in, out,
                                      len, shape(mode), s),
                           "CTR kernel launch");
    case Mode::CBC: {
        if (enc) return Status(BC_ERR_INTERNAL, "CBC encryption does not run on device buffers");
        Scratch sc;
        BC_TRY(sc.alloc(cbc_dec_scratch_bytes(len / 16), s, pool_));
        return cuda_status(launch_cbc_decrypt(impl(), k.d1, tables_, iv, in, out, len / 16, sc.p, shape(mode), s),
                           "CBC kernel launch");
    }
    case Mode::XTS: {
        if (len == 0) return Status::ok();
        const uint64_t unit = data_unit ? data_unit : len;
        const uint64_t nunits = (len + unit - 1) / unit;
        const uint64_t last_len = len - (nunits - 1) * unit;
        if (last_len < 16) return Status(BC_ERR_INPUT_LENGTH, "XTS data unit under 16 bytes");
        if (unit % 16 != 0) {
            // Every unit steals: run the portable core on the host (rare: sector sizes are whole blocks).
            std::vector<uint8_t> h(len);
            BC_CUDA_TRY(cudaMemcpyAsync(h.data(), in, len, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (xts)");
            BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts)");
            const AesHostKey k1(k.k1), k2(k.k2);
            for (uint64_t u = 0; u < nunits; ++u) {
                uint8_t tw[16];
                std::memcpy(tw, iv, 16);
                add_le128(tw, u);
                size_t l = size_t(std::min<uint64_t>(unit, len - u * unit));
                block_xts_unit(k1.key(), k2.key(), enc, tw, h.data() + u * unit, h.data() + u * unit, l);
            }
            Status st = cuda_status(cudaMemcpyAsync(out, h.data(), len, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (xts)");
            if (st) st = cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (xts)");
            secure_wipe(h.data(), h.size());
            return st;
        }
        const uint64_t full = unit / 16;
        const uint64_t lm = last_len / 16, lr = last_len % 16;
        const uint64_t last_blocks = lr ? lm - 1 : lm;
        Scratch sc;
        BC_TRY(sc.alloc(xts_scratch_bytes(nunits, (nunits - 1) * full + last_blocks), s, pool_));
        BC_CUDA_TRY(launch_xts(impl(), enc, k.d1, k.d2, tables_, iv, in, out, unit, nunits, full, last_blocks, sc.p,
                               static_cast<const uint32_t*>(alpha_mem_), shape(mode), s),
                    "XTS kernel launch");
        if (lr) {
            uint8_t tw[16];
            std::memcpy(tw, iv, 16);
            add_le128(tw, nunits - 1);
            const uint64_t at = (nunits - 1) * unit + 16 * (lm - 1);
            BC_TRY(xts_tail(k, enc, tw, lm - 1, in + at, out + at, size_t(16 + lr), true, s));
        }
        return Status::ok();
    }
    default:
        return Status(BC_ERR_NOT_SUPPORTED, "not an AES raw mode");
    }
}

// ---------------------------------------------------------------- entry points

Status CudaBackend::cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) {
    // NO-OP (engine benchmarks): transfers only, through the host-memory pipeline (cuda_pipeline.h).
    if (key.alg && key.alg->cipher == Cipher::Noop) return noop_cipher(dev_, op, pipe_chunk_);
    if (key.alg && key.alg->mode == Mode::Stream) {
        const StreamLaunch lp = stream_launch(*key.alg);
        if (op.memory == BC_MEMORY_HOST && op.len)
            return pipelined_stream_cipher(dev_, key, op, pipe_chunk_, pipe_depth_, lp);
        BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
        BC_TRY(cuda_stream_cipher(key, op, lp));
        // Device memory returns when the work is done, as every other mode's call does: the
        // caller may read, free or reuse the buffers at once.
        if (op.memory != BC_MEMORY_DEVICE) return Status::ok();
        return cuda_status(cudaStreamSynchronize(static_cast<cudaStream_t>(op.stream)), "kernel execution");
    }
    if (key.alg && generic_block(*key.alg)) return block_cipher(key, static_cast<const CudaBlockKey&>(bkey), op);
    if (!key.alg || key.alg->cipher != Cipher::AES) {
        return Status(BC_ERR_NOT_SUPPORTED, "the CUDA backend has no kernels for this algorithm yet");
    }
    const auto& k = static_cast<const CudaAesKey&>(bkey);
    const Mode mode = key.alg->mode;
    switch (mode) {
    case Mode::ECB: case Mode::CBC: case Mode::CTR: case Mode::XTS: break;
    default: return Status(BC_ERR_NOT_SUPPORTED, "not a raw AES mode");
    }
    if (op.len == 0) return Status::ok();
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    const bool dev_mem = op.memory == BC_MEMORY_DEVICE;
    if (dev_mem && (!is_device_pointer(op.in, dev_) || !is_device_pointer(op.out, dev_)))
        return Status(BC_ERR_INVALID_ARGUMENT, "BC_MEMORY_DEVICE buffers must be device memory of " + name_);

    // CBC encryption is serial: libcrypto (AES-NI, constant time) on the host.
    if (mode == Mode::CBC && op.dir == Dir::Encrypt) {
        cudaStream_t s = static_cast<cudaStream_t>(op.stream);
        std::vector<uint8_t> tmp;
        const uint8_t* src = op.in;
        uint8_t* dst = op.out;
        if (dev_mem) {
            tmp.resize(op.len);
            BC_CUDA_TRY(cudaMemcpyAsync(tmp.data(), op.in, op.len, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (CBC)");
            BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (CBC)");
            src = dst = tmp.data();
        }
        EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
        int l = 0;
        bool ok = c && EVP_EncryptInit_ex(c, evp_cbc(key.raw.size()), nullptr, key.raw.data(), op.iv) == 1 &&
                  EVP_CIPHER_CTX_set_padding(c, 0) == 1;
        for (size_t done = 0; ok && done < op.len;) {
            size_t n = std::min<size_t>(op.len - done, size_t(1) << 30);
            ok = EVP_EncryptUpdate(c, dst + done, &l, src + done, int(n)) == 1;
            done += n;
        }
        EVP_CIPHER_CTX_free(c);
        Status st = ok ? Status::ok() : Status(BC_ERR_INTERNAL, "libcrypto AES-CBC failed");
        if (dev_mem) {
            if (st) st = cuda_status(cudaMemcpyAsync(op.out, tmp.data(), op.len, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (CBC)");
            if (st) st = cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (CBC)");
            secure_wipe(tmp.data(), tmp.size());
        }
        return st;
    }

    if (dev_mem) {
        cudaStream_t s = static_cast<cudaStream_t>(op.stream);
        BC_TRY(aes_on_device(k, mode, op.dir, op.iv, op.offset, op.data_unit, op.in, op.out, op.len, s));
        return cuda_status(cudaStreamSynchronize(s), "kernel execution");
    }

    // Host memory: the NB-deep pipeline (cuda_pipeline.h).
    return pipelined_aes_cipher(*this, k, mode, op, pipe_chunk_, pipe_depth_);
}

Status CudaBackend::aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) {
    if (key.alg && key.alg->mode == Mode::ChaChaPoly) {
        const StreamLaunch lp = stream_launch(*key.alg);
        if (op.memory == BC_MEMORY_HOST && op.len)
            return pipelined_chachapoly_chunk(dev_, key, op, pipe_chunk_, pipe_depth_, lp);
        BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
        return cuda_chachapoly_chunk(key, op, lp);
    }
    if (!key.alg || key.alg->mode != Mode::GCM)
        return Status(BC_ERR_NOT_SUPPORTED, "the CUDA backend has no kernels for this AEAD yet");
    const GcmKeyView k = gcm_view(key, bkey);
    std::memset(op.partial, 0, sizeof op.partial);
    if (op.len == 0) return Status::ok();
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    if (op.memory == BC_MEMORY_DEVICE) {
        if (!is_device_pointer(op.in, dev_) || !is_device_pointer(op.out, dev_))
            return Status(BC_ERR_INVALID_ARGUMENT, "BC_MEMORY_DEVICE buffers must be device memory of " + name_);
        cudaStream_t s = static_cast<cudaStream_t>(op.stream);
        BC_TRY(gcm_on_device(k, op.dir, op.ctr, op.in, op.out, op.len, s, op.partial));
        return cuda_status(cudaStreamSynchronize(s), "kernel execution");
    }
    // Host memory: the NB-deep pipeline; per-chunk GHASH results stay on the device until the end.
    return pipelined_gcm_chunk(*this, k, op, pipe_chunk_, pipe_depth_);
}

Status CudaBackend::mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) {
    if (key.alg && key.alg->mode == Mode::ChaChaPoly) {
        if (op.memory == BC_MEMORY_HOST && op.len <= kHostMacMax) {  // small AAD: see GCM below
            std::memset(op.partial, 0, sizeof op.partial);
            if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
            poly1305_partial(op.mac_key, op.data, op.len, op.partial);
            return Status::ok();
        }
        BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
        return cuda_poly1305_mac(op, stream_launch(*key.alg));
    }
    if (!key.alg || key.alg->mode != Mode::GCM)
        return Status(BC_ERR_NOT_SUPPORTED, "the CUDA backend has no kernels for this MAC yet");
    const GcmKeyView k = gcm_view(key, bkey);
    std::memset(op.partial, 0, sizeof op.partial);
    if (op.len == 0) return Status::ok();
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    if (op.memory == BC_MEMORY_DEVICE) {
        if (!is_device_pointer(op.data, dev_))
            return Status(BC_ERR_INVALID_ARGUMENT, "BC_MEMORY_DEVICE buffers must be device memory of " + name_);
        return ghash_on_device(k, op.data, op.len, static_cast<cudaStream_t>(op.stream), op.partial);
    }
    // Small AAD (a file header, a packet header) is hashed here: a round trip to the GPU
    // costs tens of microseconds and serialises callers on the staging buffers, the
    // host multiply a few hundred nanoseconds per block. Bulk AAD still goes to the GPU.
    if (op.len <= kHostMacMax) {
        bc_gf128_store(op.partial, ghash_partial(k.h, op.data, op.len));
        return Status::ok();
    }
    std::lock_guard<std::mutex> lock(staging_mu_);
    size_t chunk = opt_.chunk ? opt_.chunk : stage_default_;
    chunk = std::min(std::max<size_t>(chunk & ~size_t(15), 16), op.len);
    BC_TRY(staging(chunk));
    bc_gf128 acc = {0, 0};
    Status st;
    for (size_t off = 0; off < op.len && st; off += chunk) {
        const size_t n = std::min(chunk, op.len - off);
        uint8_t part[16];
        std::memcpy(pinned_[0], op.data + off, n);
        st = cuda_status(cudaMemcpyAsync(dbuf_[0], pinned_[0], n, cudaMemcpyHostToDevice, streams_[0]), "cudaMemcpyAsync (upload)");
        if (st) st = ghash_on_device(k, dbuf_[0], n, streams_[0], part);
        if (st) acc = ghash_fold(acc, bc_gf128_load(part), (n + 15) / 16, k.h);
    }
    if (st) bc_gf128_store(op.partial, acc);
    secure_wipe_object(acc);
    return st;
}

bool CudaBackend::owns_device_pointer(const void* p) const { return is_device_pointer(p, dev_); }

bool CudaBackend::host_pinned(const void* p) const {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

Status CudaBackend::wipe(void* p, size_t n, bc_memory memory, void* stream) {
    if (!p || n == 0) return Status::ok();
    if (memory == BC_MEMORY_HOST) {
        secure_wipe(p, n);
        return Status::ok();
    }
    BC_CUDA_TRY(cudaSetDevice(dev_), "cudaSetDevice");
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    BC_CUDA_TRY(cudaMemsetAsync(p, 0, n, s), "cudaMemsetAsync (wipe)");
    return cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (wipe)");
}

}  // namespace cuda

int cuda_device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

// Why CUDA has no device, in the words a user can act on: the runtime reports a machine
// without any driver as "driver version is insufficient", as it does an old driver.
static std::string no_cuda_reason(cudaError_t e) {
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
        void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (driver == nullptr) return "no CUDA driver on this machine (libcuda.so.1 not found): no NVIDIA GPU here";
        dlclose(driver);
        if (e == cudaErrorNoDevice) return "the CUDA driver sees no GPU";
        return "the CUDA driver is older than this build's CUDA runtime (" + std::to_string(CUDART_VERSION / 1000) +
               "." + std::to_string(CUDART_VERSION % 1000 / 10) + "): update the NVIDIA driver";
    }
    return std::string("no CUDA device: ") + cudaGetErrorString(e);
}

Status make_cuda_backend(int index, const ContextOptions& opt, std::unique_ptr<Backend>* out) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return Status(BC_ERR_NO_DEVICE, no_cuda_reason(e));
    }
    if (count == 0) return Status(BC_ERR_NO_DEVICE, "no CUDA device present");
    if (index < 0 || index >= count)
        return Status(BC_ERR_NO_DEVICE, "cuda:" + std::to_string(index) + " not present (" + std::to_string(count) +
                                            " CUDA device(s))");
    auto b = std::make_unique<cuda::CudaBackend>(index, opt);
    BC_TRY(b->init());
    *out = std::move(b);
    return Status::ok();
}

}  // namespace bc
