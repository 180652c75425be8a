// The host-memory pipeline of one CUDA device (issue 5): NB buffers in flight,
// each with its own stream. For chunk i on slot i % NB: (stage into pinned
// memory) -> async upload -> the caller's kernel -> async download -> event; the
// slots go round-robin, so while one slot uploads another downloads and a third
// computes: both copy directions stay busy. The host waits for nothing between
// chunks except a slot coming back before its buffers are reused.
//
// Pageable user memory is staged through pinned buffers by several host threads
// at once (one memcpy thread cannot keep up with PCIe Gen5); user buffers that are
// already page-locked (cudaMallocHost, cudaHostRegister: found with
// cudaPointerGetAttributes) are copied from and to directly, each direction on
// its own. Staging and device buffers are wiped after every run.
//
// Integration into CudaBackend's host-memory path: see the notes at the end of
// this file.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "backends/backend.h"
#include "util/thread_pool.h"

namespace bc {
namespace cuda {

// Defaults; bench/engine_bench.cpp sweeps them (NO-OP ceiling against NB, chunk and
// staging threads) and bench/NOTES.md ("Engine") records what was measured.
constexpr size_t kPipelineDefaultChunk = size_t(8) << 20;
constexpr int kPipelineDefaultDepth = 4;
constexpr unsigned kPipelineDefaultHostThreads = 4;
constexpr int kPipelineMaxDepth = 32;

// Enqueues the work of one chunk on stream s: dev_in holds the chunk's input
// (bytes [off, off + len) of the job), dev_out receives its output (the pipeline
// passes the same buffer for both: kernels run in place). It should only
// enqueue: a callback that synchronizes works but stalls the other slots behind
// it. A non-OK status stops the run.
using ChunkKernel =
    std::function<Status(uint8_t* dev_in, uint8_t* dev_out, size_t off, size_t len, cudaStream_t s)>;

struct PipelineRunInfo {
    bool in_staged = false;     // the input was pageable and went through pinned staging
    bool out_staged = false;    // the same for the output
    size_t chunks = 0;
    size_t chunk = 0;
    int depth = 0;
};

class HostPipeline {
public:
    explicit HostPipeline(int device, unsigned host_threads = kPipelineDefaultHostThreads);
    ~HostPipeline();
    HostPipeline(const HostPipeline&) = delete;
    HostPipeline& operator=(const HostPipeline&) = delete;

    // Runs in -> kernel -> out over len bytes of host memory (in == out allowed,
    // partial overlap not), chunk bytes per slot (0: default_chunk(); the caller aligns
    // it to its mode), nb slots (0: default_depth(); clamped to 1..kPipelineMaxDepth). One run
    // at a time per pipeline (concurrent callers queue).
    Status run(const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb, const ChunkKernel& kernel,
               PipelineRunInfo* info = nullptr);

    int device() const { return dev_; }
    unsigned host_threads() const { return pool_.size(); }

    // What chunk = 0 and nb = 0 mean for this pipeline (0 = the compiled-in defaults).
    // For the autotuner, benchmarks and tests; runs in flight keep what they started with.
    void set_defaults(size_t chunk, int nb) {
        default_chunk_.store(chunk ? chunk : kPipelineDefaultChunk);
        default_nb_.store(nb > 0 ? nb : kPipelineDefaultDepth);
    }
    size_t default_chunk() const { return default_chunk_.load(); }
    int default_depth() const { return default_nb_.load(); }

private:
    struct Slot {
        uint8_t* pin_in = nullptr;   // pinned staging of the input (pageable input only)
        uint8_t* pin_out = nullptr;  // pinned staging of the output (pageable output only)
        uint8_t* dev = nullptr;      // the chunk on the device
        cudaStream_t stream = nullptr;
        cudaEvent_t done = nullptr;  // recorded after the download
        size_t off = 0, len = 0;
        bool busy = false;
    };
    Status reserve(size_t chunk, int nb, bool pin_in, bool pin_out);
    void release();
    // Parallel memcpy over the staging threads; a second pair (may be empty) copies at the same time.
    void copy2(uint8_t* d1, const uint8_t* s1, size_t n1, uint8_t* d2, const uint8_t* s2, size_t n2);

    int dev_;
    std::atomic<size_t> default_chunk_{kPipelineDefaultChunk};
    std::atomic<int> default_nb_{kPipelineDefaultDepth};
    std::mutex mu_;
    ThreadPool pool_;
    Slot slots_[kPipelineMaxDepth];
    int nslots_ = 0;              // slots with streams and events
    size_t cap_ = 0;              // bytes per slot buffer
    bool have_pin_in_ = false, have_pin_out_ = false;
};

// One pipeline per device for the whole process, made on first use (and kept:
// its buffers are wiped after each run, never freed before exit).
HostPipeline& shared_host_pipeline(int device);

// The same as shared_host_pipeline(device).run(...).
Status run_host_pipeline(int device, const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb,
                         const ChunkKernel& kernel, PipelineRunInfo* info = nullptr);

// True when p is page-locked host memory (cudaMallocHost / cudaHostAlloc / cudaHostRegister).
bool is_pinned_host(const void* p);

// The NO-OP algorithm on CUDA: transfers only (upload, download, no kernel).
// Host memory goes through the device's shared pipeline; device memory is a
// device-to-device copy when out != in. chunk/nb 0 = defaults.
Status noop_cipher(int device, const CipherOp& op, size_t chunk = 0, int nb = 0);
std::unique_ptr<BackendKey> make_noop_key();

// CudaBackend's host-memory paths through the device's shared pipeline (chunk 0
// and nb 0 = defaults; chunks are aligned here to the mode: 64 bytes, or whole
// XTS data units). Every chunk carries its own start state (counter, chaining
// value saved before the run, tweak, keystream offset). The AEAD pieces leave
// each chunk's MAC result in device memory (no synchronisation per chunk), read
// them back once after the run and fold them in order (ghash_fold with H,
// poly1305_combine with r), so op.partial is the partial of backend.h for the
// whole piece.
class CudaBackend;
struct CudaAesKey;
// ECB, CTR, XTS, CBC decryption (CBC encryption stays on the host: it is serial).
Status pipelined_aes_cipher(CudaBackend& b, const CudaAesKey& k, Mode mode, const CipherOp& op, size_t chunk,
                            int nb);
Status pipelined_gcm_chunk(CudaBackend& b, const CudaAesKey& k, AeadChunkOp& op, size_t chunk, int nb);
// Mode::Stream (ChaCha20, Salsa20 families) and ChaCha20-Poly1305 pieces.
Status pipelined_stream_cipher(int device, const KeyMaterial& key, const CipherOp& op, size_t chunk, int nb);
Status pipelined_chachapoly_chunk(int device, const KeyMaterial& key, AeadChunkOp& op, size_t chunk, int nb);

}  // namespace cuda
}  // namespace bc

// Where it is used: CudaBackend's host-memory paths (cipher: AES modes but CBC
// encryption, the stream ciphers, NO-OP; aead_chunk: GCM and ChaCha20-Poly1305)
// call the pipelined_* functions above. The GCM AAD (mac) keeps its own path.
