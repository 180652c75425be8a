// The device side that the CUDA AES mode kernels share (aes_ecb.cu, aes_ctr.cu, aes_cbc.cu,
// aes_xts.cu) over the dialect cores (src/cores/aes/aes_bitsliced.h, aes_table.h): the key or
// tables in shared memory (Cipher), block loads and stores, a lane's tile, the lane-pair
// rounds, exchanges and tiles, and the launchers' grid sizing and variant selection
// (aes_variants.cu).
//
// Work shape, every mode: a warp owns a tile of 32 x 32 blocks; lane l holds
// blocks tile*1024 + 32*j + l for j = 0..31, so each of its 32 loads is
// coalesced across the warp (512 contiguous bytes). The thread keeps its 32
// blocks as s[32*w + j] = little-endian word w of block j, which is exactly the
// input of the bitsliced transposition; the table variant encrypts the same 32
// blocks one by one. XTS is the exception: a thread owns 32 consecutive blocks
// of one data unit, so that its tweaks are successive doublings.
// Grids are persistent (grid-stride over tiles) so the per-block set-up (round
// keys, or the replicated tables, into shared memory) is paid a few times per SM.
//
// Everything device-side here has internal linkage (an unnamed namespace): each mode's file
// compiles its own copy of what it uses, as one translation unit would.
#pragma once

#include "backends/cuda/cuda_kernels.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "cores/aes/aes_bitsliced.h"
#include "cores/aes/aes_table.h"

