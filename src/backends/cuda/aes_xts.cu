// AES-XTS kernels of the CUDA backend: the units' tweaks (k_xts_tweak_inputs, or on lane pairs
// k_xts_unit_tweaks), the tweaks where tiles start (k_xts_tile_tweaks), the data on a lane's
// tile (k_xts_tiles) or on lane pairs (k_xts_pair), and the any-layout fallback where a
// thread owns 32 consecutive blocks of a unit (k_xts); launch_xts picks them, and the host
// builds the multiplier tables (xts_build_alpha_tables).
#include "backends/cuda/aes_device.cuh"
#include "modes/block/xts_tweak.h"

namespace bc {
namespace cuda {
namespace {

// GF(2^128) of XTS: 128-bit little-endian integer in four little-endian words.
__device__ __forceinline__ void xts_double(uint32_t t[4]) {
    uint32_t c = (uint32_t)((int32_t)t[3] >> 31) & 0x87u;
    t[3] = (t[3] << 1) | (t[2] >> 31);
    t[2] = (t[2] << 1) | (t[1] >> 31);
    t[1] = (t[1] << 1) | (t[0] >> 31);
    t[0] = (t[0] << 1) ^ c;
}
// t * alpha^32
__device__ __forceinline__ void xts_mul_alpha32(uint32_t t[4]) {
    uint32_t top = t[3];
    uint32_t red = top ^ (top << 1) ^ (top << 2) ^ (top << 7);
    uint32_t red_hi = (top >> 31) ^ (top >> 30) ^ (top >> 25);
    t[3] = t[2]; t[2] = t[1]; t[1] = t[0] ^ red_hi; t[0] = red;
}
// t = t * p with p public (its bits steer branches; t stays secret and every
// step on it is the same whatever t is).
__device__ void xts_mul_public(uint32_t t[4], const uint32_t* p) {
    uint32_t z[4] = {0, 0, 0, 0};
    for (int i = 0; i < 128; ++i) {
        if ((p[i >> 5] >> (i & 31)) & 1u) {
            z[0] ^= t[0]; z[1] ^= t[1]; z[2] ^= t[2]; z[3] ^= t[3];
        }
        xts_double(t);
    }
    t[0] = z[0]; t[1] = z[1]; t[2] = z[2]; t[3] = z[3];
}
// t * alpha^r for a public r < 32: one shift across the words, the r bits shifted out
// reduced by x^128 = x^7 + x^2 + x + 1 (r = 0 leaves t as it is).
__device__ __forceinline__ void xts_mul_alpha_small(uint32_t t[4], uint32_t r) {
    const uint32_t c = __funnelshift_l(t[3], 0u, r);
    t[3] = __funnelshift_l(t[2], t[3], r);
    t[2] = __funnelshift_l(t[1], t[2], r);
    t[1] = __funnelshift_l(t[0], t[1], r) ^ (c >> 31) ^ (c >> 30) ^ (c >> 25);
    t[0] = (t[0] << r) ^ c ^ (c << 1) ^ (c << 2) ^ (c << 7);
}
// The same for a constant R <= 24, where the reduction stays in the low word.
template <int R>
__device__ __forceinline__ void xts_mul_alpha_const(uint32_t t[4]) {
    static_assert(R >= 1 && R <= 24, "the reduction of R bits must fit one word");
    const uint32_t c = t[3] >> (32 - R);
    t[3] = __funnelshift_l(t[2], t[3], R);
    t[2] = __funnelshift_l(t[1], t[2], R);
    t[1] = __funnelshift_l(t[0], t[1], R);
    t[0] = (t[0] << R) ^ c ^ (c << 1) ^ (c << 2) ^ (c << 7);
}
// t * alpha^e for a public e < 2^35 (alpha: xts_build_alpha_tables, alpha^(32 d 1024^level)).
__device__ void xts_mul_alpha_pow(uint32_t t[4], uint64_t e, const uint32_t* alpha) {
    uint64_t q = e >> 5;
    if (q < 8) {
        for (uint64_t i = 0; i < q; ++i) xts_mul_alpha32(t);
    } else {
        for (int level = 0; level < 3 && q != 0; ++level, q >>= 10) {
            const uint32_t d = (uint32_t)(q & 1023u);
            if (d) xts_mul_public(t, alpha + 4 * (1024 * level + d));
        }
    }
    xts_mul_alpha_small(t, (uint32_t)(e & 31u));
}

// tweaks[u] = tweak0 + u (128-bit little-endian add); encrypted in place afterwards.
__global__ void k_xts_tweak_inputs(uint4 tw0, uint8_t* tweaks, uint64_t nunits) {
    uint64_t u = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= nunits) return;
    uint64_t lo = ((uint64_t)tw0.y << 32) | tw0.x;
    uint64_t hi = ((uint64_t)tw0.w << 32) | tw0.z;
    uint64_t nlo = lo + u;
    hi += nlo < lo ? 1u : 0u;
    reinterpret_cast<uint4*>(tweaks)[u] = make_uint4((uint32_t)nlo, (uint32_t)(nlo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32));
}

// Thread (u, c): blocks 32c .. 32c+31 of unit u (those below the unit's count).
template <bool kTable, bool kDecrypt, bool kFast>
__global__ void __launch_bounds__(kThreads) k_xts(DevAesKey k, DevAesTables t, const uint8_t* in, uint8_t* out,
                                                   uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks,
                                                   uint64_t last_blocks, const uint8_t* tweaks,
                                                   const uint32_t* alpha) {
    extern __shared__ uint32_t sm[];
    Cipher<kTable, kDecrypt> c(sm, k, t);
    __syncthreads();
    const uint64_t per_unit = (full_blocks + 31) / 32;
    const uint64_t nthreads = per_unit * nunits;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; id < nthreads; id += stride) {
        const uint64_t u = id / per_unit;
        const uint64_t cidx = id % per_unit;
        const uint64_t nb = u + 1 == nunits ? last_blocks : full_blocks;
        const uint64_t b0 = 32 * cidx;
        const uint64_t cnt = b0 >= nb ? 0 : (nb - b0 < 32 ? nb - b0 : 32);
        const uint8_t* src = in + u * unit_bytes + 16 * b0;
        uint8_t* dst = out + u * unit_bytes + 16 * b0;
        // start tweak: T_u * alpha^(32 c)
        uint32_t t0[4];
        load_block<false>(tweaks, (int64_t)(16 * u), 16 * nunits, t0);
        xts_mul_alpha_pow(t0, 32 * cidx, alpha);
        uint32_t s[128];
        const bool whole = kFast && cnt == 32;  // per thread; each thread only touches its own blocks
        auto load_all = [&](auto guard) {
            uint32_t tw[4] = {t0[0], t0[1], t0[2], t0[3]};
#pragma unroll
            for (int j = 0; j < 32; ++j) {
                uint32_t w[4];
                load_block<kFast, decltype(guard)::value>(src, 16 * j, 16 * cnt, w);
                s[j] = w[0] ^ tw[0]; s[32 + j] = w[1] ^ tw[1]; s[64 + j] = w[2] ^ tw[2]; s[96 + j] = w[3] ^ tw[3];
                xts_double(tw);
            }
        };
        auto store_all = [&](auto guard) {
            uint32_t tw[4] = {t0[0], t0[1], t0[2], t0[3]};
#pragma unroll
            for (int j = 0; j < 32; ++j) {
                uint32_t w[4] = {s[j] ^ tw[0], s[32 + j] ^ tw[1], s[64 + j] ^ tw[2], s[96 + j] ^ tw[3]};
                store_block<kFast, decltype(guard)::value>(dst, 16 * j, 16 * cnt, w);
                xts_double(tw);
            }
        };
        if (whole) load_all(Unguarded{}); else load_all(Guarded{});
        c.run(s);
        if (whole) store_all(Unguarded{}); else store_all(Guarded{});
    }
}

// XTS over tiles laid on the data units' blocks end to end (aligned data, units of a multiple
// of S blocks), in the layouts of the ECB kernels: position p of a tile (a lane pair, S = 16,
// or a lane, S = 32) owns blocks tile_start + p + S j, so every warp access is coalesced and,
// within a unit, a position's tweaks step by alpha^S; a new unit restarts at T_u * alpha^p.
// A tile need not start at a unit: tile_tweaks[i] = the tweak of block i * entry_blocks (a
// tile, or half a pair tile), from k_xts_tile_tweaks after the units' T_u = E_k2(tweak0 + u).
__global__ void k_xts_tile_tweaks(const uint8_t* tweaks, uint8_t* tile_tweaks, uint64_t nentries,
                                  uint64_t entry_blocks, uint64_t fb, const uint32_t* alpha) {
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nentries) return;
    const uint64_t g = i * entry_blocks, u = g / fb;
    uint32_t t[4];
    load_block<true, false>(tweaks, (int64_t)(16 * u), 0, t);
    xts_mul_alpha_pow(t, g - u * fb, alpha);
    store_block<true, false>(tile_tweaks, (int64_t)(16 * i), 0, t);
}

