// GHASH on the GPU, in parallel and constant time with respect to H.
//
// R = sum_v X_v * H^(N-1-v) over N blocks (front-padded with zero blocks to a
// whole number of groups, which changes nothing since the exponents count from
// the end). A group is kT threads x kJ blocks, block v = g*G + j*kT + t (each
// load coalesced). Inside a group, block (j, t) has exponent kT*(kJ-1-j) + (kT-1-t):
//   1. thread t sums X_(j,t) * P_j over its kJ blocks with P_j = H^(kT*(kJ-1-j)),
//      using 4-bit window tables of P_j in shared memory. The table index is a
//      nibble of the ciphertext (public data), never of a secret value;
//   2. multiplies its sum by H^(kT-1-t) with a constant-time bit-serial product;
//   3. the block XOR-reduces the thread sums (shuffles, then shared memory).
// Group results are then combined level by level, 256 at a time, each times
// (H^span)^(255-i) (constant-time products), until one value remains.
// Tables (built on the host from H, uploaded once per key): window tables of
// the kJ powers, H^k for k < kT, and per level (H^span_L)^k for k < 256.
#include "backends/cuda/cuda_kernels.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "modes/gcm/gcm.h"
#include "modes/gcm/ghash_device.h"
#include "util/secure.h"

namespace bc {
namespace cuda {
namespace {

// blocks per thread per group: each thread pays one constant-time multiply (~1,700
// operations) per kJ blocks, so kJ is as large as the window tables allow: 24 x 8 KB = 192 KB
// of shared memory (227 KB per block on Hopper)
constexpr int kJ = 24;
static_assert(kJ >= 16, "the previous group's product takes 16 iterations of the lookup loop");
constexpr int kT = 512;                   // threads per group block
constexpr uint64_t kGroup = (uint64_t)kJ * kT;
constexpr int kR = 256;                   // fan-in of the reduction levels
constexpr int kLevels = 4;                // a group spans 12,288 blocks; 12,288 * 256^3 >= 2^36

// Table layout (uint4 = one element, four big-endian words, GCM bit order:
// the coefficient of x^0 is the top bit of word 0).
constexpr size_t kWinElems = (size_t)kJ * 32 * 16;        // window tables
constexpr size_t kPw0Elems = kT;                         // H^k, k < kT
constexpr size_t kLvlElems = (size_t)kLevels * kR;       // level powers
constexpr size_t kTableElems = kWinElems + kPw0Elems + kLvlElems;
constexpr size_t kWinBytes = kWinElems * 16;

__device__ __forceinline__ uint4 gf_xor(uint4 a, uint4 b) {
    return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

// The dialect's constant-time GF(2^128) arithmetic (modes/gcm/ghash_device.h) on uint4:
// the same four big-endian words, x first.
__device__ __forceinline__ bc_gf128w gfw(const uint4& a) { return bc_gf128w{a.x, a.y, a.z, a.w}; }
__device__ __forceinline__ uint4 gf4(const bc_gf128w& a) { return make_uint4(a.x, a.y, a.z, a.w); }

// Steps 8s .. 8s + 7 (s = 0..15) of gf_mul_ct's 128, on its state z (product so far) and v
// (b times x^step): the same operations whatever the values. The group kernel spreads a
// product over 16 iterations of its lookup loop this way.
__device__ __forceinline__ void gf_mul_ct_steps(uint4& z, uint4& v, const uint4& a, int s) {
    bc_gf128w zw = gfw(z), vw = gfw(v);
    bc_gf128w_mul_steps(&zw, &vw, gfw(a), s);
    z = gf4(zw);
    v = gf4(vw);
}

// a * b, both possibly secret: 128 steps, the same operations whatever the values.
__device__ uint4 gf_mul_ct(uint4 a, uint4 b) { return gf4(bc_gf128w_mul(gfw(a), gfw(b))); }

// Block blk as it lies in memory: four little-endian words (zero before the data and past len).
template <bool kFast>
__device__ __forceinline__ uint4 load_le_block(const uint8_t* p, int64_t blk, uint64_t len) {
    if (blk < 0) return make_uint4(0, 0, 0, 0);
    const uint64_t pos = 16 * (uint64_t)blk;
    if (kFast && pos + 16 <= len) return __ldg(reinterpret_cast<const uint4*>(p + pos));
    uint32_t w[4];
    for (int k = 0; k < 4; ++k) {
        uint32_t x = 0;
        for (int b = 0; b < 4; ++b) {
            uint64_t q = pos + 4 * k + b;
            x |= (q < len ? (uint32_t)p[q] : 0u) << (8 * b);
        }
        w[k] = x;
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// XOR of v over the whole thread block; the result is valid in thread 0.
template <int kThreadsPerBlock>
__device__ __forceinline__ uint4 block_xor(uint4 v, uint4* red) {
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1) {
        v.x ^= __shfl_xor_sync(0xffffffffu, v.x, o);
        v.y ^= __shfl_xor_sync(0xffffffffu, v.y, o);
        v.z ^= __shfl_xor_sync(0xffffffffu, v.z, o);
        v.w ^= __shfl_xor_sync(0xffffffffu, v.w, o);
    }
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) red[warp] = v;
    __syncthreads();
    uint4 r = make_uint4(0, 0, 0, 0);
    if (threadIdx.x == 0)
        for (int i = 0; i < kThreadsPerBlock / 32; ++i) r = gf_xor(r, red[i]);
    __syncthreads();
    return r;
}

template <bool kFast>
__global__ void __launch_bounds__(kT) k_ghash_groups(const uint4* tables, const uint8_t* data, uint64_t len,
                                                     uint64_t pad, uint64_t ngroups, uint4* out, bool planes) {
    // The window tables in two planes of 8-byte halves: entry i's (x, y) at lo[i],
    // (z, w) at hi[i]. A 16-entry table of one plane fills the 32 banks exactly
    // once (entry e in banks 2e, 2e+1), so whatever nibbles the lanes hold, an
    // LDS.64 takes the minimum 2 wavefronts (a 16-byte entry spans 4 banks, so
    // entries e and e+8 of a uint4 table collide: ~6-8 wavefronts per LDS.128
    // on random nibbles instead of 4).
    // 128-byte aligned: a 16-entry plane of 8-byte halves is 128 bytes, so an entry's
    // address is (nibble * 8) | (the plane's base), one LOP3 (planes, below).
    extern __shared__ __align__(128) uint4 win[];  // variant 0: one uint4 table
    uint2* lo = reinterpret_cast<uint2*>(win);
    uint2* hi = lo + kWinElems;
    __shared__ uint4 red[kT / 32];
    for (int i = threadIdx.x; i < (int)kWinElems; i += blockDim.x) {
        const uint4 e = tables[i];
        if (planes) {
            lo[i] = make_uint2(e.x, e.y);
            hi[i] = make_uint2(e.z, e.w);
        } else {
            win[i] = e;
        }
    }
    __syncthreads();
    const int t = threadIdx.x;
    const uint4 mult = tables[kWinElems + (kT - 1 - t)];
    // The previous group's sum times mult runs 8 steps per iteration of this group's lookup
    // loop: done after the loop, as one block, every warp of the block would multiply at
    // once after the barrier and leave the shared-memory pipe idle meanwhile.
    uint4 pending = make_uint4(0, 0, 0, 0);
    uint64_t pending_g = ngroups;  // none yet (uniform over the block)
    for (uint64_t g = blockIdx.x; g < ngroups; g += gridDim.x) {
        uint4 acc = make_uint4(0, 0, 0, 0);
        uint4 z = make_uint4(0, 0, 0, 0), v = mult;
        // Blocks are loaded two iterations ahead: an iteration is ~200 instructions, about
        // a DRAM latency at 4 warps per scheduler (ncu: long-scoreboard stalls otherwise).
        const int64_t blk0 = (int64_t)(g * kGroup + t) - (int64_t)pad;
        uint4 xa = load_le_block<kFast>(data, blk0, len), xb = load_le_block<kFast>(data, blk0 + kT, len);
#pragma unroll 2
        for (int j = 0; j < kJ; ++j) {
            const uint4 x = xa;
            xa = xb;
            if (j + 2 < kJ) xb = load_le_block<kFast>(data, blk0 + (int64_t)(j + 2) * kT, len);
            if (j < 16) gf_mul_ct_steps(z, v, pending, j);
            if (planes) {
                // Table w (w = 8q + k) takes nibble k of word q read big-endian, found in the
                // little-endian word at bc_ghash_le_nibble_shift(k): one shift gives nibble * 8 in bits
                // 3-6, one LOP3 masks it and ORs the 128-byte aligned offset of table (j, w's
                // block), and w * 128 goes into the load's immediate. No byte swaps.
                const char* lj = reinterpret_cast<const char*>(lo);
                const char* hj = reinterpret_cast<const char*>(hi);
                const uint32_t joff = (uint32_t)j * 32 * 16 * 8;
                const uint32_t xw[4] = {x.x, x.y, x.z, x.w};
                // 8 lookups (16 loads) in flight before their XORs: shared-memory latency
#pragma unroll
                for (int w0 = 0; w0 < 32; w0 += 8) {
                    uint2 a[8], b[8];
#pragma unroll
                    for (int i = 0; i < 8; ++i) {
                        const int w = w0 + i, sh = bc_ghash_le_nibble_shift(w & 7);
                        const uint32_t v = xw[w >> 3];
                        const uint32_t off = ((sh >= 3 ? v >> (sh - 3) : v << (3 - sh)) & 0x78u) | joff;
                        a[i] = *reinterpret_cast<const uint2*>(lj + off + 128 * w);
                        b[i] = *reinterpret_cast<const uint2*>(hj + off + 128 * w);
                    }
#pragma unroll
                    for (int i = 0; i < 8; ++i) {
                        acc.x ^= a[i].x; acc.y ^= a[i].y; acc.z ^= b[i].x; acc.w ^= b[i].y;
                    }
                }
            } else {
                const uint32_t xw[4] = {__byte_perm(x.x, 0, 0x0123), __byte_perm(x.y, 0, 0x0123),
                                        __byte_perm(x.z, 0, 0x0123), __byte_perm(x.w, 0, 0x0123)};
                const uint4* tj = win + (size_t)j * 32 * 16;
#pragma unroll
                for (int w = 0; w < 32; ++w) {
                    const uint32_t nib = (xw[w >> 3] >> (28 - 4 * (w & 7))) & 15u;
                    acc = gf_xor(acc, tj[w * 16 + nib]);
                }
            }
        }
        if (pending_g < ngroups) {
            const uint4 r = block_xor<kT>(z, red);
            if (t == 0) out[pending_g] = r;
        }
        pending = acc;
        pending_g = g;
    }
    if (pending_g < ngroups) {
        const uint4 r = block_xor<kT>(gf_mul_ct(pending, mult), red);
        if (t == 0) out[pending_g] = r;
    }
}

// ---- variant 2, "tensor": the same groups, each block's product on the tensor cores ----
//
// X * P for a fixed P is linear over GF(2): a 128 x 128 bit matrix M_P, and bit n of the
// product is the parity of popcount(X AND column n of M_P). The one-bit MMA
// (m16n8k256, AND then popcount, summed into int32) computes 16 x 8 such popcounts over
// 256 bits at once: rows are 16 blocks, the 256 bits two blocks of each row, the 8
// columns 8 output bits of both blocks' powers stacked. H enters only through the
// matrices (operand B, built on the host); the ciphertext is operand A. The tensor cores
// take the same time whatever the values.
//
// A group (kGroup blocks, as the lookup kernel's, so the reduction levels are shared) is
// kTcWarps warps x kTcTiles tiles of 16 blocks: warp w, tile j, row r holds block
// v = w*kTcTiles*16 + j*16 + r, whose exponent from the group's end is
// (kTcWarps-1-w)*kTcTiles*16 + (kTcTiles-1-j)*16 + (15-r). The MMAs multiply tile j by
// P_j = H^(16*(kTcTiles-1-j)); the row's sum is then multiplied by
// H^((kTcWarps-1-w)*kTcTiles*16 + 15-r) (constant-time, once a group per row).
constexpr int kTcWarps = 16;
constexpr int kTcThreads = 32 * kTcWarps;
constexpr int kTcTiles = 48;               // tiles of 16 blocks a warp takes per group
constexpr int kTcPairs = kTcTiles / 2;     // MMA k-steps: two tiles each
static_assert(kTcWarps * kTcTiles * 16 == kGroup, "the tensor groups are the lookup groups");
// Operand B of pair c, column tile nt (output bits 8nt..8nt+7), lane l: one uint2 at
// (c*16 + nt)*32 + l, the order the warp reads it (LDS.64, conflict free).
constexpr size_t kTcFragElems = (size_t)kTcPairs * 16 * 32;    // uint2
constexpr size_t kTcFragBytes = kTcFragElems * 8;              // 96 KiB of shared memory
constexpr size_t kTcMulElems = (size_t)kTcWarps * 16;          // uint4: row multipliers
constexpr int kTcAhead = 4;                                     // pairs loaded ahead

// Word t (little-endian, bytes 4t..4t+3) of block blk as it lies in memory (zero outside).
template <bool kFast>
__device__ __forceinline__ uint32_t load_le_word(const uint8_t* p, int64_t blk, int t, uint64_t len) {
    if (blk < 0) return 0;
    const uint64_t pos = 16 * (uint64_t)blk + 4 * t;
    if (kFast && pos + 4 <= len) return __ldg(reinterpret_cast<const uint32_t*>(p + pos));
    uint32_t x = 0;
    for (int b = 0; b < 4; ++b) x |= (pos + b < len ? (uint32_t)p[pos + b] : 0u) << (8 * b);
    return x;
}

template <bool kFast>
__global__ void __launch_bounds__(kTcThreads) k_ghash_tensor(const uint2* frags, const uint4* muls,
                                                             const uint8_t* data, uint64_t len, uint64_t pad,
                                                             uint64_t ngroups, uint4* out) {
#if __CUDA_ARCH__ >= 800
    extern __shared__ __align__(16) uint2 fr[];
    __shared__ uint4 red[kTcWarps];
    for (int i = threadIdx.x; i < (int)(kTcFragElems / 2); i += blockDim.x)
        reinterpret_cast<uint4*>(fr)[i] = reinterpret_cast<const uint4*>(frags)[i];
    __syncthreads();
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    // lanes t = 0 and 1 of each quad multiply rows g and g + 8
    const uint4 mult = muls[w * 16 + (t & 1 ? g + 8 : g)];
    for (uint64_t grp = blockIdx.x; grp < ngroups; grp += gridDim.x) {
        const int64_t first = (int64_t)(grp * kGroup + (uint64_t)w * kTcTiles * 16) - (int64_t)pad;
        // A of pair c: word t of rows g and g + 8 of tiles 2c and 2c + 1
        uint32_t a[kTcAhead][4];
#pragma unroll
        for (int c = 0; c < kTcAhead; ++c)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                a[c][q] = load_le_word<kFast>(data, first + (2 * c + (q >> 1)) * 16 + g + 8 * (q & 1), t, len);
        int acc[16][4];
#pragma unroll
        for (int nt = 0; nt < 16; ++nt) acc[nt][0] = acc[nt][1] = acc[nt][2] = acc[nt][3] = 0;
#pragma unroll 1
        for (int c0 = 0; c0 < kTcPairs; c0 += kTcAhead) {
#pragma unroll
            for (int s = 0; s < kTcAhead; ++s) {
                const int c = c0 + s;
                const uint32_t a0 = a[s][0], a1 = a[s][1], a2 = a[s][2], a3 = a[s][3];
                const int cn = c + kTcAhead;  // refill this slot kTcAhead pairs ahead
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    a[s][q] = cn < kTcPairs ? load_le_word<kFast>(data, first + (2 * cn + (q >> 1)) * 16 + g + 8 * (q & 1),
                                                                   t, len)
                                            : 0u;
                const uint2* fc = fr + (size_t)c * 16 * 32 + lane;
#pragma unroll
                for (int nt = 0; nt < 16; ++nt) {
                    const uint2 b = fc[nt * 32];
                    asm volatile(
                        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                        : "+r"(acc[nt][0]), "+r"(acc[nt][1]), "+r"(acc[nt][2]), "+r"(acc[nt][3])
                        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b.x), "r"(b.y));
                }
            }
        }
        // Parities: lane (g, t) holds bits 8nt + 2t and 8nt + 2t + 1 of rows g and g + 8,
        // output bit n being bit n % 32 of little-endian word n / 32 (the matrices' order).
        uint32_t lo[4] = {0, 0, 0, 0}, hi[4] = {0, 0, 0, 0};
#pragma unroll
        for (int nt = 0; nt < 16; ++nt) {
            const int sh = (nt & 3) * 8 + 2 * t;
            lo[nt >> 2] |= ((uint32_t)acc[nt][0] & 1u) << sh | ((uint32_t)acc[nt][1] & 1u) << (sh + 1);
            hi[nt >> 2] |= ((uint32_t)acc[nt][2] & 1u) << sh | ((uint32_t)acc[nt][3] & 1u) << (sh + 1);
        }
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int o = 1; o <= 2; o <<= 1) {
                lo[q] |= __shfl_xor_sync(0xffffffffu, lo[q], o);
                hi[q] |= __shfl_xor_sync(0xffffffffu, hi[q], o);
            }
        const uint32_t* row = (t & 1) ? hi : lo;
        // to GCM's big-endian words, times the row's multiplier; lanes t = 2, 3 add nothing
        const uint4 x = make_uint4(__byte_perm(row[0], 0, 0x0123), __byte_perm(row[1], 0, 0x0123),
                                   __byte_perm(row[2], 0, 0x0123), __byte_perm(row[3], 0, 0x0123));
        uint4 v = gf_mul_ct(x, mult);
        if (t >= 2) v = make_uint4(0, 0, 0, 0);
        const uint4 r = block_xor<kTcThreads>(v, red);
        if (threadIdx.x == 0) out[grp] = r;
    }
#else
    __trap();  // launch_ghash runs this variant only on compute capability 8.0 and later
#endif
}

// out[g] = sum_i in[g*kR + i - pad] * pw[kR-1-i] (missing entries are zero).
__global__ void __launch_bounds__(kR) k_ghash_reduce(const uint4* in, uint64_t m, uint64_t pad, const uint4* pw,
                                                     uint4* out) {
    __shared__ uint4 red[kR / 32];
    const int t = threadIdx.x;
    const int64_t i = (int64_t)((uint64_t)blockIdx.x * kR + t) - (int64_t)pad;
    uint4 x = (i >= 0 && (uint64_t)i < m) ? in[i] : make_uint4(0, 0, 0, 0);
    x = gf_mul_ct(x, pw[kR - 1 - t]);
    const uint4 r = block_xor<kR>(x, red);
    if (t == 0) out[blockIdx.x] = r;
}

__global__ void k_store_result(const uint4* v, uint8_t* out) {
    const uint4 r = *v;
    const uint32_t w[4] = {r.x, r.y, r.z, r.w};
    for (int k = 0; k < 4; ++k)
        for (int b = 0; b < 4; ++b) out[4 * k + b] = (uint8_t)(w[k] >> (24 - 8 * b));
}

__global__ void k_zero_result(uint8_t* out) {
    for (int i = 0; i < 16; ++i) out[i] = 0;
}

// ---- host side: GF(2^128) with the dialect's multiply on the 64-bit spelling (bc_gf128) ----

void put(uint32_t* dst, bc_gf128 x) {
    dst[0] = (uint32_t)(x.hi >> 32);
    dst[1] = (uint32_t)x.hi;
    dst[2] = (uint32_t)(x.lo >> 32);
    dst[3] = (uint32_t)x.lo;
}

}  // namespace

namespace {
std::atomic<int> g_ghash_variant{-1};  // -1: the launch shape's
// The hook's layout, else the launch shape's (the tuning entry's or the context's).
int variant_of(const LaunchShape& sh) {
    const int v = g_ghash_variant.load();
    if (v >= 0) return v;
    return sh.ghash_variant >= 0 && sh.ghash_variant < kGhashVariants ? sh.ghash_variant : 1;
}

// The tensor variant needs the one-bit MMA with AND (compute capability 8.0 and later), in
// the code the device runs: an sm_8x GPU given only the compute_75 PTX of the default
// architectures gets the trapping body. Elsewhere the planes lookups run (same result).
// Asked once per device (kept: 1 the lookups, 2 the tensor cores).
int tensor_variant_usable(int v) {
    if (v != 2) return v;
    constexpr int kDevices = 64;
    static std::atomic<int> known[kDevices];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    if (dev >= 0 && dev < kDevices && known[dev].load() != 0) return known[dev].load();
    cudaFuncAttributes a;
    int r = 1;
    if (cudaFuncGetAttributes(&a, k_ghash_tensor<true>) == cudaSuccess) r = a.ptxVersion >= 80 ? 2 : 1;
    else (void)cudaGetLastError();
    if (dev >= 0 && dev < kDevices) known[dev].store(r);
    return r;
}
}  // namespace

void set_ghash_variant(int v) { g_ghash_variant.store(v >= 0 && v < kGhashVariants ? v : -1); }
int ghash_variant() { return variant_of(LaunchShape()); }
const char* ghash_variant_name(int v) { return tuning::ghash_variant_name(v); }

// The tensor variant's operands after the lookup tables: the pairs' B fragments, then
// the row multipliers.
constexpr size_t kTcFragOffset = kTableElems * 16;
constexpr size_t kTcMulOffset = kTcFragOffset + kTcFragBytes;
size_t ghash_table_bytes() { return kTcMulOffset + kTcMulElems * 16; }

namespace {

// Coefficient k (of x^k) of v: bit 63 - k of hi, or 127 - k of lo. Shifts only (v is secret).
uint32_t coefficient(const bc_gf128& v, int k) {
    return (uint32_t)((k < 64 ? v.hi >> (63 - k) : v.lo >> (127 - k)) & 1u);
}

// GCM's coefficient of memory bit (byte b, bit s; bit 0 the least significant): byte 0's
// top bit is x^0.
int memory_bit_coefficient(int byte, int bit) { return 8 * byte + 7 - bit; }

// The tensor variant's operands. B of pair c, column tile nt, lane l = 4g + t: word b0 bit j
// is 1 when input bit j of little-endian word t of a block of tile 2c reaches output bit
// n = 8nt + g of its product with P_2c (bit n % 32 of little-endian word n / 32); b1 the
// same for tile 2c + 1. Whatever order the MMA gives the bits of a word, A and B use the
// same, so only the word-to-k mapping matters. Row multipliers: H^((kTcWarps-1-w)*kTcTiles*16
// + 15-r) for warp w, row r, as big-endian words.
void build_tensor_operands(const bc_gf128& h, uint8_t* frags, uint8_t* muls) {
    std::vector<uint32_t> b(kTcFragElems * 2);
    const bc_gf128 h16 = gf128_pow(h, 16);
    bc_gf128 p = bc_gf128_one();  // P_j for j = kTcTiles - 1 down to 0
    for (int j = kTcTiles - 1; j >= 0; --j) {
        bc_gf128 px[128];  // P * x^k: row k of M_P
        px[0] = p;
        for (int k = 1; k < 128; ++k) px[k] = bc_gf128_times_x(px[k - 1]);
        const int c = j / 2, half = j % 2;
        for (int nt = 0; nt < 16; ++nt)
            for (int lane = 0; lane < 32; ++lane) {
                const int g = lane >> 2, t = lane & 3, n = 8 * nt + g;
                const int out_k = memory_bit_coefficient(4 * (n / 32) + (n % 32) / 8, n % 8);
                uint32_t word = 0;
                for (int bit = 0; bit < 32; ++bit) {
                    const int in_k = memory_bit_coefficient(4 * t + bit / 8, bit % 8);
                    word |= coefficient(px[in_k], out_k) << bit;
                }
                b[2 * (((size_t)c * 16 + nt) * 32 + lane) + half] = word;
            }
        for (auto& v : px) v.hi = v.lo = 0;
        p = bc_gf128_mul(p, h16);
    }
    std::memcpy(frags, b.data(), kTcFragBytes);
    secure_wipe(b.data(), b.size() * sizeof(uint32_t));
    const bc_gf128 span = gf128_pow(h, (uint64_t)kTcTiles * 16);
    bc_gf128 q = bc_gf128_one();  // H^((kTcWarps-1-w) * kTcTiles * 16), w from the last warp down
    uint32_t* m = reinterpret_cast<uint32_t*>(muls);
    for (int w = kTcWarps - 1; w >= 0; --w) {
        bc_gf128 e = q;  // times H^(15-r), r from 15 down
        for (int r = 15; r >= 0; --r) {
            put(m + 4 * ((size_t)w * 16 + r), e);
            e = bc_gf128_mul(e, h);
        }
        q = bc_gf128_mul(q, span);
        secure_wipe_object(e);
    }
    secure_wipe_object(q);
    secure_wipe_object(p);
}

}  // namespace

void ghash_build_tables(const uint8_t h_bytes[16], void* out) {
    uint32_t* o = static_cast<uint32_t*>(out);
    const bc_gf128 h = bc_gf128_load(h_bytes);
    // window tables of P_j = H^(kT*(kJ-1-j))
    for (int j = 0; j < kJ; ++j) {
        bc_gf128 base = gf128_pow(h, (uint64_t)kT * (kJ - 1 - j));
        bc_gf128 px[128];  // P * x^k
        px[0] = base;
        for (int k = 1; k < 128; ++k) px[k] = bc_gf128_times_x(px[k - 1]);
        for (int w = 0; w < 32; ++w) {
            for (int nib = 0; nib < 16; ++nib) {
                bc_gf128 e = {0, 0};
                // nibble bit 3 is coefficient x^(4w), bit 0 is x^(4w+3)
                for (int b = 0; b < 4; ++b)
                    if ((nib >> (3 - b)) & 1) e = bc_gf128_xor(e, px[4 * w + b]);
                put(o + 4 * (((size_t)j * 32 + w) * 16 + nib), e);
            }
        }
        for (auto& v : px) v.hi = v.lo = 0;
    }
    // H^k, k < kT
    uint32_t* pw0 = o + 4 * kWinElems;
    bc_gf128 p = bc_gf128_one();
    for (int k = 0; k < kT; ++k) {
        put(pw0 + 4 * k, p);
        p = bc_gf128_mul(p, h);
    }
    build_tensor_operands(h, static_cast<uint8_t*>(out) + kTcFragOffset, static_cast<uint8_t*>(out) + kTcMulOffset);
    // level L: (H^span_L)^k, span_0 = kGroup, span_(L+1) = span_L * kR
    uint32_t* lv = pw0 + 4 * kPw0Elems;
    uint64_t span = kGroup;
    for (int L = 0; L < kLevels; ++L) {
        bc_gf128 step = gf128_pow(h, span), q = bc_gf128_one();
        for (int k = 0; k < kR; ++k) {
            put(lv + 4 * ((size_t)L * kR + k), q);
            q = bc_gf128_mul(q, step);
        }
        span *= kR;
    }
}

size_t ghash_scratch_bytes(uint64_t len) {
    const uint64_t nblocks = (len + 15) / 16;
    const uint64_t ngroups = (nblocks + kGroup - 1) / kGroup;
    // two ping-pong arrays of partials
    return 16 * (ngroups + (ngroups + kR - 1) / kR + 2);
}

cudaError_t launch_ghash(const void* tables_dev, const uint8_t* data, uint64_t len, void* scratch,
                         uint8_t* result_dev, const LaunchShape& sh, cudaStream_t s) {
    {
        // Once per device: a host-memory pipeline launches GHASH for every piece, from the
        // thread that also drives the piece's copies.
        constexpr int kDevices = 64;
        static std::atomic<bool> done[kDevices];
        int dev = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e != cudaSuccess) return e;
        if (dev < 0 || dev >= kDevices || !done[dev].load()) {
            e = cudaFuncSetAttribute(k_ghash_groups<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kWinBytes);
            if (e == cudaSuccess)
                e = cudaFuncSetAttribute(k_ghash_groups<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kWinBytes);
            if (e == cudaSuccess)
                e = cudaFuncSetAttribute(k_ghash_tensor<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kTcFragBytes);
            if (e == cudaSuccess)
                e = cudaFuncSetAttribute(k_ghash_tensor<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kTcFragBytes);
            if (e != cudaSuccess) return e;
            if (dev >= 0 && dev < kDevices) done[dev].store(true);
        }
    }
    if (len == 0) {
        k_zero_result<<<1, 1, 0, s>>>(result_dev);
        return cudaGetLastError();
    }
    const uint4* tab = static_cast<const uint4*>(tables_dev);
    const int variant = tensor_variant_usable(variant_of(sh));
    const uint64_t nblocks = (len + 15) / 16;
    uint64_t m = (nblocks + kGroup - 1) / kGroup;
    const uint64_t pad = m * kGroup - nblocks;
    uint4* a = static_cast<uint4*>(scratch);
    uint4* b = a + m + 1;
    const int grid = (int)(m < (uint64_t)sh.sms ? m : (uint64_t)sh.sms);
    const bool fast = ((uintptr_t)data & 15u) == 0;
    const bool planes = variant == 1;
    if (variant == 2) {
        const uint8_t* base = static_cast<const uint8_t*>(tables_dev);
        const uint2* frags = reinterpret_cast<const uint2*>(base + kTcFragOffset);
        const uint4* muls = reinterpret_cast<const uint4*>(base + kTcMulOffset);
        if (fast)
            k_ghash_tensor<true><<<grid, kTcThreads, kTcFragBytes, s>>>(frags, muls, data, len, pad, m, a);
        else
            k_ghash_tensor<false><<<grid, kTcThreads, kTcFragBytes, s>>>(frags, muls, data, len, pad, m, a);
    } else if (fast) {
        k_ghash_groups<true><<<grid, kT, kWinBytes, s>>>(tab, data, len, pad, m, a, planes);
    } else {
        k_ghash_groups<false><<<grid, kT, kWinBytes, s>>>(tab, data, len, pad, m, a, planes);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const uint4* lv = tab + kWinElems + kPw0Elems;
    int level = 0;
    while (m > 1) {
        if (level >= kLevels) return cudaErrorInvalidValue;  // beyond 2^36 blocks
        const uint64_t mo = (m + kR - 1) / kR;
        const uint64_t p = mo * kR - m;
        k_ghash_reduce<<<(unsigned)mo, kR, 0, s>>>(a, m, p, lv + (size_t)level * kR, b);
        e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        uint4* tmp = a; a = b; b = tmp;
        m = mo;
        ++level;
    }
    k_store_result<<<1, 1, 0, s>>>(a, result_dev);
    return cudaGetLastError();
}

}  // namespace cuda
}  // namespace bc