namespace bc {
namespace cuda {
namespace {

constexpr int kThreads = 128;          // 4 warps per block
constexpr int kTile = 1024;            // blocks per warp tile
constexpr int kTableCopies = 32;

// ---------------------------------------------------------------- shared set-up

// Shared memory words a kernel needs: the masks (bitsliced) or the replicated
// tables plus the little-endian round keys (table).
__host__ __device__ constexpr int smem_words(bool table, bool decrypt) {
    return table ? (256 * kTableCopies + (decrypt ? 64 * kTableCopies : 0) + 60) : 15 * 128;
}

// The masks of every round in shared memory, one (round, column) or one word a thread: the
// key's as they are, or the equivalent inverse cipher's (bc_aes_bs_dec_fold_column, constant
// time). The caller synchronizes.
__device__ __forceinline__ void load_masks(uint32_t* sm, const DevAesKey& k) {
    for (int i = threadIdx.x; i < (k.rounds + 1) * 128; i += blockDim.x) sm[i] = k.bs[i];
}
__device__ __forceinline__ void load_dec_masks(uint32_t* sm, const DevAesKey& k) {
    for (int i = threadIdx.x; i < 4 * (k.rounds + 1); i += blockDim.x)
        bc_aes_bs_dec_fold_column(k.bs, k.rounds, i >> 2, i & 3, sm);
}

template <bool kTable, bool kDecrypt>
struct Cipher;

template <bool kDecrypt>
struct Cipher<false, kDecrypt> {
    const uint32_t* rk;
    int rounds;
    bool folded;     // encryption with folded masks (variants 1, 2: bc_aes_bs_encrypt_fk)
    bool ctr_slice;  // CTR: counters straight into the sliced state (variants 2, 3)
    bool compact;    // compact round loop, plain masks (variant 3: bc_aes_bs_encrypt_cl / decrypt_cl;
                     // variants 4 and 5: encryption only)
    bool dec_folded; // decryption with the equivalent inverse cipher's masks (bc_aes_bs_decrypt_fk):
                     // every variant but plain and cl, which keep the straight inverse cipher
    __device__ Cipher(uint32_t* sm, const DevAesKey& k, const DevAesTables&)
        : rk(sm),
          rounds(k.rounds),
          folded(!kDecrypt && (k.bs_variant == 1 || k.bs_variant == 2)),
          ctr_slice(!kDecrypt && k.bs_variant >= 2),
          compact(k.bs_variant == 3 || (k.bs_variant >= 4 && !kDecrypt)),
          dec_folded(kDecrypt && k.bs_variant != 0 && k.bs_variant != 3) {
        if (folded) {
            // one (round, column) per thread: byte-wise InvMixColumns, constant time
            for (int i = threadIdx.x; i < 4 * (k.rounds + 1); i += blockDim.x)
                bc_aes_bs_fold_column(k.bs, k.rounds, i >> 2, i & 3, sm);
        } else if (dec_folded) {
            load_dec_masks(sm, k);
        } else {
            load_masks(sm, k);
        }
    }
    // s bitsliced, in place
    __device__ __forceinline__ void rounds_of(uint32_t* s) const {
        if (kDecrypt) {
            if (compact)
                bc_aes_bs_decrypt_cl(s, rk, rounds);
            else if (dec_folded)
                bc_aes_bs_decrypt_fk(s, rk, rounds);
            else
                bc_aes_bs_decrypt(s, rk, rounds);
        } else if (folded) {
            bc_aes_bs_encrypt_fk(s, rk, rounds);
        } else if (compact) {
            bc_aes_bs_encrypt_cl(s, rk, rounds);
        } else {
            bc_aes_bs_encrypt(s, rk, rounds);
        }
    }
    // s[32*w + j] = word w of block j, in and out
    __device__ __forceinline__ void run(uint32_t* s) const {
        bc_aes_bs_slice(s);
        rounds_of(s);
        bc_aes_bs_unslice(s);
    }
    // Whether run_inner leaves the first and the last AddRoundKey to the caller (the folded
    // decryption core: XTS XORs them in with the tweaks, in the same 3-input LOP3).
    __device__ __forceinline__ bool edge_keys_outside() const { return kDecrypt && dec_folded && !compact; }
    __device__ __forceinline__ void run_inner(uint32_t* s) const {
        bc_aes_bs_slice(s);
        if (edge_keys_outside())
            bc_aes_bs_decrypt_fk_edges(s, rk, rounds, 0);
        else
            rounds_of(s);
        bc_aes_bs_unslice(s);
    }
    // s already bitsliced (bc_aes_bs_ctr_slice); encryption only
    __device__ __forceinline__ void run_sliced(uint32_t* s) const {
        rounds_of(s);
        bc_aes_bs_unslice(s);
    }
};

template <bool kDecrypt>
struct Cipher<true, kDecrypt> {
    const uint32_t* tab;  // te or td, 32 copies
    const uint32_t* isb;  // decrypt: inverse S-box, 32 copies
    const uint32_t* rk;   // little-endian round keys
    int rounds;
    __device__ Cipher(uint32_t* sm, const DevAesKey& k, const DevAesTables& t) : rounds(k.rounds) {
        const uint32_t* src = kDecrypt ? t.td : t.te;
        for (int i = threadIdx.x; i < 256 * kTableCopies; i += blockDim.x) sm[i] = src[i / kTableCopies];
        uint32_t* isb_s = sm + 256 * kTableCopies;
        if (kDecrypt)
            for (int i = threadIdx.x; i < 64 * kTableCopies; i += blockDim.x) isb_s[i] = t.isb[i / kTableCopies];
        uint32_t* rk_s = sm + 256 * kTableCopies + (kDecrypt ? 64 * kTableCopies : 0);
        const uint32_t* ks = kDecrypt ? k.le_dec : k.le_enc;
        for (int i = threadIdx.x; i < 4 * (k.rounds + 1); i += blockDim.x) rk_s[i] = ks[i];
        tab = sm;
        isb = isb_s;
        rk = rk_s;
    }
    __device__ __forceinline__ bool edge_keys_outside() const { return false; }
    __device__ __forceinline__ void run_inner(uint32_t* s) const { run(s); }
    __device__ __forceinline__ void run(uint32_t* s) const {
        const unsigned lane = threadIdx.x & 31u;
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            bc_u32 st[4] = {s[j], s[32 + j], s[64 + j], s[96 + j]};
            if (kDecrypt)
                bc_aes_table_decrypt(tab, isb, kTableCopies, lane, rk, rounds, st);
            else
                bc_aes_table_encrypt(tab, kTableCopies, lane, rk, rounds, st);
            s[j] = st[0];
            s[32 + j] = st[1];
            s[64 + j] = st[2];
            s[96 + j] = st[3];
        }
    }
};

// ---------------------------------------------------------------- loads, stores

// Block at byte position pos (may be negative or run past len: those bytes read
// as zero / are not written). kFast: the buffer is 16-byte aligned and every
// pos is a multiple of 16, so whole blocks go as one 128-bit access.
// kGuard = false: the caller knows the block is inside [0, len) (a whole tile), so no
// byte-wise fallback is compiled in: inline next to each access, the fallbacks spread a tile's
// hot loads and stores over tens of KB of code and the warps stall on instruction fetch.
using Guarded = std::true_type;
using Unguarded = std::false_type;

template <bool kFast, bool kGuard = true>
__device__ __forceinline__ void load_block(const uint8_t* p, int64_t pos, uint64_t len, uint32_t w[4]) {
    constexpr bool kChecked = kGuard || !kFast;  // unaligned data keeps the byte-wise path
    if (kFast && (!kChecked || (pos >= 0 && (uint64_t)pos + 16 <= len))) {
        const uint4 v = __ldg(reinterpret_cast<const uint4*>(p + pos));
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
        return;
    }
    if constexpr (kChecked) {
        for (int k = 0; k < 4; ++k) {
            uint32_t x = 0;
            for (int b = 0; b < 4; ++b) {
                int64_t q = pos + 4 * k + b;
                if (q >= 0 && (uint64_t)q < len) x |= (uint32_t)p[q] << (8 * b);
            }
            w[k] = x;
        }
    }
}
template <bool kFast, bool kGuard = true>
__device__ __forceinline__ void store_block(uint8_t* p, int64_t pos, uint64_t len, const uint32_t w[4]) {
    constexpr bool kChecked = kGuard || !kFast;  // unaligned data keeps the byte-wise path
    if (kFast && (!kChecked || (pos >= 0 && (uint64_t)pos + 16 <= len))) {
        *reinterpret_cast<uint4*>(p + pos) = make_uint4(w[0], w[1], w[2], w[3]);
        return;
    }
    if constexpr (kChecked) {
        for (int k = 0; k < 4; ++k)
            for (int b = 0; b < 4; ++b) {
                int64_t q = pos + 4 * k + b;
                if (q >= 0 && (uint64_t)q < len) p[q] = (uint8_t)(w[k] >> (8 * b));
            }
    }
}

__device__ __forceinline__ uint64_t global_warp() {
    return ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
}
__device__ __forceinline__ uint64_t total_warps() { return ((uint64_t)gridDim.x * blockDim.x) >> 5; }

// ---------------------------------------------------------------- a lane's tile (ECB, CBC, XTS)

// A lane's 32 blocks of a tile (base + 32 j) as s[32 w + j] = word w of block j, and back;
// a whole tile (warp-uniform) without bounds checks.
template <bool kFast>
__device__ __forceinline__ void tile_load(const uint8_t* in, uint64_t base, uint64_t len, bool whole, uint32_t* s) {
    auto load_all = [&](auto guard) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            uint32_t w[4];
            load_block<kFast, decltype(guard)::value>(in, (int64_t)(16 * (base + 32 * j)), len, w);
            s[j] = w[0]; s[32 + j] = w[1]; s[64 + j] = w[2]; s[96 + j] = w[3];
        }
    };
    if (whole) load_all(Unguarded{}); else load_all(Guarded{});
}

