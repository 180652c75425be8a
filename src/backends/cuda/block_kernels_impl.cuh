// The generic block-cipher kernels of the CUDA backend: ECB, CTR, CBC decryption
// and XTS written once (src/modes/block/block_modes.h) and instantiated for every
// cipher folder with a device.inc, one generated translation unit a cipher
// (generated/block_kernels_<cipher>.cu: this header, then the folder's device.inc),
// so the folders compile in parallel; block_kernels.cpp holds the launch table.
//
// Instantiation. The mode header is included once per block size inside a class
// template (Modes16<C>, Modes8<C>), its BC_BM_* macros naming the members of a
// cipher's traits struct C; BC_DEVICE_BLOCK_CIPHER(id, ID) makes that struct from
// the core's naming convention (bc_<id>_encrypt_batch, BC_<ID>_BATCH, ...) and the
// cipher's row of the launch table.
//
// Work layout. An item is one batch of the core (block_modes.h). ECB, CTR and XTS
// over large units give lane l of a warp the blocks l, l + 32, ... of the warp's
// group of 32 * batch blocks (stride 32), so each load instruction of the warp
// reads one contiguous span; CBC decryption and XTS over small units take items
// of consecutive blocks (stride 1). Kernels are a grid-stride loop over items.
//
// XTS tweaks. The units' tweaks T0 + u are written to scratch and encrypted in
// place by the ECB kernel under the tweak key. An item's first tweak is
// E(T_u) * alpha^first: with groups of G = 32 * batch blocks, a group's tweak
// E(T_u) * alpha^(gG) is made by a small kernel (only when a unit spans several
// groups), and each item steps from it by x^r, r < G, with shifts (bc_xts_mul_xs).
#pragma once

// A table cipher's key (BC_<ID>_KS_SHARED) is staged in shared memory as 32 interleaved
// copies, lane l reading copy l (bc_dialect.h's BC_KS_AT): every lookup of a warp falls in
// 32 different banks whatever the data. Defined before the dialect header is first read.
#define BC_KS_COPIES 32

#include "backends/cuda/block_kernels.h"

#include <strings.h>

#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "dialect/bc_dialect.h"
#include "modes/block/xts_tweak.h"

