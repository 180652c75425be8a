/*
 * CLEFIA (RFC 6114; 128-, 192- and 256-bit keys) in the portable dialect, bitsliced:
 * constant time by construction (no table, no address and no branch depends on the key
 * or the data). Host C++, CUDA and OpenCL C 1.2 compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_clefia_encrypt_batch(ks, w), bc_clefia_decrypt_batch(ks, w): 32 blocks in
 *   place; w[4j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; clefia_expand_key in clefia.h writes it):
 *   ks[0]  r, the number of rounds: 18, 22 or 26 (128-, 192-, 256-bit keys)
 *   ks[1]  the key length in bits; ks[2] G = (r - 2) / 4 (4, 5 or 6); ks[3] = 0
 *   ks[4 + 32u + 8q + b], u = 0..2r+3: unit u is one 32-bit key word as mask words, all
 *          ones when bit b (0 = least significant) of byte q (0 = most significant, RFC
 *          order) of the word is set, else zero. Units: WK0, WK1, WK2, WK3, then RK0 ..
 *          RK(2r-1) (RFC 6114 2.5).
 *   BC_CLEFIA_KS_WORDS = 4 + 32 * 56 = 1796 words (7184 bytes) for the largest key;
 *   128-bit keys use 4 + 32 * 40 words. Decryption walks the round keys backwards, so
 *   one ks serves both directions.
 *
 * State: 128 words as AES's bitsliced core, s[8p + b] = bit b of byte p of the block,
 * bit j of each word = block j (the transposition is bc_aes_bs_transpose32 of
 * aes_bitsliced.h). The four 32-bit branches of the 4-branch generalised Feistel
 * network are the words s[32i .. 32i + 31] (bytes 4i..4i+3). The rotation of the
 * branches after every round is a renaming: round i reads logical branch t from
 * physical branch (t + i) mod 4 (decryption: (t - i) mod 4); four rounds are a loop
 * body, and since 18, 22 and 26 are all 2 mod 4 the two remaining rounds and the
 * output renaming are the same for every key length.
 * Round: two F functions, F0 on branch 0 into branch 1 and F1 on branch 2 into branch
 * 3 (logical). F: 32 key XORs, four S-boxes (F0: S0 S1 S0 S1, F1: S1 S0 S1 S0; the
 * networks of clefia_sbox.h), then M0 or M1 (RFC 6114 2.4.3) as
 *   M0: y0 = z0 ^ 2(z1 ^ z3) ^ 4(z2 ^ z3), y1 = z1 ^ 2(z0 ^ z2) ^ 4(z2 ^ z3),
 *       y2 = z2 ^ 2(z1 ^ z3) ^ 4(z0 ^ z1), y3 = z3 ^ 2(z0 ^ z2) ^ 4(z0 ^ z1);
 *   M1: y0 = z0 ^ 2(z2 ^ z3) ^ 8(z1 ^ z3), y1 = z1 ^ 2(z2 ^ z3) ^ 8(z0 ^ z2),
 *       y2 = z2 ^ 2(z0 ^ z1) ^ 8(z1 ^ z3), y3 = z3 ^ 2(z0 ^ z1) ^ 8(z0 ^ z2),
 * products in GF(2^8)/(z^8 + z^4 + z^3 + z^2 + 1) as XORs of renamed bits, and the
 * result XORed into the target branch (two 3-input XORs a bit). Every index into the
 * state is a constant once unrolled, so on CUDA the 128 words stay in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   F: key XOR 32, S-boxes 2 x 55 (S0) + 2 x 92 (S1) = 294, M0 114 (32 XOR for the four
 *      sums, 6 + 12 for the products by 2 and 4, 64 into the target) or M1 120 (the
 *      products by 8 cost 18) -> F0 440, F1 446; round 886
 *   whitening: 4 x 32 = 128
 *   transposition in and out: 8 x bc_aes_bs_transpose32 = 8 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,792
 *   CLEFIA-128: 18 x 886 + 128 + 1,792 = 17,868 ops / 512 bytes = 34.9 ops/byte
 *          -> ceiling 16.7e12 / 34.9 = 479 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 33.4 (500 GB/s).
 *   CLEFIA-192: 22 x 886 + 1,920 = 21,412 -> 41.8 ops/byte, 399 GB/s;
 *   CLEFIA-256: 26 x 886 + 1,920 = 24,956 -> 48.7 ops/byte, 343 GB/s.
 *   Not counted: 64 mask loads a round from ks (LDG, another pipe), the mode's work.
 *   Not measured on a GPU yet.
 *
 * Key address space: BC_CLEFIA_KS_SPACE (default BC_GLOBAL); a backend that stages
 * the masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_CLEFIA_BLOCK_H
#define BC_CORES_CLEFIA_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
#include "cores/clefia/clefia_sbox.h"

#define BC_CLEFIA_BLOCK_BYTES 16
#define BC_CLEFIA_BATCH 32 /* blocks per batch call */
#ifndef BC_CLEFIA_KS_SPACE
#define BC_CLEFIA_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_CLEFIA_KS_HEADER 4
#define BC_CLEFIA_KS_UNIT 32
#define BC_CLEFIA_KS_MAX_UNITS 56 /* 4 whitening keys + 52 round keys */
#define BC_CLEFIA_KS_WORDS (BC_CLEFIA_KS_HEADER + BC_CLEFIA_KS_UNIT * BC_CLEFIA_KS_MAX_UNITS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_CLEFIA_UNROLL _Pragma("unroll")
#define BC_CLEFIA_NOUNROLL _Pragma("unroll 1")
#else
#define BC_CLEFIA_UNROLL
#define BC_CLEFIA_NOUNROLL
#endif

