#include "backends/cuda/cuda_pipeline.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_kernels.h"
#include "backends/cuda/stream_kernels.h"
#include "modes/aes_modes.h"
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
    if (chunk == 0) chunk = default_chunk();
    if (nb <= 0) nb = default_depth();
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

// ---- CudaBackend's host-memory paths ------------------------------------------------

namespace {

size_t aligned_chunk(int device, size_t chunk) {
    if (chunk == 0) chunk = shared_host_pipeline(device).default_chunk();
    return std::max<size_t>(chunk / 64 * 64, 64);
}

// Device memory for per-chunk results, freed (after zeroing) when it goes out of scope.
struct DevArray {
    uint8_t* p = nullptr;
    size_t n = 0;
    int dev = 0;
    Status alloc(int device, size_t bytes) {
        dev = device;
        n = bytes;
        BC_PIPE_TRY(cudaSetDevice(device), "cudaSetDevice");
        BC_PIPE_TRY(cudaMalloc(reinterpret_cast<void**>(&p), bytes), "cudaMalloc (pipeline results)");
        return cuda_status(cudaMemset(p, 0, bytes), "cudaMemset (pipeline results)");
    }
    Status read(uint8_t* host) const {
        (void)cudaSetDevice(dev);
        return cuda_status(cudaMemcpy(host, p, n, cudaMemcpyDeviceToHost), "cudaMemcpy (pipeline results)");
    }
    ~DevArray() {
        if (!p) return;
        (void)cudaSetDevice(dev);
        (void)cudaMemset(p, 0, n);
        (void)cudaFree(p);
        (void)cudaGetLastError();
    }
};

}  // namespace

Status pipelined_aes_cipher(CudaBackend& b, const CudaAesKey& k, Mode mode, const CipherOp& op, size_t chunk, int nb) {
    if (op.len == 0) return Status::ok();
    if (mode == Mode::CBC && op.dir == Dir::Encrypt)
        return Status(BC_ERR_INTERNAL, "CBC encryption is serial: it does not go through the pipeline");
    chunk = aligned_chunk(b.device(), chunk);
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
        chains.resize(16 * n);
        std::memcpy(chains.data(), op.iv, 16);
        for (size_t i = 1; i < n; ++i) std::memcpy(&chains[16 * i], op.in + i * chunk - 16, 16);
    }
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s) -> Status {
        uint8_t tweak[16];
        const uint8_t* iv = op.iv;
        uint64_t offset = 0;
        if (mode == Mode::CBC) {
            iv = &chains[16 * (off / chunk)];
        } else if (mode == Mode::XTS) {
            std::memcpy(tweak, op.iv, 16);
            add_le128(tweak, off / unit);
            iv = tweak;
        } else if (mode == Mode::CTR) {
            offset = op.offset + off;
        }
        Status st = b.aes_on_device(k, mode, op.dir, iv, offset, op.data_unit, din, dout, n, s);
        secure_wipe(tweak, sizeof tweak);
        return st;
    };
    Status st = run_host_pipeline(b.device(), op.in, op.out, op.len, chunk, nb, kernel);
    if (!chains.empty()) secure_wipe(chains.data(), chains.size());
    return st;
}