namespace bc {
namespace cuda {
namespace {

constexpr int kThreads = 128;       // threads a block of the auxiliary kernels
constexpr int kPlainThreads = 128;  // of a cipher's kernels (C::kThreads), without tables
constexpr int kTableThreads = 256;  // with tables: their copies (~132 KiB) fit once an SM
constexpr int kLanes = 32;
constexpr unsigned kGroupsPerThread = 8;  // XTS group tweaks walked by one thread

// ---------------------------------------------------------------- the mode header per cipher

// Members: bm_load, bm_store, ecb_item, ctr_item, cbc_dec_item, xts_item (16-byte blocks).
// Keeps work on x (XTS's tweak walk) after the core that computes dep: without it the
// compiler hoists the walk above the core and holds 32 tweaks across it (spills).
template <class T>
__host__ __device__ __forceinline__ void bm_after(T& x, bc_u32 dep) {
#ifdef __CUDA_ARCH__
    asm volatile("" : "+l"(x) : "r"(dep));
#else
    (void)x;
    (void)dep;
#endif
}
#define BC_BM_AFTER(x, dep) bm_after(x, dep)

template <class C>
struct Modes16 {
#define BC_BM_NAME(x) x
#define BC_BM_BLOCK 16
#define BC_BM_BATCH (C::kBatch)
#define BC_BM_KS const bc_u32*
#define BC_BM_ENCRYPT(ks, w) C::encrypt(ks, w)
#define BC_BM_DECRYPT(ks, w) C::decrypt(ks, w)
#include "modes/block/block_modes.h"
#undef BC_BM_BLOCK
};

template <class C>
struct Modes8 {
#define BC_BM_BLOCK 8
#include "modes/block/block_modes.h"
#undef BC_BM_BLOCK
#undef BC_BM_NAME
#undef BC_BM_BATCH
#undef BC_BM_KS
#undef BC_BM_ENCRYPT
#undef BC_BM_DECRYPT
};

template <class C>
using Modes = typename std::conditional<C::kBlock == 16, Modes16<C>, Modes8<C>>::type;

// The same modes reading their input from, and writing their output to, a warp's
// staged tile in shared memory (see "Staging" below); the warp copies the tile out.
struct Tile {
    bc_u32* smem;   // the warp's tile
    uint64_t base;  // block index (in the item functions' numbering) of tile block 0
    bool swizzled;  // the stride-1 layout (else the identity, for stride-32 items)
};

template <class C>
__host__ __device__ __forceinline__ unsigned tile_slot(uint64_t t, bool swizzled) {
    if (!swizzled) return (unsigned)t;
    const unsigned o = (unsigned)(t / C::kBatch), k = (unsigned)(t % C::kBatch);
    return k * 32u + (o ^ (k & 31u));
}

#define BC_BM_TILE_IO                                                                                \
    __host__ __device__ __forceinline__ static void bm_load(const Tile& in, bc_u64 b, bc_u32* w, int) {   \
        const bc_u32* p = in.smem + (C::kBlock / 4) * tile_slot<C>(b - in.base, in.swizzled);         \
        _Pragma("unroll") for (int i = 0; i < C::kBlock / 4; ++i) w[i] = p[i];                        \
    }                                                                                                 \
    __host__ __device__ __forceinline__ static void bm_store(const Tile& out, bc_u64 b, const bc_u32* w, int) { \
        bc_u32* p = out.smem + (C::kBlock / 4) * tile_slot<C>(b - out.base, out.swizzled);            \
        _Pragma("unroll") for (int i = 0; i < C::kBlock / 4; ++i) p[i] = w[i];                        \
    }

template <class C>
struct ModesTile16 {
    BC_BM_TILE_IO
#undef BC_BM_IN
#undef BC_BM_OUT
#define BC_BM_IN const Tile&
#define BC_BM_OUT const Tile&
#define BC_BM_CUSTOM_LOAD
#define BC_BM_CUSTOM_STORE
#define BC_BM_NAME(x) x
#define BC_BM_BLOCK 16
#define BC_BM_BATCH (C::kBatch)
#define BC_BM_KS const bc_u32*
#define BC_BM_ENCRYPT(ks, w) C::encrypt(ks, w)
#define BC_BM_DECRYPT(ks, w) C::decrypt(ks, w)
#include "modes/block/block_modes.h"
#undef BC_BM_BLOCK
};

template <class C>
struct ModesTile8 {
    BC_BM_TILE_IO
#define BC_BM_BLOCK 8
#include "modes/block/block_modes.h"
#undef BC_BM_BLOCK
#undef BC_BM_NAME
#undef BC_BM_BATCH
#undef BC_BM_KS
#undef BC_BM_ENCRYPT
#undef BC_BM_DECRYPT
#undef BC_BM_CUSTOM_LOAD
#undef BC_BM_CUSTOM_STORE
#undef BC_BM_IN
#undef BC_BM_OUT
};
#undef BC_BM_TILE_IO

template <class C>
using ModesTile = typename std::conditional<C::kBlock == 16, ModesTile16<C>, ModesTile8<C>>::type;

// ---------------------------------------------------------------- kernels

struct Block16 {
    bc_u32 w[4];
};

__device__ __forceinline__ uint64_t item0() { return blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t item_step() { return (uint64_t)gridDim.x * blockDim.x; }

// Item i of the stride-32 layout: lane i % 32 of group i / 32.
template <class C>
__device__ __forceinline__ uint64_t group_first(uint64_t i) {
    return (i / kLanes) * (uint64_t)(kLanes * C::kBatch) + i % kLanes;
}

extern __shared__ __align__(16) unsigned char bc_stage[];

// The expanded key the core reads: as given, or for a cipher whose key holds tables
// (BC_<ID>_KS_SHARED: lookups indexed by data) BC_KS_COPIES interleaved copies in the
// block's dynamic shared memory, at byte `at` (after the kernel's own staging), made
// once per thread block; each lane gets its copy. Every kernel calls it first, before any
// thread may leave.
template <class C>
__device__ __forceinline__ const bc_u32* staged_key(const bc_u32* ks, size_t at) {
    if constexpr (!C::kKsShared) {
        (void)at;
        return ks;
    } else {
        bc_u32* key = reinterpret_cast<bc_u32*>(bc_stage + at);
        // consecutive threads write consecutive words: no bank conflicts here either
        for (unsigned i = threadIdx.x; i < C::kKsWords * BC_KS_COPIES; i += blockDim.x) key[i] = ks[i / BC_KS_COPIES];
        __syncthreads();
        return key + threadIdx.x % BC_KS_COPIES;
    }
}

template <class C, bool Enc, bool Aligned>
__global__ void __launch_bounds__(C::kThreads) k_ecb(const bc_u32* __restrict__ ks, const uint8_t* in, uint8_t* out,
                                                  uint64_t nblocks, uint64_t nitems) {
    ks = staged_key<C>(ks, 0);
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        const uint64_t first = group_first<C>(i);
        if (first >= nblocks) continue;
        Modes<C>().ecb_item(ks, in, out, nblocks, first, kLanes, Enc, Aligned);
    }
}

template <class C, bool Inc32, bool Aligned>
__global__ void __launch_bounds__(C::kThreads) k_ctr(const bc_u32* __restrict__ ks, Block16 ctr, unsigned shift,
                                                  const uint8_t* in, uint8_t* out, uint64_t len, uint64_t nks,
                                                  uint64_t nitems) {
    ks = staged_key<C>(ks, 0);
    bc_u32 c[C::kBlock / 4];
#pragma unroll
    for (int q = 0; q < C::kBlock / 4; ++q) c[q] = ctr.w[q];
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        const uint64_t first = group_first<C>(i);
        if (first >= nks) continue;
        Modes<C>().ctr_item(ks, c, Inc32, shift, in, out, len, first, kLanes, Aligned);
    }
}

// CTR over whole groups for a cipher that asks for it (BC_<ID>_CTR_PREFETCH: Blowfish,
// CAST5): an item's input blocks are loaded before the core, as ECB's are, and XORed after
// it. The core's key pointer waits for them (bm_after), so the compiler cannot sink the
// loads past the core. With their tables' lane copies (H100, 2026-11-27) the staged-tile
// CTR (k_ctr_tiles) ran Blowfish at 232 GB/s and CAST5 at 256, this kernel at 342 and 280
// (188-189 registers, affordable at one block of 8 warps an SM; the tile kernel's 80 left
// the core too little independent work: 4.9 cycles between a warp's instructions against
// ECB's 2.8). SEED's table form ran slower here (139 against 242) and keeps the tiles.
template <class C, bool Inc32>
__global__ void __launch_bounds__(C::kThreads) k_ctr_prefetch(const bc_u32* __restrict__ ks, Block16 ctr,
                                                             const uint8_t* in, uint8_t* out, uint64_t nitems) {
    ks = staged_key<C>(ks, 0);
    constexpr int BW = C::kBlock / 4;
    bc_u32 c[BW];
#pragma unroll
    for (int q = 0; q < BW; ++q) c[q] = ctr.w[q];
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        const uint64_t first = group_first<C>(i);
        bc_u32 d[BW * C::kBatch];
        uint64_t kp = reinterpret_cast<uint64_t>(ks);
#pragma unroll
        for (int k = 0; k < C::kBatch; ++k) {
            Modes<C>().bm_load(in, first + (uint64_t)kLanes * k, d + BW * k, 1);
            bm_after(kp, d[BW * k]);
        }
        bc_u32 w[BW * C::kBatch];
        Modes<C>().ctr_keystream(reinterpret_cast<const bc_u32*>(kp), c, Inc32, first, kLanes, w);
#pragma unroll
        for (int k = 0; k < C::kBatch; ++k) {
#pragma unroll
            for (int q = 0; q < BW; ++q) d[BW * k + q] ^= w[BW * k + q];
            Modes<C>().bm_store(out, first + (uint64_t)kLanes * k, d + BW * k, 1);
        }
    }
}

// CBC decryption, first pass: item i's chaining block (the IV, or the ciphertext block
// before the item) to chain[i], before any item overwrites it.
template <class C>
__global__ void k_cbc_chains(Block16 iv, const uint8_t* in, bc_u32* chain, uint64_t nitems) {
    constexpr int BW = C::kBlock / 4;
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        if (i == 0) {
#pragma unroll
            for (int q = 0; q < BW; ++q) chain[q] = iv.w[q];
        } else {
            const uint8_t* p = in + (uint64_t)C::kBlock * (i * C::kBatch - 1);
#pragma unroll
            for (int q = 0; q < BW; ++q) chain[BW * i + q] = bc_load_le32(p + 4 * q);
        }
    }
}

template <class C, bool Aligned>
__global__ void __launch_bounds__(C::kThreads) k_cbc_dec(const bc_u32* __restrict__ ks, const uint8_t* in, uint8_t* out,
                                                      uint64_t nblocks, const bc_u32* chain, uint64_t i0,
                                                      uint64_t nitems) {
    ks = staged_key<C>(ks, 0);
    constexpr int BW = C::kBlock / 4;
    for (uint64_t i = i0 + item0(); i < nitems; i += item_step()) {
        bc_u32 v[BW];
#pragma unroll
        for (int q = 0; q < BW; ++q) v[q] = chain[BW * i + q];
        Modes<C>().cbc_dec_item(ks, v, in, out, nblocks, i * C::kBatch, Aligned);
    }
}

