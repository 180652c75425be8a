// The generic block-cipher kernels of the CUDA backend: ECB, CTR, CBC decryption
// and XTS written once (src/modes/block/block_modes.h) and instantiated for every
// cipher folder with a device.inc (generated/bc_cipher_devices.inc).
//
// Instantiation. The mode header is included once per block size inside a class
// template (Modes16<C>, Modes8<C>), its BC_BM_* macros naming the members of a
// cipher's traits struct C; BC_DEVICE_BLOCK_CIPHER(id, ID) makes that struct from
// the core's naming convention (bc_<id>_encrypt_batch, BC_<ID>_BATCH, ...), and a
// second pass over the cipher list makes the launch table, one row per cipher.
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
#include "backends/cuda/block_kernels.h"

#include <strings.h>

#include <cstring>
#include <type_traits>

#include "dialect/bc_dialect.h"
#include "modes/block/xts_tweak.h"

namespace bc {
namespace cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kLanes = 32;
constexpr unsigned kGroupsPerThread = 8;  // XTS group tweaks walked by one thread

// ---------------------------------------------------------------- the mode header per cipher

// Members: bm_load, bm_store, ecb_item, ctr_item, cbc_dec_item, xts_item (16-byte blocks).
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

template <class C, bool Enc, bool Aligned>
__global__ void __launch_bounds__(kThreads) k_ecb(const bc_u32* __restrict__ ks, const uint8_t* in, uint8_t* out,
                                                  uint64_t nblocks, uint64_t nitems) {
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        const uint64_t first = group_first<C>(i);
        if (first >= nblocks) continue;
        Modes<C>().ecb_item(ks, in, out, nblocks, first, kLanes, Enc, Aligned);
    }
}