template <bool kFast>
__device__ __forceinline__ void tile_store(uint8_t* out, uint64_t base, uint64_t len, bool whole, const uint32_t* s) {
    auto store_all = [&](auto guard) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            uint32_t w[4] = {s[j], s[32 + j], s[64 + j], s[96 + j]};
            store_block<kFast, decltype(guard)::value>(out, (int64_t)(16 * (base + 32 * j)), len, w);
        }
    };
    if (whole) store_all(Unguarded{}); else store_all(Guarded{});
}

// ---------------------------------------------------------------- lane pairs (variant "pair" on)

// Lanes l and l ^ 16 share a batch of 32 blocks, each keeping half its bytes (64 words of
// state instead of 128, bc_aes_bs_pair_* in aes_bitsliced.h), so the kernel fits 128
// registers and runs 4 warps per scheduler instead of 2; ShiftRows trades 32 words per
// round with the partner through a shuffle. A warp tile is 16 pairs x 32 blocks; pair k's
// block j is tile * 512 + k + 16 j, so every 8-byte access of the warp covers 256
// contiguous bytes. Aligned data only (launch_ctr, launch_ecb), any length.
constexpr int kPairTile = 512;
constexpr int kPairResidentPerSm = 4;  // blocks of kThreads at 128 registers (__launch_bounds__)

