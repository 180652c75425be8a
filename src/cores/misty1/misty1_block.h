/*
 * MISTY1 (RFC 2994; Matsui, FSE 1997; 128-bit key, 64-bit block, 8 rounds) in the
 * portable dialect, bitsliced: constant time by construction (no table, no address and
 * no branch depends on the key or the data). Host C++, CUDA and OpenCL C 1.2 compile it
 * unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_misty1_encrypt_batch(ks, w), bc_misty1_decrypt_batch(ks, w): 32 blocks in place;
 *   w[2j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; misty1_expand_key in misty1.h writes it). EK[0..7] are
 * the key's 16-bit words (big-endian), EK[8..15] = K'_i = FI(EK[i], EK[(i + 1) % 8]), as
 * RFC 2994 2.2. Every subkey is stored as mask words, ks[base + b] all ones when bit b
 * (0 = least significant) of the subkey is set, else zero:
 *   ks[32k .. 32k + 31], k = 0..9: FL number k (the RFC's FL(., k)), KL1 (the AND key)
 *          in the first 16 words, KL2 (the OR key) in the next 16;
 *   ks[320 + 112k ..], k = 0..7: FO number k: KO1, KO2, KO3, KO4 (16 words each), then
 *          KI1, KI2, KI3 (16 each) in FI's layout: words 0..8 bits 0..8 of KI, word 9 + i
 *          (i = 0..6) bit 9 + i XOR bit i (see bc_misty1_bs_fi).
 *   BC_MISTY1_KS_WORDS = 320 + 8 * 112 = 1216 words (4864 bytes). Decryption reads the
 *   same subkeys backwards, so one ks serves both directions.
 *
 * State: 64 words, s[32k + j] = bit j of little-endian word k of the block, bit l of each
 * word = block l (bc_aes_bs_transpose32 of aes_bitsliced.h on each 32-word half). The RFC
 * reads the block as two big-endian 32-bit halves D0 (bytes 0..3), D1 (bytes 4..7); bit i
 * of half h is s[BC_MISTY1_BIT(h, i)], a renaming. Encryption keeps D0 in half 0; the
 * ciphertext D1 || D0 is the store swapping the halves. Decryption reads C = D1 || D0
 * straight (D1 in half 0) and stores P = D0 || D1 swapped again.
 *   FL (bit i of the 16-bit halves d0 = bits 16..31, d1 = bits 0..15):
 *     d1 ^= d0 & KL1, d0 ^= d1 | KL2: one 3-input function each; FLINV the other way.
 *   FO(t0 || t1): t0 = FI(t0 ^ KO1, KI1) ^ t1; t1 = FI(t1 ^ KO2, KI2) ^ t0;
 *     t0 = FI(t0 ^ KO3, KI3) ^ t1; out = (t1 ^ KO4) || t0, XORed into the other half.
 *   FI(d9 || d7): u = S9(d9); d9 = u ^ d7 ^ KI[0..8] (low 7 bits one XOR3);
 *     d7 = S7(d7) ^ d9[0..6] ^ (KI[9..15] ^ KI[0..6]) (the stored mask, one XOR3);
 *     out = d7 || (S9(d9) ^ d7), the XOR with the caller's next operand folded in.
 *   S7 and S9: the gate networks of misty1_sbox.h (scripts/gen_misty1_bs_sbox.py).
 * Every index into the state is a constant once unrolled, so on CUDA the 64 words stay
 * in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   FI with the XOR of its result: 2 x S9 (63) + S7 (55) + 16 (key, d7) + 16 (out) = 213
 *   FO: 3 FI (639) + KO1..3 48 + KO4 into the other half 16 + the last XOR 16 = 719
 *   FL / FLINV: 32
 *   transposition in and out: 4 x bc_aes_bs_transpose32 = 4 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 896
 *   MISTY1: 8 x 719 + 10 x 32 + 896 = 6,968 ops / 256 bytes = 27.2 ops/byte
 *          -> ceiling 16.7e12 / 27.2 = 614 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 25.7 (649 GB/s).
 *   The S-boxes are 4,344 of the 6,968 (62%).
 *   Not counted: 1,216 mask loads a batch from ks (LDG/LDC, another pipe), the mode's
 *   work.
 * sm_90 (nvcc 13.0, -O3, a kernel holding w in registers, each direction): 128
 * registers, no spills; the 8 rounds a loop of 4 round pairs (BC_MISTY1_NOUNROLL). Its
 * PTX has 6,456 LOP3/XOR a batch (a loop body of 1,502 run 4 times, the last FLs' 64 and
 * the transpositions' 384), as counted above. Not yet measured on a GPU.
 *
 * Key address space: BC_MISTY1_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_MISTY1_BLOCK_H
#define BC_CORES_MISTY1_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
#include "cores/misty1/misty1_sbox.h"

#define BC_MISTY1_BLOCK_BYTES 8
#define BC_MISTY1_BATCH 32 /* blocks per batch call */
#ifndef BC_MISTY1_KS_SPACE
#define BC_MISTY1_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_MISTY1_ROUNDS 8
#define BC_MISTY1_KS_FL 32  /* mask words of one FL: KL1, KL2 */
#define BC_MISTY1_KS_FO 112 /* of one FO: KO1..KO4, KI1..KI3 */
#define BC_MISTY1_KS_FO_BASE (BC_MISTY1_KS_FL * (BC_MISTY1_ROUNDS + 2))
#define BC_MISTY1_KS_WORDS (BC_MISTY1_KS_FO_BASE + BC_MISTY1_KS_FO * BC_MISTY1_ROUNDS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_MISTY1_UNROLL _Pragma("unroll")
#define BC_MISTY1_NOUNROLL _Pragma("unroll 1")
#else
#define BC_MISTY1_UNROLL
#define BC_MISTY1_NOUNROLL
#endif

