/*
 * HIGHT (Hong et al., CHES 2006; KISA; ISO/IEC 18033-3; 64-bit block, 128-bit key,
 * 32 rounds) in the portable dialect, bitsliced. HIGHT is additions, rotations and XORs
 * on bytes, with no table: constant time as written. Host C++, CUDA and OpenCL C 1.2
 * compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_hight_encrypt_batch(ks, w), bc_hight_decrypt_batch(ks, w): 32 blocks in place;
 *   w[2j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32). Byte p of
 *   the block is P_p of KISA's byte arrays (P0 first; the paper writes P7..P0).
 *
 * Expanded key ks (32-bit words; hight_expand_key in hight.h writes it):
 *   ks[0] = 32 (rounds), ks[1] = 128 (key bits), ks[2] = ks[3] = 0
 *   ks[4 + 8i + b], i = 0..7: all ones when bit b (0 = least significant) of the
 *          whitening key byte WK_i is set, else zero
 *   ks[68 + 8i + b], i = 0..127: the same for the subkey byte SK_i
 *   BC_HIGHT_KS_WORDS = 4 + 64 + 1024 = 1092 words (4368 bytes). Decryption walks the
 *   subkeys backwards, so one ks serves both directions.
 *
 * Packing. The choice is the one that minimises operations per byte over the batch:
 *   - four bytes of one block a word (the input's own layout) mixes F0 and F1, addition
 *     and XOR across the lanes of a word, so every word computes both and selects;
 *   - one byte position of four blocks a word (SWAR after a 4x4 byte transposition):
 *     per round and four blocks, the four F functions are three byte rotations each
 *     (shift, shift, select: 3 ops) and an XOR3, 40 ops; byte additions with their
 *     carries masked off take 4-5 ops: about 62 ops per 32 bytes a round, some 62 ops
 *     a byte over 32 rounds;
 *   - one bit of 32 blocks a word (bitsliced, this file): a byte rotation is a renaming,
 *     F0 and F1 are one XOR3 an output bit, a byte addition a ripple-carry adder of 15
 *     3-input functions for 32 additions, and the transposition costs 1,024 ops a
 *     batch (20 ops a byte in all, below).
 * State: 64 words, s[8p + b] = bit b of byte p (bit j of each word = block j): the two
 * 32x32 transpositions of bc_aes_bs_transpose32 give exactly this order. The round's
 * byte rotation (X_{i+1,j} = X_{i,j-1} for odd j; the even ones are new) is a renaming:
 * the byte X_{i,j} lives in slot (j - i) mod 8, the new even bytes are written over the
 * slots of the odd bytes they replace, and the loop runs 8 rounds a pass so every slot
 * index is a constant. After round 31, X_{32,j} (the last round does not rotate) is in
 * slot (j + 1) mod 8. Each round, in the paper's terms:
 *   X_{i+1,0} = X_{i,7} ^ (F0(X_{i,6}) + SK_{4i+3}),  X_{i+1,2} = X_{i,1} + (F1(X_{i,0}) ^ SK_{4i}),
 *   X_{i+1,4} = X_{i,3} ^ (F0(X_{i,2}) + SK_{4i+1}),  X_{i+1,6} = X_{i,5} + (F1(X_{i,4}) ^ SK_{4i+2}),
 *   F0(x) = x<<<1 ^ x<<<2 ^ x<<<7, F1(x) = x<<<3 ^ x<<<4 ^ x<<<6 (byte rotations).
 * Decryption runs the same updates backwards on the same slots, with subtraction.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   X ^ (F0 + SK): F0 8 XOR3; the adder's sum XORed into X as it comes out: bit 0 2,
 *          bits 1..6 3 each (sum XOR3, XOR, carry MAJ), bit 7 2 -> 30
 *   X + (F1 ^ SK): F1 ^ SK 16 (XOR3, XOR); adder bit 0 2, bits 1..6 2 each, bit 7 1 -> 31
 *   round: 2 x 30 + 2 x 31 = 122; 32 rounds 3,904
 *   whitening in and out: 2 x (2 additions of a key byte x 15 + 2 XORs x 8) = 92
 *   transposition in and out: 4 x bc_aes_bs_transpose32 = 4 x (64 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,024
 *   HIGHT: 3,904 + 92 + 1,024 = 5,020 ops / 256 bytes = 19.6 ops/byte
 *          -> ceiling 16.7e12 / 19.6 = 852 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 18.1 (922 GB/s).
 *   Not counted: 32 mask loads a round from ks (LDG, another pipe), the mode's work.
 * sm_90 (nvcc 13.0, a kernel holding w in registers, each direction): 96 registers, no
 * spills; its SASS has 1,452 LOP3 (an 8-round pass 976, the whitening 92, the
 * transpositions 384), 256 PRMT and 384 IMAD, as counted above.
 * Not yet measured on a GPU.
 *
 * Key address space: BC_HIGHT_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_HIGHT_BLOCK_H
#define BC_CORES_HIGHT_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"

#define BC_HIGHT_BLOCK_BYTES 8
#define BC_HIGHT_BATCH 32 /* blocks per batch call */
#ifndef BC_HIGHT_KS_SPACE
#define BC_HIGHT_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_HIGHT_ROUNDS 32
#define BC_HIGHT_KS_HEADER 4
#define BC_HIGHT_KS_WK BC_HIGHT_KS_HEADER             /* 8 whitening key bytes x 8 masks */
#define BC_HIGHT_KS_SK (BC_HIGHT_KS_HEADER + 8 * 8)   /* 128 subkeys x 8 masks */
#define BC_HIGHT_KS_ROUND 32                          /* mask words of a round's 4 subkeys */
#define BC_HIGHT_KS_WORDS (BC_HIGHT_KS_SK + BC_HIGHT_KS_ROUND * BC_HIGHT_ROUNDS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_HIGHT_UNROLL _Pragma("unroll")
#define BC_HIGHT_NOUNROLL _Pragma("unroll 1")
#else
#define BC_HIGHT_UNROLL
#define BC_HIGHT_NOUNROLL
#endif

