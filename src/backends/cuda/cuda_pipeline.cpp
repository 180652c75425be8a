#include "backends/cuda/cuda_pipeline.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_kernels.h"
#include "backends/cuda/stream_kernels.h"
#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"
#include "util/secure.h"

namespace bc {
namespace cuda {

#define BC_PIPE_TRY(expr, what) BC_TRY(cuda_status((expr), what))

namespace {
// Below this a staged copy runs on the calling thread alone (waking helpers costs more).
constexpr size_t kParallelCopyMin = size_t(256) << 10;
}  // namespace

bool is_pinned_host(const void* p) {
    if (!p) return false;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

HostPipeline::HostPipeline(int device, unsigned host_threads, int pool_slots)
    : dev_(device), max_slots_(std::clamp(pool_slots, 1, kPipelineMaxDepth)), pool_(std::max(1u, host_threads)) {}

HostPipeline::~HostPipeline() { release(); }

void HostPipeline::release() {
    int prev = 0;
    (void)cudaGetDevice(&prev);
    (void)cudaSetDevice(dev_);
    for (int i = 0; i < nslots_; ++i) {
        Slot& s = slots_[i];
        if (s.stream) (void)cudaStreamSynchronize(s.stream);
        if (s.pin_in) secure_wipe(s.pin_in, std::min(s.dirty, s.cap));
        if (s.pin_out) secure_wipe(s.pin_out, std::min(s.dirty, s.cap));
        if (s.dev) (void)cudaFree(s.dev);
        if (s.dev_result) (void)cudaFree(s.dev_result);
        if (s.pin_in) (void)cudaFreeHost(s.pin_in);
        if (s.pin_out) (void)cudaFreeHost(s.pin_out);
        if (s.pin_result) (void)cudaFreeHost(s.pin_result);
        if (s.done) (void)cudaEventDestroy(s.done);
        if (s.stream) (void)cudaStreamDestroy(s.stream);
        s = Slot();
    }
    nslots_ = 0;
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
}

Status HostPipeline::acquire(int want, std::vector<Slot*>* mine) {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        for (int i = 0; i < nslots_ && int(mine->size()) < want; ++i)
            if (!slots_[i].in_use) slots_[i].in_use = true, mine->push_back(&slots_[i]);
        // Grow the pool for what is still wanted (a slot's stream and buffers are made by fit()).
        while (int(mine->size()) < want && nslots_ < max_slots_) {
            Slot& s = slots_[nslots_++];
            s.in_use = true;
            mine->push_back(&s);
        }
        if (!mine->empty()) return Status::ok();
        freed_.wait(lk);  // every slot is held by other runs
    }
}

void HostPipeline::give_back(std::vector<Slot*>& mine) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        for (Slot* s : mine) s->in_use = false;
    }
    mine.clear();
    freed_.notify_all();
}

// Makes the slot's stream, event and result areas on first use, and grows its buffers
// to chunk bytes (never shrinks). Only the run holding the slot calls this.
Status HostPipeline::fit(Slot& s, size_t chunk, bool pin_in, bool pin_out) {
    if (!s.made) {  // each piece once, so a failure half way leaks nothing on the next try
        if (!s.stream)
            BC_PIPE_TRY(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate (pipeline)");
        // Blocking sync: the host thread sleeps while it waits for a slot, it does not spin.
        if (!s.done)
            BC_PIPE_TRY(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming | cudaEventBlockingSync),
                        "cudaEventCreate (pipeline)");
        if (!s.dev_result)
            BC_PIPE_TRY(cudaMalloc(reinterpret_cast<void**>(&s.dev_result), kPipelineMaxResult),
                        "cudaMalloc (pipeline)");
        if (!s.pin_result)
            BC_PIPE_TRY(cudaMallocHost(reinterpret_cast<void**>(&s.pin_result), kPipelineMaxResult),
                        "cudaMallocHost (pipeline)");
        s.made = true;
    }
    if (chunk > s.cap) {  // regrow (cudaFree waits for the device: rare, the sizes settle)
        if (s.pin_in) secure_wipe(s.pin_in, std::min(s.dirty, s.cap));
        if (s.pin_out) secure_wipe(s.pin_out, std::min(s.dirty, s.cap));
        s.dirty = 0;
        if (s.dev) (void)cudaFree(s.dev);
        if (s.pin_in) (void)cudaFreeHost(s.pin_in);
        if (s.pin_out) (void)cudaFreeHost(s.pin_out);
        s.dev = s.pin_in = s.pin_out = nullptr;
        s.cap = 0;
        BC_PIPE_TRY(cudaMalloc(reinterpret_cast<void**>(&s.dev), chunk), "cudaMalloc (pipeline)");
        s.cap = chunk;
    }
    if (pin_in && !s.pin_in)
        BC_PIPE_TRY(cudaMallocHost(reinterpret_cast<void**>(&s.pin_in), s.cap), "cudaMallocHost (pipeline)");
    if (pin_out && !s.pin_out)
        BC_PIPE_TRY(cudaMallocHost(reinterpret_cast<void**>(&s.pin_out), s.cap), "cudaMallocHost (pipeline)");
    return Status::ok();
}