#define BC_CLEFIA_XOR3(a, b, c) BC_AES_LUT3(a, b, c, 0x96, (a) ^ (b) ^ (c))

/* v[0..7] *= 2 in GF(2^8)/0x11d, in place: bit 7 folds into bits 0, 2, 3, 4. */
BC_FN void bc_clefia_bs_mul2(bc_u32 *v) {
    const bc_u32 h = v[7];
    v[7] = v[6];
    v[6] = v[5];
    v[5] = v[4];
    v[4] = v[3] ^ h;
    v[3] = v[2] ^ h;
    v[2] = v[1] ^ h;
    v[1] = v[0];
    v[0] = h;
}

/* The F function (f1 = 0: F0 with M0, f1 = 1: F1 with M1; a constant at every call
 * site) of physical branch src into branch dst: s[dst..dst+31] ^= M(S(s[src..] ^ k)). */
BC_FN void bc_clefia_bs_f(bc_u32 *s, int src, int dst, const BC_CLEFIA_KS_SPACE bc_u32 *k, int f1) {
    bc_u32 z[32]; /* z[8q + b]: bit b of the S-box output of byte q */
    BC_CLEFIA_UNROLL
    for (int q = 0; q < 4; ++q) {
        bc_u32 x[8];
        BC_CLEFIA_UNROLL
        for (int b = 0; b < 8; ++b) x[b] = s[src + 8 * q + b] ^ k[8 * q + b];
        /* F0: S0 S1 S0 S1, F1: S1 S0 S1 S0 */
        if (((q & 1) ^ f1) != 0) bc_clefia_bs_s1(x);
        else bc_clefia_bs_s0(x);
        BC_CLEFIA_UNROLL
        for (int b = 0; b < 8; ++b) z[8 * q + b] = x[b];
    }
    /* Sums of byte pairs: M0 multiplies z0^z2 and z1^z3 by 2, z0^z1 and z2^z3 by 4;
     * M1 multiplies z0^z1 and z2^z3 by 2, z0^z2 and z1^z3 by 8. */
    bc_u32 p01[8], p23[8], p02[8], p13[8];
    BC_CLEFIA_UNROLL
    for (int b = 0; b < 8; ++b) {
        p01[b] = z[b] ^ z[8 + b];
        p23[b] = z[16 + b] ^ z[24 + b];
        p02[b] = z[b] ^ z[16 + b];
        p13[b] = z[8 + b] ^ z[24 + b];
    }
    if (f1) {
        bc_clefia_bs_mul2(p01);
        bc_clefia_bs_mul2(p23);
        BC_CLEFIA_UNROLL
        for (int i = 0; i < 3; ++i) {
            bc_clefia_bs_mul2(p02);
            bc_clefia_bs_mul2(p13);
        }
        /* y0 = z0 ^ 2p23 ^ 8p13, y1 = z1 ^ 2p23 ^ 8p02, y2 = z2 ^ 2p01 ^ 8p13,
         * y3 = z3 ^ 2p01 ^ 8p02 */
        BC_CLEFIA_UNROLL
        for (int b = 0; b < 8; ++b) {
            bc_u32 *d = s + dst + b;
            d[0] = BC_CLEFIA_XOR3(d[0], z[b], p23[b]) ^ p13[b];
            d[8] = BC_CLEFIA_XOR3(d[8], z[8 + b], p23[b]) ^ p02[b];
            d[16] = BC_CLEFIA_XOR3(d[16], z[16 + b], p01[b]) ^ p13[b];
            d[24] = BC_CLEFIA_XOR3(d[24], z[24 + b], p01[b]) ^ p02[b];
        }
    } else {
        bc_clefia_bs_mul2(p02);
        bc_clefia_bs_mul2(p13);
        BC_CLEFIA_UNROLL
        for (int i = 0; i < 2; ++i) {
            bc_clefia_bs_mul2(p01);
            bc_clefia_bs_mul2(p23);
        }
        /* y0 = z0 ^ 2p13 ^ 4p23, y1 = z1 ^ 2p02 ^ 4p23, y2 = z2 ^ 2p13 ^ 4p01,
         * y3 = z3 ^ 2p02 ^ 4p01 */
        BC_CLEFIA_UNROLL
        for (int b = 0; b < 8; ++b) {
            bc_u32 *d = s + dst + b;
            d[0] = BC_CLEFIA_XOR3(d[0], z[b], p13[b]) ^ p23[b];
            d[8] = BC_CLEFIA_XOR3(d[8], z[8 + b], p02[b]) ^ p23[b];
            d[16] = BC_CLEFIA_XOR3(d[16], z[16 + b], p13[b]) ^ p01[b];
            d[24] = BC_CLEFIA_XOR3(d[24], z[24 + b], p02[b]) ^ p01[b];
        }
    }
}

