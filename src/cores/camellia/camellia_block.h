/*
 * Camellia (RFC 3713; 128-, 192- and 256-bit keys) in the portable dialect, bitsliced:
 * constant time by construction (no table, no address and no branch depends on the key
 * or the data). Host C++, CUDA and OpenCL C 1.2 compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_camellia_encrypt_batch(ks, w), bc_camellia_decrypt_batch(ks, w): 32 blocks in
 *   place; w[4j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; camellia_expand_key in camellia.h writes it):
 *   ks[0]  G, the number of 6-round groups: 3 (128-bit keys, 18 rounds) or 4 (192/256, 24)
 *   ks[1]  the key length in bits; ks[2] the number of subkey units N = 8G + 2; ks[3] = 0
 *   ks[4 + 64u + 8q + b], u = 0..N-1: unit u is one 64-bit subkey as mask words, all ones
 *          when bit b (0 = least significant) of byte q (0 = most significant, RFC
 *          order) of the subkey is set, else zero. Units in encryption order:
 *            kw1, kw2, then per group g: k(6g+1)..k(6g+6), and after every group but
 *            the last its FL keys ke(2g+1) (for FL on the left half), ke(2g+2) (FL^-1
 *            on the right); then kw3, kw4.
 *   BC_CAMELLIA_KS_WORDS = 4 + 64 * 34 = 2180 words (8720 bytes) for the largest key;
 *   128-bit keys use 4 + 64 * 26 words. Decryption walks the same units backwards (the
 *   whitening pairs swapped), so one ks serves both directions.
 *
 * State: 128 words as AES's bitsliced core, s[8p + b] = bit b of byte p of the block,
 * bit j of each word = block j (the transposition is bc_aes_bs_transpose32 of
 * aes_bitsliced.h). Bytes 0..7 (s[0..63]) are the left half D1, bytes 8..15 the right
 * half D2. Round: t = D ^ k (64 XOR), the 8 S-boxes s1 s2 s3 s4 s2 s3 s4 s1 on the bytes
 * of t, where s2(x) = s1(x) <<< 1, s3(x) = s1(x) >>> 1 and s4(x) = s1(x <<< 1) are the
 * one s1 network (camellia_sbox.h) with its outputs or inputs renamed; P and the XOR into
 * the other half as 3-input XORs. FL / FL^-1 (every 6 rounds): the 1-bit rotations are
 * renamings, so a layer is 32 AND+XOR and 32 OR+XOR per half. Every index into the state
 * is a constant once unrolled, so on CUDA the 128 words stay in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   round: 8 S-boxes x 89 = 712, key XOR 64, P + XOR into the other half 8 x 20 = 160
 *          -> 936 as written (ptxas, sm_90: ~915, merging some key XORs)
 *   FL layers: 128 each (64 per half), 2 (Camellia-128) or 3; whitening 4 x 64 = 256
 *   transposition in and out: 8 x bc_aes_bs_transpose32 = 8 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,792
 *   Camellia-128: 18 x 936 + 256 + 256 + 1,792 = 19,152 ops / 512 bytes = 37.4 ops/byte
 *          -> ceiling 16.7e12 / 37.4 = 446 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 35.9 (465 GB/s).
 *   Camellia-192/256: 24 x 936 + 384 + 256 + 1,792 = 24,896 -> 48.6 ops/byte, 343 GB/s.
 *   Not counted: 64 mask loads a round from ks (LDG, another pipe), the mode's work.
 * sm_90 (nvcc 13, a kernel holding w in registers, both directions): 254 registers, no
 * spills; 9,120 SASS instructions a kernel (6,768 LOP3), the 6-round group a loop.
 * Measured on an H100 80GB HBM3 (2026-11-25, a throwaway kernel: 32 counter blocks a
 * thread built in registers and passed through bc_camellia_encrypt_batch, both
 * transpositions included, XORed into 1 GiB in GPU memory, coalesced, 64 or 128 threads
 * a block, results checked against the host core): Camellia-128 CTR-like 344-347 GB/s, Camellia-256
 * 275-278 GB/s; decryption in place over 1 GiB 263-272 (128) and 245-247 (256) GB/s.
 *
 * Key address space: BC_CAMELLIA_KS_SPACE (default BC_GLOBAL); a backend that stages
 * the masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_CAMELLIA_BLOCK_H
#define BC_CORES_CAMELLIA_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
#include "cores/camellia/camellia_sbox.h"

#define BC_CAMELLIA_BLOCK_BYTES 16
#define BC_CAMELLIA_BATCH 32 /* blocks per batch call */
#ifndef BC_CAMELLIA_KS_SPACE
#define BC_CAMELLIA_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_CAMELLIA_KS_HEADER 4
#define BC_CAMELLIA_KS_UNIT 64
#define BC_CAMELLIA_KS_MAX_UNITS 34
#define BC_CAMELLIA_KS_WORDS (BC_CAMELLIA_KS_HEADER + BC_CAMELLIA_KS_UNIT * BC_CAMELLIA_KS_MAX_UNITS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_CAMELLIA_UNROLL _Pragma("unroll")
#define BC_CAMELLIA_NOUNROLL _Pragma("unroll 1")
#else
#define BC_CAMELLIA_UNROLL
#define BC_CAMELLIA_NOUNROLL
#endif

