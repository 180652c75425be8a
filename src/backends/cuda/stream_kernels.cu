// CUDA kernels of the stream-cipher family; the per-thread bodies live in
// stream_device.h (shared with the host-side simulation in the unit tests).
#include "backends/cuda/stream_kernels.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "backends/cuda/stream_device.h"
#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "util/secure.h"

namespace bc {
namespace {

// ---------------- kernels ----------------

template <int FAM, int ROUNDS, int UNROLL, bool VEC>
__global__ void stream_xor_kernel(const __grid_constant__ bcs::XorArgs a) {
    bcs::xor_thread<FAM, ROUNDS, UNROLL, VEC>(a, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x);
}

template <int FAM, int ROUNDS>
__global__ void stream_head_kernel(const __grid_constant__ bcs::XorArgs a, unsigned skip, unsigned n) {
    bcs::xor_head<FAM, ROUNDS>(a, skip, n);
}

template <int UNROLL, bool VEC>
__global__ void chachapoly_kernel(const __grid_constant__ bcs::PolyArgs a, unsigned long long* sums) {
    uint32_t acc[5];
    bcs::chachapoly_thread<UNROLL, VEC>(a, threadIdx.x, blockIdx.x, blockDim.x, gridDim.x, acc);
    // Warp sum of the limbs, then one atomic per limb per warp (integer sums are exact).
    unsigned long long v[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) v[i] = acc[i];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
#pragma unroll
        for (int i = 0; i < 5; ++i) v[i] += __shfl_down_sync(0xffffffffu, v[i], off);
    if ((threadIdx.x & 31u) == 0)
#pragma unroll
        for (int i = 0; i < 5; ++i)
            if (v[i]) atomicAdd(&sums[i], v[i]);
}

__global__ void poly_finish_kernel(const unsigned long long* sums, uint8_t* partial) {
    bc_u64 s[5];
    for (int i = 0; i < 5; ++i) s[i] = sums[i];
    bcs::p26_finish(s, partial);
}

// ---------------- helpers ----------------

Status cuda_status(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Status::ok();
    cudaGetLastError();  // clear a sticky launch error where possible
    bc_status code = e == cudaErrorMemoryAllocation ? BC_ERR_OUT_OF_MEMORY : BC_ERR_DEVICE;
    return Status(code, std::string(what) + ": " + cudaGetErrorString(e));
}

int sm_count() {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 1;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) return 1;
    return n;
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

int clamp_unroll(int u) { return u >= 4 ? 4 : u >= 2 ? 2 : 1; }
int clamp_threads(int t) { return t < 32 ? 32 : t > 1024 ? 1024 : (t / 32) * 32; }

template <int FAM, int ROUNDS>
void launch_xor_fr(const bcs::XorArgs& a, bool vec, uint64_t grid, int tpb, int unroll, cudaStream_t s,
                   unsigned head_skip, unsigned head_n) {
    if (head_n) {
        stream_head_kernel<FAM, ROUNDS><<<1, 1, 0, s>>>(a, head_skip, head_n);
        return;
    }
    if (!vec) {
        stream_xor_kernel<FAM, ROUNDS, 1, false><<<(unsigned)grid, tpb, 0, s>>>(a);
    } else if (unroll == 1) {
        stream_xor_kernel<FAM, ROUNDS, 1, true><<<(unsigned)grid, tpb, 0, s>>>(a);
    } else if (unroll == 2) {
        stream_xor_kernel<FAM, ROUNDS, 2, true><<<(unsigned)grid, tpb, 0, s>>>(a);
    } else {
        stream_xor_kernel<FAM, ROUNDS, 4, true><<<(unsigned)grid, tpb, 0, s>>>(a);
    }
}

Status launch_xor(int fam, int rounds, const bcs::XorArgs& a, const StreamLaunch& lp, cudaStream_t s,
                  unsigned head_skip = 0, unsigned head_n = 0) {
    uint64_t total = a.nfull + (a.tail ? 1 : 0);
    if (total == 0 && head_n == 0) return Status::ok();
    bool vec = aligned16(a.in) && aligned16(a.out);
    int unroll = vec ? clamp_unroll(lp.unroll) : 1;
    int tpb = clamp_threads(lp.threads_per_block);
    StreamLaunch eff = lp;
    eff.unroll = unroll;
    eff.threads_per_block = tpb;
    uint64_t grid = stream_grid_blocks(total, eff, sm_count());
    if (fam == bcs::FAM_CHACHA_IETF && rounds == 20) launch_xor_fr<bcs::FAM_CHACHA_IETF, 20>(a, vec, grid, tpb, unroll, s, head_skip, head_n);
    else if (fam == bcs::FAM_CHACHA_DJB && rounds == 20) launch_xor_fr<bcs::FAM_CHACHA_DJB, 20>(a, vec, grid, tpb, unroll, s, head_skip, head_n);
    else if (fam == bcs::FAM_SALSA && rounds == 20) launch_xor_fr<bcs::FAM_SALSA, 20>(a, vec, grid, tpb, unroll, s, head_skip, head_n);
    else if (fam == bcs::FAM_SALSA && rounds == 12) launch_xor_fr<bcs::FAM_SALSA, 12>(a, vec, grid, tpb, unroll, s, head_skip, head_n);
    else if (fam == bcs::FAM_SALSA && rounds == 8) launch_xor_fr<bcs::FAM_SALSA, 8>(a, vec, grid, tpb, unroll, s, head_skip, head_n);
    else return Status(BC_ERR_NOT_SUPPORTED, "no GPU kernel for this round count");
    return cuda_status(cudaGetLastError(), "stream kernel launch");
}

// Device scratch freed on scope exit (stream-ordered).
// Stream-ordered device memory for one call, from the backend's scratch pool when it has
// one: the default pool unmaps freed memory at the next synchronization, so a caller that
// synchronizes after each call (PyTorch, CuPy) paid a fresh mapping every call (H200, 1 GiB
// ChaCha20-Poly1305 in GPU memory: 100 us a call, 1,010 -> 835 GB/s).
struct DeviceBuf {
    void* p = nullptr;
    cudaStream_t s = nullptr;
    cudaError_t alloc(size_t n, cudaStream_t st, const StreamLaunch& lp) {
        s = st;
        return lp.scratch_pool ? cudaMallocFromPoolAsync(&p, n, static_cast<cudaMemPool_t>(lp.scratch_pool), st)
                               : cudaMallocAsync(&p, n, st);
    }
    ~DeviceBuf() {
        if (p) cudaFreeAsync(p, s);
    }
};

}  // namespace

Status cuda_stream_xor_device(const StreamState& st, uint64_t offset, const uint8_t* in, uint8_t* out,
                              size_t len, void* stream, const StreamLaunch& lp) {
    if (len == 0) return Status::ok();
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const int fam = st.family == StreamFamily::Salsa ? bcs::FAM_SALSA
                    : st.layout == BC_CHACHA_LAYOUT_IETF ? bcs::FAM_CHACHA_IETF
                                                         : bcs::FAM_CHACHA_DJB;
    bcs::XorArgs a;
    std::memcpy(a.base, st.base, sizeof(a.base));
    if (fam == bcs::FAM_SALSA) bc_salsa_add_counter(a.base, offset >> 6);
    else bc_chacha_add_counter(a.base, st.layout, offset >> 6);
    unsigned skip = unsigned(offset & 63u);
    if (skip) {  // the rest of the block offset points into, then whole blocks
        size_t head = std::min<size_t>(len, 64 - skip);
        a.in = in;
        a.out = out;
        a.nfull = 0;
        a.tail = 0;
        Status h = launch_xor(fam, st.rounds, a, lp, s, skip, unsigned(head));
        if (!h.is_ok()) {
            secure_wipe(a.base, sizeof(a.base));
            return h;
        }
        in += head;
        out += head;
        len -= head;
        if (fam == bcs::FAM_SALSA) bc_salsa_add_counter(a.base, 1);
        else bc_chacha_add_counter(a.base, st.layout, 1);
    }
    a.in = in;
    a.out = out;
    a.nfull = len / 64;
    a.tail = unsigned(len % 64);
    Status r = launch_xor(fam, st.rounds, a, lp, s);
    secure_wipe(a.base, sizeof(a.base));
    return r;
}

Status cuda_chachapoly_device(const uint8_t key32[32], const uint8_t ctr[16], const uint8_t r[16], int mode,
                              const uint8_t* in, uint8_t* out, size_t len, uint8_t* partial_dev,
                              unsigned long long* scratch_dev, void* stream, const StreamLaunch& lp) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    BC_TRY(cuda_status(cudaMemsetAsync(scratch_dev, 0, 5 * sizeof(unsigned long long), s), "memset"));
    if (len) {
        bool vec = aligned16(in) && (mode == bcs::POLY_MAC_ONLY || aligned16(out));
        int unroll = vec && lp.unroll >= 2 ? 2 : 1;
        int tpb = clamp_threads(lp.threads_per_block);
        StreamLaunch eff = lp;
        eff.unroll = unroll;
        eff.threads_per_block = tpb;
        uint64_t total = len / 64 + (len % 64 ? 1 : 0);
        uint64_t grid = stream_grid_blocks(total, eff, sm_count());
        bcs::PolyArgs* a = new bcs::PolyArgs();
        std::memset(a, 0, sizeof(*a));
        if (key32) bc_chacha_set_key(a->x.base, key32, 32);
        bc_chacha_set_words12(a->x.base, ctr);
        a->x.in = in;
        a->x.out = out;
        a->x.nfull = len / 64;
        a->x.tail = unsigned(len % 64);
        a->mode = mode;
        a->q = (a->x.tail + 15) / 16;
        stream_prep_poly(r, uint64_t(tpb), grid, unroll, a);
        if (!vec) chachapoly_kernel<1, false><<<(unsigned)grid, tpb, 0, s>>>(*a, scratch_dev);
        else if (unroll == 1) chachapoly_kernel<1, true><<<(unsigned)grid, tpb, 0, s>>>(*a, scratch_dev);
        else chachapoly_kernel<2, true><<<(unsigned)grid, tpb, 0, s>>>(*a, scratch_dev);
        secure_wipe(a, sizeof(*a));
        delete a;
        BC_TRY(cuda_status(cudaGetLastError(), "ChaCha20-Poly1305 kernel launch"));
    }
    poly_finish_kernel<<<1, 1, 0, s>>>(scratch_dev, partial_dev);
    return cuda_status(cudaGetLastError(), "Poly1305 finish launch");
}