/* The truth tables written as the functions of LOP3's operand tables (a = 0xf0,
 * b = 0xcc, c = 0xaa), so table and expression cannot disagree. */
#define BC_MISTY1_XOR3(a, b, c) BC_AES_LUT3(a, b, c, (0xf0 ^ 0xcc ^ 0xaa), (a) ^ (b) ^ (c))
/* d ^ (a & k) and d ^ (a | k) */
#define BC_MISTY1_XAND(d, a, k) BC_AES_LUT3(d, a, k, (0xf0 ^ (0xcc & 0xaa)), (d) ^ ((a) & (k)))
#define BC_MISTY1_XOR_OR(d, a, k) BC_AES_LUT3(d, a, k, (0xf0 ^ (0xcc | 0xaa)), (d) ^ ((a) | (k)))

/* The state word of bit i (0 = least significant) of the big-endian 32-bit half h. */
#define BC_MISTY1_BIT(h, i) (32 * (h) + 8 * (3 - ((i) >> 3)) + ((i) & 7))

/* y = FI(x, KI) ^ z (RFC 2994 2.3), x, y, z 16 bit-plane words each (bit i in word i,
 * d7 = bits 0..6, d9 = bits 7..15), ki the 16 words of KI in the layout above. y may be
 * z; the key schedule calls it with a different KI in each lane. */