#define BC_CAMELLIA_XOR3(a, b, c) BC_AES_LUT3(a, b, c, 0x96, (a) ^ (b) ^ (c))

/* Which of s1..s4 byte q (0..7) of the F function's input goes through. */
#define BC_CAMELLIA_SBOX_OF(q) ((q) == 0 || (q) == 7 ? 1 : (q) == 1 || (q) == 4 ? 2 : (q) == 2 || (q) == 5 ? 3 : 4)

/* The F function of one round: s[dst..dst+63] ^= P(S(s[src..src+63] ^ k)), k the
 * round's 64 mask words. src and dst are 0 and 64 (or 64 and 0). */
BC_FN void bc_camellia_bs_round(bc_u32 *s, int src, int dst, const BC_CAMELLIA_KS_SPACE bc_u32 *k) {
    bc_u32 y[64]; /* y[8q + b]: bit b of the S-box output of byte q */
    BC_CAMELLIA_UNROLL
    for (int q = 0; q < 8; ++q) {
        const int box = BC_CAMELLIA_SBOX_OF(q);
        bc_u32 x[8];
        /* s4: s1 of x <<< 1, bit b of x <<< 1 = bit b - 1 of x */
        BC_CAMELLIA_UNROLL
        for (int b = 0; b < 8; ++b) {
            const int from = box == 4 ? ((b + 7) & 7) : b;
            x[b] = s[src + 8 * q + from] ^ k[8 * q + from];
        }
        bc_camellia_bs_s1(x);
        /* s2: output <<< 1; s3: output >>> 1 */
        BC_CAMELLIA_UNROLL
        for (int b = 0; b < 8; ++b) {
            const int from = box == 2 ? ((b + 7) & 7) : box == 3 ? ((b + 1) & 7) : b;
            y[8 * q + b] = x[from];
        }
    }
    /* P (RFC 3713 2.4.3) into the other half. With S = y5^y6^y7^y8 and Q = y1^..^y8:
     * z1 = Q^y2^y5, z2 = Q^y3^y6, z3 = Q^y4^y7, z4 = Q^y1^y8,
     * z5 = S^y1^y2^y5, z6 = S^y2^y3^y6, z7 = S^y3^y4^y7, z8 = S^y1^y4^y8. */
    BC_CAMELLIA_UNROLL
    for (int b = 0; b < 8; ++b) {
        const bc_u32 y1 = y[b], y2 = y[8 + b], y3 = y[16 + b], y4 = y[24 + b];
        const bc_u32 y5 = y[32 + b], y6 = y[40 + b], y7 = y[48 + b], y8 = y[56 + b];
        const bc_u32 S = BC_CAMELLIA_XOR3(y5, y6, y7) ^ y8;
        const bc_u32 Q = BC_CAMELLIA_XOR3(BC_CAMELLIA_XOR3(S, y1, y2), y3, y4);
        const bc_u32 u1 = y2 ^ y5, u2 = y3 ^ y6, u3 = y4 ^ y7, u4 = y1 ^ y8;
        bc_u32 *d = s + dst + b;
        d[0] = BC_CAMELLIA_XOR3(d[0], Q, u1);
        d[8] = BC_CAMELLIA_XOR3(d[8], Q, u2);
        d[16] = BC_CAMELLIA_XOR3(d[16], Q, u3);
        d[24] = BC_CAMELLIA_XOR3(d[24], Q, u4);
        d[32] = BC_CAMELLIA_XOR3(BC_CAMELLIA_XOR3(d[32], S, y1), y2, y5);
        d[40] = BC_CAMELLIA_XOR3(BC_CAMELLIA_XOR3(d[40], S, y2), y3, y6);
        d[48] = BC_CAMELLIA_XOR3(BC_CAMELLIA_XOR3(d[48], S, y3), y4, y7);
        d[56] = BC_CAMELLIA_XOR3(BC_CAMELLIA_XOR3(d[56], S, y1), y4, y8);
    }
}

/* Word of bit j (0..31, 0 = least significant) of the 32-bit half hi (1: bytes 0..3,
 * the more significant; 0: bytes 4..7) of a 64-bit value laid out as 8 bytes. */
#define BC_CAMELLIA_BIT(hi, j) (8 * (((hi) ? 3 : 7) - ((j) >> 3)) + ((j) & 7))

/* FL (RFC 3713 2.4.4) on s[h..h+63] with the subkey masks k:
 * XR ^= (XL & KL) <<< 1; XL ^= XR | KR. */