// XTS, first pass: the units' tweaks T0 + u (little-endian), encrypted next by k_ecb.
__global__ void k_xts_tweak_list(uint64_t t_lo, uint64_t t_hi, uint64_t* list, uint64_t nunits) {
    for (uint64_t u = item0(); u < nunits; u += item_step()) {
        const uint64_t lo = t_lo + u;
        list[2 * u] = lo;
        list[2 * u + 1] = t_hi + (lo < t_lo ? 1u : 0u);
    }
}

// XTS, second pass (units of several groups): group g of unit u gets E(T_u) * alpha^(gG).
// A thread walks kGroupsPerThread groups: alpha^(g0 G) once, then a multiply by the
// public step alpha^G per group.
__global__ void k_xts_group_tweaks(const uint64_t* unit_tweaks, uint64_t* group_tweaks, uint64_t nunits,
                                   uint64_t groups, uint64_t group_blocks) {
    const uint64_t runs = (groups + kGroupsPerThread - 1) / kGroupsPerThread;
    for (uint64_t i = item0(); i < nunits * runs; i += item_step()) {
        const uint64_t u = i / runs, g0 = (i % runs) * kGroupsPerThread;
        uint64_t p_lo, p_hi, s_lo, s_hi;
        bc_xts_alpha_pow(g0 * group_blocks, &p_lo, &p_hi);
        bc_xts_alpha_pow(group_blocks, &s_lo, &s_hi);
        uint64_t lo = unit_tweaks[2 * u], hi = unit_tweaks[2 * u + 1];
        bc_xts_mul_public(&lo, &hi, p_lo, p_hi);
        for (uint64_t g = g0; g < groups && g < g0 + kGroupsPerThread; ++g) {
            if (g != g0) bc_xts_mul_public(&lo, &hi, s_lo, s_hi);
            group_tweaks[2 * (u * groups + g)] = lo;
            group_tweaks[2 * (u * groups + g) + 1] = hi;
        }
    }
}

// The tweak of block g * G + r of unit u: its group's tweak times alpha^r, r < G.
__device__ __forceinline__ void item_tweak(const uint64_t* tweaks, uint64_t u, uint64_t groups, uint64_t g,
                                           unsigned r, uint64_t* lo, uint64_t* hi) {
    *lo = tweaks[2 * (u * groups + g)];
    *hi = tweaks[2 * (u * groups + g) + 1];
    for (; r >= 32; r -= 32) bc_xts_mul_xs(lo, hi, 32);
    if (r) bc_xts_mul_xs(lo, hi, r);
}

// Shared memory of k_xts: each thread's batch of tweaks, tweak k of thread i at k * C::kThreads + i
// (a warp's accesses to tweak k are one contiguous span: no bank conflicts).
template <class C>
constexpr size_t xts_tweak_bytes() {
    return (size_t)16 * C::kBatch * C::kThreads;
}

// One XTS item (block_modes.h's xts_item, the same result) with its tweaks walked once, in
// a loop, into shared memory, and read back for the XOR before and after the core. Walked
// in registers the two unrolled walks add ~2,300 instructions an item (CLEFIA, sm_90),
// straight-line code each warp streams once per item: most of the time XTS lost to ECB
// went to instruction fetch.
template <class C, bool Enc, bool Aligned>
__device__ __forceinline__ void xts_item_staged(const bc_u32* ks, uint64_t t_lo, uint64_t t_hi, const uint8_t* in,
                                                uint8_t* out, uint64_t nblocks, uint64_t first, unsigned stride) {
    uint4* tw = reinterpret_cast<uint4*>(bc_stage) + threadIdx.x;
    bc_u32 t[4] = {(bc_u32)t_lo, (bc_u32)(t_lo >> 32), (bc_u32)t_hi, (bc_u32)(t_hi >> 32)};
#pragma unroll 1
    for (int k = 0; k < C::kBatch; ++k) {
        tw[k * C::kThreads] = make_uint4(t[0], t[1], t[2], t[3]);
        bc_xts_mul_xs_w(t, stride);
    }
    bc_u32 w[4 * C::kBatch];
#pragma unroll
    for (int k = 0; k < C::kBatch; ++k) {
        const uint64_t b = first + (uint64_t)stride * k;
        bc_u32* x = w + 4 * k;
        if (b < nblocks) Modes<C>().bm_load(in, b, x, Aligned);
        else x[0] = x[1] = x[2] = x[3] = 0;
        // tweak k is read once block k has arrived: hoisted beside the 32 loads, the 32
        // tweaks would want 128 more registers (ARIA's kernel spilled 176 bytes)
        uint64_t at_k = reinterpret_cast<uint64_t>(tw + k * C::kThreads);
        bm_after(at_k, x[0]);
        const uint4 v = *reinterpret_cast<const uint4*>(at_k);
        x[0] ^= v.x;
        x[1] ^= v.y;
        x[2] ^= v.z;
        x[3] ^= v.w;
    }
    if (Enc) C::encrypt(ks, w);
    else C::decrypt(ks, w);
    // The second pass's addresses are computed after the core: shared with the first
    // pass's loads, 32 of them (64 registers: the stride is not a constant) lived across
    // the core, and ARIA's kernel spilled 160-172 bytes. Its tweak reads stay after the
    // core too (hoisted, 32 tweaks would live across it), at most kAhead in flight.
    uint64_t out_a = reinterpret_cast<uint64_t>(out), first_a = first, stride_a = stride;
    bm_after(out_a, w[0]);
    bm_after(first_a, w[0]);
    bm_after(stride_a, w[0]);
    constexpr int kAhead = 4;
#pragma unroll
    for (int k = 0; k < C::kBatch; ++k) {
        const uint64_t b = first_a + stride_a * k;
        bc_u32* x = w + 4 * k;
        uint64_t at_k = reinterpret_cast<uint64_t>(tw + k * C::kThreads);
        bm_after(at_k, k >= kAhead ? w[4 * (k - kAhead)] : w[0]);
        const uint4 v = *reinterpret_cast<const uint4*>(at_k);
        x[0] ^= v.x;
        x[1] ^= v.y;
        x[2] ^= v.z;
        x[3] ^= v.w;
        if (b < nblocks) Modes<C>().bm_store(reinterpret_cast<uint8_t*>(out_a), b, x, Aligned);
    }
}

