#include "backends/cuda/cuda_pipeline.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "backends/cuda/cuda_backend.h"
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

HostPipeline::HostPipeline(int device, unsigned host_threads)
    : dev_(device), pool_(std::max(1u, host_threads)) {}

HostPipeline::~HostPipeline() { release(); }

void HostPipeline::release() {
    int prev = 0;
    (void)cudaGetDevice(&prev);
    (void)cudaSetDevice(dev_);
    for (int i = 0; i < nslots_; ++i) {
        Slot& s = slots_[i];
        if (s.stream) (void)cudaStreamSynchronize(s.stream);
        if (s.dev) (void)cudaFree(s.dev);
        if (s.pin_in) (void)cudaFreeHost(s.pin_in);
        if (s.pin_out) (void)cudaFreeHost(s.pin_out);
        if (s.done) (void)cudaEventDestroy(s.done);
        if (s.stream) (void)cudaStreamDestroy(s.stream);
        s = Slot();
    }
    nslots_ = 0;
    cap_ = 0;
    have_pin_in_ = have_pin_out_ = false;
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
}

// Grows the slots to nb and their buffers to chunk bytes (never shrinks).
Status HostPipeline::reserve(size_t chunk, int nb, bool pin_in, bool pin_out) {
    const bool grow = chunk > cap_;
    const size_t cap = std::max(cap_, chunk);
    for (int i = 0; i < kPipelineMaxDepth; ++i) {
        Slot& s = slots_[i];
        const bool want = i < nb;
        if (i < nslots_ && grow) {  // regrow every existing slot
            if (s.dev) (void)cudaFree(s.dev);
            if (s.pin_in) (void)cudaFreeHost(s.pin_in);
            if (s.pin_out) (void)cudaFreeHost(s.pin_out);
            s.dev = s.pin_in = s.pin_out = nullptr;
        }
        if (!want && i >= nslots_) break;
        if (i >= nslots_) {
            BC_PIPE_TRY(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate (pipeline)");
            // Blocking sync: the host thread sleeps while it waits for a slot, it does not spin.
            BC_PIPE_TRY(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming | cudaEventBlockingSync),
                        "cudaEventCreate (pipeline)");
            nslots_ = i + 1;
        }
        if (!s.dev) BC_PIPE_TRY(cudaMalloc(reinterpret_cast<void**>(&s.dev), cap), "cudaMalloc (pipeline)");
        if ((pin_in || have_pin_in_) && !s.pin_in)
            BC_PIPE_TRY(cudaMallocHost(reinterpret_cast<void**>(&s.pin_in), cap), "cudaMallocHost (pipeline)");
        if ((pin_out || have_pin_out_) && !s.pin_out)
            BC_PIPE_TRY(cudaMallocHost(reinterpret_cast<void**>(&s.pin_out), cap), "cudaMallocHost (pipeline)");
    }
    cap_ = cap;
    have_pin_in_ = have_pin_in_ || pin_in;
    have_pin_out_ = have_pin_out_ || pin_out;
    return Status::ok();
}