// Half a block (8 bytes) at pos; kGuard as for load_block.
template <bool kGuard = true>
__device__ __forceinline__ void load_half(const uint8_t* p, uint64_t pos, uint64_t len, uint32_t w[2]) {
    if (!kGuard || pos + 8 <= len) {
        const uint2 v = __ldg(reinterpret_cast<const uint2*>(p + pos));
        w[0] = v.x; w[1] = v.y;
        return;
    }
    if constexpr (kGuard) {
        w[0] = w[1] = 0;
        for (int b = 0; b < 8; ++b)
            if (pos + b < len) w[b >> 2] |= (uint32_t)p[pos + b] << (8 * (b & 3));
    }
}

template <bool kGuard = true>
__device__ __forceinline__ void store_half(uint8_t* p, uint64_t pos, uint64_t len, const uint32_t w[2]) {
    if (!kGuard || pos + 8 <= len) {
        *reinterpret_cast<uint2*>(p + pos) = make_uint2(w[0], w[1]);
        return;
    }
    if constexpr (kGuard) {
        for (int b = 0; b < 8; ++b)
            if (pos + b < len) p[pos + b] = (uint8_t)(w[b >> 2] >> (8 * (b & 3)));
    }
}

// One round's exchange: recv[8i + b] = the partner's bit b of byte BC_AES_BS_PAIR_SENT(i)
// (ShiftRows), or with kInv of byte BC_AES_BS_PAIR_INV_SENT(i) (InvShiftRows).
template <bool kInv = false>
__device__ __forceinline__ void pair_exchange(const uint32_t* s, uint32_t* recv) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int b = 0; b < 8; ++b) {
            const int q = kInv ? BC_AES_BS_PAIR_INV_SENT(i) : BC_AES_BS_PAIR_SENT(i);
            recv[8 * i + b] = __shfl_xor_sync(0xffffffffu, s[8 * q + b], 16);
        }
}

// Rounds r0..rounds of a half state after AddRoundKey r0 - 1 (rk: the masks in shared memory).
// (The last round folded into the loop, one copy of the S-boxes less, measured 6 % slower.)
__device__ __forceinline__ void pair_rounds(uint32_t* s, const uint32_t* rk, int r0, int rounds, uint32_t h) {
#pragma unroll 1
    for (int r = r0; r < rounds; ++r) {
        uint32_t recv[32];
        bc_aes_bs_pair_sub(s);
        pair_exchange(s, recv);
        bc_aes_bs_pair_mix(s, recv, rk + 128 * r, (int)h);
    }
    uint32_t recv[32];
    bc_aes_bs_pair_sub(s);
    pair_exchange(s, recv);
    bc_aes_bs_pair_last(s, recv, rk + 128 * rounds, (int)h);
}

__device__ __forceinline__ void pair_add_key0(uint32_t* s, const uint32_t* rk, uint32_t h) {
#pragma unroll
    for (int i = 0; i < 64; ++i) s[i] ^= rk[64 * h + i];
}

// Encrypts a half state in place: AddRoundKey 0 and every round.
__device__ __forceinline__ void pair_encrypt(uint32_t* s, const uint32_t* rk, int rounds, uint32_t h) {
    pair_add_key0(s, rk, h);
    pair_rounds(s, rk, 1, rounds, h);
}

// Decrypts a half state in place with the equivalent inverse cipher's masks
// (bc_aes_bs_pair_inv_*): round key Nr, then every round down to round key 0.
__device__ __forceinline__ void pair_decrypt(uint32_t* s, const uint32_t* dk, int rounds, uint32_t h) {
#pragma unroll
    for (int i = 0; i < 64; ++i) s[i] ^= dk[128 * rounds + 64 * h + i];
#pragma unroll 1
    for (int r = rounds - 1; r >= 1; --r) {
        uint32_t recv[32];
        bc_aes_bs_pair_inv_sub(s);
        pair_exchange<true>(s, recv);
        bc_aes_bs_pair_inv_mix(s, recv, dk + 128 * r, (int)h);
    }
    uint32_t recv[32];
    bc_aes_bs_pair_inv_sub(s);
    pair_exchange<true>(s, recv);
    bc_aes_bs_pair_inv_last(s, recv, dk, (int)h);
}