// The same item with the blocks themselves passing through shared memory, in the slots
// the tweaks take above (block k of thread i at k * kThreads + i): a rolled loop copies
// them in (cp.async: all in flight, no registers held), a second walks the tweaks and
// XORs them in there, 32 shared loads fill the core's registers; after the core 32 shared
// stores, and a rolled loop walks the tweaks again, XORs and stores to global memory. The
// unrolled code around the core is 64 shared accesses, against ~700 instructions of
// addresses, bounds tests, loads, XORs and stores in xts_item_staged, which every warp
// streams once per item: CLEFIA-128's XTS kernel spent 34 % of its issue slots waiting
// for instruction fetch. Data and output 16-byte aligned (unit sizes a multiple of 16).
template <class C, bool Enc>
__device__ __forceinline__ void xts_item_through_smem(const bc_u32* ks, uint64_t t_lo, uint64_t t_hi,
                                                      const uint8_t* in, uint8_t* out, uint64_t nblocks,
                                                      uint64_t first, unsigned stride) {
    static_assert(C::kBlock == 16, "XTS has 16-byte blocks");
    uint4* slot = reinterpret_cast<uint4*>(bc_stage) + threadIdx.x;
#pragma unroll 1
    for (int k = 0; k < C::kBatch; ++k) {
        const uint64_t b = first + (uint64_t)stride * k;
        uint4* dst = slot + k * C::kThreads;
        if (b < nblocks) {
            const uint8_t* from = in + 16 * b;
#if __CUDA_ARCH__ >= 800
            const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(from));
#else
            *dst = *reinterpret_cast<const uint4*>(from);
#endif
        } else {
            *dst = make_uint4(0, 0, 0, 0);
        }
    }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
    bc_u32 t[4] = {(bc_u32)t_lo, (bc_u32)(t_lo >> 32), (bc_u32)t_hi, (bc_u32)(t_hi >> 32)};
#pragma unroll 1
    for (int k = 0; k < C::kBatch; ++k) {
        uint4 v = slot[k * C::kThreads];
        slot[k * C::kThreads] = make_uint4(v.x ^ t[0], v.y ^ t[1], v.z ^ t[2], v.w ^ t[3]);
        bc_xts_mul_xs_w(t, stride);
    }
    bc_u32 w[4 * C::kBatch];
#pragma unroll
    for (int k = 0; k < C::kBatch; ++k) {
        const uint4 v = slot[k * C::kThreads];
        w[4 * k] = v.x;
        w[4 * k + 1] = v.y;
        w[4 * k + 2] = v.z;
        w[4 * k + 3] = v.w;
    }
    if (Enc) C::encrypt(ks, w);
    else C::decrypt(ks, w);
#pragma unroll
    for (int k = 0; k < C::kBatch; ++k) slot[k * C::kThreads] = make_uint4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]);
    t[0] = (bc_u32)t_lo;
    t[1] = (bc_u32)(t_lo >> 32);
    t[2] = (bc_u32)t_hi;
    t[3] = (bc_u32)(t_hi >> 32);
#pragma unroll 1
    for (int k = 0; k < C::kBatch; ++k) {
        const uint64_t b = first + (uint64_t)stride * k;
        const uint4 v = slot[k * C::kThreads];
        if (b < nblocks)
            *reinterpret_cast<uint4*>(out + 16 * b) = make_uint4(v.x ^ t[0], v.y ^ t[1], v.z ^ t[2], v.w ^ t[3]);
        bc_xts_mul_xs_w(t, stride);
    }
}

// XTS over whole blocks: item j of unit u. Stride 32: lane j % 32 of group j / 32;
// stride 1: blocks j * batch .. of the unit; any other stride s (units of s whole
// batches, 1 < s < 32): blocks j, j + s, ... (interleaved: the warp's s consecutive
// items of a unit read s consecutive blocks per load, whole sectors). tweaks: each
// unit's group tweaks (groups a unit).
template <class C, bool Enc, bool Aligned, bool Smem = false>
__global__ void __launch_bounds__(C::kThreads, C::kXtsMinBlocks) k_xts(const bc_u32* __restrict__ ks, const uint8_t* in, uint8_t* out,
                                                  uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks,
                                                  uint64_t last_blocks, const uint64_t* tweaks, uint64_t groups,
                                                  unsigned stride, uint64_t items_per_unit, uint64_t i0,
                                                  uint64_t nitems) {
    ks = staged_key<C>(ks, xts_tweak_bytes<C>());
    constexpr uint64_t G = (uint64_t)kLanes * C::kBatch;
    for (uint64_t i = i0 + item0(); i < nitems; i += item_step()) {
        const uint64_t u = i / items_per_unit, j = i % items_per_unit;
        const uint64_t nb = u + 1 == nunits ? last_blocks : full_blocks;
        uint64_t first, g;
        unsigned r;  // first = g * G + r
        if (stride == kLanes) {
            g = j / kLanes;
            r = (unsigned)(j % kLanes);
            first = g * G + r;
        } else if (stride > 1) {
            g = 0;
            r = (unsigned)j;
            first = j;
        } else {
            first = j * C::kBatch;
            g = first / G;
            r = (unsigned)(first % G);
        }
        if (first >= nb) continue;
        uint64_t lo, hi;
        item_tweak(tweaks, u, groups, g, r, &lo, &hi);
        if constexpr (Smem) xts_item_through_smem<C, Enc>(ks, lo, hi, in + u * unit_bytes, out + u * unit_bytes, nb, first, stride);
        else xts_item_staged<C, Enc, Aligned>(ks, lo, hi, in + u * unit_bytes, out + u * unit_bytes, nb, first, stride);
    }
}

// ---------------------------------------------------------------- staging

// Staging. A tile is the G = 32 * batch consecutive blocks of one warp's 32 items. The
// warp copies it into shared memory with cp.async before the items need it, so the
// loads' latency hides behind the core (CTR: the keystream; its input, read after the
// core, otherwise comes in small batches, the core's state holding the registers), and
// the copy is coalesced whatever the items' layout. Identity layout (stride-32 items:
// lane l reads the blocks it copied); swizzled layout for stride-1 items (lane o owns
// tile blocks o*batch + k, at slot k*32 + (o ^ k): the copy, lane l taking block
// c*32 + l, and the reads are both free of bank conflicts). Each lane reads only after
// the warp's copy is complete (wait, then __syncwarp), and the warp syncs again before
// the next tile overwrites it.
template <class C>
struct Stage {
    static constexpr uint64_t kG = (uint64_t)kLanes * C::kBatch;
    static constexpr size_t kWarpBytes = (size_t)kG * C::kBlock;
    static constexpr size_t kBytes = kWarpBytes * (C::kThreads / kLanes);  // dynamic shared memory a block