// The tweaks of position p's blocks from tile_tweaks entry e on (blocks e * entry_blocks + p
// + S j), in order; t is the current one. fb, entry_blocks: multiples of S, fb / S < 2^32.
// (Its step, measured: 64-bit offsets and a generic shift made the walk cost ~1,800
// instructions a pair tile, 17 % over ECB; now a 32-bit countdown and constant shifts.)
template <int S>
struct XtsTweakWalk {
    uint32_t t[4];
    uint64_t u;          // the current block's unit
    uint32_t left;       // this position's blocks left in unit u, the current one included
    uint32_t per_unit;   // fb / S
    const uint8_t* tweaks;
    uint64_t nunits;
    uint32_t p;
    __device__ __forceinline__ XtsTweakWalk(const uint8_t* tile_tweaks, uint64_t e, uint64_t entry_blocks,
                                            const uint8_t* tw, uint64_t nu, uint64_t fb, uint32_t pos)
        : tweaks(tw), nunits(nu), p(pos) {
        per_unit = (uint32_t)(fb / S);
        // Pairs only: entry e starts unit e (4096-byte units) without a division. In the tiles
        // kernels (255 registers) the branch alone cost spills: XTS decryption 318 -> 308 GB/s.
        if (S == 16 && fb == entry_blocks) {
            u = e;
            left = per_unit;
        } else {
            const uint64_t g0 = e * entry_blocks;
            u = g0 / fb;
            left = (uint32_t)((fb - (g0 - u * fb)) / S);
        }
        load_block<true, false>(tile_tweaks, (int64_t)(16 * e), 0, t);
        xts_mul_alpha_small(t, p);
    }
    __device__ __forceinline__ void next() {
        if (--left == 0) {  // the next block starts unit u + 1 (past the last: its blocks are not stored)
            ++u;
            left = per_unit;
            load_block<true, false>(tweaks, (int64_t)(16 * (u < nunits ? u : nunits - 1)), 0, t);
            xts_mul_alpha_small(t, p);
        } else {
            if constexpr (S == 32) xts_mul_alpha32(t); else xts_mul_alpha_const<S>(t);
        }
    }
};

