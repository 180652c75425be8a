// Per-thread bodies of the stream-family CUDA kernels, written so that they
// also compile as host C++: the unit tests run them thread by thread on the CPU
// (tests/unit/test_stream_cuda.cpp) to check the indexing and the Poly1305
// algebra where no GPU is present. The kernels (stream_kernels.cu) are thin
// wrappers that pass threadIdx/blockIdx/blockDim/gridDim.
//
// Work layout: one thread per 64-byte keystream block, grid-stride loop, UNROLL
// blocks per thread per iteration (u-th block at j0 + u * blockDim, so a warp's
// loads stay contiguous), state in registers, key/nonce state in the kernel
// parameters (the constant bank). Data starts at a keystream block boundary
// (the host launches the unaligned head separately).
//
// Poly1305 on the GPU: radix 2^26 (five limbs in 32-bit words, 32x32->64
// multiply-adds; the arithmetic is modes/poly1305/poly1305_device.h). Thread t
// visits full blocks j_1 < j_2 < ... and keeps
//   acc = acc * r^(4 (j_k - j_{k-1})) + (m1 r^4 + m2 r^3 + m3 r^2 + m4 r)_{j_k}
// (one carry per block), then multiplies by r^(4 (N-1-j_last) + q) (q = Poly1305
// blocks in the tail) from a table of r^(2^i). The thread holding the tail block
// adds its tail Horner sum. The per-thread values are summed (an integer sum of
// limbs; the sum of partials is the partial) and reduced once at the end.
#pragma once

#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "dialect/bc_dialect.h"
#include "modes/poly1305/poly1305_device.h"

namespace bcs {

enum { FAM_CHACHA_IETF = 0, FAM_CHACHA_DJB = 1, FAM_SALSA = 2 };
enum { POLY_ENCRYPT = 0, POLY_DECRYPT = 1, POLY_MAC_ONLY = 2 };

constexpr int kPow2Entries = 40;

struct XorArgs {
    bc_u32 base[16];     // the state of keystream block 0 of the body
    const bc_u8* in;
    bc_u8* out;
    bc_u64 nfull;        // whole 64-byte blocks
    bc_u32 tail;         // bytes after them, 0..63
};

// A power of r in radix 2^26, with s[i] = 5 r[i] for the wrap-around products
// (modes/poly1305/poly1305_device.h).
typedef bc_p26_pow P26;

struct PolyArgs {
    XorArgs x;                      // FAM_CHACHA_IETF, 20 rounds (unused for MAC only)
    int mode;                       // POLY_*
    bc_u32 q;                       // Poly1305 blocks in the tail (ceil(tail / 16))
    P26 rp[4];                      // r^1 .. r^4
    P26 gap_in;                     // r^(4 blockDim): between the UNROLL blocks of one iteration
    P26 gap_iter;                   // r^(4 (stride - (UNROLL-1) blockDim)): to the next iteration
    bc_u32 pow2[kPow2Entries][5];   // r^(2^i)
};

// ---------------- keystream ----------------

template <int FAM, int ROUNDS>
BC_FN void keystream(const bc_u32 base[16], bc_u64 j, bc_u32 ks[16]) {
    bc_u32 st[16];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < 16; ++i) st[i] = base[i];
    if (FAM == FAM_CHACHA_IETF) {
        st[12] += (bc_u32)j;
    } else if (FAM == FAM_CHACHA_DJB) {
        bc_u64 c = (((bc_u64)st[13] << 32) | st[12]) + j;
        st[12] = (bc_u32)c;
        st[13] = (bc_u32)(c >> 32);
    } else {
        bc_u64 c = (((bc_u64)st[9] << 32) | st[8]) + j;
        st[8] = (bc_u32)c;
        st[9] = (bc_u32)(c >> 32);
    }
    if (FAM == FAM_SALSA) bc_salsa_block(st, ks, ROUNDS);
    else bc_chacha_block(st, ks, ROUNDS);
}

// 64 bytes as 16 little-endian words: 16-byte vector accesses on the GPU when
// VEC (the caller checked 16-byte alignment), byte accesses otherwise.
template <bool VEC>
BC_FN void load64(const bc_u8* p, bc_u32 w[16]) {
#if defined(__CUDA_ARCH__)
    if (VEC) {
        const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            uint4 v = __ldcs(q + k);
            w[4 * k] = v.x;
            w[4 * k + 1] = v.y;
            w[4 * k + 2] = v.z;
            w[4 * k + 3] = v.w;
        }
        return;
    }