/* One round with the logical branches t at physical (t + o) mod 4; k: RK(2i), then
 * RK(2i+1) 32 words further. */
BC_FN void bc_clefia_bs_round(bc_u32 *s, int o, const BC_CLEFIA_KS_SPACE bc_u32 *k) {
    bc_clefia_bs_f(s, 32 * (o & 3), 32 * ((o + 1) & 3), k, 0);
    bc_clefia_bs_f(s, 32 * ((o + 2) & 3), 32 * ((o + 3) & 3), k + BC_CLEFIA_KS_UNIT, 1);
}

/* s[h..h+31] ^= the 32 masks k. */
BC_FN void bc_clefia_bs_xor_key(bc_u32 *s, int h, const BC_CLEFIA_KS_SPACE bc_u32 *k) {
    BC_CLEFIA_UNROLL
    for (int i = 0; i < 32; ++i) s[h + i] ^= k[i];
}

/* w (w[4j + k]) -> bitsliced state s (s[8p + b]): the renaming s[32k + j] = w[4j + k]
 * and the four 32x32 transpositions. */
BC_FN void bc_clefia_bs_load(bc_u32 *s, const bc_u32 *w) {
    BC_CLEFIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_CLEFIA_UNROLL
        for (int k = 0; k < 4; ++k) s[32 * k + j] = w[4 * j + k];
    }
    BC_CLEFIA_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
}

