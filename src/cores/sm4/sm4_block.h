/*
 * SM4 (GB/T 32907-2016; draft-ribose-cfrg-sm4; 128-bit key, 32 rounds) in the portable
 * dialect, bitsliced: constant time by construction (no table, no address and no branch
 * depends on the key or the data). Host C++, CUDA and OpenCL C 1.2 compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_sm4_encrypt_batch(ks, w), bc_sm4_decrypt_batch(ks, w): 32 blocks in place;
 *   w[4j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; sm4_expand_key in sm4.h writes it):
 *   ks[32i + 8q + b], i = 0..31: the round key rk_i as mask words, all ones when bit b
 *          (0 = least significant) of byte q (0 = most significant, the standard's
 *          order) of rk_i is set, else zero. Rounds in encryption order; decryption
 *          walks them backwards, so one ks serves both directions.
 *   BC_SM4_KS_WORDS = 32 * 32 = 1024 words (4096 bytes).
 *
 * State: 128 words as AES's bitsliced core, s[8p + b] = bit b of byte p of the block,
 * bit j of each word = block j (the transposition is bc_aes_bs_transpose32 of
 * aes_bitsliced.h). The 32-bit word X_k of the standard (bytes 4k..4k+3, big-endian) is
 * s[32k .. 32k+31]; its bit j (0 = least significant) is s[32k + BC_SM4_BIT(j)]. Words are
 * never moved: round i writes X_{i+4} over X_i in slot i mod 4, and the store reads
 * the slots in the order the output (X35, X34, X33, X32) wants.
 * Round: u = X1 ^ X2 ^ X3 ^ rk as two 3-input XORs a bit; the four S-boxes on u's bytes
 * (the one network of sm4_sbox.h); L(B) = B ^ B<<<2 ^ B<<<10 ^ B<<<18 ^ B<<<24 and the
 * XOR into X0. The rotations are renamings. With D = B ^ B<<<8 ^ B<<<16 ^ B<<<24, which
 * has only 8 distinct bits (one per bit position of a byte), B<<<2 ^ B<<<10 ^ B<<<18 =
 * D<<<2 ^ B<<<26, so X0 ^= B ^ B<<<24 ^ D<<<2 ^ B<<<26: 8 x 2 operations for D, then
 * 2 three-input XORs an output bit. Every index into the state is a constant once
 * unrolled, so on CUDA the 128 words stay in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   round: X1 ^ X2 ^ X3 ^ rk 32 x 2 = 64, 4 S-boxes x 89 = 356, D 8 x 2 = 16,
 *          L + XOR into X0 32 x 2 = 64 -> 500
 *   transposition in and out: 8 x bc_aes_bs_transpose32 = 8 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,792
 *   SM4: 32 x 500 + 1,792 = 17,792 ops / 512 bytes = 34.8 ops/byte
 *          -> ceiling 16.7e12 / 34.8 = 481 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 33.3 (502 GB/s).
 *   Not counted: 32 mask loads a round from ks (LDG, another pipe), the mode's work.
 * sm_90 (nvcc 13.0, a kernel holding w in registers, each direction): 254 registers, no
 * spills; its PTX has 2,768 logic operations (a 4-round group of 2,000, the loop body
 * run 8 times, and the transpositions' 768 LOP3), as counted above. Not yet measured
 * on a GPU.
 *
 * Key address space: BC_SM4_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_SM4_BLOCK_H
#define BC_CORES_SM4_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
#include "cores/sm4/sm4_sbox.h"

#define BC_SM4_BLOCK_BYTES 16
#define BC_SM4_BATCH 32 /* blocks per batch call */
#ifndef BC_SM4_KS_SPACE
#define BC_SM4_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_SM4_ROUNDS 32
#define BC_SM4_KS_ROUND 32 /* mask words per round key */
#define BC_SM4_KS_WORDS (BC_SM4_KS_ROUND * BC_SM4_ROUNDS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_SM4_UNROLL _Pragma("unroll")
#define BC_SM4_NOUNROLL _Pragma("unroll 1")
#else
#define BC_SM4_UNROLL
#define BC_SM4_NOUNROLL
#endif

#define BC_SM4_XOR3(a, b, c) BC_AES_LUT3(a, b, c, 0x96, (a) ^ (b) ^ (c))

/* Offset, within a word's 32 state words, of bit j (0 = least significant) of the word:
 * bit b of byte q, q = 0 the most significant byte. */
