// AES-CBC decryption kernels of the CUDA backend (the mode's parallel direction): the chaining
// values where tiles start (k_cbc_gather), a lane's tile (k_cbc_dec, any core) and lane pairs
// (k_cbc_dec_pair, variant "pair-dec" on), and launch_cbc_decrypt, which picks them.
#include "backends/cuda/aes_device.cuh"

namespace bc {
namespace cuda {
namespace {

// chain[tile] = the ciphertext block before the tile's first block (iv for tile 0); tiles
// of tile_blocks blocks.
__global__ void k_cbc_gather(uint4 iv, const uint8_t* in, uint8_t* chain, uint64_t ntiles, uint64_t tile_blocks) {
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntiles) return;
    uint32_t w[4];
    if (t == 0) {
        w[0] = iv.x; w[1] = iv.y; w[2] = iv.z; w[3] = iv.w;
    } else {
        load_block<false>(in, (int64_t)(16 * (t * tile_blocks - 1)), 16 * t * tile_blocks, w);
    }
    store_block<false>(chain, (int64_t)(16 * t), 16 * ntiles, w);
}

// kSaved: each warp also keeps its tile's ciphertext in shared memory as it loads it (16 KB,
// kCbcSavedBytes a block), and the chaining values come from there after the cipher. Without
// (a device whose blocks cannot have that much shared memory) the ciphertext is read again
// from global memory and passed one lane on by shuffles: measured 283 GB/s against ECB
// decryption's 345 (H100, 2026-11-23), the reloads' latency showing at 2 warps a scheduler.
constexpr size_t kCbcSavedBytes = sizeof(uint4) * kTile * (kThreads / 32);

template <bool kTable, bool kFast, bool kSaved>
__global__ void __launch_bounds__(kThreads) k_cbc_dec(DevAesKey k, DevAesTables t, const uint8_t* in,
                                                       uint8_t* out, uint64_t nblocks, const uint8_t* chain) {
    extern __shared__ uint32_t sm[];
    Cipher<kTable, true> c(sm, k, t);
    uint4* const saved = reinterpret_cast<uint4*>(sm + smem_words(kTable, true)) + (threadIdx.x >> 5) * kTile;
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t len = nblocks * 16;
    const uint64_t ntiles = (nblocks + kTile - 1) / kTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        uint32_t s[128];
        const uint64_t base = tile * kTile + lane;
        const bool whole = kFast && (tile + 1) * kTile <= nblocks;  // warp-uniform
        tile_load<kFast>(in, base, len, whole, s);
        if constexpr (kSaved) {
#pragma unroll
            for (int j = 0; j < 32; ++j) saved[32 * j + lane] = make_uint4(s[j], s[32 + j], s[64 + j], s[96 + j]);
        }
        c.run(s);
        uint32_t carry[4];  // the ciphertext block before the tile
        load_block<false>(chain, (int64_t)(16 * tile), 16 * ntiles, carry);
        if constexpr (kSaved) {
            __syncwarp();  // every lane's ciphertext is in
            auto store_all = [&](auto guard) {
#pragma unroll
                for (int j = 0; j < 32; ++j) {
                    // block (j, lane) follows tile block 32 j + lane - 1
                    const uint4 p = saved[j == 0 && lane == 0 ? 0 : 32 * j + lane - 1];
                    const bool first = j == 0 && lane == 0;
                    uint32_t d[4] = {s[j] ^ (first ? carry[0] : p.x), s[32 + j] ^ (first ? carry[1] : p.y),
                                     s[64 + j] ^ (first ? carry[2] : p.z), s[96 + j] ^ (first ? carry[3] : p.w)};
                    store_block<kFast, decltype(guard)::value>(out, (int64_t)(16 * (base + 32 * j)), len, d);
                }
            };
            if (whole) store_all(Unguarded{}); else store_all(Guarded{});
            __syncwarp();  // read before the next tile overwrites them
        } else {
            // The previous ciphertext block of block (j, lane) is held by lane - 1 at the same
            // j, or by lane 31 at j - 1; each lane re-reads only its own blocks (not yet
            // overwritten, even in place) and passes them on; 8 loads in flight.
            auto chain_all = [&](auto guard) {
                constexpr bool kG = decltype(guard)::value;
#pragma unroll
                for (int g = 0; g < 32; g += 8) {
                    uint32_t cw[8][4];
#pragma unroll
                    for (int q = 0; q < 8; ++q)
                        load_block<kFast, kG>(in, (int64_t)(16 * (base + 32 * (g + q))), len, cw[q]);
#pragma unroll
                    for (int q = 0; q < 8; ++q) {
                        const int j = g + q;
                        uint32_t pw[4];
#pragma unroll
                        for (int e = 0; e < 4; ++e) {
                            // one shuffle: lane 0 gets lane 31's block of this j, which is its
                            // predecessor at j + 1 (carried)
                            const uint32_t rot = __shfl_sync(0xffffffffu, cw[q][e], (lane + 31u) & 31u);
                            pw[e] = lane == 0 ? carry[e] : rot;
                            carry[e] = rot;
                        }
                        uint32_t d[4] = {s[j] ^ pw[0], s[32 + j] ^ pw[1], s[64 + j] ^ pw[2], s[96 + j] ^ pw[3]};
                        store_block<kFast, kG>(out, (int64_t)(16 * (base + 32 * j)), len, d);
                    }
                }
            };
            if (whole) chain_all(Unguarded{}); else chain_all(Guarded{});
        }
    }
}

// CBC decryption on lane pairs (variant "pair-dec", k_ecb_pair's tile, aligned data): each
// warp keeps its tile's ciphertext in shared memory as loaded (8 KB, kCbcPairSavedBytes a
// block, 40 KB with the masks: no opt-in needed), and after the cipher each lane XORs in the
// half of its blocks' predecessors from there (the tile's first block: chain[tile]).
constexpr size_t kCbcPairSavedBytes = 16 * kPairTile * (kThreads / 32);

__global__ void __launch_bounds__(kThreads, kPairResidentPerSm) k_cbc_dec_pair(DevAesKey k, const uint8_t* in, uint8_t* out,
                                                               uint64_t nblocks, const uint8_t* chain) {
    extern __shared__ uint32_t sm[];
    pair_load_masks<true>(sm, k);
    // block b of the warp's tile, half h, at saved[2 b + h]: the tile's bytes as in memory
    uint2* const saved = reinterpret_cast<uint2*>(sm + smem_words(false, true)) + (threadIdx.x >> 5) * (2 * kPairTile);
    const uint32_t lane = threadIdx.x & 31u, h = lane >> 4, kk = lane & 15u;
    const uint64_t len = nblocks * 16;
    const uint64_t ntiles = (nblocks + kPairTile - 1) / kPairTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        const uint64_t pos = 16 * (tile * kPairTile + kk) + 8 * h;
        const bool whole = (tile + 1) * kPairTile <= nblocks;  // warp-uniform: no bounds checks
        uint32_t s[64];
        pair_load_tile(in, pos, len, whole, s);
#pragma unroll
        for (int j = 0; j < 32; ++j) saved[2 * (16 * j + kk) + h] = make_uint2(s[j], s[32 + j]);
        pair_slice(s);
        pair_decrypt(s, sm, k.rounds, h);
        pair_slice(s);
        const uint2 carry = __ldg(reinterpret_cast<const uint2*>(chain) + 2 * tile + h);
        __syncwarp();  // every lane's ciphertext is in
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            // block 16 j + kk follows tile block 16 j + kk - 1
            const bool first = j == 0 && kk == 0;
            const uint2 p = first ? carry : saved[first ? 0 : 2 * (16 * j + kk) + h - 2];
            s[j] ^= p.x;
            s[32 + j] ^= p.y;
        }
        pair_store_tile(out, pos, len, whole, s);
        __syncwarp();  // read before the next tile overwrites them
    }
}

}  // namespace