// Each tile's tweaks go to shared memory (per warp a row of what each lane XORs into its blocks),
// from a loop that is not unrolled: computed inline twice, before and after the cipher, the
// walk's 32 unrolled steps made the kernel's hot code too large for the instruction cache
// (measured 290 GB/s on pairs against ECB's 418).
constexpr size_t kXtsPairTweakBytes = sizeof(uint2) * 32 * 32 * (kThreads / 32);
constexpr size_t kXtsTileTweakBytes = sizeof(uint4) * 32 * 32 * (kThreads / 32);
constexpr uint64_t kXtsPairEntry = kPairTile / 2;  // a pair half walks 16 of its 32 blocks

// On lane pairs (k_ecb_pair's tile, S = 16): encryption, and decryption in variant "pair-dec".
template <bool kDecrypt>
__global__ void __launch_bounds__(kThreads, kPairResidentPerSm) k_xts_pair(DevAesKey k, const uint8_t* in, uint8_t* out,
                                                           uint64_t nblocks, uint64_t fb, uint64_t nunits,
                                                           const uint8_t* tweaks, const uint8_t* tile_tweaks) {
    extern __shared__ uint32_t sm[];
    pair_load_masks<kDecrypt>(sm, k);
    const uint32_t lane = threadIdx.x & 31u, h = lane >> 4, kk = lane & 15u;
    uint2* const row = reinterpret_cast<uint2*>(sm + smem_words(false, false)) + (threadIdx.x >> 5) * 1024;
    const uint64_t len = nblocks * 16;
    const uint64_t ntiles = (nblocks + kPairTile - 1) / kPairTile;
    const uint64_t nentries = (nblocks + kXtsPairEntry - 1) / kXtsPairEntry;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        const uint64_t pos = 16 * (tile * kPairTile + kk) + 8 * h;
        const bool whole = (tile + 1) * kPairTile <= nblocks;  // warp-uniform: no bounds checks
        uint32_t s[64];
        pair_load_tile(in, pos, len, whole, s);
        {
            // while the loads are in flight: lane (k, h) walks the pair's blocks 16 h .. 16 h + 15
            // and writes both halves of each tweak, for itself and its partner
            __syncwarp();  // the previous tile's reads are done
            // (a last tile of at most 256 blocks has no second entry: its second half is not stored)
            const uint64_t e = 2 * tile + h < nentries ? 2 * tile + h : nentries - 1;
            // block j's words for lane l at row[64 (j / 2) + 2 l + j % 2]: a lane reads blocks
            // j and j + 1 in one 128-bit load
            uint2* r = row + 64 * 8 * h + 2 * kk;
            auto put = [&](int j, const uint32_t* t) {
                uint2* q = r + 64 * (j >> 1) + (j & 1);
                q[0] = make_uint2(t[0], t[1]);
                q[32] = make_uint2(t[2], t[3]);
            };
            if (fb == kXtsPairEntry) {
                // Units of one entry (4096 bytes; the tile tweaks are the units'): the lane's 16
                // blocks all lie in unit e, so the walk needs no unit count and unrolls (stores
                // at constant offsets, no loop): ~150 instructions a lane a tile fewer.
                uint32_t t[4];
                load_block<true, false>(tile_tweaks, (int64_t)(16 * e), 0, t);
                xts_mul_alpha_small(t, kk);
#pragma unroll
                for (int j = 0; j < 16; ++j) {
                    put(j, t);
                    if (j < 15) xts_mul_alpha_const<16>(t);
                }
            } else {
                XtsTweakWalk<16> w(tile_tweaks, e, kXtsPairEntry, tweaks, nunits, fb, kk);
#pragma unroll 1
                for (int j = 0; j < 16; ++j) {
                    put(j, w.t);
                    if (j < 15) w.next();
                }
            }
            __syncwarp();
        }
        auto add_tweaks = [&]() {
            const uint4* r4 = reinterpret_cast<const uint4*>(row) + lane;
#pragma unroll
            for (int j = 0; j < 32; j += 2) {
                const uint4 v = r4[32 * (j >> 1)];
                s[j] ^= v.x;
                s[32 + j] ^= v.y;
                s[j + 1] ^= v.z;
                s[33 + j] ^= v.w;
            }
        };
        add_tweaks();
        pair_slice(s);
        pair_cipher<kDecrypt>(s, sm, k.rounds, h);
        pair_slice(s);
        add_tweaks();
        pair_store_tile(out, pos, len, whole, s);
    }
}