    __device__ static bc_u32* tile() {
        return reinterpret_cast<bc_u32*>(bc_stage + (threadIdx.x / kLanes) * kWarpBytes);
    }
    // Starts the copy of the tile at src (kG blocks, 16- or 8-byte aligned).
    __device__ static void copy(bc_u32* tile, const uint8_t* src, bool swizzled) {
        const unsigned lane = threadIdx.x % kLanes;
#pragma unroll 4
        for (unsigned c = 0; c < C::kBatch; ++c) {
            const unsigned t = c * kLanes + lane;
            unsigned char* dst = reinterpret_cast<unsigned char*>(tile) + C::kBlock * tile_slot<C>(t, swizzled);
            const uint8_t* from = src + (uint64_t)C::kBlock * t;
#if __CUDA_ARCH__ >= 800
            const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
            if (C::kBlock == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(from));
            else asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(from));
#else
            if (C::kBlock == 16) *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(from);
            else *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(from);
#endif
        }
#if __CUDA_ARCH__ >= 800
        asm volatile("cp.async.commit_group;\n" ::);
#endif
    }
    // Waits for this thread's copies, then for the warp's.
    __device__ static void wait() {
#if __CUDA_ARCH__ >= 800
        asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
        __syncwarp();
    }
    // After the warp's items wrote their output into the tile: the tile to dst (kG
    // blocks), lane l taking block c*32 + l in step c, so each store is coalesced.
    __device__ static void copy_out(const bc_u32* tile, uint8_t* dst, bool swizzled) {
        __syncwarp();
        const unsigned lane = threadIdx.x % kLanes;
#pragma unroll 4
        for (unsigned c = 0; c < C::kBatch; ++c) {
            const unsigned t = c * kLanes + lane;
            const unsigned char* from = reinterpret_cast<const unsigned char*>(tile) + C::kBlock * tile_slot<C>(t, swizzled);
            uint8_t* to = dst + (uint64_t)C::kBlock * t;
            if (C::kBlock == 16) *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
            else *reinterpret_cast<uint2*>(to) = *reinterpret_cast<const uint2*>(from);
        }
        __syncwarp();
    }
};

__device__ __forceinline__ uint64_t warp0() { return (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / kLanes; }
__device__ __forceinline__ uint64_t warp_step() { return (uint64_t)gridDim.x * blockDim.x / kLanes; }

// CTR over whole tiles (data and output aligned to the block, no shift): tile t holds
// keystream blocks t*G .. t*G + G - 1; lane l's item the blocks l, l + 32, ... of it.
template <class C, bool Inc32>
__global__ void __launch_bounds__(C::kThreads) k_ctr_tiles(const bc_u32* __restrict__ ks, Block16 ctr,
                                                        const uint8_t* in, uint8_t* out, uint64_t ntiles) {
    ks = staged_key<C>(ks, Stage<C>::kBytes);
    constexpr int BW = C::kBlock / 4;
    bc_u32 c[BW];
#pragma unroll
    for (int q = 0; q < BW; ++q) c[q] = ctr.w[q];
    bc_u32* tile = Stage<C>::tile();
    const unsigned lane = threadIdx.x % kLanes;
    for (uint64_t t = warp0(); t < ntiles; t += warp_step()) {
        const uint64_t base = t * Stage<C>::kG;
        Stage<C>::copy(tile, in + C::kBlock * base, false);
        bc_u32 w[BW * C::kBatch];
        Modes<C>().ctr_keystream(ks, c, Inc32, base + lane, kLanes, w);
        Stage<C>::wait();
#pragma unroll
        for (int k = 0; k < C::kBatch; ++k) {
            const unsigned slot = k * kLanes + lane;
            bc_u32 d[BW];
#pragma unroll
            for (int q = 0; q < BW; ++q) d[q] = tile[BW * slot + q] ^ w[BW * k + q];
            uint8_t* o = out + (uint64_t)C::kBlock * (base + slot);
            if (BW == 4) *reinterpret_cast<uint4*>(o) = make_uint4(d[0], d[1], d[2 % BW], d[3 % BW]);
            else *reinterpret_cast<uint2*>(o) = make_uint2(d[0], d[1]);
        }
        __syncwarp();
    }
}

// CBC decryption over whole tiles: item i (lane i % 32 of tile i / 32) decrypts blocks
// i*batch .. of the piece; the block before a tile comes from chain (k_cbc_chains),
// the others from the tile. Each item writes its plaintext over its own blocks in the
// tile (it reads only its own after the core), and the warp copies the tile out.
template <class C>
__global__ void __launch_bounds__(C::kThreads) k_cbc_dec_tiles(const bc_u32* __restrict__ ks, const uint8_t* in,
                                                            uint8_t* out, uint64_t nblocks, const bc_u32* chain,
                                                            uint64_t ntiles) {
    ks = staged_key<C>(ks, Stage<C>::kBytes);
    constexpr int BW = C::kBlock / 4;
    bc_u32* tile = Stage<C>::tile();
    const unsigned lane = threadIdx.x % kLanes;
    for (uint64_t t = warp0(); t < ntiles; t += warp_step()) {
        const uint64_t base = t * Stage<C>::kG;
        Stage<C>::copy(tile, in + C::kBlock * base, true);
        Stage<C>::wait();
        const Tile view{tile, base, true};
        const uint64_t i = t * kLanes + lane, first = i * C::kBatch;
        bc_u32 v[BW];
        if (lane == 0) {
#pragma unroll
            for (int q = 0; q < BW; ++q) v[q] = chain[BW * i + q];
        } else {
            ModesTile<C>::bm_load(view, first - 1, v, 1);
        }
        __syncwarp();  // every lane has its chaining block before any writes plaintext
        ModesTile<C>().cbc_dec_item(ks, v, view, view, nblocks, first, 1);
        Stage<C>::copy_out(tile, out + C::kBlock * base, true);
    }
}

// XTS over whole tiles of small units (stride-1 items, units of full_blocks blocks, a
// multiple of the batch and at most G, back to back): item i is blocks j*batch .. of
// unit i / items_per_unit, j = i % items_per_unit.
template <class C, bool Enc>
__global__ void __launch_bounds__(C::kThreads) k_xts_tiles(const bc_u32* __restrict__ ks, const uint8_t* in,
                                                        uint8_t* out, uint64_t full_blocks, const uint64_t* tweaks,
                                                        uint64_t items_per_unit, uint64_t ntiles) {
    ks = staged_key<C>(ks, Stage<C>::kBytes);
    bc_u32* tile = Stage<C>::tile();
    const unsigned lane = threadIdx.x % kLanes;
    for (uint64_t t = warp0(); t < ntiles; t += warp_step()) {
        const uint64_t base = t * Stage<C>::kG;
        Stage<C>::copy(tile, in + C::kBlock * base, true);
        const uint64_t i = t * kLanes + lane, u = i / items_per_unit, first = (i % items_per_unit) * C::kBatch;
        uint64_t lo, hi;
        item_tweak(tweaks, u, 1, 0, (unsigned)first, &lo, &hi);
        Stage<C>::wait();
        // block b of unit u is tile block u * full_blocks + b - base
        const Tile view{tile, base - u * full_blocks, true};
        ModesTile<C>().xts_item(ks, lo, hi, view, view, full_blocks, first, 1, Enc, 1);
        Stage<C>::copy_out(tile, out + C::kBlock * base, true);
        __syncwarp();
    }
}

// ---------------------------------------------------------------- launchers

// Blocks of `threads` for `items` threads' work, at most the tuning entry's cap an SM
// (and at most `resident` an SM when given).
int grid_for(uint64_t items, const LaunchShape& sh, int threads = kThreads, int resident = 0) {
    uint64_t blocks = (items + threads - 1) / threads;
    int per_sm = sh.blocks_per_sm > 0 ? sh.blocks_per_sm : 1;  // tuning entry
    if (resident > 0 && resident < per_sm) per_sm = resident;
    const uint64_t cap = (uint64_t)(sh.sms > 0 ? sh.sms : 1) * per_sm;
    if (blocks > cap) blocks = cap;
    return blocks == 0 ? 1 : (int)blocks;
}

// Blocks of kernel f (threads, dynamic shared memory smem) an SM of the current device
// holds at once, asked once per kernel, size and device.
int resident_blocks(const void* f, int threads, size_t smem) {
    struct Entry {
        const void* f;
        size_t smem;
        int dev, blocks;
    };
    static std::mutex mu;
    static std::vector<Entry> known;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    std::lock_guard<std::mutex> lock(mu);
    for (const Entry& e : known)
        if (e.f == f && e.smem == smem && e.dev == dev) return e.blocks;
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, threads, smem) != cudaSuccess) n = 0;
    known.push_back(Entry{f, smem, dev, n});
    return n;
}