/* Back to w, logical branch k of the output at physical branch (k + o) mod 4.
 * Destroys s. */
BC_FN void bc_clefia_bs_store(bc_u32 *s, bc_u32 *w, int o) {
    BC_CLEFIA_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
    BC_CLEFIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_CLEFIA_UNROLL
        for (int k = 0; k < 4; ++k) w[4 * j + k] = s[32 * ((k + o) & 3) + j];
    }
}

/* Both directions (RFC 6114 2.3): dec = 0 runs GFN_{4,r} with RK0, RK1, ... and the
 * whitening keys WK0, WK1 before and WK2, WK3 after; dec = 1 runs GFN^-1_{4,r} with
 * the round keys from the last pair back and the whitening pairs swapped. dec is a
 * constant at every call site, so the compiler folds the selects. */
BC_FN void bc_clefia_bs_crypt(const BC_CLEFIA_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[128];
    const int rounds = (int)ks[0];
    const int groups = (int)ks[2];
    const BC_CLEFIA_KS_SPACE bc_u32 *m = ks + BC_CLEFIA_KS_HEADER;
    bc_clefia_bs_load(s, w);
    /* T1 ^= WK0 (WK2), T3 ^= WK1 (WK3) */
    bc_clefia_bs_xor_key(s, 32, m + BC_CLEFIA_KS_UNIT * (dec ? 2 : 0));
    bc_clefia_bs_xor_key(s, 96, m + BC_CLEFIA_KS_UNIT * (dec ? 3 : 1));
    const int step = dec ? -2 * BC_CLEFIA_KS_UNIT : 2 * BC_CLEFIA_KS_UNIT;
    const BC_CLEFIA_KS_SPACE bc_u32 *k = m + BC_CLEFIA_KS_UNIT * (dec ? 4 + 2 * (rounds - 1) : 4);
    /* Encryption moves the branches one place left a round (offset +1), decryption one
     * place right (offset -1 = +3). The r = 4G + 2 rounds run as G + 1 passes of a
     * four-round body that the last pass leaves after its second round: the two rounds
     * after the loop would otherwise be ~1,800 more instructions of straight-line code
     * in every kernel, which the GPU's instruction cache holds worse (bench/notes/
     * block-ciphers-gpu.md, "CLEFIA's XTS and the instruction cache"). */
    BC_CLEFIA_NOUNROLL
    for (int g = 0;; ++g) {
        BC_CLEFIA_UNROLL
        for (int j = 0; j < 2; ++j) {
            bc_clefia_bs_round(s, dec ? 4 - j : j, k);
            k += step;
        }
        if (g == groups) break;
        BC_CLEFIA_UNROLL
        for (int j = 2; j < 4; ++j) {
            bc_clefia_bs_round(s, dec ? 4 - j : j, k);
            k += step;
        }
    }
    /* The output is the state of the last round (offset 1, decryption 3) without its
     * rotation: Y1 ^= WK2 (WK0), Y3 ^= WK3 (WK1). */
    const int o = dec ? 3 : 1;
    bc_clefia_bs_xor_key(s, 32 * ((1 + o) & 3), m + BC_CLEFIA_KS_UNIT * (dec ? 0 : 2));
    bc_clefia_bs_xor_key(s, 32 * ((3 + o) & 3), m + BC_CLEFIA_KS_UNIT * (dec ? 1 : 3));
    bc_clefia_bs_store(s, w, o);
}

/* w: 32 blocks * 4 words in private memory, block j = w[4j..4j+3] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_clefia_encrypt_batch(const BC_CLEFIA_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_clefia_bs_crypt(ks, w, 0);
}
BC_FN void bc_clefia_decrypt_batch(const BC_CLEFIA_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_clefia_bs_crypt(ks, w, 1);
}

#endif /* BC_CORES_CLEFIA_BLOCK_H */