// T_u = E_k2(tweak0 + u) (128-bit little-endian add) for every unit, on lane pairs (k_ecb_pair's
// tile), each input made where k_ecb_pair would load it: one launch and 8 MB of traffic fewer
// than writing the inputs first (k_xts_tweak_inputs, then launch_ecb).
__global__ void __launch_bounds__(kThreads, kPairResidentPerSm) k_xts_unit_tweaks(DevAesKey k2, uint4 tw0, uint8_t* tweaks,
                                                                  uint64_t nunits) {
    extern __shared__ uint32_t sm[];
    pair_load_masks(sm, k2);
    const uint32_t lane = threadIdx.x & 31u, h = lane >> 4, kk = lane & 15u;
    const uint64_t lo0 = ((uint64_t)tw0.y << 32) | tw0.x, hi0 = ((uint64_t)tw0.w << 32) | tw0.z;
    const uint64_t ntiles = (nunits + kPairTile - 1) / kPairTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        const uint64_t base = tile * kPairTile + kk;
        uint32_t s[64];
#pragma unroll
        for (int j = 0; j < 32; ++j) {  // unit base + 16 j: half h is its 64-bit word h
            const uint64_t lo = lo0 + base + 16 * j, w = h ? hi0 + (lo < lo0 ? 1u : 0u) : lo;
            s[j] = (uint32_t)w;
            s[32 + j] = (uint32_t)(w >> 32);
        }
        pair_slice(s);
        pair_encrypt(s, sm, k2.rounds, h);
        pair_slice(s);
        pair_store_tile(tweaks, 16 * base + 8 * h, 16 * nunits, (tile + 1) * kPairTile <= nunits, s);
    }
}

