// The engine (docs/architecture.md, "Data flow"): a Backend made of worker backends.
//
// Every call is cut into chunks that all workers pull from ONE queue until the
// job is done; each worker has its own persistent thread. Each worker's rate is
// learned per kind of work from the pieces it ran, and grabs follow it (a worker
// takes about half its share of what is left, and nothing when one chunk would
// keep it busy longer than the others need for all of it). Pieces follow the
// mode's rules (backend.h: every piece carries its start state):
//   ECB          any block boundary (the cipher's block, 8 or 16 bytes: chunks are
//                64-byte multiples, so whole blocks of either)
//   CTR          any boundary; a piece gets the counter block of its first block
//                (the IV plus (op.offset + piece offset) / block, big-endian over the
//                whole block: 64 bits for an 8-byte block, 128 for a 16-byte one) and
//                the rest of that division as its offset (engine_ctr_piece)
//   stream       any boundary; offset = op.offset + piece offset
//   XTS          data-unit boundaries (a job without data units is one unit: one piece)
//   CBC decrypt  block boundaries; each chunk's chaining value (the ciphertext
//                block before it, one cipher block) is saved before any worker
//                starts, so in-place output cannot overwrite it (engine_cbc_chains)
//   CBC encrypt  serial: one piece
//   AEAD bodies  64-byte multiples; every worker returns its piece's MAC partial
//                and the engine folds them in order with powers of H (GCM,
//                ghash_fold) or r (Poly1305, poly1305_combine, r = op.mac_key)
//   MAC (AAD)    the same, without keystream
// Jobs below cpu_threshold bytes run on the calling thread on the first CPU
// worker alone (or the first worker that has the key); device memory goes to
// the one worker that owns it, unsplit.
//
// Faults: a device worker whose prepare_key fails for a reason another worker would
// not repeat (device, memory, internal errors, not supported: a run-time compiler that
// rejects a kernel) holds no key: the key's jobs run on the others, and the call fails
// only when no worker holds it. A worker whose piece fails is taken out of the job. When the input
// is intact (out-of-place jobs, or a MAC) and the failure is not the caller's
// fault (device, memory, internal errors), the piece goes back to the queue and
// another worker runs it; otherwise the job stops handing out pieces, waits
// for the pieces in flight and returns the status. The output is never wrong
// without a failed status, and nothing waits forever: a job with no worker
// left fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace bc {

// Defaults. Where each number comes from: bench/notes/engine-host-memory.md.
//  - kEngineDefaultChunk: the unit of scheduling. Workers grab runs of chunks
//    (guided: about remaining / (2 x workers), never under one chunk), so a GPU
//    worker sees long runs that its own pipeline splits again.
//  - kEngineDefaultCpuThreshold: below it a job stays on the CPU on the calling
//    thread. Estimate until bench/engine_bench.cpp's crossover is measured on the
//    H100 machine (it prints the measured value and the JSON records it).
constexpr size_t kEngineDefaultChunk = size_t(4) << 20;
constexpr size_t kEngineDefaultCpuThreshold = size_t(4) << 20;

struct EngineOptions {
    size_t chunk = kEngineDefaultChunk;           // bytes; rounded down to 64-byte multiples (>= 64)
    size_t cpu_threshold = kEngineDefaultCpuThreshold;  // jobs under it: the first CPU worker alone
    bool guided = true;                           // false: every grab is exactly one chunk
    // Jobs that stay whole (under cpu_threshold, or one chunk) run on the calling thread:
    // on the CPU worker, unless it is busy (cpu_busy_at whole jobs of other callers in
    // flight) and the job has at least gpu_min_job bytes; then on the least loaded other
    // worker with fewer than gpu_concurrency such jobs in flight (a GPU's pipeline
    // overlaps that many callers). make_device_engine sets cpu_busy_at to the CPU
    // worker's threads: each concurrent caller's job runs on its own core (ThreadPool::
    // share), and a GPU fed from pageable memory costs ~3x the host memory traffic of
    // the CPU path (bench/notes/engine-host-memory.md), so it only takes what the cores cannot.
    unsigned cpu_busy_at = 1;
    size_t gpu_min_job = size_t(1) << 20;
    unsigned gpu_concurrency = 8;
    // Which workers take a job cut into pieces, its arm: every worker (Split), the CPU
    // worker(s) alone (CpuAlone) or the other workers, the GPUs, alone (GpusAlone). Adaptive
    // chooses per mode, size class and pinned-or-pageable buffers from the bytes per second of
    // recent jobs of each arm (moving averages): each arm is tried once (split, CPU alone,
    // GPUs alone), then the fastest runs; the split only when it beats the faster single kind
    // by 10 % (it costs both kinds' time and host memory traffic other callers could use).
    // Every other arm a keeps a credit that grows by q^2 a job, q = rate_a / rate_best, and
    // is probed once more (credit reset) when it reaches explore_every. A probe costs
    // 1/q - 1 jobs' time and comes every explore_every / q^2 jobs, so each arm's probes cost
    // (q - q^2) / explore_every of the time: at most 1 / (4 explore_every), ~3 %, whatever
    // the rates, and an arm near the best is still re-measured often (a change of load).
    // Why (bench/notes/engine-host-memory.md, host-memory limit): on the H100 machine, with pinned buffers
    // AES-256-GCM runs 41.6 GB/s on the GPU alone, 31.2 on the CPU alone and 31.0 split; from
    // pageable memory (3x the host memory traffic per byte staged) the GPU alone is ~4x slower
    // than the CPU alone: a fixed 1-in-8 probe of it would cost ~25 %, a credit of q ~9 %,
    // this rule ~2 %.
    // Split, CpuAlone and GpusAlone fix the arm (benchmarks, tests). explore_every = 0: no
    // probes after the tries.
    enum class SplitPolicy { Adaptive, Split, CpuAlone, GpusAlone };
    SplitPolicy split_policy = SplitPolicy::Adaptive;
    unsigned explore_every = 8;
    std::string name = "engine";                  // what name() answers ("hybrid", "cuda:all")