void HostPipeline::copy2(uint8_t* d1, const uint8_t* s1, size_t n1, uint8_t* d2, const uint8_t* s2, size_t n2) {
    if (n1 + n2 == 0) return;
    if (pool_.size() == 1 || n1 + n2 < kParallelCopyMin) {
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
                         const ChunkKernel& kernel, PipelineRunInfo* info) {
    if (len == 0) return Status::ok();
    if (!in || !out) return Status(BC_ERR_NULL_POINTER, "pipeline: null buffer");
    std::lock_guard<std::mutex> lock(mu_);
    int prev = 0;
    (void)cudaGetDevice(&prev);
    BC_PIPE_TRY(cudaSetDevice(dev_), "cudaSetDevice (pipeline)");
    if (chunk == 0) chunk = kPipelineDefaultChunk;
    if (nb <= 0) nb = kPipelineDefaultDepth;
    nb = std::min(nb, kPipelineMaxDepth);
    chunk = std::min(chunk, len);
    const size_t nchunks = (len + chunk - 1) / chunk;
    nb = int(std::min<size_t>(size_t(nb), nchunks));
    const bool stage_in = !is_pinned_host(in), stage_out = !is_pinned_host(out);
    BC_TRY(reserve(chunk, nb, stage_in, stage_out));
    if (info) *info = PipelineRunInfo{stage_in, stage_out, nchunks, chunk, nb};

    Status st;
    // A slot comes back: wait for its download, then copy its output to the user (if staged),
    // at the same time as the next chunk's input goes into its pinned buffer.
    auto recycle = [&](Slot& s, size_t next_off, size_t next_len) -> Status {
        if (s.busy) {
            s.busy = false;
            BC_PIPE_TRY(cudaEventSynchronize(s.done), "pipeline chunk (upload, kernel or download)");
        }
        uint8_t* d1 = nullptr;
        const uint8_t* s1 = nullptr;
        size_t n1 = 0;
        if (stage_out && s.len) d1 = out + s.off, s1 = s.pin_out, n1 = s.len;
        s.len = 0;
        if (stage_in && next_len) copy2(d1, s1, n1, s.pin_in, in + next_off, next_len);
        else copy2(d1, s1, n1, nullptr, nullptr, 0);
        return Status::ok();
    };
    for (size_t i = 0; i < nchunks; ++i) {
        Slot& s = slots_[i % size_t(nb)];
        const size_t off = i * chunk, n = std::min(chunk, len - off);
        st = recycle(s, off, n);
        if (!st) break;
        const uint8_t* src = stage_in ? s.pin_in : in + off;
        uint8_t* dst = stage_out ? s.pin_out : out + off;
        st = cuda_status(cudaMemcpyAsync(s.dev, src, n, cudaMemcpyHostToDevice, s.stream), "cudaMemcpyAsync (pipeline upload)");
        if (st) st = kernel(s.dev, s.dev, off, n, s.stream);
        if (st) st = cuda_status(cudaMemcpyAsync(dst, s.dev, n, cudaMemcpyDeviceToHost, s.stream), "cudaMemcpyAsync (pipeline download)");
        if (st) st = cuda_status(cudaEventRecord(s.done, s.stream), "cudaEventRecord (pipeline)");
        if (!st) break;
        s.off = off;
        s.len = n;
        s.busy = true;
    }
    // The last slots come back in issue order (their outputs are disjoint: any order is right).
    for (size_t k = 0; k < size_t(nb); ++k) {
        Slot& s = slots_[(nchunks + k) % size_t(nb)];
        if (st) {
            st = recycle(s, 0, 0);
        } else {
            (void)cudaStreamSynchronize(s.stream);
            s.busy = false;
            s.len = 0;
        }
    }
    // Wipe what held data: pinned staging and device buffers.
    const size_t used = chunk;
    for (int i = 0; i < nb; ++i) {
        Slot& s = slots_[i];
        if (stage_in && s.pin_in) secure_wipe(s.pin_in, used);
        if (stage_out && s.pin_out) secure_wipe(s.pin_out, used);
        (void)cudaMemsetAsync(s.dev, 0, used, s.stream);
    }
    for (int i = 0; i < nb; ++i) (void)cudaStreamSynchronize(slots_[i].stream);
    (void)cudaGetLastError();
    (void)cudaSetDevice(prev);
    return st;
}

HostPipeline& shared_host_pipeline(int device) {
    static std::mutex mu;
    static std::map<int, HostPipeline*>* pipes = new std::map<int, HostPipeline*>();
    std::lock_guard<std::mutex> lk(mu);
    HostPipeline*& p = (*pipes)[device];
    if (!p) p = new HostPipeline(device);  // kept until exit: CUDA may be gone by static destruction
    return *p;
}

Status run_host_pipeline(int device, const uint8_t* in, uint8_t* out, size_t len, size_t chunk, int nb,
                         const ChunkKernel& kernel, PipelineRunInfo* info) {
    return shared_host_pipeline(device).run(in, out, len, chunk, nb, kernel, info);
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
    auto nothing = [](uint8_t*, uint8_t*, size_t, size_t, cudaStream_t) { return Status::ok(); };
    return run_host_pipeline(device, op.in, op.out, op.len, chunk, nb, nothing);
}

std::unique_ptr<BackendKey> make_noop_key() { return std::make_unique<BackendKey>(); }

}  // namespace cuda
}  // namespace bc