// Both directions, any core, on k_ecb's tile (S = 32): a lane's 32 blocks at stride 32.
template <bool kTable, bool kDecrypt>
__global__ void __launch_bounds__(kThreads) k_xts_tiles(DevAesKey k, DevAesTables t, const uint8_t* in, uint8_t* out,
                                                         uint64_t nblocks, uint64_t fb, uint64_t nunits,
                                                         const uint8_t* tweaks, const uint8_t* tile_tweaks) {
    extern __shared__ uint32_t sm[];
    Cipher<kTable, kDecrypt> c(sm, k, t);
    uint4* const row = reinterpret_cast<uint4*>(sm + smem_words(kTable, kDecrypt)) + (threadIdx.x >> 5) * 1024;
    // The cipher's first and last round keys as the blocks' little-endian words where it leaves
    // them to us (Cipher::edge_keys_outside), else zero: XORed in with the tweaks.
    __shared__ uint4 edge_keys[2];
    __syncthreads();
    if (threadIdx.x < 8) {
        // first: round key Nr (decryption), last: round key 0
        reinterpret_cast<uint32_t*>(edge_keys)[threadIdx.x] =
            c.edge_keys_outside() ? bc_aes_bs_mask_word(sm, threadIdx.x < 4 ? k.rounds : 0, threadIdx.x & 3) : 0u;
    }
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t len = nblocks * 16;
    const uint64_t ntiles = (nblocks + kTile - 1) / kTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        uint32_t s[128];
        const uint64_t base = tile * kTile + lane;
        const bool whole = (tile + 1) * kTile <= nblocks;  // warp-uniform
        auto add_tweaks = [&](int key) {
            const uint4 kw = edge_keys[key];
#pragma unroll
            for (int g = 0; g < 32; g += 8) {
#pragma unroll
                for (int j = g; j < g + 8; ++j) {
                    const uint4 v = row[32 * j + lane];
                    s[j] ^= v.x ^ kw.x; s[32 + j] ^= v.y ^ kw.y; s[64 + j] ^= v.z ^ kw.z; s[96 + j] ^= v.w ^ kw.w;
                }
                // keeps the compiler from hoisting all 32 loads (128 more live words: spills)
                __syncwarp();
            }
        };
        {  // before the loads: with the 128 words of state live, the walk spills
            XtsTweakWalk<32> w(tile_tweaks, tile, kTile, tweaks, nunits, fb, lane);
#pragma unroll 1
            for (int j = 0; j < 32; ++j) {
                row[32 * j + lane] = make_uint4(w.t[0], w.t[1], w.t[2], w.t[3]);
                if (j < 31) w.next();
            }
        }
        tile_load<true>(in, base, len, whole, s);
        add_tweaks(0);
        c.run_inner(s);
        add_tweaks(1);
        tile_store<true>(out, base, len, whole, s);
    }
}

}  // namespace

