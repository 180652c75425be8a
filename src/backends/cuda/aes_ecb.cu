// AES-ECB kernels of the CUDA backend: a lane's tile of 32 blocks (k_ecb, any core) and lane
// pairs (k_ecb_pair, variant "pair" on for encryption, "pair-dec" on for decryption), and
// launch_ecb, which picks one.
#include "backends/cuda/aes_device.cuh"

namespace bc {
namespace cuda {
namespace {

template <bool kTable, bool kDecrypt, bool kFast>
__global__ void __launch_bounds__(kThreads) k_ecb(DevAesKey k, DevAesTables t, const uint8_t* in,
                                                   uint8_t* out, uint64_t nblocks) {
    extern __shared__ uint32_t sm[];
    Cipher<kTable, kDecrypt> c(sm, k, t);
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t len = nblocks * 16;
    const uint64_t ntiles = (nblocks + kTile - 1) / kTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        uint32_t s[128];
        const uint64_t base = tile * kTile + lane;
        const bool whole = kFast && (tile + 1) * kTile <= nblocks;  // warp-uniform
        tile_load<kFast>(in, base, len, whole, s);
        c.run(s);
        tile_store<kFast>(out, base, len, whole, s);
    }
}

// ECB on lane pairs: the blocks' halves as loaded, 2 transpositions each way.
template <bool kDecrypt>
__global__ void __launch_bounds__(kThreads, kPairResidentPerSm) k_ecb_pair(DevAesKey k, const uint8_t* in, uint8_t* out,
                                                           uint64_t nblocks) {
    extern __shared__ uint32_t sm[];
    pair_load_masks<kDecrypt>(sm, k);
    const uint32_t lane = threadIdx.x & 31u, h = lane >> 4;
    const uint64_t len = nblocks * 16;
    const uint64_t ntiles = (nblocks + kPairTile - 1) / kPairTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        const uint64_t base = tile * kPairTile + (lane & 15u), pos = 16 * base + 8 * h;
        const bool whole = (tile + 1) * kPairTile <= nblocks;  // warp-uniform: no bounds checks
        uint32_t s[64];
        pair_load_tile(in, pos, len, whole, s);
        pair_slice(s);
        pair_cipher<kDecrypt>(s, sm, k.rounds, h);
        pair_slice(s);
        pair_store_tile(out, pos, len, whole, s);
    }
}

}  // namespace

const void* aes_internal::ecb_kernel(const std::string& w, bool tab) {
    if (w == "ecb") return tab ? (const void*)k_ecb<true, false, true> : (const void*)k_ecb<false, false, true>;
    if (w == "ecb-dec") return tab ? (const void*)k_ecb<true, true, true> : (const void*)k_ecb<false, true, true>;
    if (w == "ecb-pair") return (const void*)k_ecb_pair<false>;
    if (w == "ecb-dec-pair") return (const void*)k_ecb_pair<true>;
    return nullptr;
}

cudaError_t launch_ecb(AesImpl impl, bool encrypt, const DevAesKey& key, const DevAesTables& t,
                       const uint8_t* in, uint8_t* out, uint64_t nblocks, const LaunchShape& sh,
                       cudaStream_t s) {
    if (nblocks == 0) return cudaSuccess;
    const DevAesKey k = aes_internal::with_variant(key, sh);
    const bool fast = aligned16(in) && aligned16(out);
    const int grid = grid_for_tiles((nblocks + kTile - 1) / kTile, sh, sh.blocks_per_sm);
    const bool tab = impl == AesImpl::Table;
    const size_t sm = BC_SMEM(tab, !encrypt);
#define BC_ECB(T, D, F) k_ecb<T, D, F><<<grid, kThreads, sm, s>>>(k, t, in, out, nblocks)
    if (!tab && fast && k.bs_variant >= (encrypt ? kAesBsPairVariant : kAesBsPairDecVariant)) {
        // (a small job's 4-warp blocks spread over the SMs, one warp a scheduler)
        const int pgrid = grid_for_tiles((nblocks + kPairTile - 1) / kPairTile, sh, sh.pair_blocks_per_sm);
        if (encrypt) k_ecb_pair<false><<<pgrid, kThreads, sm, s>>>(k, in, out, nblocks);
        else k_ecb_pair<true><<<pgrid, kThreads, sm, s>>>(k, in, out, nblocks);
        return cudaGetLastError();
    }
    if (tab) {
        if (encrypt) { if (fast) BC_ECB(true, false, true); else BC_ECB(true, false, false); }
        else { if (fast) BC_ECB(true, true, true); else BC_ECB(true, true, false); }
    } else {
        if (encrypt) { if (fast) BC_ECB(false, false, true); else BC_ECB(false, false, false); }
        else { if (fast) BC_ECB(false, true, true); else BC_ECB(false, true, false); }
    }
#undef BC_ECB
    return cudaGetLastError();
}

}  // namespace cuda
}  // namespace bc