#define BC_HIGHT_XOR3(a, b, c) BC_AES_LUT3(a, b, c, 0x96, (a) ^ (b) ^ (c))
#define BC_HIGHT_XNOR3(a, b, c) BC_AES_LUT3(a, b, c, 0x69, ~((a) ^ (b) ^ (c)))
#define BC_HIGHT_MAJ(a, b, c) BC_AES_LUT3(a, b, c, 0xe8, ((a) & (b)) | ((c) & ((a) | (b))))
/* The carry of a + ~b + c (subtraction). */
#define BC_HIGHT_MAJN(a, b, c) BC_AES_LUT3(a, b, c, 0xb2, ((a) & ~(b)) | ((c) & ((a) | ~(b))))
#define BC_HIGHT_ORN(a, b) BC_AES_LUT3(a, b, 0u, 0xf3, (a) | ~(b))

/* d = d + t (sub = 0) or d - t (sub = 1) mod 256, d and t 8 bit-plane words; sub is a
 * constant at every call site. Subtraction is d + ~t + 1: the NOT folds into each
 * 3-input function and the carry in of 1 into bit 0. */
BC_FN void bc_hight_bs_add(bc_u32 *d, const bc_u32 *t, int sub) {
    bc_u32 c = sub ? BC_HIGHT_ORN(d[0], t[0]) : d[0] & t[0];
    d[0] ^= t[0];
    BC_HIGHT_UNROLL
    for (int b = 1; b < 7; ++b) {
        const bc_u32 s = sub ? BC_HIGHT_XNOR3(d[b], t[b], c) : BC_HIGHT_XOR3(d[b], t[b], c);
        c = sub ? BC_HIGHT_MAJN(d[b], t[b], c) : BC_HIGHT_MAJ(d[b], t[b], c);
        d[b] = s;
    }
    d[7] = sub ? BC_HIGHT_XNOR3(d[7], t[7], c) : BC_HIGHT_XOR3(d[7], t[7], c);
}