Status pipelined_gcm_chunk(CudaBackend& b, const CudaAesKey& k, AeadChunkOp& op, size_t chunk, int nb) {
    std::memset(op.partial, 0, sizeof op.partial);
    if (op.len == 0) return Status::ok();
    chunk = std::min(aligned_chunk(b.device(), chunk), op.len);
    const size_t nchunks = (op.len + chunk - 1) / chunk;
    DevArray res;  // R_i = sum X_j H^(n_i - j) of chunk i, 16 bytes each
    BC_TRY(res.alloc(b.device(), 16 * nchunks));
    const bool enc = op.dir == Dir::Encrypt;
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s) -> Status {
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        gcm_inc32(ctr, off / 16);
        void* scratch = nullptr;
        BC_PIPE_TRY(cudaMallocAsync(&scratch, ghash_scratch_bytes(n) + 16, s), "cudaMallocAsync (GHASH scratch)");
        uint8_t* r = res.p + 16 * (off / chunk);
        cudaError_t e = cudaSuccess;
        // The MAC covers the ciphertext: the input when decrypting (hashed before the
        // in-place decryption overwrites it), the output when encrypting.
        if (!enc) e = launch_ghash(k.ghash_tables, din, n, scratch, r, b.shape(), s);
        if (e == cudaSuccess) e = launch_ctr(b.impl(), k.d1, b.tables(), ctr, 0, 0, true, din, dout, n, b.shape(), s);
        if (e == cudaSuccess && enc) e = launch_ghash(k.ghash_tables, dout, n, scratch, r, b.shape(), s);
        (void)cudaFreeAsync(scratch, s);
        secure_wipe(ctr, sizeof ctr);
        return cuda_status(e, "GCM kernel launch (pipeline)");
    };
    BC_TRY(run_host_pipeline(b.device(), op.in, op.out, op.len, chunk, nb, kernel));
    std::vector<uint8_t> host(16 * nchunks);
    BC_TRY(res.read(host.data()));
    bc_gf128 acc = {0, 0};
    for (size_t i = 0; i < nchunks; ++i) {
        const size_t n = std::min(chunk, op.len - i * chunk);
        // The partial of backend.h is H * GHASH_H(chunk) = R * H^2.
        const bc_gf128 part = bc_gf128_mul(bc_gf128_mul(bc_gf128_load(&host[16 * i]), k.h), k.h);
        acc = ghash_fold(acc, part, (n + 15) / 16, k.h);
    }
    bc_gf128_store(op.partial, acc);
    secure_wipe_object(acc);
    secure_wipe(host.data(), host.size());
    return Status::ok();
}

Status pipelined_stream_cipher(int device, const KeyMaterial& key, const CipherOp& op, size_t chunk, int nb) {
    if (key.alg == nullptr) return Status(BC_ERR_INTERNAL, "key without algorithm");
    StreamState st;
    BC_TRY(make_stream_state(*key.alg, key.raw.data(), key.raw.size(), op.iv, op.iv_len, &st));
    BC_TRY(check_stream_range(st, op.offset, op.len));
    const StreamLaunch lp;
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s) -> Status {
        return cuda_stream_xor_device(st, op.offset + off, din, dout, n, s, lp);
    };
    Status r = run_host_pipeline(device, op.in, op.out, op.len, aligned_chunk(device, chunk), nb, kernel);
    secure_wipe_object(st);
    return r;
}

Status pipelined_chachapoly_chunk(int device, const KeyMaterial& key, AeadChunkOp& op, size_t chunk, int nb) {
    std::memset(op.partial, 0, sizeof op.partial);
    if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
    const uint8_t* k = op.subkey ? op.subkey : key.raw.data();
    if (op.subkey == nullptr && key.raw.size() != 32)
        return Status(BC_ERR_KEY_SIZE, "ChaCha20-Poly1305 takes a 32-byte key");
    if (op.len == 0) return Status::ok();
    const uint32_t c0 = bc_load_le32(op.ctr);
    if (uint64_t(c0) + (op.len + 63) / 64 - 1 > 0xffffffffull)
        return Status(BC_ERR_COUNTER_OVERFLOW, "the ChaCha20-Poly1305 block counter would wrap");
    chunk = std::min(aligned_chunk(device, chunk), op.len);
    const size_t nchunks = (op.len + chunk - 1) / chunk;
    DevArray res;  // per chunk, 64 bytes: five u64 sums, then the 17-byte partial at +40
    BC_TRY(res.alloc(device, 64 * nchunks));
    const int mode = op.dir == Dir::Decrypt ? bcs::POLY_DECRYPT : bcs::POLY_ENCRYPT;
    const StreamLaunch lp;
    auto kernel = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s) -> Status {
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        bc_store_le32(ctr, c0 + uint32_t(off / 64));
        uint8_t* slot = res.p + 64 * (off / chunk);
        Status st = cuda_chachapoly_device(k, ctr, op.mac_key, mode, din, dout, n, slot + 40,
                                           reinterpret_cast<unsigned long long*>(slot), s, lp);
        secure_wipe(ctr, sizeof ctr);
        return st;
    };
    BC_TRY(run_host_pipeline(device, op.in, op.out, op.len, chunk, nb, kernel));
    std::vector<uint8_t> host(64 * nchunks);
    BC_TRY(res.read(host.data()));
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