const void* aes_internal::cbc_kernel(const std::string& w, bool tab) {
    if (w == "cbc-dec") return tab ? (const void*)k_cbc_dec<true, true, true> : (const void*)k_cbc_dec<false, true, true>;
    if (w == "cbc-dec-pair") return (const void*)k_cbc_dec_pair;
    return nullptr;
}

// (chaining values a tile: pair tiles are the smaller)
size_t cbc_dec_scratch_bytes(uint64_t nblocks) { return 16 * ((nblocks + kPairTile - 1) / kPairTile) + 16; }

cudaError_t launch_cbc_decrypt(AesImpl impl, const DevAesKey& key, const DevAesTables& t, const uint8_t iv[16],
                               const uint8_t* in, uint8_t* out, uint64_t nblocks, void* scratch,
                               const LaunchShape& sh, cudaStream_t s) {
    if (nblocks == 0) return cudaSuccess;
    const DevAesKey k = aes_internal::with_variant(key, sh);
    const bool fast = aligned16(in) && aligned16(out);
    const bool tab = impl == AesImpl::Table;
    const bool pair = !tab && fast && k.bs_variant >= kAesBsPairDecVariant;
    const uint64_t tile_blocks = pair ? kPairTile : kTile;
    const uint64_t ntiles = (nblocks + tile_blocks - 1) / tile_blocks;
    uint4 v = make_uint4(bc_load_le32(iv), bc_load_le32(iv + 4), bc_load_le32(iv + 8), bc_load_le32(iv + 12));
    uint8_t* chain = static_cast<uint8_t*>(scratch);
    k_cbc_gather<<<(unsigned)((ntiles + 255) / 256), 256, 0, s>>>(v, in, chain, ntiles, tile_blocks);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const size_t sm = BC_SMEM(tab, true);
    if (pair) {
        k_cbc_dec_pair<<<grid_for_tiles(ntiles, sh, sh.pair_blocks_per_sm), kThreads, sm + kCbcPairSavedBytes, s>>>(
            k, in, out, nblocks, chain);
        return cudaGetLastError();
    }
    const int grid = grid_for_tiles(ntiles, sh, sh.blocks_per_sm);
    // the ciphertext saved in shared memory where the device allows the block that much
    // (set per call: cheap, and right for whichever device is current)
    auto run = [&](auto saved_kernel, auto plain_kernel) {
        if (!aes_internal::cbc_reload_chain() && cudaFuncSetAttribute(saved_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                         (int)(sm + kCbcSavedBytes)) == cudaSuccess) {
            saved_kernel<<<grid, kThreads, sm + kCbcSavedBytes, s>>>(k, t, in, out, nblocks, chain);
        } else {
            (void)cudaGetLastError();
            plain_kernel<<<grid, kThreads, sm, s>>>(k, t, in, out, nblocks, chain);
        }
        return cudaGetLastError();
    };
    if (tab) return fast ? run(k_cbc_dec<true, true, true>, k_cbc_dec<true, true, false>)
                         : run(k_cbc_dec<true, false, true>, k_cbc_dec<true, false, false>);
    return fast ? run(k_cbc_dec<false, true, true>, k_cbc_dec<false, true, false>)
                : run(k_cbc_dec<false, false, true>, k_cbc_dec<false, false, false>);
}

}  // namespace cuda
}  // namespace bc
