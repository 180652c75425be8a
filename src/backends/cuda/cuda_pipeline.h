// The host-memory pipeline of one CUDA device (issue 5): slots in flight, each
// with its own stream. For chunk i of a run on its slot: (stage into pinned
// memory) -> async upload -> the caller's kernel -> async download -> event; a
// run's slots go round-robin, so while one slot uploads another downloads and a
// third computes: both copy directions stay busy. The host waits for nothing
// between chunks except a slot coming back before its buffers are reused.
//
// Several runs at once (the CLI's segments, many threads calling the API): the
// slots form one pool per device. A run takes one slot (waiting for it if every
// slot is busy and the pool is full) and as many more as are free, up to its NB,
// and gives them back when it ends, so concurrent runs overlap on the device
// instead of queuing behind each other; no run waits for a second slot while
// holding one, so runs cannot deadlock.
//
// Pageable user memory is staged through pinned buffers by several host threads
// at once (one memcpy thread cannot keep up with PCIe Gen5); while other runs are
// in flight each run stages on its own calling thread (the callers are the
// parallelism). User buffers that are already page-locked (cudaMallocHost,
// cudaHostRegister: found with cudaPointerGetAttributes) are copied from and to
// directly, each direction on its own. Device buffers are wiped after every run,
// as far as the run used them; pinned staging when no run is in flight any more
// (the last run to end wipes it), and before it is freed or regrown.
//
// Per-chunk results (GHASH and Poly1305 partials): each slot has a small device
// area, zeroed before the chunk's kernel and downloaded with its data into pinned
// memory; the pipeline copies it to the caller's array when the slot comes back.
// No allocation, no synchronisation per run beyond its own slots.
//
// Integration into CudaBackend's host-memory path: see the notes at the end of
// this file.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/stream_prep.h"
#include "util/thread_pool.h"

namespace bc {
namespace cuda {

// Defaults; bench/engine_bench.cpp sweeps them (NO-OP ceiling against NB, chunk and
// staging threads) and bench/notes/engine-host-memory.md records what was measured.
constexpr size_t kPipelineDefaultChunk = tuning::kCudaHostPipelineChunk;  // the CUDA tuning entries'
constexpr int kPipelineDefaultDepth = tuning::kCudaHostPipelineDepth;
// Staging threads per GPU (pageable buffers are copied through pinned staging on the
// host, twice a byte): half the host's cores shared among its GPUs, 4 to 16 each. Four
// a GPU held one GPU's pageable NO-OP to 11.7 GB/s and four GPUs' to 15.2 on a 64-core
// H200 host, where 16 reached 27.6 and 31.0 (the host copy roof); eight was the best
// swept on the 16-core H100 host (bench/notes/engine-host-memory.md).
constexpr unsigned kPipelineMinHostThreads = 4;
constexpr unsigned kPipelineMaxHostThreads = 16;
unsigned default_host_threads();
constexpr int kPipelineMaxDepth = 32;
// Slots per device, shared by all runs (each holds chunk bytes of device memory and,
// for pageable runs, the same again twice in pinned host memory).
constexpr int kPipelinePoolSlots = 16;
// Bytes of per-chunk result a kernel may leave in its slot's result area.
constexpr size_t kPipelineMaxResult = 256;

// Enqueues the work of one chunk on stream s: dev_in holds the chunk's input
// (bytes [off, off + len) of the job), dev_out receives its output (the pipeline
// passes the same buffer for both: kernels run in place). dev_result: the chunk's
// result area in device memory (zeroed, ChunkResults::bytes long) when the run
// asked for results, else nullptr. It should only enqueue: a callback that
// synchronizes works but stalls the other slots behind it. A non-OK status stops
// the run.
using ChunkKernel = std::function<Status(uint8_t* dev_in, uint8_t* dev_out, size_t off, size_t len, cudaStream_t s,
                                         uint8_t* dev_result)>;

// Per-chunk results of a run: chunk i's result area lands at host + i * bytes.
struct ChunkResults {
    size_t bytes = 0;        // per chunk, at most kPipelineMaxResult
    uint8_t* host = nullptr;  // chunks x bytes
};

struct PipelineRunInfo {
    bool in_staged = false;     // the input was pageable and went through pinned staging
    bool out_staged = false;    // the same for the output
    size_t chunks = 0;
    size_t chunk = 0;
    int depth = 0;
};

class HostPipeline {
public:
    explicit HostPipeline(int device, unsigned host_threads = default_host_threads(),
                          int pool_slots = kPipelinePoolSlots);
    ~HostPipeline();
    HostPipeline(const HostPipeline&) = delete;
    HostPipeline& operator=(const HostPipeline&) = delete;

