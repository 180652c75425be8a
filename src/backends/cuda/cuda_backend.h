// The CUDA backend (issue 3): device discovery, per-key device-resident AES
// schedules, pinned staging for host memory, streams, and the dispatch of
// every AES mode to the kernels of aes_*.cu / ghash_kernels.cu.
//
// Extending it: a new algorithm family adds a case to CudaBackend::cipher /
// aead_chunk (a switch on Mode) and its own files (the stream ciphers go in
// stream_*.cu / stream_*.cpp here). Until then Mode::Stream and
// Mode::ChaChaPoly answer BC_ERR_NOT_SUPPORTED.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "backends/backend.h"
#include "backends/cuda/block_kernels.h"
#include "backends/cuda/cuda_kernels.h"
#include "backends/cuda/stream_prep.h"
#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/ghash.h"
#include "tuning/cache.h"

namespace bc {
namespace cuda {

// A CUDA error as a Status: the call that failed and cudaGetErrorString's text.
Status cuda_status(cudaError_t e, const char* what);
#define BC_CUDA_TRY(expr, what) BC_TRY(cuda_status((expr), what))

// Zeroes and frees an allocation of device `device` that held key material (nullptr: nothing).
void wipe_device_memory(int device, void* mem, size_t bytes);

// Whether p is device (or managed) memory of CUDA device `device`.
bool is_device_pointer(const void* p, int device);

// Stream-ordered scratch memory from the backend's pool (XTS tweaks, CBC chaining
// blocks, GHASH partials: key-dependent), zeroed and freed on the stream when it goes
// out of scope. Where pools are missing (pool null): cudaMallocAsync.
struct Scratch {
    void* p = nullptr;
    size_t n = 0;
    cudaStream_t s = nullptr;
    Status alloc(size_t bytes, cudaStream_t st, cudaMemPool_t pool) {
        s = st;
        n = bytes ? bytes : 16;
        cudaError_t e = pool ? cudaMallocFromPoolAsync(&p, n, pool, st) : cudaMallocAsync(&p, n, st);
        if (e != cudaSuccess) p = nullptr;
        return cuda_status(e, "cudaMallocAsync (scratch)");
    }
    ~Scratch() {
        if (!p) return;
        (void)cudaMemsetAsync(p, 0, n, s);
        (void)cudaFreeAsync(p, s);
    }
};

// GCM under one key, whichever kernels serve its cipher: H, GHASH's tables in device
// memory, and the key's CTR with GCM's 32-bit counter, enqueued on s.
struct GcmKeyView {
    bc_gf128 h{0, 0};
    const void* ghash_tables = nullptr;
    LaunchShape shape;                // the (family, "gcm") entry's: CTR grid caps, GHASH layout
    std::function<cudaError_t(const uint8_t ctr[16], const uint8_t* in, uint8_t* out, size_t len, cudaStream_t s)>
        ctr32;
};

struct CudaAesKey : BackendKey {
    int device = 0;
    const Algorithm* alg = nullptr;
    AesKeySchedule k1{}, k2{};        // host copies (XTS tails, CBC encryption, tests)
    bc_gf128 h{0, 0};                 // GCM: H = E_K(0)
    void* dev_mem = nullptr;          // one allocation: schedules, then GHASH tables
    size_t dev_bytes = 0;
    DevAesKey d1, d2;                 // views into dev_mem
    const void* ghash_tables = nullptr;
    ~CudaAesKey() override;
};

// A key of the generic block-cipher path (cuda_block.cpp): every Cipher::Block
// algorithm, and AES under aes=generic. The descriptor's expanded key(s) in device
// memory (one allocation, uploaded once, wiped and freed with the key) and on the
// host (CBC encryption and XTS ciphertext stealing run there).
struct CudaBlockKey : BackendKey {
    int device = 0;
    const Algorithm* alg = nullptr;
    const BlockKernels* kernels = nullptr;
    HostBlockSchedule h1, h2;         // k1 (data), k2 (XTS tweaks)
    void* dev_mem = nullptr;
    size_t dev_bytes = 0;
    const uint32_t* d1 = nullptr;     // views into dev_mem
    const uint32_t* d2 = nullptr;
    bc_gf128 h{0, 0};                 // GCM: H = E_K(0)
    const void* ghash_tables = nullptr;  // GCM: in dev_mem after the schedule
    LaunchShape shape;                // from the cipher's (family, mode) tuning entry (block_shape)
    ~CudaBlockKey() override;
};

class CudaBackend : public Backend {
public:
    CudaBackend(int device, const ContextOptions& opt);
    ~CudaBackend() override;
    Status init();