    // Device memory ownership. worker_devices[i]: the CUDA ordinal of worker i, -1 for
    // host-only workers. device_of(p): the ordinal owning device pointer p, -1 if unknown.
    // Without them a device job is offered to each worker that takes device memory until
    // one accepts it (a worker refuses a foreign pointer with BC_ERR_INVALID_ARGUMENT).
    std::vector<int> worker_devices;
    std::function<int(const void*)> device_of;
    // Whether host pointer p is page-locked (cudaMallocHost, cudaHostRegister); unset: never.
    std::function<bool(const void*)> host_pinned;

    // Test hook: worker fail_worker fails each job's piece that takes its chunk count in
    // that job past fail_after_chunks. It first scribbles over the piece's output (as a
    // device dying mid-copy would) and then returns fail_status. -1 = off.
    int fail_worker = -1;
    size_t fail_after_chunks = 0;
    bc_status fail_status = BC_ERR_DEVICE;
};

// Counters since creation (or the last reset), for tests and benchmarks.
struct EngineStats {
    std::vector<uint64_t> pieces;   // per worker: pieces (runs of chunks) run
    std::vector<uint64_t> bytes;    // per worker: bytes processed successfully
    uint64_t jobs = 0;              // jobs through the queue
    uint64_t cpu_alone_jobs = 0;    // of those, run by the CPU worker(s) alone (EngineOptions::split_policy)
    uint64_t gpus_alone_jobs = 0;   // of those, run by the non-CPU workers alone (the same)
    uint64_t small_jobs = 0;        // jobs kept on one worker (under the threshold, or serial)
    uint64_t device_jobs = 0;       // device-memory jobs handed to their owner
    uint64_t requeued = 0;          // failed pieces run again elsewhere
    uint64_t failures = 0;          // pieces that failed
};

// Builds the engine over workers (at least one). The engine owns them.
Status make_engine_backend(std::vector<std::unique_ptr<Backend>> workers, const EngineOptions& opt,
                           std::unique_ptr<Backend>* out);

// The counters of an engine made by make_engine_backend; false for any other backend.
bool engine_stats(const Backend& b, EngineStats* out);
void engine_reset_stats(Backend& b);
// The options an engine runs with (nullptr when b is not an engine).
const EngineOptions* engine_options(const Backend& b);
// The cpu_threshold of an engine that has a CPU worker and another kind of worker; 0 for
// any other backend (its jobs have nowhere else to go).
size_t engine_cpu_threshold(const Backend& b);

// How the engine cuts a cipher job and what each piece starts from (the rules above),
// apart so that tests reach them for any block size:
//  - engine_cipher_chunk: the bytes per chunk of a cipher job of algorithm a, from the
//    engine's chunk (a multiple of 64): whole data units for XTS, whole blocks of the
//    algorithm's block otherwise, never under one of them.
//  - engine_cbc_chains: CBC decryption of `in` cut every `chunk` bytes (whole blocks of
//    `block` bytes) into nchunks chunks: chains (block * nchunks bytes) receives the IV
//    for chunk 0, then for chunk k the ciphertext block that ends at k * chunk.
//  - engine_ctr_piece: CTR with counter block ctr (block bytes, one big-endian number) at
//    keystream byte pos: piece_ctr = ctr + pos / block (modulo 2^(8*block); the C API has
//    refused any range that would wrap) and *piece_offset = pos % block.
size_t engine_cipher_chunk(const Algorithm& a, size_t chunk, uint64_t data_unit);
void engine_cbc_chains(size_t block, const uint8_t* iv, const uint8_t* in, size_t chunk, size_t nchunks,
                       uint8_t* chains);
void engine_ctr_piece(size_t block, const uint8_t* ctr, uint64_t pos, uint8_t* piece_ctr, uint64_t* piece_offset);

// Engines over the devices of this machine (src/engine/engine_devices.cpp, its rules in
// engine_devices.h):
//   with_cpu = true:  "hybrid", the CPU backend, every CUDA GPU and every OpenCL GPU that
//                     no CUDA worker drives (never an OpenCL CPU device)
//   with_cpu = false: "cuda:all", every CUDA GPU
// The CPU worker comes first, then the GPUs, fastest first by the rates measured on this
// machine (engine_gpu_order). BC_ERR_NO_DEVICE when there is no such GPU. A CUDA GPU that
// fails to start is an error; an OpenCL GPU that fails to open is left out. The CPU worker
// gets every core (opt.threads overrides): a job it runs alone must not lose the cores the
// GPU pipelines would use; while both run, the OS shares the cores.
// base: engine options to start from (chunk, threshold, hook); name and worker_devices are
// filled in here.
Status make_device_engine(bool with_cpu, const ContextOptions& opt, std::unique_ptr<Backend>* out,
                          const EngineOptions* base = nullptr);
// How many CUDA GPUs make_device_engine would use (0 without CUDA).
int engine_gpu_count();

}  // namespace bc