    // Runs in -> kernel -> out over len bytes of host memory (in == out allowed,
    // partial overlap not), chunk bytes per slot (0: default_chunk(); the caller aligns
    // it to its mode), up to nb slots (0: default_depth(); clamped to 1..pool_slots()).
    // Any number of runs at once: they share the pool's slots.
    Status run(const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb, const ChunkKernel& kernel,
               PipelineRunInfo* info = nullptr, const ChunkResults* results = nullptr);

    int device() const { return dev_; }
    unsigned host_threads() const { return pool_.size(); }
    int pool_slots() const { return max_slots_; }
    // Bytes of pinned staging still holding data (0 whenever no run is in flight). For tests.
    size_t dirty_bytes();

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
        uint8_t* dev_result = nullptr;  // kPipelineMaxResult bytes: the chunk's result
        uint8_t* pin_result = nullptr;  // its pinned copy
        size_t cap = 0;              // bytes of dev (and of pin_in / pin_out where present)
        size_t dirty = 0;            // leading bytes of pin_in / pin_out holding data: wiped when idle
        cudaStream_t stream = nullptr;
        cudaEvent_t done = nullptr;  // recorded after the download
        size_t off = 0, len = 0, index = 0;
        bool busy = false;           // its chunk is in flight
        bool in_use = false;         // a run holds it (under mu_)
        bool made = false;           // stream, event and result areas exist
    };
    // Takes one slot (waiting if need be) and up to want - 1 more that are free now.
    Status acquire(int want, std::vector<Slot*>* mine);
    void give_back(std::vector<Slot*>& mine);
    // When no run is in flight: wipes the pinned staging of every slot (the last run to end calls it).
    void wipe_idle();
    // The slot's buffers for chunk bytes (only its holder calls this).
    Status fit(Slot& s, size_t chunk, bool pin_in, bool pin_out);
    void release();
    // Parallel memcpy over the staging threads; a second pair (may be empty) copies at the same time.
    // alone = false: other runs are in flight, so the calling thread copies by itself.
    void copy2(bool alone, uint8_t* d1, const uint8_t* s1, size_t n1, uint8_t* d2, const uint8_t* s2, size_t n2);

    int dev_;
    int max_slots_;
    std::atomic<size_t> default_chunk_{kPipelineDefaultChunk};
    std::atomic<int> default_nb_{kPipelineDefaultDepth};
    std::mutex mu_;                // guards in_use and the slot count
    std::condition_variable freed_;
    std::atomic<int> runs_{0};     // runs in flight
    ThreadPool pool_;
    Slot slots_[kPipelineMaxDepth];
    int nslots_ = 0;               // slots made so far
};

// One pipeline per device for the whole process, made on first use (and kept:
// its buffers are wiped as described at the top, never freed before exit).
HostPipeline& shared_host_pipeline(int device);

// The same as shared_host_pipeline(device).run(...).
Status run_host_pipeline(int device, const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb,
                         const ChunkKernel& kernel, PipelineRunInfo* info = nullptr,
                         const ChunkResults* results = nullptr);

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
struct GcmKeyView;
// A block mode's work on device buffers for one chunk (the chunk's own start state):
// iv is its chaining block (CBC), the op's counter block (CTR, with offset the chunk's
// keystream byte offset) or the tweak of its first data unit (XTS).
using BlockDeviceWork = std::function<Status(const uint8_t* iv, uint64_t offset, const uint8_t* in, uint8_t* out,
                                             size_t len, cudaStream_t s)>;
// ECB, CTR, XTS, CBC decryption of host memory through the pipeline, any block size
// (CBC encryption stays on the host: it is serial). Chunks hold whole 64-byte spans,
// or whole XTS data units; CBC chunks chain from the ciphertext block before them,
// saved before the run starts.
Status pipelined_block_cipher(int device, Mode mode, size_t block_bytes, const CipherOp& op, size_t chunk, int nb,
                              const BlockDeviceWork& work);
// AES's kernels through pipelined_block_cipher (CudaBackend::aes_on_device).
Status pipelined_aes_cipher(CudaBackend& b, const CudaAesKey& k, Mode mode, const CipherOp& op, size_t chunk,
                            int nb);
Status pipelined_gcm_chunk(CudaBackend& b, const GcmKeyView& g, AeadChunkOp& op, size_t chunk, int nb);
// Mode::Stream (ChaCha20, Salsa20 families) and ChaCha20-Poly1305 pieces.
Status pipelined_stream_cipher(int device, const KeyMaterial& key, const CipherOp& op, size_t chunk, int nb,
                               const StreamLaunch& lp);
Status pipelined_chachapoly_chunk(int device, const KeyMaterial& key, AeadChunkOp& op, size_t chunk, int nb,
                                  const StreamLaunch& lp);

}  // namespace cuda
}  // namespace bc

// Where it is used: CudaBackend's host-memory paths (cipher: AES modes but CBC
// encryption, the stream ciphers, NO-OP; aead_chunk: GCM and ChaCha20-Poly1305)
// call the pipelined_* functions above. The GCM AAD (mac) keeps its own path.