bool aligned4(const void* p) { return ((uintptr_t)p & 3u) == 0; }
bool aligned_to(const void* p, unsigned bytes) { return ((uintptr_t)p & (bytes - 1)) == 0; }

// Bytes of dynamic shared memory the staged key of cipher C takes (0 without tables).
template <class C>
constexpr size_t key_bytes() {
    return C::kKsShared ? sizeof(bc_u32) * C::kKsWords * BC_KS_COPIES : 0;
}

// Launches a generic kernel of cipher C over `items` threads' work with `smem` bytes of
// dynamic shared memory (its own staging, then the staged key), on a grid of the tuning
// entry's cap an SM. A cipher with tables runs one wave at most, a cap or no: the blocks
// an SM holds at once (occupancy: one), since each block stages 132 KiB of tables first
// (Blowfish's ECB +8 % over 8 waves). The others keep the cap: one wave for every kernel
// ran them 2-8 % slower than 8 blocks an SM (H100, 2026-11-27), PRESENT's CTR included,
// though at 5 resident blocks it runs 1.6 waves: later blocks fill in where earlier ones
// finish, a balance one static wave lacks.
template <class C, class... KArgs, class... Args>
cudaError_t launch(void (*kernel)(KArgs...), uint64_t items, size_t smem, const LaunchShape& sh, cudaStream_t s,
                   Args... args) {
    const void* f = reinterpret_cast<const void*>(kernel);
    if (smem > 0) {
        // above the default 48 KiB for staged 16-byte tiles and for table copies
        const cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    const bool one_wave = C::kKsShared;
    const int grid = grid_for(items, sh, C::kThreads, one_wave ? resident_blocks(f, C::kThreads, smem) : 0);
    kernel<<<grid, C::kThreads, smem, s>>>(args...);
    return cudaGetLastError();
}

// A staging kernel (block_kernels' tiles) over ntiles tiles, its last argument.
template <class C, class... KArgs, class... Args>
cudaError_t launch_staged(void (*kernel)(KArgs...), uint64_t ntiles, const LaunchShape& sh, cudaStream_t s,
                          Args... args) {
    return launch<C>(kernel, ntiles * kLanes, Stage<C>::kBytes + key_bytes<C>(), sh, s, args..., ntiles);
}

Block16 load_words(const uint8_t* p, unsigned bytes, bool big_endian) {
    Block16 b{};
    for (unsigned q = 0; q < bytes / 4; ++q) b.w[q] = big_endian ? bc_load_be32(p + 4 * q) : bc_load_le32(p + 4 * q);
    return b;
}

template <class C, bool Wide = C::kBlock == 16>
struct XtsOf;

template <class C>
struct Launch {
    static constexpr uint64_t kGroup = (uint64_t)kLanes * C::kBatch;

    static uint64_t group_items(uint64_t nblocks) { return (nblocks + kGroup - 1) / kGroup * kLanes; }

    static cudaError_t ecb(bool enc, const uint32_t* ks, const uint8_t* in, uint8_t* out, uint64_t nblocks,
                           const LaunchShape& sh, cudaStream_t s) {
        if (nblocks == 0) return cudaSuccess;
        const uint64_t n = group_items(nblocks);
        const bool al = aligned4(in) && aligned4(out);
        auto f = enc ? (al ? k_ecb<C, true, true> : k_ecb<C, true, false>)
                     : (al ? k_ecb<C, false, true> : k_ecb<C, false, false>);
        return launch<C>(f, n, key_bytes<C>(), sh, s, ks, in, out, nblocks, n);
    }

    static cudaError_t ctr(const uint32_t* ks, const uint8_t* ctr0, uint64_t first, unsigned shift, bool inc32,
                           const uint8_t* in, uint8_t* out, uint64_t len, const LaunchShape& sh, cudaStream_t s) {
        if (len == 0) return cudaSuccess;
        constexpr unsigned B = C::kBlock;
        // the counter of keystream block 0: ctr0 + first (big-endian), or in its last 32 bits
        uint8_t c[B];
        std::memcpy(c, ctr0, B);
        uint64_t carry = first;
        for (int at = (int)B - 1; at >= 0 && carry; --at) {
            if (inc32 && at < (int)B - 4) break;
            const uint64_t v = c[at] + (carry & 0xff);
            c[at] = (uint8_t)v;
            carry = (carry >> 8) + (v >> 8);
        }
        Block16 w = load_words(c, B, true);
        // Whole tiles first (staged; or whole groups prefetched, C::kCtrPrefetch), then the
        // rest through the per-item kernel.
        const uint64_t ntiles = shift == 0 ? len / B / kGroup : 0;
        const bool whole = C::kCtrPrefetch ? aligned4(in) && aligned4(out) : aligned_to(in, B) && aligned_to(out, B);
        if (ntiles > 0 && whole) {
            cudaError_t e;
            if constexpr (C::kCtrPrefetch) {
                auto f = inc32 ? k_ctr_prefetch<C, true> : k_ctr_prefetch<C, false>;
                e = launch<C>(f, ntiles * kLanes, key_bytes<C>(), sh, s, ks, w, in, out, ntiles * kLanes);
            } else {
                e = inc32 ? launch_staged<C>(k_ctr_tiles<C, true>, ntiles, sh, s, ks, w, in, out)
                          : launch_staged<C>(k_ctr_tiles<C, false>, ntiles, sh, s, ks, w, in, out);
            }
            std::memset(c, 0, sizeof c);
            std::memset(&w, 0, sizeof w);
            if (e != cudaSuccess) return e;
            const uint64_t done = ntiles * kGroup;
            if (done * B == len) return cudaSuccess;
            return ctr(ks, ctr0, first + done, 0, inc32, in + done * B, out + done * B, len - done * B, sh, s);
        }
        const uint64_t nks = (len + shift + B - 1) / B;
        const uint64_t n = group_items(nks);
        const bool al = aligned4(in) && aligned4(out);
        auto f = inc32 ? (al ? k_ctr<C, true, true> : k_ctr<C, true, false>)
                       : (al ? k_ctr<C, false, true> : k_ctr<C, false, false>);
        const cudaError_t e = launch<C>(f, n, key_bytes<C>(), sh, s, ks, w, shift, in, out, len, nks, n);
        std::memset(c, 0, sizeof c);
        std::memset(&w, 0, sizeof w);
        return e;
    }

    static size_t cbc_dec_scratch_bytes(uint64_t nblocks) {
        return (size_t)C::kBlock * ((nblocks + C::kBatch - 1) / C::kBatch + 1);
    }

    static cudaError_t cbc_decrypt(const uint32_t* ks, const uint8_t* iv, const uint8_t* in, uint8_t* out,
                                   uint64_t nblocks, void* scratch, const LaunchShape& sh, cudaStream_t s) {
        if (nblocks == 0) return cudaSuccess;
        const uint64_t n = (nblocks + C::kBatch - 1) / C::kBatch;
        bc_u32* chain = static_cast<bc_u32*>(scratch);
        Block16 v = load_words(iv, C::kBlock, false);
        k_cbc_chains<C><<<(unsigned)((n + 255) / 256), 256, 0, s>>>(v, in, chain, n);
        std::memset(&v, 0, sizeof v);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        // Whole tiles staged (aligned data), the rest item by item.
        uint64_t i0 = 0;
        if (aligned_to(in, C::kBlock) && aligned_to(out, C::kBlock) && nblocks >= kGroup) {
            const uint64_t ntiles = nblocks / kGroup;
            e = launch_staged<C>(k_cbc_dec_tiles<C>, ntiles, sh, s, ks, in, out, nblocks, (const bc_u32*)chain);
            if (e != cudaSuccess) return e;
            i0 = ntiles * kLanes;
            if (i0 == n) return cudaSuccess;
        }
        auto f = aligned4(in) && aligned4(out) ? k_cbc_dec<C, true> : k_cbc_dec<C, false>;
        return launch<C>(f, n - i0, key_bytes<C>(), sh, s, ks, in, out, nblocks, (const bc_u32*)chain, i0, n);
    }

    static uint64_t xts_groups(uint64_t full_blocks) { return (full_blocks + kGroup - 1) / kGroup; }

    static size_t xts_scratch_bytes(uint64_t nunits, uint64_t full_blocks) {
        const uint64_t groups = xts_groups(full_blocks);
        return (size_t)(16 * nunits + (groups > 1 ? 16 * nunits * groups : 0));
    }

    static cudaError_t xts(bool enc, const uint32_t* ks1, const uint32_t* ks2, const uint8_t tweak0[16],
                           const uint8_t* in, uint8_t* out, uint64_t unit_bytes, uint64_t nunits,
                           uint64_t full_blocks, uint64_t last_blocks, void* scratch, const LaunchShape& sh,
                           cudaStream_t s) {
        if (nunits == 0 || full_blocks == 0) return cudaSuccess;
        uint64_t* unit_tw = static_cast<uint64_t*>(scratch);
        k_xts_tweak_list<<<grid_for(nunits, sh), kThreads, 0, s>>>(bc_load_le64(tweak0), bc_load_le64(tweak0 + 8),
                                                                   unit_tw, nunits);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        e = ecb(true, ks2, reinterpret_cast<const uint8_t*>(unit_tw), reinterpret_cast<uint8_t*>(unit_tw), nunits,
                sh, s);
        if (e != cudaSuccess) return e;
        const uint64_t groups = xts_groups(full_blocks);
        const uint64_t* tw = unit_tw;
        if (groups > 1) {
            uint64_t* group_tw = unit_tw + 2 * nunits;
            const uint64_t runs = nunits * ((groups + kGroupsPerThread - 1) / kGroupsPerThread);
            k_xts_group_tweaks<<<grid_for(runs, sh), kThreads, 0, s>>>(unit_tw, group_tw, nunits, groups, kGroup);
            e = cudaGetLastError();
            if (e != cudaSuccess) return e;
            tw = group_tw;
        }
        // Stride 32 (coalesced) for aligned data whose units fill their groups (or nearly:
        // at most one group in nine partly empty); interleaved items for units of 2 to 32
        // whole batches (4 KiB units: 8 items a unit, each load of a warp four runs of
        // 128 bytes, and no staging: the loads go out before the core, as ECB's);
        // else consecutive blocks.
        const bool al = aligned4(in) && aligned4(out) && unit_bytes % 4 == 0;
        const bool wide = al && (full_blocks % kGroup == 0 || full_blocks >= 8 * kGroup);
        const uint64_t batches = full_blocks / C::kBatch;
        const bool interleaved = sh.xts_layout != 1 && !wide && al && full_blocks % C::kBatch == 0 && batches > 1 &&
                                 batches < kLanes;
        // layout 2: interleaved items whose blocks pass through shared memory (16-byte aligned)
        const bool through_smem = interleaved && sh.xts_layout == 2 && aligned_to(in, 16) && aligned_to(out, 16) &&
                                  unit_bytes % 16 == 0;
        const unsigned stride = wide ? kLanes : interleaved ? (unsigned)batches : 1;
        const uint64_t per_unit = wide ? groups * kLanes : (full_blocks + C::kBatch - 1) / C::kBatch;
        const uint64_t n = nunits * per_unit;
        // Units of one batch back to back: whole tiles staged, the rest (and a short
        // last unit) item by item.
        uint64_t i0 = 0;
        if (!wide && !interleaved && aligned_to(in, 16) && aligned_to(out, 16) && unit_bytes == 16 * full_blocks &&
            full_blocks % C::kBatch == 0 && full_blocks <= kGroup) {
            const uint64_t units = last_blocks == full_blocks ? nunits : nunits - 1;
            const uint64_t ntiles = units * per_unit / kLanes;
            if (ntiles > 0) {
                e = enc ? launch_staged<C>(k_xts_tiles<C, true>, ntiles, sh, s, ks1, in, out, full_blocks,
                                           (const uint64_t*)tw, per_unit)
                        : launch_staged<C>(k_xts_tiles<C, false>, ntiles, sh, s, ks1, in, out, full_blocks,
                                           (const uint64_t*)tw, per_unit);
                if (e != cudaSuccess) return e;
                i0 = ntiles * kLanes;
                if (i0 == n) return cudaSuccess;
            }
        }
        auto f = enc ? (al ? k_xts<C, true, true> : k_xts<C, true, false>)
                     : (al ? k_xts<C, false, true> : k_xts<C, false, false>);
        if (through_smem) f = enc ? &k_xts<C, true, true, true> : &k_xts<C, false, true, true>;
        return launch<C>(f, n - i0, xts_tweak_bytes<C>() + key_bytes<C>(), sh, s, ks1, in, out, unit_bytes, nunits,
                         full_blocks, last_blocks, (const uint64_t*)tw, groups, stride, per_unit, i0, n);
    }

    static const void* xts_kernel(bool enc, bool al) {
        if (enc) return al ? (const void*)k_xts<C, true, true> : (const void*)k_xts<C, true, false>;
        return al ? (const void*)k_xts<C, false, true> : (const void*)k_xts<C, false, false>;
    }

    static cudaError_t resources(const char* what, int* regs, int* local_bytes) {
        if (what == nullptr) return cudaErrorInvalidValue;
        const size_t wl = std::strlen(what);
        const bool un = wl > 2 && std::strcmp(what + wl - 2, "-u") == 0;
        const size_t base = un ? wl - 2 : wl;
        auto is = [&](const char* n) { return std::strlen(n) == base && std::strncmp(what, n, base) == 0; };
        const void* f = nullptr;
        if (is("ecb")) f = un ? (const void*)k_ecb<C, true, false> : (const void*)k_ecb<C, true, true>;
        else if (is("ecb-dec")) f = un ? (const void*)k_ecb<C, false, false> : (const void*)k_ecb<C, false, true>;
        else if (is("ctr")) f = un ? (const void*)k_ctr<C, false, false> : (const void*)k_ctr<C, false, true>;
        else if (is("ctr32")) f = un ? (const void*)k_ctr<C, true, false> : (const void*)k_ctr<C, true, true>;
        else if (is("cbc-dec")) f = un ? (const void*)k_cbc_dec<C, false> : (const void*)k_cbc_dec<C, true>;
        else if (is("xts")) f = XtsOf<C>::kernel(true, !un);
        else if (is("xts-dec")) f = XtsOf<C>::kernel(false, !un);
        else if (is("ctr-tiles")) f = (const void*)k_ctr_tiles<C, false>;
        else if (is("cbc-dec-tiles")) f = (const void*)k_cbc_dec_tiles<C>;
        else if (is("xts-tiles")) f = XtsOf<C>::tiles_kernel();
        if (!f) return cudaErrorInvalidValue;
        cudaFuncAttributes a;
        const cudaError_t e = cudaFuncGetAttributes(&a, f);
        if (e != cudaSuccess) return e;
        if (regs) *regs = a.numRegs;
        if (local_bytes) *local_bytes = (int)a.localSizeBytes;
        return cudaSuccess;
    }
};

// XTS exists for 16-byte blocks only.
template <class C, bool Wide>
struct XtsOf {
    static const void* kernel(bool enc, bool al) { return Launch<C>::xts_kernel(enc, al); }
    static const void* tiles_kernel() { return (const void*)k_xts_tiles<C, true>; }
    static constexpr size_t (*scratch)(uint64_t, uint64_t) = &Launch<C>::xts_scratch_bytes;
    static constexpr cudaError_t (*launch)(bool, const uint32_t*, const uint32_t*, const uint8_t*, const uint8_t*,
                                           uint8_t*, uint64_t, uint64_t, uint64_t, uint64_t, void*,
                                           const LaunchShape&, cudaStream_t) = &Launch<C>::xts;
};
template <class C>
struct XtsOf<C, false> {
    static const void* kernel(bool, bool) { return nullptr; }
    static const void* tiles_kernel() { return nullptr; }
    static constexpr size_t (*scratch)(uint64_t, uint64_t) = nullptr;
    static constexpr cudaError_t (*launch)(bool, const uint32_t*, const uint32_t*, const uint8_t*, const uint8_t*,
                                           uint8_t*, uint64_t, uint64_t, uint64_t, uint64_t, void*,
                                           const LaunchShape&, cudaStream_t) = nullptr;
};

template <class C>
BlockKernels block_row(const char* name) {
    return BlockKernels{name,
                        (unsigned)C::kBlock,
                        (unsigned)C::kBatch,
                        (size_t)C::kKsWords,
                        &Launch<C>::ecb,
                        &Launch<C>::ctr,
                        &Launch<C>::cbc_dec_scratch_bytes,
                        &Launch<C>::cbc_decrypt,
                        XtsOf<C>::scratch,
                        XtsOf<C>::launch,
                        &Launch<C>::resources};
}

}  // namespace

}  // namespace cuda
}  // namespace bc