void HostPipeline::copy2(bool alone, uint8_t* d1, const uint8_t* s1, size_t n1, uint8_t* d2, const uint8_t* s2,
                         size_t n2) {
    if (n1 + n2 == 0) return;
    if (!alone || pool_.size() == 1 || n1 + n2 < kParallelCopyMin) {
        if (n1) std::memcpy(d1, s1, n1);
        if (n2) std::memcpy(d2, s2, n2);
        return;
    }
    // Pieces of about (n1 + n2) / threads, at least 64 KiB, from both copies.
    const size_t piece = std::max<size_t>((n1 + n2) / pool_.size() + 1, size_t(64) << 10);
    const size_t p1 = (n1 + piece - 1) / piece, p2 = (n2 + piece - 1) / piece;
    pool_.parallel_for(p1 + p2, [&](size_t t) {
        const bool first = t < p1;
        const size_t i = first ? t : t - p1;
        const size_t n = first ? n1 : n2, at = i * piece, m = std::min(piece, n - at);
        if (first) std::memcpy(d1 + at, s1 + at, m);
        else std::memcpy(d2 + at, s2 + at, m);
    });
}

Status HostPipeline::run(const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb,
                         const ChunkKernel& kernel, PipelineRunInfo* info, const ChunkResults* results) {
    if (len == 0) return Status::ok();
    if (!in || !out) return Status(BC_ERR_NULL_POINTER, "pipeline: null buffer");
    const size_t rbytes = results ? results->bytes : 0;
    if (rbytes > kPipelineMaxResult || (rbytes && !results->host))
        return Status(BC_ERR_INTERNAL, "pipeline: bad per-chunk result area");
    int prev = 0;
    (void)cudaGetDevice(&prev);
    BC_PIPE_TRY(cudaSetDevice(dev_), "cudaSetDevice (pipeline)");
    if (chunk == 0) chunk = default_chunk();
    if (nb <= 0) nb = default_depth();
    chunk = std::min(chunk, len);
    const size_t nchunks = (len + chunk - 1) / chunk;
    nb = int(std::min<size_t>(size_t(std::min(nb, max_slots_)), nchunks));
    const bool stage_in = !is_pinned_host(in), stage_out = !is_pinned_host(out);

    runs_.fetch_add(1);
    std::vector<Slot*> mine;
    Status st = acquire(nb, &mine);
    for (size_t k = 0; st && k < mine.size(); ++k) st = fit(*mine[k], chunk, stage_in, stage_out);
    const size_t held = mine.size();
    if (info) *info = PipelineRunInfo{stage_in, stage_out, nchunks, chunk, int(held)};

    // A slot comes back: wait for its download, then copy its output to the user (if staged)
    // and its result, at the same time as the next chunk's input goes into its pinned buffer.
    auto recycle = [&](Slot& s, size_t next_off, size_t next_len) -> Status {
        if (s.busy) {
            s.busy = false;
            BC_PIPE_TRY(cudaEventSynchronize(s.done), "pipeline chunk (upload, kernel or download)");
        }
        uint8_t* d1 = nullptr;
        const uint8_t* s1 = nullptr;
        size_t n1 = 0;
        if (stage_out && s.len) d1 = out + s.off, s1 = s.pin_out, n1 = s.len;
        if (rbytes && s.len) {
            std::memcpy(results->host + s.index * rbytes, s.pin_result, rbytes);
            secure_wipe(s.pin_result, rbytes);
        }
        s.len = 0;
        const bool alone = runs_.load(std::memory_order_relaxed) == 1;
        if (stage_in && next_len) copy2(alone, d1, s1, n1, s.pin_in, in + next_off, next_len);
        else copy2(alone, d1, s1, n1, nullptr, nullptr, 0);
        return Status::ok();
    };
    for (size_t i = 0; st && i < nchunks; ++i) {
        Slot& s = *mine[i % held];
        const size_t off = i * chunk, n = std::min(chunk, len - off);
        st = recycle(s, off, n);
        if (!st) break;
        const uint8_t* src = stage_in ? s.pin_in : in + off;
        uint8_t* dst = stage_out ? s.pin_out : out + off;
        uint8_t* res = rbytes ? s.dev_result : nullptr;
        st = cuda_status(cudaMemcpyAsync(s.dev, src, n, cudaMemcpyHostToDevice, s.stream), "cudaMemcpyAsync (pipeline upload)");
        if (st && res) st = cuda_status(cudaMemsetAsync(res, 0, rbytes, s.stream), "cudaMemsetAsync (pipeline result)");
        if (st) st = kernel(s.dev, s.dev, off, n, s.stream, res);
        if (st) st = cuda_status(cudaMemcpyAsync(dst, s.dev, n, cudaMemcpyDeviceToHost, s.stream), "cudaMemcpyAsync (pipeline download)");
        if (st && res)
            st = cuda_status(cudaMemcpyAsync(s.pin_result, res, rbytes, cudaMemcpyDeviceToHost, s.stream),
                             "cudaMemcpyAsync (pipeline result)");
        if (st) st = cuda_status(cudaEventRecord(s.done, s.stream), "cudaEventRecord (pipeline)");
        if (!st) break;
        s.off = off;
        s.len = n;
        s.index = i;
        s.busy = true;
    }
    // The last slots come back in issue order (their outputs are disjoint: any order is right).
    for (size_t k = 0; k < held; ++k) {
        Slot& s = *mine[(nchunks + k) % held];
        if (st) {
            st = recycle(s, 0, 0);
        } else {
            if (s.stream) (void)cudaStreamSynchronize(s.stream);
            s.busy = false;
            s.len = 0;
        }
    }
    // Wipe what held data, as far as this run used it: device buffers now (cheap, on the
    // device); pinned staging when the pipeline goes idle (wipe_idle), so a stream of
    // runs does not write every byte a second time on the host.
    for (Slot* s : mine) {
        if (!s->made) continue;
        const size_t used = std::min(chunk, s->cap);
        if ((stage_in && s->pin_in) || (stage_out && s->pin_out)) s->dirty = std::max(s->dirty, used);
        if (s->dev) (void)cudaMemsetAsync(s->dev, 0, used, s->stream);
        if (rbytes) (void)cudaMemsetAsync(s->dev_result, 0, rbytes, s->stream);
    }
    for (Slot* s : mine)
        if (s->made) (void)cudaStreamSynchronize(s->stream);
    (void)cudaGetLastError();
    give_back(mine);
    if (runs_.fetch_sub(1) == 1) wipe_idle();
    (void)cudaSetDevice(prev);
    return st;
}