Status cuda_stream_occupancy(const Algorithm& alg, int threads, int unroll, int* blocks_per_sm) {
    *blocks_per_sm = 0;
    const void* f = nullptr;
    const bool salsa = alg.cipher == Cipher::Salsa20 || alg.cipher == Cipher::XSalsa20;
    if (alg.mode == Mode::ChaChaPoly)
        f = unroll >= 2 ? reinterpret_cast<const void*>(chachapoly_kernel<2, true>)
                        : reinterpret_cast<const void*>(chachapoly_kernel<1, true>);
    else if (salsa)
        f = unroll >= 4   ? reinterpret_cast<const void*>(stream_xor_kernel<bcs::FAM_SALSA, 20, 4, true>)
            : unroll >= 2 ? reinterpret_cast<const void*>(stream_xor_kernel<bcs::FAM_SALSA, 20, 2, true>)
                          : reinterpret_cast<const void*>(stream_xor_kernel<bcs::FAM_SALSA, 20, 1, true>);
    else
        f = unroll >= 4   ? reinterpret_cast<const void*>(stream_xor_kernel<bcs::FAM_CHACHA_IETF, 20, 4, true>)
            : unroll >= 2 ? reinterpret_cast<const void*>(stream_xor_kernel<bcs::FAM_CHACHA_IETF, 20, 2, true>)
                          : reinterpret_cast<const void*>(stream_xor_kernel<bcs::FAM_CHACHA_IETF, 20, 1, true>);
    int n = 0;
    BC_TRY(cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, clamp_threads(threads), 0),
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
    *blocks_per_sm = n;
    return Status::ok();
}