#define BC_SM4_BIT(j) (8 * (3 - ((j) >> 3)) + ((j) & 7))

/* One round: the word in slot d (0..3, s[32d..32d+31]) is X0, the next slots X1, X2, X3;
 * X0 ^= L(S(X1 ^ X2 ^ X3 ^ rk)), k the round's 32 mask words. */
BC_FN void bc_sm4_bs_round(bc_u32 *s, int d, const BC_SM4_KS_SPACE bc_u32 *k) {
    const int o1 = 32 * ((d + 1) & 3), o2 = 32 * ((d + 2) & 3), o3 = 32 * ((d + 3) & 3);
    bc_u32 y[32]; /* y[8q + b]: bit b of the S-box output of byte q */
    BC_SM4_UNROLL
    for (int q = 0; q < 4; ++q) {
        bc_u32 x[8];
        BC_SM4_UNROLL
        for (int b = 0; b < 8; ++b) {
            const int n = 8 * q + b;
            x[b] = BC_SM4_XOR3(s[o1 + n], s[o2 + n], s[o3 + n]) ^ k[n];
        }
        bc_sm4_bs_sbox(x);
        BC_SM4_UNROLL
        for (int b = 0; b < 8; ++b) y[8 * q + b] = x[b];
    }
    /* D = B ^ B<<<8 ^ B<<<16 ^ B<<<24: bit b of D's every byte */
    bc_u32 dsum[8];
    BC_SM4_UNROLL
    for (int b = 0; b < 8; ++b) dsum[b] = BC_SM4_XOR3(y[b], y[8 + b], y[16 + b]) ^ y[24 + b];
    /* X0 ^= B ^ B<<<24 ^ D<<<2 ^ B<<<26; bit j of B <<< r is bit j - r of B */
    bc_u32 *x0 = s + 32 * d;
    BC_SM4_UNROLL
    for (int j = 0; j < 32; ++j) {
        const bc_u32 t = BC_SM4_XOR3(x0[BC_SM4_BIT(j)], y[BC_SM4_BIT(j)], y[BC_SM4_BIT((j + 8) & 31)]);
        x0[BC_SM4_BIT(j)] = BC_SM4_XOR3(t, dsum[(j + 6) & 7], y[BC_SM4_BIT((j + 6) & 31)]);
    }
}

/* w (w[4j + k]) <-> bitsliced state s (s[8p + b]): the renaming s[32k + j] = w[4j + k]
 * and the four 32x32 transpositions. */
BC_FN void bc_sm4_bs_load(bc_u32 *s, const bc_u32 *w) {
    BC_SM4_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_SM4_UNROLL
        for (int k = 0; k < 4; ++k) s[32 * k + j] = w[4 * j + k];
    }
    BC_SM4_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
}

/* Also reverses the words: the ciphertext is X35 || X34 || X33 || X32, and X_{32+k}
 * sits in slot k. Destroys s. */
BC_FN void bc_sm4_bs_store(bc_u32 *s, bc_u32 *w) {
    BC_SM4_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
    BC_SM4_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_SM4_UNROLL
        for (int k = 0; k < 4; ++k) w[4 * j + k] = s[32 * (3 - k) + j];
    }
}

/* Both directions: dec = 0 walks the round keys forwards, dec = 1 backwards (a constant
 * at every call site, so the compiler folds the selects). */
BC_FN void bc_sm4_bs_crypt(const BC_SM4_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[128];
    bc_sm4_bs_load(s, w);
    const int step = dec ? -BC_SM4_KS_ROUND : BC_SM4_KS_ROUND;
    const BC_SM4_KS_SPACE bc_u32 *k = ks + (dec ? BC_SM4_KS_ROUND * (BC_SM4_ROUNDS - 1) : 0);
    BC_SM4_NOUNROLL
    for (int g = 0; g < BC_SM4_ROUNDS / 4; ++g) {
        BC_SM4_UNROLL
        for (int d = 0; d < 4; ++d) {
            bc_sm4_bs_round(s, d, k);
            k += step;
        }
    }
    bc_sm4_bs_store(s, w);
}

/* w: 32 blocks * 4 words in private memory, block j = w[4j..4j+3] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_sm4_encrypt_batch(const BC_SM4_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_sm4_bs_crypt(ks, w, 0); }
BC_FN void bc_sm4_decrypt_batch(const BC_SM4_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_sm4_bs_crypt(ks, w, 1); }

#endif /* BC_CORES_SM4_BLOCK_H */