BC_FN void bc_camellia_bs_fl(bc_u32 *s, int h, const BC_CAMELLIA_KS_SPACE bc_u32 *k) {
    BC_CAMELLIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        const int i = (j + 31) & 31;
        s[h + BC_CAMELLIA_BIT(0, j)] ^= s[h + BC_CAMELLIA_BIT(1, i)] & k[BC_CAMELLIA_BIT(1, i)];
    }
    BC_CAMELLIA_UNROLL
    for (int j = 0; j < 32; ++j) s[h + BC_CAMELLIA_BIT(1, j)] ^= s[h + BC_CAMELLIA_BIT(0, j)] | k[BC_CAMELLIA_BIT(0, j)];
}

/* FL^-1: YL ^= YR | KR; YR ^= (YL & KL) <<< 1. */
BC_FN void bc_camellia_bs_fl_inv(bc_u32 *s, int h, const BC_CAMELLIA_KS_SPACE bc_u32 *k) {
    BC_CAMELLIA_UNROLL
    for (int j = 0; j < 32; ++j) s[h + BC_CAMELLIA_BIT(1, j)] ^= s[h + BC_CAMELLIA_BIT(0, j)] | k[BC_CAMELLIA_BIT(0, j)];
    BC_CAMELLIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        const int i = (j + 31) & 31;
        s[h + BC_CAMELLIA_BIT(0, j)] ^= s[h + BC_CAMELLIA_BIT(1, i)] & k[BC_CAMELLIA_BIT(1, i)];
    }
}

/* s[h..h+63] ^= the 64 masks k. */
BC_FN void bc_camellia_bs_xor_key(bc_u32 *s, int h, const BC_CAMELLIA_KS_SPACE bc_u32 *k) {
    BC_CAMELLIA_UNROLL
    for (int i = 0; i < 64; ++i) s[h + i] ^= k[i];
}

/* w (w[4j + k]) <-> bitsliced state s (s[8p + b]): the renaming s[32k + j] = w[4j + k]
 * and the four 32x32 transpositions. */
BC_FN void bc_camellia_bs_load(bc_u32 *s, const bc_u32 *w) {
    BC_CAMELLIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_CAMELLIA_UNROLL
        for (int k = 0; k < 4; ++k) s[32 * k + j] = w[4 * j + k];
    }
    BC_CAMELLIA_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
}

/* Also swaps the halves: the ciphertext is D2 || D1. Destroys s. */
BC_FN void bc_camellia_bs_store(bc_u32 *s, bc_u32 *w) {
    BC_CAMELLIA_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
    BC_CAMELLIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_CAMELLIA_UNROLL
        for (int k = 0; k < 4; ++k) w[4 * j + k] = s[32 * ((k + 2) & 3) + j];
    }
}

/* Both directions: dec = 0 walks the units forwards, dec = 1 backwards (a constant at
 * every call site, so the compiler folds the selects). */
BC_FN void bc_camellia_bs_crypt(const BC_CAMELLIA_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[128];
    const int groups = (int)ks[0];
    const int units = 8 * groups + 2;
    const BC_CAMELLIA_KS_SPACE bc_u32 *m = ks + BC_CAMELLIA_KS_HEADER;
    bc_camellia_bs_load(s, w);
    /* whitening: encryption kw1, kw2; decryption kw3, kw4 */
    bc_camellia_bs_xor_key(s, 0, m + BC_CAMELLIA_KS_UNIT * (dec ? units - 2 : 0));
    bc_camellia_bs_xor_key(s, 64, m + BC_CAMELLIA_KS_UNIT * (dec ? units - 1 : 1));
    const int step = dec ? -BC_CAMELLIA_KS_UNIT : BC_CAMELLIA_KS_UNIT;
    const BC_CAMELLIA_KS_SPACE bc_u32 *k = m + BC_CAMELLIA_KS_UNIT * (dec ? units - 3 : 2);
    BC_CAMELLIA_NOUNROLL
    for (int g = 0; g < groups; ++g) {
        BC_CAMELLIA_UNROLL
        for (int r = 0; r < 3; ++r) {
            bc_camellia_bs_round(s, 0, 64, k);
            k += step;
            bc_camellia_bs_round(s, 64, 0, k);
            k += step;
        }
        if (g + 1 < groups) { /* the round count is public: a uniform branch */
            bc_camellia_bs_fl(s, 0, k);
            k += step;
            bc_camellia_bs_fl_inv(s, 64, k);
            k += step;
        }
    }
    /* whitening: encryption D2 ^= kw3, D1 ^= kw4; decryption D2 ^= kw1, D1 ^= kw2 */
    bc_camellia_bs_xor_key(s, 64, m + BC_CAMELLIA_KS_UNIT * (dec ? 0 : units - 2));
    bc_camellia_bs_xor_key(s, 0, m + BC_CAMELLIA_KS_UNIT * (dec ? 1 : units - 1));
    bc_camellia_bs_store(s, w);
}

/* w: 32 blocks * 4 words in private memory, block j = w[4j..4j+3] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_camellia_encrypt_batch(const BC_CAMELLIA_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_camellia_bs_crypt(ks, w, 0);
}
BC_FN void bc_camellia_decrypt_batch(const BC_CAMELLIA_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_camellia_bs_crypt(ks, w, 1);
}

#endif /* BC_CORES_CAMELLIA_BLOCK_H */