BC_FN void bc_misty1_bs_fi(const bc_u32 *x, const bc_u32 *z, const BC_MISTY1_KS_SPACE bc_u32 *ki, bc_u32 *y) {
    bc_u32 u[9], v[7];
    BC_MISTY1_UNROLL
    for (int i = 0; i < 9; ++i) u[i] = x[7 + i];
    BC_MISTY1_UNROLL
    for (int i = 0; i < 7; ++i) v[i] = x[i];
    bc_misty1_bs_s9(u);
    bc_misty1_bs_s7(v);
    /* d9 = S9(d9) ^ d7 ^ KI[0..8]; d7 = S7(d7) ^ that d9 ^ (KI[9..15] ^ KI[0..6]) */
    BC_MISTY1_UNROLL
    for (int i = 0; i < 7; ++i) {
        u[i] = BC_MISTY1_XOR3(u[i], x[i], ki[i]);
        v[i] = BC_MISTY1_XOR3(v[i], u[i], ki[9 + i]);
    }
    u[7] ^= ki[7];
    u[8] ^= ki[8];
    bc_misty1_bs_s9(u);
    BC_MISTY1_UNROLL
    for (int i = 0; i < 7; ++i) y[i] = BC_MISTY1_XOR3(u[i], v[i], z[i]);
    y[7] = u[7] ^ z[7];
    y[8] = u[8] ^ z[8];
    BC_MISTY1_UNROLL
    for (int i = 0; i < 7; ++i) y[9 + i] = v[i] ^ z[9 + i];
}

/* FL (inv = 0) or FLINV (inv = 1) on half h, k the FL's 32 mask words. */
BC_FN void bc_misty1_bs_fl(bc_u32 *s, int h, const BC_MISTY1_KS_SPACE bc_u32 *k, int inv) {
    BC_MISTY1_UNROLL
    for (int i = 0; i < 16; ++i) {
        const int lo = BC_MISTY1_BIT(h, i), hi = BC_MISTY1_BIT(h, 16 + i);
        if (inv) { /* inv is a constant at every call site */
            s[hi] = BC_MISTY1_XOR_OR(s[hi], s[lo], k[16 + i]);
            s[lo] = BC_MISTY1_XAND(s[lo], s[hi], k[i]);
        } else {
            s[lo] = BC_MISTY1_XAND(s[lo], s[hi], k[i]);
            s[hi] = BC_MISTY1_XOR_OR(s[hi], s[lo], k[16 + i]);
        }
    }
}

/* Half dst ^= FO(half src), k the FO's 112 mask words. */
BC_FN void bc_misty1_bs_fo(bc_u32 *s, int src, int dst, const BC_MISTY1_KS_SPACE bc_u32 *k) {
    bc_u32 t0[16], t1[16], a[16];
    BC_MISTY1_UNROLL
    for (int i = 0; i < 16; ++i) {
        t0[i] = s[BC_MISTY1_BIT(src, 16 + i)];
        t1[i] = s[BC_MISTY1_BIT(src, i)];
        a[i] = t0[i] ^ k[i];
    }
    bc_misty1_bs_fi(a, t1, k + 64, t0); /* t0 = FI(t0 ^ KO1, KI1) ^ t1 */
    BC_MISTY1_UNROLL
    for (int i = 0; i < 16; ++i) a[i] = t1[i] ^ k[16 + i];
    bc_misty1_bs_fi(a, t0, k + 80, t1); /* t1 = FI(t1 ^ KO2, KI2) ^ t0 */
    /* The high word of the output is t1 ^ KO4; the low one FI(t0 ^ KO3, KI3) ^ t1, the
     * destination's low word folded into the operand of FI's last XOR. */
    BC_MISTY1_UNROLL
    for (int i = 0; i < 16; ++i) {
        const int lo = BC_MISTY1_BIT(dst, i), hi = BC_MISTY1_BIT(dst, 16 + i);
        a[i] = t0[i] ^ k[32 + i];
        s[hi] = BC_MISTY1_XOR3(s[hi], t1[i], k[48 + i]);
        t0[i] = t1[i] ^ s[lo];
    }
    bc_misty1_bs_fi(a, t0, k + 96, t1);
    BC_MISTY1_UNROLL
    for (int i = 0; i < 16; ++i) s[BC_MISTY1_BIT(dst, i)] = t1[i];
}

/* w (w[2j + k]) <-> bitsliced state s: the renaming s[32k + j] = w[2j + k] and the two
 * 32x32 transpositions. The store swaps the halves. */