const void* aes_internal::xts_kernel(const std::string& w, bool tab) {
    if (w == "xts") return tab ? (const void*)k_xts<true, false, true> : (const void*)k_xts<false, false, true>;
    if (w == "xts-dec") return tab ? (const void*)k_xts<true, true, true> : (const void*)k_xts<false, true, true>;
    if (w == "xts-tiles") return tab ? (const void*)k_xts_tiles<true, false> : (const void*)k_xts_tiles<false, false>;
    if (w == "xts-dec-tiles") return tab ? (const void*)k_xts_tiles<true, true> : (const void*)k_xts_tiles<false, true>;
    if (w == "xts-pair") return (const void*)k_xts_pair<false>;
    if (w == "xts-dec-pair") return (const void*)k_xts_pair<true>;
    return nullptr;
}

cudaError_t launch_xts(AesImpl impl, bool encrypt, const DevAesKey& key1, const DevAesKey& k2,
                       const DevAesTables& t, const uint8_t tweak0[16], const uint8_t* in, uint8_t* out,
                       uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks, uint64_t last_blocks,
                       void* tweaks, const uint32_t* alpha_tables, const LaunchShape& sh, cudaStream_t s) {
    if (nunits == 0) return cudaSuccess;
    const DevAesKey k1 = aes_internal::with_variant(key1, sh);
    uint4 tw = make_uint4(bc_load_le32(tweak0), bc_load_le32(tweak0 + 4), bc_load_le32(tweak0 + 8),
                          bc_load_le32(tweak0 + 12));
    uint8_t* tws = static_cast<uint8_t*>(tweaks);
    // The tweaks are always encrypted with the constant-time core; on lane pairs in one kernel.
    cudaError_t e;
    if (k1.bs_variant >= kAesBsPairVariant) {
        const int grid = grid_for_tiles((nunits + kPairTile - 1) / kPairTile, sh, sh.pair_blocks_per_sm);
        k_xts_unit_tweaks<<<grid, kThreads, BC_SMEM(false, false), s>>>(k2, tw, tws, nunits);
        e = cudaGetLastError();
    } else {
        k_xts_tweak_inputs<<<(unsigned)((nunits + 255) / 256), 256, 0, s>>>(tw, tws, nunits);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = launch_ecb(AesImpl::Bitsliced, true, k2, t, tws, tws, nunits, sh, s);
    }
    if (e != cudaSuccess) return e;
    const uint64_t nblocks = (nunits - 1) * full_blocks + last_blocks;
    const bool fast = aligned16(in) && aligned16(out) && unit_bytes % 16 == 0;
    const bool tab = impl == AesImpl::Table;
    const size_t sm = BC_SMEM(tab, !encrypt);
    const bool pair = !tab && k1.bs_variant >= (encrypt ? kAesBsPairVariant : kAesBsPairDecVariant) &&
                      full_blocks % 16 == 0;
    if (fast && nblocks > 0 && (pair || full_blocks % 32 == 0) && full_blocks < (uint64_t(1) << 32)) {
        const uint64_t entry = pair ? kXtsPairEntry : kTile;
        const uint64_t nentries = (nblocks + entry - 1) / entry;
        const uint64_t ntiles = pair ? (nblocks + kPairTile - 1) / kPairTile : nentries;
        // Units of exactly one entry (4096-byte sectors on pairs): entry i starts unit i, so the
        // units' tweaks are the tile tweaks.
        const uint8_t* tile_tws = tws;
        if (full_blocks != entry) {
            uint8_t* tt = tws + 16 * nunits;
            k_xts_tile_tweaks<<<(unsigned)((nentries + 255) / 256), 256, 0, s>>>(tws, tt, nentries, entry,
                                                                                full_blocks, alpha_tables);
            e = cudaGetLastError();
            if (e != cudaSuccess) return e;
            tile_tws = tt;
        }
        if (pair) {
            const int pgrid = grid_for_tiles(ntiles, sh, sh.pair_blocks_per_sm);
            if (encrypt)
                k_xts_pair<false><<<pgrid, kThreads, sm + kXtsPairTweakBytes, s>>>(k1, in, out, nblocks, full_blocks,
                                                                                  nunits, tws, tile_tws);
            else
                k_xts_pair<true><<<pgrid, kThreads, sm + kXtsPairTweakBytes, s>>>(k1, in, out, nblocks, full_blocks,
                                                                                 nunits, tws, tile_tws);
            return cudaGetLastError();
        }
        // the tweak rows need more shared memory than a block gets by default: where the device
        // cannot give it, the kernel below (a thread's blocks in a row, uncoalesced)
        auto run = [&](auto kernel) {
            const int grid = grid_for_tiles(ntiles, sh, sh.blocks_per_sm);
            if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)(sm + kXtsTileTweakBytes)) != cudaSuccess) {
                (void)cudaGetLastError();
                return false;
            }
            kernel<<<grid, kThreads, sm + kXtsTileTweakBytes, s>>>(k1, t, in, out, nblocks, full_blocks, nunits, tws,
                                                                  tile_tws);
            return true;
        };
        const bool ran = tab ? (encrypt ? run(k_xts_tiles<true, false>) : run(k_xts_tiles<true, true>))
                             : (encrypt ? run(k_xts_tiles<false, false>) : run(k_xts_tiles<false, true>));
        if (ran) return cudaGetLastError();
    }
    const uint64_t per_unit = (full_blocks + 31) / 32;
    if (per_unit == 0) return cudaSuccess;
    const uint64_t nthreads = per_unit * nunits;
    uint64_t blocks = (nthreads + kThreads - 1) / kThreads;
    const uint64_t cap = (uint64_t)sh.sms * sh.blocks_per_sm;
    if (blocks > cap) blocks = cap;