#endif
    for (int i = 0; i < 16; ++i) w[i] = bc_load_le32(p + 4 * i);
}

template <bool VEC>
BC_FN void store64(bc_u8* p, const bc_u32 w[16]) {
#if defined(__CUDA_ARCH__)
    if (VEC) {
        uint4* q = reinterpret_cast<uint4*>(p);
#pragma unroll
        for (int k = 0; k < 4; ++k) __stcs(q + k, make_uint4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]));
        return;
    }
#endif
    for (int i = 0; i < 16; ++i) bc_store_le32(p + 4 * i, w[i]);
}

// XOR of the tail (n < 64 bytes) of block j; returns the ciphertext words,
// zero-padded, in c[] (for the MAC). Constant indices only, so ks[] and c[]
// stay in registers on the GPU.
BC_FN void xor_tail(const bc_u8* in, bc_u8* out, bc_u32 n, const bc_u32 ks[16], bc_u32 c[16], int decrypt,
                    int do_xor) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < 16; ++i) {
        bc_u32 cw = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int k = 0; k < 4; ++k) {
            bc_u32 b = (bc_u32)(4 * i + k);
            if (b < n) {
                bc_u8 x = in[b];
                bc_u8 y = (bc_u8)(x ^ (bc_u8)(ks[i] >> (8 * k)));
                if (do_xor) out[b] = y;
                cw |= (bc_u32)(decrypt ? x : y) << (8 * k);
            }
        }
        c[i] = cw;
    }
}

// ---------------- stream XOR ----------------

template <int FAM, int ROUNDS, bool VEC>
BC_FN void xor_block(const XorArgs& a, bc_u64 j) {
    bc_u32 ks[16];
    keystream<FAM, ROUNDS>(a.base, j, ks);
    if (j < a.nfull) {
        bc_u32 w[16];
        load64<VEC>(a.in + 64 * j, w);
        for (int i = 0; i < 16; ++i) w[i] ^= ks[i];
        store64<VEC>(a.out + 64 * j, w);
    } else {
        bc_u32 c[16];
        xor_tail(a.in + 64 * j, a.out + 64 * j, a.tail, ks, c, 0, 1);
    }
}

// The unaligned head of a request: bytes [skip, skip + n) of keystream block 0
// onto in[0..n) (n <= 64 - skip). One thread.
template <int FAM, int ROUNDS>
BC_FN void xor_head(const XorArgs& a, bc_u32 skip, bc_u32 n) {
    bc_u32 ks[16];
    keystream<FAM, ROUNDS>(a.base, 0, ks);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < 16; ++i)
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int k = 0; k < 4; ++k) {
            bc_u32 p = (bc_u32)(4 * i + k);
            if (p >= skip && p < skip + n) a.out[p - skip] = (bc_u8)(a.in[p - skip] ^ (bc_u8)(ks[i] >> (8 * k)));
        }
}

template <int FAM, int ROUNDS, int UNROLL, bool VEC>
BC_FN void xor_thread(const XorArgs& a, bc_u64 tid, bc_u64 block, bc_u64 bdim, bc_u64 gdim) {
    const bc_u64 total = a.nfull + (a.tail ? 1u : 0u);
    const bc_u64 stride = gdim * bdim * (bc_u64)UNROLL;
    for (bc_u64 j0 = block * bdim * (bc_u64)UNROLL + tid; j0 < total; j0 += stride) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int u = 0; u < UNROLL; ++u) {
            bc_u64 j = j0 + (bc_u64)u * bdim;
            if (j < total) xor_block<FAM, ROUNDS, VEC>(a, j);
        }
    }
}

// ---------------- Poly1305, radix 2^26 ----------------

// The field arithmetic is modes/poly1305/poly1305_device.h; these name it for the
// kernels, the host preparation (stream_prep.h) and the tests.
BC_FN void p26_mul_acc(bc_u64 d[5], const bc_u32 a[5], const P26& b) { bc_p26_mul_acc(d, a, &b); }
BC_FN void p26_carry(const bc_u64 d_in[5], bc_u32 h[5]) { bc_p26_carry(d_in, h); }
BC_FN void p26_block(bc_u32 w0, bc_u32 w1, bc_u32 w2, bc_u32 w3, bc_u32 m[5]) { bc_p26_block(w0, w1, w2, w3, m); }
BC_FN void p26_make(const bc_u32 r[5], P26* p) { bc_p26_make(r, p); }
BC_FN void p26_finish(const bc_u64 sum[5], bc_u8 out[17]) { bc_p26_finish(sum, out); }
BC_FN void p26_from_bytes(const bc_u8 in[17], bc_u32 r[5]) { bc_p26_from_bytes(in, r); }