/* d ^= F0(x) + k (k: a subkey's 8 masks). Its own inverse. */
BC_FN void bc_hight_bs_xor_f0(bc_u32 *d, const bc_u32 *x, const BC_HIGHT_KS_SPACE bc_u32 *k) {
    bc_u32 f[8];
    /* bit b of x <<< r is bit b - r of x */
    BC_HIGHT_UNROLL
    for (int b = 0; b < 8; ++b) f[b] = BC_HIGHT_XOR3(x[(b + 7) & 7], x[(b + 6) & 7], x[(b + 1) & 7]);
    bc_u32 c = f[0] & k[0];
    d[0] = BC_HIGHT_XOR3(d[0], f[0], k[0]);
    BC_HIGHT_UNROLL
    for (int b = 1; b < 7; ++b) {
        d[b] ^= BC_HIGHT_XOR3(f[b], k[b], c);
        c = BC_HIGHT_MAJ(f[b], k[b], c);
    }
    d[7] ^= BC_HIGHT_XOR3(f[7], k[7], c);
}

/* d = d + (F1(x) ^ k) (sub = 0) or d - (F1(x) ^ k) (sub = 1). */
BC_FN void bc_hight_bs_add_f1(bc_u32 *d, const bc_u32 *x, const BC_HIGHT_KS_SPACE bc_u32 *k, int sub) {
    bc_u32 t[8];
    BC_HIGHT_UNROLL
    for (int b = 0; b < 8; ++b) t[b] = BC_HIGHT_XOR3(x[(b + 5) & 7], x[(b + 4) & 7], x[(b + 2) & 7]) ^ k[b];
    bc_hight_bs_add(d, t, sub);
}

/* d = d + k, d - k or d ^ k for a whitening key byte's masks (op 0, 1, 2). */
BC_FN void bc_hight_bs_whiten(bc_u32 *d, const BC_HIGHT_KS_SPACE bc_u32 *k, int op) {
    bc_u32 t[8];
    BC_HIGHT_UNROLL
    for (int b = 0; b < 8; ++b) t[b] = k[b];
    if (op == 2) {
        BC_HIGHT_UNROLL
        for (int b = 0; b < 8; ++b) d[b] ^= t[b];
    } else {
        bc_hight_bs_add(d, t, op);
    }
}

/* Round i = 8g + d of the slot scheme: X_{i,j} in slot (j - d) mod 8, k the round's
 * four subkeys (SK_{4i} .. SK_{4i+3}, 8 masks each). dec = 1 undoes it. */
#define BC_HIGHT_SLOT(s, j, d) ((s) + 8 * (((j) - (d)) & 7))
BC_FN void bc_hight_bs_round(bc_u32 *s, int d, const BC_HIGHT_KS_SPACE bc_u32 *k, int dec) {
    bc_hight_bs_xor_f0(BC_HIGHT_SLOT(s, 7, d), BC_HIGHT_SLOT(s, 6, d), k + 24);
    bc_hight_bs_add_f1(BC_HIGHT_SLOT(s, 1, d), BC_HIGHT_SLOT(s, 0, d), k, dec);
    bc_hight_bs_xor_f0(BC_HIGHT_SLOT(s, 3, d), BC_HIGHT_SLOT(s, 2, d), k + 8);
    bc_hight_bs_add_f1(BC_HIGHT_SLOT(s, 5, d), BC_HIGHT_SLOT(s, 4, d), k + 16, dec);
}

/* w (w[2j + k]) <-> 32 transposed words per k, t[32k + b] = bit b of word k, which is
 * s[8p + b'] for byte p = 4k + b / 8, bit b' = b % 8. */
BC_FN void bc_hight_bs_load(bc_u32 *t, const bc_u32 *w) {
    BC_HIGHT_UNROLL
    for (int j = 0; j < 32; ++j) {
        t[j] = w[2 * j];
        t[32 + j] = w[2 * j + 1];
    }
    bc_aes_bs_transpose32(t);
    bc_aes_bs_transpose32(t + 32);
}