size_t HostPipeline::dirty_bytes() {
    std::lock_guard<std::mutex> lk(mu_);
    size_t n = 0;
    for (int i = 0; i < nslots_; ++i) n += slots_[i].dirty;
    return n;
}

void HostPipeline::wipe_idle() {
    std::vector<Slot*> dirty;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (runs_.load() != 0) return;  // a new run started: the last one to end wipes
        for (int i = 0; i < nslots_; ++i)
            if (!slots_[i].in_use && slots_[i].dirty) slots_[i].in_use = true, dirty.push_back(&slots_[i]);
    }
    // Over the pool's threads: back-to-back calls (the OpenSSL provider's) each end idle, and
    // a run's staging (up to depth x piece x 2, 64 MiB by default) took ~6 ms on one core.
    std::vector<std::pair<uint8_t*, size_t>> areas;
    for (Slot* s : dirty) {
        const size_t n = std::min(s->dirty, s->cap);
        if (s->pin_in) areas.emplace_back(s->pin_in, n);
        if (s->pin_out) areas.emplace_back(s->pin_out, n);
        s->dirty = 0;
    }
    constexpr size_t kWipePiece = size_t(1) << 20;
    std::vector<std::pair<uint8_t*, size_t>> pieces;
    for (const auto& [p, n] : areas)
        for (size_t at = 0; at < n; at += kWipePiece) pieces.emplace_back(p + at, std::min(kWipePiece, n - at));
    if (pool_.size() == 1 || pieces.size() < 2) {
        for (const auto& [p, n] : pieces) secure_wipe(p, n);
    } else {
        pool_.parallel_for(pieces.size(), [&](size_t i) { secure_wipe(pieces[i].first, pieces[i].second); });
    }
    if (!dirty.empty()) give_back(dirty);
}