    const char* name() const override { return "cuda"; }
    // What the tuning cache keys this device's entries by (cuda_identity.cpp), and the device
    // as select_tuning sees it.
    tuning::DeviceIdentity identity() const;
    const tuning::DeviceTraits& traits() const { return traits_; }
    std::string device_name() const override { return name_; }
    bool supports(const Algorithm& alg) const override;
    bool supports_memory(bc_memory m) const override { return m == BC_MEMORY_HOST || m == BC_MEMORY_DEVICE; }
    Status prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) override;
    Status cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) override;
    Status aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) override;
    Status mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) override;
    Status wipe(void* p, size_t n, bc_memory memory, void* stream) override;
    bool owns_device_pointer(const void* p) const override;
    bool host_pinned(const void* p) const override;

    int device() const { return dev_; }
    AesImpl impl() const { return opt_.aes_table ? AesImpl::Table : AesImpl::Bitsliced; }
    cudaMemPool_t scratch_pool() const { return pool_; }
    // AES's launch shape in mode m: the (aes, mode) tuning entry with this context's overrides.
    const LaunchShape& shape(Mode m) const { return shapes_[static_cast<int>(m)]; }
    // The stream kernels' launch for a ChaCha or Salsa algorithm (its tuning entry).
    StreamLaunch stream_launch(const Algorithm& alg) const;
    const DevAesTables& tables() const { return tables_; }

    // A piece of work on device buffers (both on this device), enqueued on s.
    // Used for device memory directly and for each staged chunk of host memory.
    Status aes_on_device(const CudaAesKey& k, Mode mode, Dir dir, const uint8_t* iv, uint64_t offset,
                         uint64_t data_unit, const uint8_t* in, uint8_t* out, size_t len, cudaStream_t s);
    // GCM under a prepared key of this backend (AES's kernels or the generic ones).
    GcmKeyView gcm_view(const KeyMaterial& key, const BackendKey& bkey) const;
    // GCM body piece on device buffers; partial (16 bytes, host) per backend.h.
    Status gcm_on_device(const GcmKeyView& g, Dir dir, const uint8_t ctr[16], const uint8_t* in, uint8_t* out,
                         size_t len, cudaStream_t s, uint8_t partial[16]);
    Status ghash_on_device(const GcmKeyView& g, const uint8_t* data, size_t len, cudaStream_t s,
                           uint8_t partial[16]);

    // The generic block-cipher path (cuda_block.cpp). generic_block: alg runs there
    // (Cipher::Block, or AES under aes=generic; GCM too, with GHASH's kernels).
    bool generic_block(const Algorithm& alg) const;
    Status block_on_device(const CudaBlockKey& k, Mode mode, Dir dir, const uint8_t* iv, uint64_t offset,
                           uint64_t data_unit, const uint8_t* in, uint8_t* out, size_t len, cudaStream_t s);

private:
    Status prepare_block_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out);
    // A generic block cipher's shape in mode m: AES's for the mode (GHASH layout), with the
    // grid cap and XTS layout of the cipher's own entry.
    LaunchShape block_shape(const Algorithm& alg, const BlockCipher* cipher) const;
    Status block_cipher(const KeyMaterial& key, const CudaBlockKey& k, const CipherOp& op);
    Status staging(size_t need);  // allocates the staging buffers (staging_mu_ held)
    Status xts_tail(const CudaAesKey& k, bool enc, const uint8_t tweak_unit[16], uint64_t first_block,
                    const uint8_t* in, uint8_t* out, size_t len, bool device_mem, cudaStream_t s);

    int dev_;
    ContextOptions opt_;
    std::string name_;
    static constexpr int kModes = static_cast<int>(Mode::ChaChaPoly) + 1;
    LaunchShape shapes_[kModes];      // by Mode (AES's kernels)
    tuning::DeviceTraits traits_{};  // this device, for per-cipher tuning entries
    size_t free_mem_ = 0;
    DevAesTables tables_;
    void* tables_mem_ = nullptr;
    void* alpha_mem_ = nullptr;
    cudaMemPool_t pool_ = nullptr;    // scratch memory (see init)
    std::mutex staging_mu_;           // host-memory calls share the staging buffers
    static constexpr int kSlots = 2;
    uint8_t* pinned_[kSlots] = {};
    uint8_t* dbuf_[kSlots] = {};
    cudaStream_t streams_[kSlots] = {};
    size_t stage_bytes_ = 0;
    size_t stage_default_ = 0;        // MAC staging slot bytes without chunk= (tuning entry)
    size_t pipe_chunk_ = 0;           // host-memory pipeline pieces (0: the pipeline's default)
    int pipe_depth_ = 0;              // and pieces in flight (0: the pipeline's default)
};

}  // namespace cuda
}  // namespace bc