// acc = acc * gap + m1 r^4 + m2 r^3 + m3 r^2 + m4 r, for one 64-byte block of ciphertext words.
BC_FN void p26_absorb64(bc_u32 acc[5], const P26& gap, const P26 rp[4], const bc_u32 c[16]) {
    bc_u64 d[5] = {0, 0, 0, 0, 0};
    bc_u32 m[5];
    p26_mul_acc(d, acc, gap);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < 4; ++k) {
        p26_block(c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3], m);
        p26_mul_acc(d, m, rp[3 - k]);
    }
    p26_carry(d, acc);
}

// acc *= r^e using the table r^(2^i) (e public).
BC_FN void p26_mul_pow(bc_u32 acc[5], const PolyArgs& a, bc_u64 e) {
    for (int i = 0; i < kPow2Entries && e != 0; ++i, e >>= 1) {
        if (e & 1u) {
            P26 p;
            p26_make(a.pow2[i], &p);
            bc_u64 d[5] = {0, 0, 0, 0, 0};
            p26_mul_acc(d, acc, p);
            p26_carry(d, acc);
        }
    }
}

// One thread's share of a ChaCha20-Poly1305 piece (or of a MAC-only pass, where
// x.in is the data and nothing is written). Returns the thread's value in acc.
template <int UNROLL, bool VEC>
BC_FN void chachapoly_thread(const PolyArgs& a, bc_u64 tid, bc_u64 block, bc_u64 bdim, bc_u64 gdim, bc_u32 acc[5]) {
    const XorArgs& x = a.x;
    const bc_u64 n = x.nfull;
    const bc_u64 total = n + (x.tail ? 1u : 0u);
    const bc_u64 stride = gdim * bdim * (bc_u64)UNROLL;
    const int mac_only = a.mode == POLY_MAC_ONLY;
    const int decrypt = a.mode != POLY_ENCRYPT;
    for (int i = 0; i < 5; ++i) acc[i] = 0;
    bc_u32 t_acc[5] = {0, 0, 0, 0, 0};
    int have_full = 0, have_tail = 0;
    bc_u64 jlast = 0;
    for (bc_u64 j0 = block * bdim * (bc_u64)UNROLL + tid; j0 < total; j0 += stride) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int u = 0; u < UNROLL; ++u) {
            bc_u64 j = j0 + (bc_u64)u * bdim;
            if (j >= total) break;
            bc_u32 ks[16];
            if (!mac_only) keystream<FAM_CHACHA_IETF, 20>(x.base, j, ks);
            else
                for (int i = 0; i < 16; ++i) ks[i] = 0;
            bc_u32 c[16];
            if (j < n) {
                bc_u32 w[16];
                load64<VEC>(x.in + 64 * j, w);
                if (decrypt) {
                    for (int i = 0; i < 16; ++i) c[i] = w[i];
                }
                for (int i = 0; i < 16; ++i) w[i] ^= ks[i];
                if (!decrypt) {
                    for (int i = 0; i < 16; ++i) c[i] = w[i];
                }
                if (!mac_only) store64<VEC>(x.out + 64 * j, w);
                p26_absorb64(acc, u == 0 ? a.gap_iter : a.gap_in, a.rp, c);
                have_full = 1;
                jlast = j;
            } else {
                xor_tail(x.in + 64 * j, x.out + 64 * j, x.tail, ks, c, decrypt, !mac_only);
                // Horner over the q tail blocks: t = (t + m) r.
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
                for (int k = 0; k < 4; ++k) {
                    if ((bc_u32)k >= a.q) break;
                    bc_u32 m[5];
                    p26_block(c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3], m);
                    for (int i = 0; i < 5; ++i) m[i] += t_acc[i];
                    bc_u64 d[5] = {0, 0, 0, 0, 0};
                    p26_mul_acc(d, m, a.rp[0]);
                    p26_carry(d, t_acc);
                }
                have_tail = 1;
            }
        }
    }
    if (have_full) p26_mul_pow(acc, a, 4 * (n - 1 - jlast) + a.q);
    if (have_tail)
        for (int i = 0; i < 5; ++i) acc[i] += t_acc[i];
}

}  // namespace bcs