unsigned default_host_threads() {
    static const unsigned n = [] {
        int gpus = 0;
        if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1) {
            (void)cudaGetLastError();
            gpus = 1;
        }
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        return std::clamp(cores / (2 * unsigned(gpus)), kPipelineMinHostThreads, kPipelineMaxHostThreads);
    }();
    return n;
}

HostPipeline& shared_host_pipeline(int device) {
    static std::mutex mu;
    static std::map<int, HostPipeline*>* pipes = new std::map<int, HostPipeline*>();
    std::lock_guard<std::mutex> lk(mu);
    HostPipeline*& p = (*pipes)[device];
    if (!p) p = new HostPipeline(device, default_host_threads());  // kept until exit: CUDA may be gone by static destruction
    return *p;
}

Status run_host_pipeline(int device, const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb,
                         const ChunkKernel& kernel, PipelineRunInfo* info, const ChunkResults* results) {
    return shared_host_pipeline(device).run(in, out, len, chunk, nb, kernel, info, results);
}

Status noop_cipher(int device, const CipherOp& op, size_t chunk, int nb) {
    if (op.len == 0) return Status::ok();
    if (op.memory == BC_MEMORY_DEVICE) {
        if (op.out == op.in) return Status::ok();
        BC_PIPE_TRY(cudaSetDevice(device), "cudaSetDevice");
        cudaStream_t s = static_cast<cudaStream_t>(op.stream);
        BC_PIPE_TRY(cudaMemcpyAsync(op.out, op.in, op.len, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync (noop)");
        return cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (noop)");
    }
    auto nothing = [](uint8_t*, uint8_t*, size_t, size_t, cudaStream_t, uint8_t*) { return Status::ok(); };
    return run_host_pipeline(device, op.in, op.out, op.len, chunk, nb, nothing);
}

std::unique_ptr<BackendKey> make_noop_key() { return std::make_unique<BackendKey>(); }

// ---- CudaBackend's host-memory paths ------------------------------------------------

namespace {

// Pieces of at most `chunk` bytes (0: the pipeline's default), smaller for a short job so
// that it still makes 2 x depth pieces to overlap, down to 1 MiB: a 16 MiB call in the
// default 8 MiB pieces ran its copy in, GPU work and copy out nearly one after another
// (OpenSSL provider, 2-3 GB/s a call; bench/notes/provider.md).
size_t aligned_chunk(int device, size_t chunk, size_t len, int nb) {
    constexpr size_t kShortJobMinChunk = size_t(1) << 20;
    HostPipeline& pipe = shared_host_pipeline(device);
    if (chunk == 0) chunk = pipe.default_chunk();
    const size_t depth = size_t(nb > 0 ? nb : pipe.default_depth());
    if (len / (2 * depth) < chunk) chunk = std::max(kShortJobMinChunk, len / (2 * depth));
    return std::max<size_t>(chunk / 64 * 64, 64);
}

}  // namespace

Status pipelined_block_cipher(int device, Mode mode, size_t block_bytes, const CipherOp& op, size_t chunk, int nb,
                              const BlockDeviceWork& work) {
    if (op.len == 0) return Status::ok();
    if (mode == Mode::CBC && op.dir == Dir::Encrypt)
        return Status(BC_ERR_INTERNAL, "CBC encryption is serial: it does not go through the pipeline");
    if (block_bytes == 0 || block_bytes > 16 || 64 % block_bytes != 0)
        return Status(BC_ERR_INTERNAL, "block size the pipeline cannot chunk");
    const size_t bb = block_bytes;
    chunk = aligned_chunk(device, chunk, op.len, nb);
    uint64_t unit = 0;
    if (mode == Mode::XTS) {  // whole data units per chunk (a job without units is one unit)
        unit = op.data_unit ? op.data_unit : op.len;
        chunk = unit >= chunk ? size_t(unit) : size_t(chunk / unit * unit);
    }
    chunk = std::min(chunk, op.len);
    // CBC decryption: each chunk chains from the ciphertext block before it, saved now
    // (an in-place run overwrites it before that chunk is uploaded).
    std::vector<uint8_t> chains;
    if (mode == Mode::CBC) {
        const size_t n = (op.len + chunk - 1) / chunk;
        chains.resize(bb * n);
        std::memcpy(chains.data(), op.iv, bb);
        for (size_t i = 1; i < n; ++i) std::memcpy(&chains[bb * i], op.in + i * chunk - bb, bb);
    }
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s, uint8_t*) -> Status {
        uint8_t tweak[16];
        const uint8_t* iv = op.iv;
        uint64_t offset = 0;
        if (mode == Mode::CBC) {
            iv = &chains[bb * (off / chunk)];
        } else if (mode == Mode::XTS) {
            std::memcpy(tweak, op.iv, 16);
            add_le128(tweak, off / unit);
            iv = tweak;
        } else if (mode == Mode::CTR) {
            offset = op.offset + off;
        }
        Status st = work(iv, offset, din, dout, n, s);
        secure_wipe(tweak, sizeof tweak);
        return st;
    };
    Status st = run_host_pipeline(device, op.in, op.out, op.len, chunk, nb, kernel);
    if (!chains.empty()) secure_wipe(chains.data(), chains.size());
    return st;
}

Status pipelined_aes_cipher(CudaBackend& b, const CudaAesKey& k, Mode mode, const CipherOp& op, size_t chunk, int nb) {
    auto work = [&](const uint8_t* iv, uint64_t offset, const uint8_t* in, uint8_t* out, size_t n, cudaStream_t s) {
        return b.aes_on_device(k, mode, op.dir, iv, offset, op.data_unit, in, out, n, s);
    };
    return pipelined_block_cipher(b.device(), mode, 16, op, chunk, nb, work);
}

Status pipelined_gcm_chunk(CudaBackend& b, const GcmKeyView& g, AeadChunkOp& op, size_t chunk, int nb) {
    std::memset(op.partial, 0, sizeof op.partial);
    if (op.len == 0) return Status::ok();
    chunk = std::min(aligned_chunk(b.device(), chunk, op.len, nb), op.len);
    const size_t nchunks = (op.len + chunk - 1) / chunk;
    std::vector<uint8_t> host(16 * nchunks);  // R_i = sum X_j H^(n_i - j) of chunk i, 16 bytes each
    const ChunkResults results{16, host.data()};
    const bool enc = op.dir == Dir::Encrypt;
    // GHASH scratch, one area per slot's stream for the whole run. Not one per chunk: the
    // default memory pool gives its memory back at every synchronization (the pipeline's
    // event waits), so each chunk's cudaMallocAsync mapped fresh memory on the host thread
    // that also stages the data (GCM from pageable memory ran at ~70 % of the NO-OP
    // ceiling while CTR ran at ~95 %, bench/notes/engine-host-memory.md).
    struct Scratch {
        int device;
        std::vector<std::pair<cudaStream_t, void*>> areas;
        ~Scratch() {
            if (areas.empty()) return;
            int prev = 0;
            (void)cudaGetDevice(&prev);
            (void)cudaSetDevice(device);
            for (auto& a : areas) (void)cudaFreeAsync(a.second, a.first);
            (void)cudaSetDevice(prev);
            (void)cudaGetLastError();
        }
    } scratch_areas{b.device(), {}};
    const size_t scratch_bytes = ghash_scratch_bytes(chunk) + 16;
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s, uint8_t* r) -> Status {
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        gcm_inc32(ctr, off / 16);
        void* scratch = nullptr;
        for (auto& a : scratch_areas.areas)
            if (a.first == s) scratch = a.second;
        if (!scratch) {
            BC_PIPE_TRY(cudaMallocAsync(&scratch, scratch_bytes, s), "cudaMallocAsync (GHASH scratch)");
            scratch_areas.areas.emplace_back(s, scratch);
        }
        cudaError_t e = cudaSuccess;
        // The MAC covers the ciphertext: the input when decrypting (hashed before the
        // in-place decryption overwrites it), the output when encrypting.
        if (!enc) e = launch_ghash(g.ghash_tables, din, n, scratch, r, g.shape, s);
        if (e == cudaSuccess) e = g.ctr32(ctr, din, dout, n, s);
        if (e == cudaSuccess && enc) e = launch_ghash(g.ghash_tables, dout, n, scratch, r, g.shape, s);
        secure_wipe(ctr, sizeof ctr);
        return cuda_status(e, "GCM kernel launch (pipeline)");
    };
    BC_TRY(run_host_pipeline(b.device(), op.in, op.out, op.len, chunk, nb, kernel, nullptr, &results));
    // acc = acc * H^(blocks of the chunk) + chunk's partial. The power of a whole chunk is
    // computed once: per chunk (gf128_pow, ~40 constant-time products, after the last
    // copy) it held GCM from pinned memory at 81-91 % of the NO-OP pipeline; once, 93-97 %
    // (H100, 2026-11-27, bench/results/2026-11-27-ghash-tensor run5-h100).
    bc_gf128 h_chunk = gf128_pow(g.h, chunk / 16);
    bc_gf128 acc = {0, 0};
    for (size_t i = 0; i < nchunks; ++i) {
        const size_t n = std::min(chunk, op.len - i * chunk);
        // The partial of backend.h is H * GHASH_H(chunk) = R * H^2.
        const bc_gf128 part = bc_gf128_mul(bc_gf128_mul(bc_gf128_load(&host[16 * i]), g.h), g.h);
        acc = n == chunk ? bc_gf128_xor(bc_gf128_mul(acc, h_chunk), part) : ghash_fold(acc, part, (n + 15) / 16, g.h);
    }
    bc_gf128_store(op.partial, acc);
    secure_wipe_object(acc);
    secure_wipe_object(h_chunk);
    secure_wipe(host.data(), host.size());
    return Status::ok();
}