BC_FN void bc_hight_bs_store(bc_u32 *t, bc_u32 *w) {
    bc_aes_bs_transpose32(t);
    bc_aes_bs_transpose32(t + 32);
    BC_HIGHT_UNROLL
    for (int j = 0; j < 32; ++j) {
        w[2 * j] = t[j];
        w[2 * j + 1] = t[32 + j];
    }
}

/* w: 32 blocks * 2 words in private memory, block j = w[2j..2j+1] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_hight_encrypt_batch(const BC_HIGHT_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 s[64], t[64];
    const BC_HIGHT_KS_SPACE bc_u32 *wk = ks + BC_HIGHT_KS_WK;
    bc_hight_bs_load(s, w);
    /* X_{0,0} = P0 + WK0, X_{0,2} = P2 ^ WK1, X_{0,4} = P4 + WK2, X_{0,6} = P6 ^ WK3 */
    bc_hight_bs_whiten(s, wk, 0);
    bc_hight_bs_whiten(s + 16, wk + 8, 2);
    bc_hight_bs_whiten(s + 32, wk + 16, 0);
    bc_hight_bs_whiten(s + 48, wk + 24, 2);
    const BC_HIGHT_KS_SPACE bc_u32 *k = ks + BC_HIGHT_KS_SK;
    BC_HIGHT_NOUNROLL
    for (int g = 0; g < BC_HIGHT_ROUNDS / 8; ++g) {
        BC_HIGHT_UNROLL
        for (int d = 0; d < 8; ++d) {
            bc_hight_bs_round(s, d, k, 0);
            k += BC_HIGHT_KS_ROUND;
        }
    }
    /* X_{32,j} in slot j + 1: C0 = X_{32,0} + WK4, C2 = X_{32,2} ^ WK5, C4 = X_{32,4} + WK6,
     * C6 = X_{32,6} ^ WK7, the odd bytes as they are. */
    bc_hight_bs_whiten(s + 8, wk + 32, 0);
    bc_hight_bs_whiten(s + 24, wk + 40, 2);
    bc_hight_bs_whiten(s + 40, wk + 48, 0);
    bc_hight_bs_whiten(s + 56, wk + 56, 2);
    BC_HIGHT_UNROLL
    for (int j = 0; j < 8; ++j) {
        BC_HIGHT_UNROLL
        for (int b = 0; b < 8; ++b) t[8 * j + b] = s[8 * ((j + 1) & 7) + b];
    }
    bc_hight_bs_store(t, w);
}

BC_FN void bc_hight_decrypt_batch(const BC_HIGHT_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 s[64], t[64];
    const BC_HIGHT_KS_SPACE bc_u32 *wk = ks + BC_HIGHT_KS_WK;
    bc_hight_bs_load(t, w);
    BC_HIGHT_UNROLL
    for (int j = 0; j < 8; ++j) {
        BC_HIGHT_UNROLL
        for (int b = 0; b < 8; ++b) s[8 * ((j + 1) & 7) + b] = t[8 * j + b];
    }
    bc_hight_bs_whiten(s + 8, wk + 32, 1);
    bc_hight_bs_whiten(s + 24, wk + 40, 2);
    bc_hight_bs_whiten(s + 40, wk + 48, 1);
    bc_hight_bs_whiten(s + 56, wk + 56, 2);
    const BC_HIGHT_KS_SPACE bc_u32 *k = ks + BC_HIGHT_KS_SK + BC_HIGHT_KS_ROUND * (BC_HIGHT_ROUNDS - 1);
    BC_HIGHT_NOUNROLL
    for (int g = 0; g < BC_HIGHT_ROUNDS / 8; ++g) {
        BC_HIGHT_UNROLL
        for (int d = 7; d >= 0; --d) {
            bc_hight_bs_round(s, d, k, 1);
            k -= BC_HIGHT_KS_ROUND;
        }
    }
    bc_hight_bs_whiten(s, wk, 1);
    bc_hight_bs_whiten(s + 16, wk + 8, 2);
    bc_hight_bs_whiten(s + 32, wk + 16, 1);
    bc_hight_bs_whiten(s + 48, wk + 24, 2);
    bc_hight_bs_store(s, w);
}

#endif /* BC_CORES_HIGHT_BLOCK_H */