BC_FN void bc_misty1_bs_load(bc_u32 *s, const bc_u32 *w) {
    BC_MISTY1_UNROLL
    for (int j = 0; j < 32; ++j) {
        s[j] = w[2 * j];
        s[32 + j] = w[2 * j + 1];
    }
    bc_aes_bs_transpose32(s);
    bc_aes_bs_transpose32(s + 32);
}

BC_FN void bc_misty1_bs_store(bc_u32 *s, bc_u32 *w) {
    bc_aes_bs_transpose32(s);
    bc_aes_bs_transpose32(s + 32);
    BC_MISTY1_UNROLL
    for (int j = 0; j < 32; ++j) {
        w[2 * j] = s[32 + j];
        w[2 * j + 1] = s[j];
    }
}

/* Both directions (dec a constant at every call site). Encryption: D0 in half 0, D1 in
 * half 1; decryption: D1 in half 0, D0 in half 1 (C = D1 || D0 loaded straight). */
BC_FN void bc_misty1_bs_crypt(const BC_MISTY1_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[64];
    const BC_MISTY1_KS_SPACE bc_u32 *fo = ks + BC_MISTY1_KS_FO_BASE;
    bc_misty1_bs_load(s, w);
    if (!dec) {
        BC_MISTY1_NOUNROLL
        for (int r = 0; r < BC_MISTY1_ROUNDS; r += 2) {
            bc_misty1_bs_fl(s, 0, ks + BC_MISTY1_KS_FL * r, 0);
            bc_misty1_bs_fl(s, 1, ks + BC_MISTY1_KS_FL * (r + 1), 0);
            bc_misty1_bs_fo(s, 0, 1, fo + BC_MISTY1_KS_FO * r);       /* D1 ^= FO(D0, r) */
            bc_misty1_bs_fo(s, 1, 0, fo + BC_MISTY1_KS_FO * (r + 1)); /* D0 ^= FO(D1, r + 1) */
        }
        bc_misty1_bs_fl(s, 0, ks + BC_MISTY1_KS_FL * BC_MISTY1_ROUNDS, 0);
        bc_misty1_bs_fl(s, 1, ks + BC_MISTY1_KS_FL * (BC_MISTY1_ROUNDS + 1), 0);
    } else {
        bc_misty1_bs_fl(s, 1, ks + BC_MISTY1_KS_FL * BC_MISTY1_ROUNDS, 1);
        bc_misty1_bs_fl(s, 0, ks + BC_MISTY1_KS_FL * (BC_MISTY1_ROUNDS + 1), 1);
        BC_MISTY1_NOUNROLL
        for (int r = BC_MISTY1_ROUNDS - 2; r >= 0; r -= 2) {
            bc_misty1_bs_fo(s, 0, 1, fo + BC_MISTY1_KS_FO * (r + 1)); /* D0 ^= FO(D1, r + 1) */
            bc_misty1_bs_fo(s, 1, 0, fo + BC_MISTY1_KS_FO * r);       /* D1 ^= FO(D0, r) */
            bc_misty1_bs_fl(s, 1, ks + BC_MISTY1_KS_FL * r, 1);
            bc_misty1_bs_fl(s, 0, ks + BC_MISTY1_KS_FL * (r + 1), 1);
        }
    }
    bc_misty1_bs_store(s, w);
}

/* w: 32 blocks * 2 words in private memory, block j = w[2j], w[2j + 1] (little-endian
 * words of its bytes); all 32 in place. */
BC_FN void bc_misty1_encrypt_batch(const BC_MISTY1_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_misty1_bs_crypt(ks, w, 0); }
BC_FN void bc_misty1_decrypt_batch(const BC_MISTY1_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_misty1_bs_crypt(ks, w, 1); }

#endif /* BC_CORES_MISTY1_BLOCK_H */