Status cuda_stream_cipher(const KeyMaterial& key, const CipherOp& op, const StreamLaunch& lp) {
    if (key.alg == nullptr) return Status(BC_ERR_INTERNAL, "key without algorithm");
    StreamState st;
    BC_TRY(make_stream_state(*key.alg, key.raw.data(), key.raw.size(), op.iv, op.iv_len, &st));
    BC_TRY(check_stream_range(st, op.offset, op.len));
    if (op.len == 0) return Status::ok();
    if (op.memory == BC_MEMORY_DEVICE)
        return cuda_stream_xor_device(st, op.offset, op.in, op.out, op.len, op.stream, lp);
    // Host memory: stage through one device buffer, in place.
    cudaStream_t s = static_cast<cudaStream_t>(op.stream);
    DeviceBuf buf;
    BC_TRY(cuda_status(buf.alloc(op.len, s, lp), "device buffer"));
    uint8_t* d = static_cast<uint8_t*>(buf.p);
    BC_TRY(cuda_status(cudaMemcpyAsync(d, op.in, op.len, cudaMemcpyHostToDevice, s), "upload"));
    BC_TRY(cuda_stream_xor_device(st, op.offset, d, d, op.len, s, lp));
    BC_TRY(cuda_status(cudaMemcpyAsync(op.out, d, op.len, cudaMemcpyDeviceToHost, s), "download"));
    // The buffer held plaintext or keystream-XORed data: zero it before release.
    BC_TRY(cuda_status(cudaMemsetAsync(d, 0, op.len, s), "wipe"));
    return cuda_status(cudaStreamSynchronize(s), "stream cipher");
}

