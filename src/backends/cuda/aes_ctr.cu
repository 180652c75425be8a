// AES-CTR kernels of the CUDA backend (128-bit counters, and CTR32 for GCM): a lane's tile
// (k_ctr, any core) and lane pairs (k_ctr_pair, variant "pair" on; from "pair-cc" on with the
// counters' constant bytes cached), and launch_ctr, which picks one.
#include "backends/cuda/aes_device.cuh"

namespace bc {
namespace cuda {
namespace {

struct Ctr {
    uint32_t w[4];  // the counter block as big-endian words, w[0] most significant
};

// The counter block ctr0 + add as big-endian words w0 (most significant) .. w3: a 128-bit
// add with carries, or (kInc32, GCM) only the low 32 bits, wrapping.
template <bool kInc32>
__device__ __forceinline__ void ctr_plus(const Ctr& c, uint64_t add, uint32_t& w0, uint32_t& w1, uint32_t& w2,
                                         uint32_t& w3) {
    w0 = c.w[0]; w1 = c.w[1]; w2 = c.w[2]; w3 = c.w[3];
    if (kInc32) {
        w3 += (uint32_t)add;
        return;
    }
    const uint64_t lo = ((uint64_t)w2 << 32) | w3, nlo = lo + add;
    const uint64_t hi = (((uint64_t)w0 << 32) | w1) + (nlo < lo ? 1u : 0u);
    w0 = (uint32_t)(hi >> 32); w1 = (uint32_t)hi; w2 = (uint32_t)(nlo >> 32); w3 = (uint32_t)nlo;
}

template <bool kTable, bool kFast, bool kInc32>
__global__ void __launch_bounds__(kThreads) k_ctr(DevAesKey k, DevAesTables t, Ctr ctr0, uint64_t first,
                                                   uint32_t shift, const uint8_t* in, uint8_t* out,
                                                   uint64_t len) {
    extern __shared__ uint32_t sm[];
    Cipher<kTable, false> c(sm, k, t);
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t nks = (len + shift + 15) / 16;  // keystream blocks
    const uint64_t ntiles = (nks + kTile - 1) / kTile;
    for (uint64_t tile = global_warp(); tile < ntiles; tile += total_warps()) {
        uint32_t s[128];
        const uint64_t base = tile * kTile + lane;
        bool sliced = false;
        if constexpr (!kTable) {
            if (c.ctr_slice) {
                // block j: ctr0 + first + base + 32 j, built bitsliced (no transposition)
                uint32_t a[4];
                const uint64_t add = first + base;
                if (kInc32) {
                    a[0] = ctr0.w[3] + (uint32_t)add; a[1] = ctr0.w[2]; a[2] = ctr0.w[1]; a[3] = ctr0.w[0];
                } else {
                    const uint64_t lo = ((uint64_t)ctr0.w[2] << 32) | ctr0.w[3];
                    const uint64_t nlo = lo + add;
                    const uint64_t hi = (((uint64_t)ctr0.w[0] << 32) | ctr0.w[1]) + (nlo < lo ? 1u : 0u);
                    a[0] = (uint32_t)nlo; a[1] = (uint32_t)(nlo >> 32); a[2] = (uint32_t)hi; a[3] = (uint32_t)(hi >> 32);
                }
                bc_aes_bs_ctr_slice(s, a, kInc32 ? 1 : 0);
                c.run_sliced(s);
                sliced = true;
            }
        }
        if (!sliced) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            uint32_t w0, w1, w2, w3;
            ctr_plus<kInc32>(ctr0, first + base + 32 * j, w0, w1, w2, w3);
            s[j] = __byte_perm(w0, 0, 0x0123);
            s[32 + j] = __byte_perm(w1, 0, 0x0123);
            s[64 + j] = __byte_perm(w2, 0, 0x0123);
            s[96 + j] = __byte_perm(w3, 0, 0x0123);
        }
        c.run(s);
        }
        if (k.bs_variant >= 1) {
            // 8 loads in flight before the first store: in and out may be the same
            // buffer, so the compiler cannot hoist a load above an earlier store and
            // the one-block-at-a-time loop waits a full memory latency per block.
#pragma unroll
            for (int g = 0; g < 32; g += 8) {
                uint32_t d[8][4];
#pragma unroll
                for (int q = 0; q < 8; ++q)
                    load_block<kFast>(in, (int64_t)(16 * (base + 32 * (g + q))) - (int64_t)shift, len, d[q]);
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int j = g + q;
                    d[q][0] ^= s[j]; d[q][1] ^= s[32 + j]; d[q][2] ^= s[64 + j]; d[q][3] ^= s[96 + j];
                    store_block<kFast>(out, (int64_t)(16 * (base + 32 * j)) - (int64_t)shift, len, d[q]);
                }
            }
        } else {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            const int64_t pos = (int64_t)(16 * (base + 32 * j)) - (int64_t)shift;
            uint32_t d[4];
            load_block<kFast>(in, pos, len, d);
            d[0] ^= s[j]; d[1] ^= s[32 + j]; d[2] ^= s[64 + j]; d[3] ^= s[96 + j];
            store_block<kFast>(out, pos, len, d);
        }
        }
    }
}