template <class C, bool Inc32, bool Aligned>
__global__ void __launch_bounds__(kThreads) k_ctr(const bc_u32* __restrict__ ks, Block16 ctr, unsigned shift,
                                                  const uint8_t* in, uint8_t* out, uint64_t len, uint64_t nks,
                                                  uint64_t nitems) {
    bc_u32 c[C::kBlock / 4];
#pragma unroll
    for (int q = 0; q < C::kBlock / 4; ++q) c[q] = ctr.w[q];
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        const uint64_t first = group_first<C>(i);
        if (first >= nks) continue;
        Modes<C>().ctr_item(ks, c, Inc32, shift, in, out, len, first, kLanes, Aligned);
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
__global__ void __launch_bounds__(kThreads) k_cbc_dec(const bc_u32* __restrict__ ks, const uint8_t* in, uint8_t* out,
                                                      uint64_t nblocks, const bc_u32* chain, uint64_t nitems) {
    constexpr int BW = C::kBlock / 4;
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
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

// XTS over whole blocks: item j of unit u. Stride 32: lane j % 32 of group j / 32;
// stride 1: blocks j * batch .. of the unit. tweaks: each unit's group tweaks (groups a unit).
template <class C, bool Enc, bool Aligned>
__global__ void __launch_bounds__(kThreads) k_xts(const bc_u32* __restrict__ ks, const uint8_t* in, uint8_t* out,
                                                  uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks,
                                                  uint64_t last_blocks, const uint64_t* tweaks, uint64_t groups,
                                                  unsigned stride, uint64_t items_per_unit, uint64_t nitems) {
    constexpr uint64_t G = (uint64_t)kLanes * C::kBatch;
    for (uint64_t i = item0(); i < nitems; i += item_step()) {
        const uint64_t u = i / items_per_unit, j = i % items_per_unit;
        const uint64_t nb = u + 1 == nunits ? last_blocks : full_blocks;
        uint64_t first, g;
        unsigned r;  // first = g * G + r
        if (stride == kLanes) {
            g = j / kLanes;
            r = (unsigned)(j % kLanes);
            first = g * G + r;
        } else {
            first = j * C::kBatch;
            g = first / G;
            r = (unsigned)(first % G);
        }
        if (first >= nb) continue;
        uint64_t lo = tweaks[2 * (u * groups + g)], hi = tweaks[2 * (u * groups + g) + 1];
        for (; r >= 32; r -= 32) bc_xts_mul_xs(&lo, &hi, 32);
        if (r) bc_xts_mul_xs(&lo, &hi, r);
        Modes<C>().xts_item(ks, lo, hi, in + u * unit_bytes, out + u * unit_bytes, nb, first, stride, Enc, Aligned);
    }
}

// ---------------------------------------------------------------- launchers

int grid_for(uint64_t items, const LaunchShape& sh) {
    uint64_t blocks = (items + kThreads - 1) / kThreads;
    const uint64_t cap = (uint64_t)(sh.sms > 0 ? sh.sms : 1) * (sh.blocks_per_sm > 0 ? sh.blocks_per_sm : 1);  // tuning entry
    if (blocks > cap) blocks = cap;
    return blocks == 0 ? 1 : (int)blocks;
}

bool aligned4(const void* p) { return ((uintptr_t)p & 3u) == 0; }

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
        const int grid = grid_for(n, sh);
        const bool al = aligned4(in) && aligned4(out);
        if (enc) {
            if (al) k_ecb<C, true, true><<<grid, kThreads, 0, s>>>(ks, in, out, nblocks, n);
            else k_ecb<C, true, false><<<grid, kThreads, 0, s>>>(ks, in, out, nblocks, n);
        } else {
            if (al) k_ecb<C, false, true><<<grid, kThreads, 0, s>>>(ks, in, out, nblocks, n);
            else k_ecb<C, false, false><<<grid, kThreads, 0, s>>>(ks, in, out, nblocks, n);
        }
        return cudaGetLastError();
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
        const uint64_t nks = (len + shift + B - 1) / B;
        const uint64_t n = group_items(nks);
        const int grid = grid_for(n, sh);
        const bool al = aligned4(in) && aligned4(out);
        if (inc32) {
            if (al) k_ctr<C, true, true><<<grid, kThreads, 0, s>>>(ks, w, shift, in, out, len, nks, n);
            else k_ctr<C, true, false><<<grid, kThreads, 0, s>>>(ks, w, shift, in, out, len, nks, n);
        } else {
            if (al) k_ctr<C, false, true><<<grid, kThreads, 0, s>>>(ks, w, shift, in, out, len, nks, n);
            else k_ctr<C, false, false><<<grid, kThreads, 0, s>>>(ks, w, shift, in, out, len, nks, n);
        }
        std::memset(c, 0, sizeof c);
        std::memset(&w, 0, sizeof w);
        return cudaGetLastError();
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
        const int grid = grid_for(n, sh);
        if (aligned4(in) && aligned4(out)) k_cbc_dec<C, true><<<grid, kThreads, 0, s>>>(ks, in, out, nblocks, chain, n);
        else k_cbc_dec<C, false><<<grid, kThreads, 0, s>>>(ks, in, out, nblocks, chain, n);
        return cudaGetLastError();
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
        // at most one group in nine partly empty); else consecutive blocks.
        const bool al = aligned4(in) && aligned4(out) && unit_bytes % 4 == 0;
        const bool wide = al && (full_blocks % kGroup == 0 || full_blocks >= 8 * kGroup);
        const unsigned stride = wide ? kLanes : 1;
        const uint64_t per_unit = wide ? groups * kLanes : (full_blocks + C::kBatch - 1) / C::kBatch;
        const uint64_t n = nunits * per_unit;
        const int grid = grid_for(n, sh);
#define BC_XTS_LAUNCH(E, A)                                                                                        \
    k_xts<C, E, A><<<grid, kThreads, 0, s>>>(ks1, in, out, unit_bytes, nunits, full_blocks, last_blocks, tw, groups, \
                                             stride, per_unit, n)
        if (enc) {
            if (al) BC_XTS_LAUNCH(true, true);
            else BC_XTS_LAUNCH(true, false);
        } else {
            if (al) BC_XTS_LAUNCH(false, true);
            else BC_XTS_LAUNCH(false, false);
        }
#undef BC_XTS_LAUNCH
        return cudaGetLastError();
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
    static constexpr size_t (*scratch)(uint64_t, uint64_t) = &Launch<C>::xts_scratch_bytes;
    static constexpr cudaError_t (*launch)(bool, const uint32_t*, const uint32_t*, const uint8_t*, const uint8_t*,
                                           uint8_t*, uint64_t, uint64_t, uint64_t, uint64_t, void*,
                                           const LaunchShape&, cudaStream_t) = &Launch<C>::xts;
};
template <class C>
struct XtsOf<C, false> {
    static const void* kernel(bool, bool) { return nullptr; }
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

// ---------------------------------------------------------------- the ciphers

// First pass: each cipher's traits, from its core's names (the folder's device.inc
// includes the core's dialect header, at file scope, then names the cipher).
#define BC_DEVICE_BLOCK_CIPHER(id, ID)                                                            \
    namespace bc {                                                                                \
    namespace cuda {                                                                              \
    namespace {                                                                                   \
    struct DeviceCipher_##id {                                                                    \
        static constexpr int kBlock = BC_##ID##_BLOCK_BYTES;                                      \
        static constexpr int kBatch = BC_##ID##_BATCH;                                            \
        static constexpr size_t kKsWords = BC_##ID##_KS_WORDS;                                    \
        static_assert(kBlock == 8 || kBlock == 16, "a block cipher has 8- or 16-byte blocks");    \
        __host__ __device__ __forceinline__ static void encrypt(const bc_u32* ks, bc_u32* w) {    \
            bc_##id##_encrypt_batch(ks, w);                                                       \
        }                                                                                         \
        __host__ __device__ __forceinline__ static void decrypt(const bc_u32* ks, bc_u32* w) {    \
            bc_##id##_decrypt_batch(ks, w);                                                       \
        }                                                                                         \
    };                                                                                            \
    }                                                                                             \
    }                                                                                             \
    }
#include "bc_cipher_devices.inc"
#undef BC_DEVICE_BLOCK_CIPHER

namespace bc {
namespace cuda {
namespace {
// Second pass: the launch table, one row per cipher, keyed by the cipher's name.
const BlockKernels kRows[] = {
#define BC_DEVICE_BLOCK_CIPHER(id, ID) block_row<DeviceCipher_##id>(#id),
#include "bc_cipher_devices.inc"
#undef BC_DEVICE_BLOCK_CIPHER
};
}  // namespace

const BlockKernels* find_block_kernels(const char* name) {
    if (name == nullptr) return nullptr;
    for (const BlockKernels& r : kRows)
        if (strcasecmp(r.name, name) == 0) return &r;
    return nullptr;
}

const BlockKernels* block_kernels_at(size_t i) { return i < sizeof kRows / sizeof kRows[0] ? &kRows[i] : nullptr; }

}  // namespace cuda
}  // namespace bc