template <bool kDecrypt>
__device__ __forceinline__ void pair_cipher(uint32_t* s, const uint32_t* masks, int rounds, uint32_t h) {
    if constexpr (kDecrypt) pair_decrypt(s, masks, rounds, h); else pair_encrypt(s, masks, rounds, h);
}

template <bool kDecrypt = false>
__device__ __forceinline__ void pair_load_masks(uint32_t* sm, const DevAesKey& k) {
    if constexpr (kDecrypt) load_dec_masks(sm, k); else load_masks(sm, k);
    __syncthreads();
}

// A half state as loaded (word 2h of block j in s[j], word 2h + 1 in s[32 + j]) <-> bitsliced.
__device__ __forceinline__ void pair_slice(uint32_t* s) {
    bc_aes_bs_transpose32(s);
    bc_aes_bs_transpose32(s + 32);
}

// A lane's 32 half blocks (byte offsets pos + 256 j) as loaded: word 2h of block j in s[j],
// word 2h + 1 in s[32 + j]; and back. A whole tile (warp-uniform) goes without bounds checks.
__device__ __forceinline__ void pair_load_tile(const uint8_t* in, uint64_t pos, uint64_t len, bool whole,
                                               uint32_t* s) {
    auto load_all = [&](auto guard) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            uint32_t w[2];
            load_half<decltype(guard)::value>(in, pos + 256 * j, len, w);
            s[j] = w[0];
            s[32 + j] = w[1];
        }
    };
    if (whole) load_all(Unguarded{}); else load_all(Guarded{});
}

__device__ __forceinline__ void pair_store_tile(uint8_t* out, uint64_t pos, uint64_t len, bool whole,
                                                const uint32_t* s) {
    auto store_all = [&](auto guard) {
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            const uint32_t w[2] = {s[j], s[32 + j]};
            store_half<decltype(guard)::value>(out, pos + 256 * j, len, w);
        }
    };
    if (whole) store_all(Unguarded{}); else store_all(Guarded{});
}

// ---------------------------------------------------------------- launch helpers

inline int grid_for_tiles(uint64_t ntiles, const LaunchShape& sh, int per_sm) {
    uint64_t blocks = (ntiles + (kThreads / 32) - 1) / (kThreads / 32);
    uint64_t cap = (uint64_t)sh.sms * per_sm;
    if (blocks > cap) blocks = cap;
    return blocks == 0 ? 1 : (int)blocks;
}

inline bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

// The grids aim for LaunchShape::blocks_per_sm blocks per SM (the tuning entry's; registers
// limit the bitsliced kernels to about 2 resident blocks of 128 threads, the table kernels to a
// few more) and pair_blocks_per_sm for the lane-pair kernels.

#define BC_SMEM(table, dec) (sizeof(uint32_t) * smem_words(table, dec))

}  // namespace

// Variant selection and test hooks (aes_variants.cu), shared by the launchers.
namespace aes_internal {
// k with the variant a launch runs: the hook's (set_aes_bs_variant), else the launch shape's.
DevAesKey with_variant(const DevAesKey& k, const LaunchShape& sh);
// pair-cc's waves of resident blocks (LaunchShape::pair_cc_waves, 1 when out of range).
int pair_cc_waves(const LaunchShape& sh);
bool pair_cc_always();    // set_pair_cc_always
bool cbc_reload_chain();  // set_cbc_reload_chain
// aes_kernel_resources' kernel for `what` among each mode's (nullptr: not that mode's name).
const void* ecb_kernel(const std::string& what, bool table);
const void* ctr_kernel(const std::string& what, bool table);
const void* cbc_kernel(const std::string& what, bool table);
const void* xts_kernel(const std::string& what, bool table);
}  // namespace aes_internal

}  // namespace cuda
}  // namespace bc
