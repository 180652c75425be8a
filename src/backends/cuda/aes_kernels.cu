// AES mode kernels of the CUDA backend over the dialect cores
// (src/cores/aes/aes_bitsliced.h, aes_table.h).
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
#include "backends/cuda/cuda_kernels.h"

#include <cuda_runtime.h>

#include <atomic>
#include <type_traits>
#include <cstdlib>
#include <cstring>
#include <string>

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

// ---------------------------------------------------------------- ECB

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

// ---------------------------------------------------------------- CTR

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

// ---------------------------------------------------------------- CBC decryption

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

// ---------------------------------------------------------------- XTS

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

// ---------------------------------------------------------------- launch helpers

int grid_for_tiles(uint64_t ntiles, const LaunchShape& sh, int per_sm) {
    uint64_t blocks = (ntiles + (kThreads / 32) - 1) / (kThreads / 32);
    uint64_t cap = (uint64_t)sh.sms * per_sm;
    if (blocks > cap) blocks = cap;
    return blocks == 0 ? 1 : (int)blocks;
}

bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

}  // namespace

// ---------------------------------------------------------------- variants

namespace {
std::atomic<int> g_bs_variant{-1};  // -1: the launch shape's
std::atomic<bool> g_pair_cc_always{false};
std::atomic<bool> g_cbc_reload{false};

// The hook's variant, else the launch shape's (the tuning entry's or the context's).
int variant_of(const LaunchShape& sh) {
    const int v = g_bs_variant.load();
    if (v >= 0) return v;
    return sh.aes_variant >= 0 && sh.aes_variant < kAesBsVariants ? sh.aes_variant : kAesBsDefaultVariant;
}

DevAesKey with_variant(const DevAesKey& k, const LaunchShape& sh) {
    DevAesKey c = k;
    c.bs_variant = variant_of(sh);
    return c;
}

// pair-cc's grid in waves of kPairResidentPerSm blocks per SM, each warp taking its tiles in a
// row; the tuning entry says how many waves (H100: one, src/tuning/defaults.cpp).
int pair_cc_waves(const LaunchShape& sh) {
    return sh.pair_cc_waves >= 1 && sh.pair_cc_waves <= tuning::kMaxPairCcWaves ? sh.pair_cc_waves : 1;
}
}  // namespace

void set_pair_cc_always(bool on) { g_pair_cc_always.store(on); }
void set_cbc_reload_chain(bool on) { g_cbc_reload.store(on); }
void set_aes_bs_variant(int v) { g_bs_variant.store(v >= 0 && v < kAesBsVariants ? v : -1); }
int aes_bs_variant() { return variant_of(LaunchShape()); }
const char* aes_bs_variant_name(int v) { return tuning::aes_variant_name(v); }

LaunchShape launch_shape(const tuning::Tuning& aes, int sms) {
    LaunchShape sh;
    sh.sms = sms > 0 ? sms : 1;
    if (aes.kernel.blocks_per_sm > 0) sh.blocks_per_sm = aes.kernel.blocks_per_sm;
    if (aes.pair.blocks_per_sm > 0) sh.pair_blocks_per_sm = aes.pair.blocks_per_sm;
    if (aes.pair.variant > 0) sh.pair_cc_waves = aes.pair.variant;
    sh.aes_variant = aes.kernel.variant;
    sh.ghash_variant = aes.ghash.variant;
    return sh;
}

cudaError_t aes_kernel_resources(const char* what, AesImpl impl, int* regs, int* local_bytes) {
    const bool tab = impl == AesImpl::Table;
    const void* f = nullptr;
    const std::string w = what ? what : "";
    if (w == "ecb") f = tab ? (const void*)k_ecb<true, false, true> : (const void*)k_ecb<false, false, true>;
    else if (w == "ecb-dec") f = tab ? (const void*)k_ecb<true, true, true> : (const void*)k_ecb<false, true, true>;
    else if (w == "ctr") f = tab ? (const void*)k_ctr<true, true, false> : (const void*)k_ctr<false, true, false>;
    else if (w == "ctr32") f = tab ? (const void*)k_ctr<true, true, true> : (const void*)k_ctr<false, true, true>;
    else if (w == "ecb-pair") f = (const void*)k_ecb_pair<false>;
    else if (w == "ecb-dec-pair") f = (const void*)k_ecb_pair<true>;
    else if (w == "cbc-dec-pair") f = (const void*)k_cbc_dec_pair;
    else if (w == "xts-pair") f = (const void*)k_xts_pair<false>;
    else if (w == "xts-dec-pair") f = (const void*)k_xts_pair<true>;
    else if (w == "xts-tiles") f = tab ? (const void*)k_xts_tiles<true, false> : (const void*)k_xts_tiles<false, false>;
    else if (w == "xts-dec-tiles") f = tab ? (const void*)k_xts_tiles<true, true> : (const void*)k_xts_tiles<false, true>;
    else if (w == "ctr-pair") f = (const void*)k_ctr_pair<false>;
    else if (w == "ctr32-pair") f = (const void*)k_ctr_pair<true>;
    else if (w == "cbc-dec") f = tab ? (const void*)k_cbc_dec<true, true, true> : (const void*)k_cbc_dec<false, true, true>;
    else if (w == "xts") f = tab ? (const void*)k_xts<true, false, true> : (const void*)k_xts<false, false, true>;
    else if (w == "xts-dec") f = tab ? (const void*)k_xts<true, true, true> : (const void*)k_xts<false, true, true>;
    if (!f) return cudaErrorInvalidValue;
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, f);
    if (e != cudaSuccess) return e;
    if (regs) *regs = a.numRegs;
    if (local_bytes) *local_bytes = (int)a.localSizeBytes;
    return cudaSuccess;
}