Status pipelined_stream_cipher(int device, const KeyMaterial& key, const CipherOp& op, size_t chunk, int nb,
                               const StreamLaunch& lp) {
    if (key.alg == nullptr) return Status(BC_ERR_INTERNAL, "key without algorithm");
    StreamState st;
    BC_TRY(make_stream_state(*key.alg, key.raw.data(), key.raw.size(), op.iv, op.iv_len, &st));
    BC_TRY(check_stream_range(st, op.offset, op.len));
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s, uint8_t*) -> Status {
        return cuda_stream_xor_device(st, op.offset + off, din, dout, n, s, lp);
    };
    Status r = run_host_pipeline(device, op.in, op.out, op.len, aligned_chunk(device, chunk, op.len, nb), nb, kernel);
    secure_wipe_object(st);
    return r;
}

Status pipelined_chachapoly_chunk(int device, const KeyMaterial& key, AeadChunkOp& op, size_t chunk, int nb,
                                  const StreamLaunch& lp) {
    std::memset(op.partial, 0, sizeof op.partial);
    if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
    const uint8_t* k = op.subkey ? op.subkey : key.raw.data();
    if (op.subkey == nullptr && key.raw.size() != 32)
        return Status(BC_ERR_KEY_SIZE, "ChaCha20-Poly1305 takes a 32-byte key");
    if (op.len == 0) return Status::ok();
    const uint32_t c0 = bc_load_le32(op.ctr);
    if (uint64_t(c0) + (op.len + 63) / 64 - 1 > 0xffffffffull)
        return Status(BC_ERR_COUNTER_OVERFLOW, "the ChaCha20-Poly1305 block counter would wrap");
    chunk = std::min(aligned_chunk(device, chunk, op.len, nb), op.len);
    const size_t nchunks = (op.len + chunk - 1) / chunk;
    std::vector<uint8_t> host(64 * nchunks);  // per chunk, 64 bytes: five u64 sums, then the 17-byte partial at +40
    const ChunkResults results{64, host.data()};
    const int mode = op.dir == Dir::Decrypt ? bcs::POLY_DECRYPT : bcs::POLY_ENCRYPT;
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s, uint8_t* slot) -> Status {
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        bc_store_le32(ctr, c0 + uint32_t(off / 64));
        Status st = cuda_chachapoly_device(k, ctr, op.mac_key, mode, din, dout, n, slot + 40,
                                           reinterpret_cast<unsigned long long*>(slot), s, lp);
        secure_wipe(ctr, sizeof ctr);
        return st;
    };
    BC_TRY(run_host_pipeline(device, op.in, op.out, op.len, chunk, nb, kernel, nullptr, &results));
    uint8_t acc[17] = {0};
    for (size_t i = 0; i < nchunks; ++i) {
        const size_t n = std::min(chunk, op.len - i * chunk);
        poly1305_combine(acc, &host[64 * i + 40], (n + 15) / 16, op.mac_key);
    }
    std::memcpy(op.partial, acc, 17);
    secure_wipe(acc, sizeof acc);
    secure_wipe(host.data(), host.size());
    return Status::ok();
}

}  // namespace cuda
}  // namespace bc