Status cuda_chachapoly_chunk(const KeyMaterial& key, AeadChunkOp& op, const StreamLaunch& lp) {
    std::memset(op.partial, 0, sizeof(op.partial));
    if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
    const uint8_t* k = op.subkey ? op.subkey : key.raw.data();
    if (op.subkey == nullptr && key.raw.size() != 32)
        return Status(BC_ERR_KEY_SIZE, "ChaCha20-Poly1305 takes a 32-byte key");
    uint32_t c0 = bc_load_le32(op.ctr);
    uint64_t nks = (op.len + 63) / 64;
    if (nks && uint64_t(c0) + nks - 1 > 0xffffffffull)
        return Status(BC_ERR_COUNTER_OVERFLOW, "the ChaCha20-Poly1305 block counter would wrap");
    cudaStream_t s = static_cast<cudaStream_t>(op.stream);
    const int mode = op.dir == Dir::Decrypt ? bcs::POLY_DECRYPT : bcs::POLY_ENCRYPT;
    // Scratch: five u64 sums then 17 bytes of partial (and the staged data for host memory).
    size_t data_bytes = op.memory == BC_MEMORY_DEVICE ? 0 : op.len;
    DeviceBuf buf;
    BC_TRY(cuda_status(buf.alloc(64 + data_bytes, s, lp), "device buffer"));
    unsigned long long* sums = static_cast<unsigned long long*>(buf.p);
    uint8_t* partial_dev = static_cast<uint8_t*>(buf.p) + 40;
    const uint8_t* in = op.in;
    uint8_t* out = op.out;
    if (data_bytes) {
        uint8_t* d = static_cast<uint8_t*>(buf.p) + 64;
        BC_TRY(cuda_status(cudaMemcpyAsync(d, op.in, op.len, cudaMemcpyHostToDevice, s), "upload"));
        in = d;
        out = d;
    }
    BC_TRY(cuda_chachapoly_device(k, op.ctr, op.mac_key, mode, in, out, op.len, partial_dev, sums, s, lp));
    if (data_bytes) {
        BC_TRY(cuda_status(cudaMemcpyAsync(op.out, out, op.len, cudaMemcpyDeviceToHost, s), "download"));
        BC_TRY(cuda_status(cudaMemsetAsync(out, 0, op.len, s), "wipe"));
    }
    BC_TRY(cuda_status(cudaMemcpyAsync(op.partial, partial_dev, 17, cudaMemcpyDeviceToHost, s), "partial"));
    return cuda_status(cudaStreamSynchronize(s), "ChaCha20-Poly1305 piece");
}

Status cuda_poly1305_mac(MacOp& op, const StreamLaunch& lp) {
    std::memset(op.partial, 0, sizeof(op.partial));
    if (op.mac_key == nullptr) return Status(BC_ERR_NULL_POINTER, "no Poly1305 key");
    cudaStream_t s = static_cast<cudaStream_t>(op.stream);
    size_t data_bytes = op.memory == BC_MEMORY_DEVICE ? 0 : op.len;
    DeviceBuf buf;
    BC_TRY(cuda_status(buf.alloc(64 + data_bytes, s, lp), "device buffer"));
    unsigned long long* sums = static_cast<unsigned long long*>(buf.p);
    uint8_t* partial_dev = static_cast<uint8_t*>(buf.p) + 40;
    const uint8_t* in = op.data;
    if (data_bytes) {
        uint8_t* d = static_cast<uint8_t*>(buf.p) + 64;
        BC_TRY(cuda_status(cudaMemcpyAsync(d, op.data, op.len, cudaMemcpyHostToDevice, s), "upload"));
        in = d;
    }
    uint8_t zero_ctr[16] = {0};
    BC_TRY(cuda_chachapoly_device(nullptr, zero_ctr, op.mac_key, bcs::POLY_MAC_ONLY, in, nullptr, op.len,
                                  partial_dev, sums, s, lp));
    BC_TRY(cuda_status(cudaMemcpyAsync(op.partial, partial_dev, 17, cudaMemcpyDeviceToHost, s), "partial"));
    return cuda_status(cudaStreamSynchronize(s), "Poly1305");
}

}  // namespace bc