// ---------------------------------------------------------------- one cipher

// Included by the generated block_kernels_<cipher>.cu, once per cipher folder, after
// which the folder's device.inc includes the core's dialect header (at file scope)
// and names the cipher: the traits from the core's names, and the row of the launch
// table (block_kernels.cpp collects the rows).
// BC_DEFINED_AS_ONE(M): 1 when the macro M is defined as 1, else 0 (M undefined stays an
// identifier, which pastes into a name with no expansion, so the selector sees no comma).
#define BC_ONE_IF_COMMA_(a, b, ...) b
#define BC_DEFINED_PROBE_1 ~, 1
#define BC_DEFINED_AS_ONE_(probe) BC_ONE_IF_COMMA_(probe, 0, ~)
#define BC_DEFINED_AS_ONE_2(m) BC_DEFINED_AS_ONE_(BC_DEFINED_PROBE_##m)
#define BC_DEFINED_AS_ONE(m) BC_DEFINED_AS_ONE_2(m)

#define BC_DEVICE_BLOCK_CIPHER(id, ID)                                                            \
    namespace bc {                                                                                \
    namespace cuda {                                                                              \
    namespace {                                                                                   \
    struct DeviceCipher_##id {                                                                    \
        static constexpr int kBlock = BC_##ID##_BLOCK_BYTES;                                      \
        static constexpr int kBatch = BC_##ID##_BATCH;                                            \
        static constexpr size_t kKsWords = BC_##ID##_KS_WORDS;                                    \
        static constexpr bool kKsShared = BC_DEFINED_AS_ONE(BC_##ID##_KS_SHARED);                 \
        static constexpr int kThreads = kKsShared ? kTableThreads : kPlainThreads;               \
        static constexpr bool kCtrPrefetch = BC_DEFINED_AS_ONE(BC_##ID##_CTR_PREFETCH);           \
        /* BC_<ID>_XTS_3_BLOCKS_PER_SM: k_xts held to three blocks an SM (170 registers) */     \
        static constexpr int kXtsMinBlocks = BC_DEFINED_AS_ONE(BC_##ID##_XTS_3_BLOCKS_PER_SM) ? 3 : 1; \
        static_assert(kBlock == 8 || kBlock == 16, "a block cipher has 8- or 16-byte blocks");    \
        __host__ __device__ __forceinline__ static void encrypt(const bc_u32* ks, bc_u32* w) {    \
            bc_##id##_encrypt_batch(ks, w);                                                       \
        }                                                                                         \
        __host__ __device__ __forceinline__ static void decrypt(const bc_u32* ks, bc_u32* w) {    \
            bc_##id##_decrypt_batch(ks, w);                                                       \
        }                                                                                         \
    };                                                                                            \
    }                                                                                             \
    const BlockKernels* block_kernels_row_##id() {                                                \
        static const BlockKernels row = block_row<DeviceCipher_##id>(#id);                       \
        return &row;                                                                              \
    }                                                                                             \
    }                                                                                             \
    }