// ---------------------------------------------------------------- CTR on lane pairs (variant "pair")

// out = in ^ s over a lane's 32 half blocks (byte offsets pos + 256 j), 8 loads in flight.
// A whole tile (warp-uniform) goes without bounds checks (load_block).
__device__ __forceinline__ void pair_xor_tile(const uint8_t* in, uint8_t* out, uint64_t pos, uint64_t len, bool whole,
                                              const uint32_t* s) {
    auto xor_all = [&](auto guard) {
        constexpr bool kG = decltype(guard)::value;
#pragma unroll
        for (int g = 0; g < 32; g += 8) {
            uint32_t d[8][2];
#pragma unroll
            for (int q = 0; q < 8; ++q) load_half<kG>(in, pos + 256 * (g + q), len, d[q]);
#pragma unroll
            for (int q = 0; q < 8; ++q) {
                d[q][0] ^= s[g + q];
                d[q][1] ^= s[32 + g + q];
                store_half<kG>(out, pos + 256 * (g + q), len, d[q]);
            }
        }
    };
    if (whole) xor_all(Unguarded{}); else xor_all(Guarded{});
}

// Counter-mode caching (variant "pair-cc", bc_aes_bs_pair_cc_* in aes_bitsliced.h): each
// warp keeps the constants of rounds 1-2 for its tiles' counter bytes 0-13 in shared memory,
// a half's BC_AES_BS_CC_WORDS words, padded so the halves' loads fall in different banks.
constexpr int kPairCacheHalf = BC_AES_BS_CC_WORDS + 4;
constexpr int kPairCacheWarp = 2 * kPairCacheHalf;
constexpr size_t kPairCacheBytes = sizeof(uint32_t) * kPairCacheWarp * (kThreads / 32);

// The constants for the counters sharing bytes 0-13 with a; every lane computes them (the
// exchanges need the whole warp), lane pair 0 writes them. Out of line: about once per warp,
// and inlined its 16 S-boxes would sit between the hot parts of the tile loop.
__device__ __noinline__ void pair_cc_constants(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                               const uint32_t* rk, uint32_t* cst, uint32_t h, uint32_t lane) {
    const uint32_t a[4] = {a0, a1, a2, a3};
    uint32_t s[64], recv[32];
    bc_aes_bs_pair_cc_round1(s, a, rk, (int)h);
    pair_exchange(s, recv);
    bc_aes_bs_pair_mix(s, recv, rk + 128, (int)h);
    __syncwarp();  // every lane is done with the previous constants
    const bool writer = (lane & 15u) == 0;
    if (writer && h == 0) {
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            uint32_t f[32];
            bc_aes_bs_pair_cc_f(s, f, hh);
#pragma unroll
            for (int i = 0; i < 32; ++i) cst[hh * kPairCacheHalf + i] = f[i];
        }
    }
    bc_aes_bs_pair_cc_round2(s, (int)h);
    pair_exchange(s, recv);
    bc_aes_bs_pair_mix(s, recv, rk + 256, (int)h);
    if (writer) {
#pragma unroll
        for (int i = 0; i < 64; ++i) cst[h * kPairCacheHalf + 32 + i] = s[i];
    }
    __syncwarp();
}

// cache (variant "pair-cc"): warp w takes tiles [ntiles w / W, ntiles (w + 1) / W) in a
// row instead of every W-th, so its tiles share counter bytes 0-13 for 2^16 counters and
// rounds 1-2 of a batch start from the constants (10 S-boxes instead of 32). A tile whose
// 512 counters cross a multiple of 2^16 runs every round.
template <bool kInc32>
__global__ void __launch_bounds__(kThreads, kPairResidentPerSm) k_ctr_pair(DevAesKey k, Ctr ctr0, uint64_t first, const uint8_t* in,
                                                           uint8_t* out, uint64_t len, bool cache) {
    extern __shared__ uint32_t sm[];
    pair_load_masks(sm, k);
    uint32_t* const cst = sm + (k.rounds + 1) * 128 + (threadIdx.x >> 5) * kPairCacheWarp;
    const uint32_t lane = threadIdx.x & 31u, h = lane >> 4;
    const uint64_t nks = (len + 15) / 16;
    const uint64_t ntiles = (nks + kPairTile - 1) / kPairTile;
    const uint64_t gw = global_warp(), nw = total_warps();
    const uint64_t t_end = cache ? ntiles * (gw + 1) / nw : ntiles, step = cache ? 1 : nw;
    const uint64_t low16 = ctr0.w[3] & 0xffffu;
    uint64_t group = ~0ull;  // counter bits 16 and up (plus carries) of the cached constants
    for (uint64_t tile = cache ? ntiles * gw / nw : gw; tile < t_end; tile += step) {
        const uint64_t base = tile * kPairTile + (lane & 15u);
        uint32_t s[64], a[4];
        {
            // block j: ctr0 + first + base + 16 j
            uint32_t w[4];
            ctr_plus<kInc32>(ctr0, first + base, w[0], w[1], w[2], w[3]);
            a[0] = w[3]; a[1] = w[2]; a[2] = w[1]; a[3] = w[0];
        }
        const uint64_t pos = low16 + first + tile * kPairTile;  // the tile's first counter, bits 0-15 and carries
        int r0 = 1;
        if (cache && (pos & 0xffffu) <= 0x10000u - kPairTile) {  // warp-uniform
            if ((pos >> 16) != group) {
                pair_cc_constants(a[0], a[1], a[2], a[3], sm, cst, h, lane);
                group = pos >> 16;
            }
            uint32_t y[8], recv[8];
            bc_aes_bs_pair_cc_head(y, a, kInc32 ? 1 : 0, sm, (int)h);
#pragma unroll
            for (int b = 0; b < 8; ++b) recv[b] = __shfl_xor_sync(0xffffffffu, y[b], 16);
            bc_aes_bs_pair_cc_rounds12(s, y, recv, cst + h * kPairCacheHalf, (int)h);
            r0 = 3;
        } else {
            bc_aes_bs_ctr_slice_pair(s, a, kInc32 ? 1 : 0, (int)h);  // bitsliced, no transposition
            pair_add_key0(s, sm, h);
        }
        pair_rounds(s, sm, r0, k.rounds, h);
        pair_slice(s);
        // keystream word 2h of block j in s[j], word 2h + 1 in s[32 + j]
        pair_xor_tile(in, out, 16 * base + 8 * h, len, (tile + 1) * kPairTile * 16 <= len, s);
    }
}

}  // namespace