#define BC_XTS(T, D, F) \
    k_xts<T, D, F><<<(unsigned)blocks, kThreads, sm, s>>>(k1, t, in, out, unit_bytes, nunits, full_blocks, last_blocks, tws, alpha_tables)
    if (tab) {
        if (encrypt) { if (fast) BC_XTS(true, false, true); else BC_XTS(true, false, false); }
        else { if (fast) BC_XTS(true, true, true); else BC_XTS(true, true, false); }
    } else {
        if (encrypt) { if (fast) BC_XTS(false, false, true); else BC_XTS(false, false, false); }
        else { if (fast) BC_XTS(false, true, true); else BC_XTS(false, true, false); }
    }
#undef BC_XTS
    return cudaGetLastError();
}

size_t xts_scratch_bytes(uint64_t nunits, uint64_t nblocks) {
    return 16 * nunits + 16 * ((nblocks + kXtsPairEntry - 1) / kXtsPairEntry);
}

size_t xts_alpha_table_bytes() { return 3 * 1024 * 16; }

void xts_build_alpha_tables(void* out) {
    // alpha^(32 * d * 1024^level) for d < 1024, level < 3; public constants, made with the
    // one XTS tweak arithmetic (modes/block/xts_tweak.h) and stored as four little-endian words.
    uint32_t* o = static_cast<uint32_t*>(out);
    for (int level = 0; level < 3; ++level) {
        bc_u64 step_lo, step_hi;  // alpha^(32 * 1024^level)
        bc_xts_alpha_pow(uint64_t(32) << (10 * level), &step_lo, &step_hi);
        bc_u64 lo = 1, hi = 0;
        for (int d = 0; d < 1024; ++d) {
            uint32_t* e = o + 4 * (1024 * level + d);
            e[0] = uint32_t(lo);
            e[1] = uint32_t(lo >> 32);
            e[2] = uint32_t(hi);
            e[3] = uint32_t(hi >> 32);
            bc_xts_mul_public(&lo, &hi, step_lo, step_hi);
        }
    }
}

}  // namespace cuda
}  // namespace bc