// The grids aim for LaunchShape::blocks_per_sm blocks per SM (the tuning entry's; registers
// limit the bitsliced kernels to about 2 resident blocks of 128 threads, the table kernels to a
// few more) and pair_blocks_per_sm for the lane-pair kernels.

#define BC_SMEM(table, dec) (sizeof(uint32_t) * smem_words(table, dec))

cudaError_t launch_ecb(AesImpl impl, bool encrypt, const DevAesKey& key, const DevAesTables& t,
                       const uint8_t* in, uint8_t* out, uint64_t nblocks, const LaunchShape& sh,
                       cudaStream_t s) {
    if (nblocks == 0) return cudaSuccess;
    const DevAesKey k = with_variant(key, sh);
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

cudaError_t launch_ctr(AesImpl impl, const DevAesKey& key, const DevAesTables& t, const uint8_t ctr0[16],
                       uint64_t first, unsigned shift, bool inc32, const uint8_t* in, uint8_t* out,
                       uint64_t len, const LaunchShape& sh, cudaStream_t s) {
    if (len == 0) return cudaSuccess;
    const DevAesKey k = with_variant(key, sh);
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
        const int per_sm = kPairResidentPerSm * pair_cc_waves(sh);
        const uint64_t warps = (uint64_t)sh.sms * per_sm * (kThreads / 32);
        const bool cache = k.bs_variant >= kAesBsPairCcVariant && (g_pair_cc_always.load() || ntiles >= kMinRun * warps);
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

// (chaining values a tile: pair tiles are the smaller)
size_t cbc_dec_scratch_bytes(uint64_t nblocks) { return 16 * ((nblocks + kPairTile - 1) / kPairTile) + 16; }

cudaError_t launch_cbc_decrypt(AesImpl impl, const DevAesKey& key, const DevAesTables& t, const uint8_t iv[16],
                               const uint8_t* in, uint8_t* out, uint64_t nblocks, void* scratch,
                               const LaunchShape& sh, cudaStream_t s) {
    if (nblocks == 0) return cudaSuccess;
    const DevAesKey k = with_variant(key, sh);
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
        if (!g_cbc_reload.load() && cudaFuncSetAttribute(saved_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
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

cudaError_t launch_xts(AesImpl impl, bool encrypt, const DevAesKey& key1, const DevAesKey& k2,
                       const DevAesTables& t, const uint8_t tweak0[16], const uint8_t* in, uint8_t* out,
                       uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks, uint64_t last_blocks,
                       void* tweaks, const uint32_t* alpha_tables, const LaunchShape& sh, cudaStream_t s) {
    if (nunits == 0) return cudaSuccess;
    const DevAesKey k1 = with_variant(key1, sh);
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
    // alpha^(32 * d * 1024^level) for d < 1024, level < 3; public constants.
    uint32_t* o = static_cast<uint32_t*>(out);
    auto dbl = [](uint32_t* t) {
        uint32_t c = (t[3] >> 31) * 0x87u;
        t[3] = (t[3] << 1) | (t[2] >> 31);
        t[2] = (t[2] << 1) | (t[1] >> 31);
        t[1] = (t[1] << 1) | (t[0] >> 31);
        t[0] = (t[0] << 1) ^ c;
    };
    auto mul = [&](const uint32_t* a, const uint32_t* b, uint32_t* r) {
        uint32_t z[4] = {0, 0, 0, 0}, t[4] = {a[0], a[1], a[2], a[3]};
        for (int i = 0; i < 128; ++i) {
            if ((b[i >> 5] >> (i & 31)) & 1u) for (int q = 0; q < 4; ++q) z[q] ^= t[q];
            dbl(t);
        }
        for (int q = 0; q < 4; ++q) r[q] = z[q];
    };
    uint32_t step[4] = {0, 1, 0, 0};  // alpha^32
    for (int level = 0; level < 3; ++level) {
        uint32_t* tab = o + 4 * 1024 * level;
        tab[0] = 1; tab[1] = tab[2] = tab[3] = 0;
        for (int d = 1; d < 1024; ++d) mul(tab + 4 * (d - 1), step, tab + 4 * d);
        // next level's step: step^1024 = tab[1023] * step
        uint32_t next[4];
        mul(tab + 4 * 1023, step, next);
        for (int q = 0; q < 4; ++q) step[q] = next[q];
    }
}

}  // namespace cuda
}  // namespace bc