const void* aes_internal::ctr_kernel(const std::string& w, bool tab) {
    if (w == "ctr") return tab ? (const void*)k_ctr<true, true, false> : (const void*)k_ctr<false, true, false>;
    if (w == "ctr32") return tab ? (const void*)k_ctr<true, true, true> : (const void*)k_ctr<false, true, true>;
    if (w == "ctr-pair") return (const void*)k_ctr_pair<false>;
    if (w == "ctr32-pair") return (const void*)k_ctr_pair<true>;
    return nullptr;
}

cudaError_t launch_ctr(AesImpl impl, const DevAesKey& key, const DevAesTables& t, const uint8_t ctr0[16],
                       uint64_t first, unsigned shift, bool inc32, const uint8_t* in, uint8_t* out,
                       uint64_t len, const LaunchShape& sh, cudaStream_t s) {
    if (len == 0) return cudaSuccess;
    const DevAesKey k = aes_internal::with_variant(key, sh);
    Ctr c;
    for (int i = 0; i < 4; ++i) c.w[i] = bc_load_be32(ctr0 + 4 * i);
    const bool fast = shift == 0 && aligned16(in) && aligned16(out);
    const uint64_t nks = (len + shift + 15) / 16;
    const int grid = grid_for_tiles((nks + kTile - 1) / kTile, sh, sh.blocks_per_sm);
    const bool tab = impl == AesImpl::Table;
    const size_t sm = BC_SMEM(tab, false);
#define BC_CTR(T, F, I) k_ctr<T, F, I><<<grid, kThreads, sm, s>>>(k, t, c, first, shift, in, out, len)
    if (!tab && fast && k.bs_variant >= kAesBsPairVariant) {
        // pair-cc: pair_cc_waves(sh) waves of resident blocks with at least kMinRun tiles per
        // warp, so the constants are computed about once per 2^16 counters; smaller jobs run
        // round robin (the test hook takes the cache at any size, with fewer warps).
        constexpr uint64_t kMinRun = 4;
        const uint64_t ntiles = (nks + kPairTile - 1) / kPairTile;
        const int per_sm = kPairResidentPerSm * aes_internal::pair_cc_waves(sh);
        const uint64_t warps = (uint64_t)sh.sms * per_sm * (kThreads / 32);
        const bool cache = k.bs_variant >= kAesBsPairCcVariant &&
            (aes_internal::pair_cc_always() || ntiles >= kMinRun * warps);
        const int pgrid = cache ? grid_for_tiles(ntiles / kMinRun, sh, per_sm) : grid_for_tiles(ntiles, sh, sh.pair_blocks_per_sm);
        const size_t psm = sm + kPairCacheBytes;
        if (inc32) k_ctr_pair<true><<<pgrid, kThreads, psm, s>>>(k, c, first, in, out, len, cache);
        else k_ctr_pair<false><<<pgrid, kThreads, psm, s>>>(k, c, first, in, out, len, cache);
        return cudaGetLastError();
    }
    if (tab) {
        if (inc32) { if (fast) BC_CTR(true, true, true); else BC_CTR(true, false, true); }
        else { if (fast) BC_CTR(true, true, false); else BC_CTR(true, false, false); }
    } else {
        if (inc32) { if (fast) BC_CTR(false, true, true); else BC_CTR(false, false, true); }
        else { if (fast) BC_CTR(false, true, false); else BC_CTR(false, false, false); }
    }
#undef BC_CTR
    return cudaGetLastError();
}

}  // namespace cuda
}  // namespace bc
