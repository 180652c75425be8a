/*
 * SEED (RFC 4269; 128-bit key, 16 rounds) in the portable dialect, bitsliced: constant
 * time by construction (no table, no address and no branch depends on the key or the
 * data). Host C++, CUDA and OpenCL C 1.2 compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_seed_encrypt_batch(ks, w), bc_seed_decrypt_batch(ks, w): 32 blocks in place;
 *   w[4j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; seed_expand_key in seed.h writes it):
 *   ks[0] = 16 (rounds), ks[1] = 128 (key bits), ks[2] = ks[3] = 0
 *   ks[4 + 64r + j], r = 0..15 the round (encryption order), j = 0..31: all ones when bit
 *          j (0 = least significant) of K_{r+1,0} is set, else zero; ks[4 + 64r + 32 + j]
 *          the same for K_{r+1,0} ^ K_{r+1,1} (RFC 4269 2.2's round key, each half a
 *          32-bit word read big-endian).
 *   BC_SEED_KS_WORDS = 4 + 64 * 16 = 1028 words (4112 bytes). Decryption walks the rounds
 *   backwards, so one ks serves both directions.
 *
 * State: 128 words as AES's bitsliced core, s[8p + b] = bit b of byte p of the block,
 * bit j of each word = block j (the transposition is bc_aes_bs_transpose32 of
 * aes_bitsliced.h). The block is four big-endian 32-bit words L0 L1 R0 R1 (bytes 0..3,
 * 4..7, 8..11, 12..15); bit j of word v is s[8 (4v + 3 - j/8) + j%8]. A round is
 * L ^= F(R, K) (the halves alternate instead of swapping; after 16 rounds the
 * ciphertext is R || L). F (RFC 4269 2.1), with C, D the two words of its input:
 *   a = C ^ K0, x = C ^ D ^ (K0 ^ K1) (the masks hold K0 ^ K1 already: one XOR3),
 *   t1 = G(x), t2 = G(t1 + a), D' = G(t2 + t1), C' = D' + t2,
 * the additions mod 2^32 as ripple-carry adders over the 32 bit planes: bit 0 is XOR and
 * AND, bit j the sum XOR3(a, b, c) and the carry MAJ(a, b, c), one LOP3 each, 63 a word.
 * G: S1 on bytes X0 and X2 (X0 the least significant), S2 on X1 and X3 (the networks
 * of seed_sbox.h), then Z_k = the XOR over q of S(X_q) & m_((q + k) mod 4) with the masks
 * m0..m3 = fc f3 cf 3f: each mask clears two bits, so every output bit is the XOR of
 * three S-box output bits (one XOR3), the masks a choice of which three: a renaming, no
 * table. Every index into the state is a constant once unrolled, so on CUDA the 128
 * words stay in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   G: 2 x S1 (90) + 2 x S2 (90) + 32 XOR3 = 392
 *   round: key 32 XOR + 32 XOR3 = 64; 3 G = 1,176; 3 additions x 63 = 189; the XOR of
 *          D' into the other half 32 and of C' = D' + t2 (its sum bit, 32) 32 -> 1,493
 *   transposition in and out: 8 x bc_aes_bs_transpose32 = 8 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,792
 *   SEED: 16 x 1,493 + 1,792 = 25,680 ops / 512 bytes = 50.2 ops/byte
 *          -> ceiling 16.7e12 / 50.2 = 333 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 48.7 (343 GB/s).
 *   The adders are 189 of a round's 1,493 (13%); the S-boxes 1,080 (72%).
 *   Not counted: 64 mask loads a round from ks (LDG, another pipe), the mode's work.
 * sm_90 (nvcc 13.0, -O3, a kernel holding w in registers, each direction): 254
 * registers, no spills; the 16 rounds a loop of 8 round pairs (BC_SEED_NOUNROLL).
 * Not yet measured on a GPU.
 *
 * Key address space: BC_SEED_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_SEED_BLOCK_H
#define BC_CORES_SEED_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
#include "cores/seed/seed_sbox.h"

#define BC_SEED_BLOCK_BYTES 16
#define BC_SEED_BATCH 32 /* blocks per batch call */
#ifndef BC_SEED_KS_SPACE
#define BC_SEED_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_SEED_ROUNDS 16
#define BC_SEED_KS_HEADER 4
#define BC_SEED_KS_ROUND 64
#define BC_SEED_KS_WORDS (BC_SEED_KS_HEADER + BC_SEED_KS_ROUND * BC_SEED_ROUNDS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_SEED_UNROLL _Pragma("unroll")
#define BC_SEED_NOUNROLL _Pragma("unroll 1")
#else
#define BC_SEED_UNROLL
#define BC_SEED_NOUNROLL
#endif

#define BC_SEED_XOR3(a, b, c) BC_AES_LUT3(a, b, c, 0x96, (a) ^ (b) ^ (c))
#define BC_SEED_MAJ(a, b, c) BC_AES_LUT3(a, b, c, 0xe8, ((a) & (b)) | ((c) & ((a) | (b))))

/* The state word of bit j (0 = least significant) of big-endian 32-bit word v (0..3). */
#define BC_SEED_BIT(v, j) (8 * (4 * (v) + 3 - ((j) >> 3)) + ((j) & 7))

/* r = a + b mod 2^32 over bit planes (a, b, r: 32 words each, bit j in word j). */
BC_FN void bc_seed_bs_add(const bc_u32 *a, const bc_u32 *b, bc_u32 *r) {
    bc_u32 c = a[0] & b[0];
    r[0] = a[0] ^ b[0];
    BC_SEED_UNROLL
    for (int j = 1; j < 31; ++j) {
        r[j] = BC_SEED_XOR3(a[j], b[j], c);
        c = BC_SEED_MAJ(a[j], b[j], c);
    }
    r[31] = BC_SEED_XOR3(a[31], b[31], c);
}

/* z = G(x) (RFC 4269 2.1), x and z 32 bit-plane words each. */
BC_FN void bc_seed_bs_g(const bc_u32 *x, bc_u32 *z) {
    bc_u32 y[32]; /* y[8q + b]: bit b of the S-box output of byte X_q */
    BC_SEED_UNROLL
    for (int q = 0; q < 4; ++q) {
        bc_u32 v[8];
        BC_SEED_UNROLL
        for (int b = 0; b < 8; ++b) v[b] = x[8 * q + b];
        if (q & 1) bc_seed_bs_s2(v); /* q is a constant once unrolled */
        else bc_seed_bs_s1(v);
        BC_SEED_UNROLL
        for (int b = 0; b < 8; ++b) y[8 * q + b] = v[b];
    }
    /* Bit b of Z_k leaves out the byte q whose mask m_((q + k) mod 4) clears bit b:
     * m_i clears bits 2i and 2i + 1, so q = (b / 2 - k) mod 4. */
    BC_SEED_UNROLL
    for (int k = 0; k < 4; ++k) {
        BC_SEED_UNROLL
        for (int b = 0; b < 8; ++b) {
            const int out = ((b >> 1) - k) & 3;
            const int q1 = (out + 1) & 3, q2 = (out + 2) & 3, q3 = (out + 3) & 3;
            z[8 * k + b] = BC_SEED_XOR3(y[8 * q1 + b], y[8 * q2 + b], y[8 * q3 + b]);
        }
    }
}

/* One round: the half at words dst, dst + 1 ^= F(the half at words src, src + 1; k),
 * k the round's 64 mask words. src and dst are 0 and 2 (or 2 and 0). */
BC_FN void bc_seed_bs_round(bc_u32 *s, int src, int dst, const BC_SEED_KS_SPACE bc_u32 *k) {
    bc_u32 a[32], t1[32], t2[32], u[32];
    BC_SEED_UNROLL
    for (int j = 0; j < 32; ++j) {
        const bc_u32 c = s[BC_SEED_BIT(src, j)];
        a[j] = c ^ k[j];
        u[j] = BC_SEED_XOR3(c, s[BC_SEED_BIT(src + 1, j)], k[32 + j]);
    }
    bc_seed_bs_g(u, t1);     /* t1 = G(C ^ D ^ K0 ^ K1) */
    bc_seed_bs_add(t1, a, u);
    bc_seed_bs_g(u, t2);     /* t2 = G(t1 + a) */
    bc_seed_bs_add(t2, t1, u);
    bc_seed_bs_g(u, t1);     /* t1 = D' = G(t2 + t1) */
    /* D' into the second word; C' = D' + t2 into the first, its sum bits XORed in as
     * they come out of the adder. */
    BC_SEED_UNROLL
    for (int j = 0; j < 32; ++j) s[BC_SEED_BIT(dst + 1, j)] ^= t1[j];
    bc_u32 c = t1[0] & t2[0];
    s[BC_SEED_BIT(dst, 0)] ^= t1[0] ^ t2[0];
    BC_SEED_UNROLL
    for (int j = 1; j < 32; ++j) {
        s[BC_SEED_BIT(dst, j)] ^= BC_SEED_XOR3(t1[j], t2[j], c);
        if (j < 31) c = BC_SEED_MAJ(t1[j], t2[j], c);
    }
}

/* w (w[4j + k]) <-> bitsliced state s (s[8p + b]): the renaming s[32k + j] = w[4j + k]
 * and the four 32x32 transpositions. */
BC_FN void bc_seed_bs_load(bc_u32 *s, const bc_u32 *w) {
    BC_SEED_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_SEED_UNROLL
        for (int k = 0; k < 4; ++k) s[32 * k + j] = w[4 * j + k];
    }
    BC_SEED_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
}

/* Also swaps the halves: the ciphertext is R || L. Destroys s. */
BC_FN void bc_seed_bs_store(bc_u32 *s, bc_u32 *w) {
    BC_SEED_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
    BC_SEED_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_SEED_UNROLL
        for (int k = 0; k < 4; ++k) w[4 * j + k] = s[32 * ((k + 2) & 3) + j];
    }
}

/* Both directions: dec = 0 walks the rounds forwards, dec = 1 backwards (a constant at
 * every call site, so the compiler folds the selects). */
BC_FN void bc_seed_bs_crypt(const BC_SEED_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[128];
    const int step = dec ? -BC_SEED_KS_ROUND : BC_SEED_KS_ROUND;
    const BC_SEED_KS_SPACE bc_u32 *k = ks + BC_SEED_KS_HEADER + BC_SEED_KS_ROUND * (dec ? BC_SEED_ROUNDS - 1 : 0);
    bc_seed_bs_load(s, w);
    BC_SEED_NOUNROLL
    for (int r = 0; r < BC_SEED_ROUNDS; r += 2) {
        bc_seed_bs_round(s, 2, 0, k); /* L ^= F(R) */
        k += step;
        bc_seed_bs_round(s, 0, 2, k); /* R ^= F(L) */
        k += step;
    }
    bc_seed_bs_store(s, w);
}

/* w: 32 blocks * 4 words in private memory, block j = w[4j..4j+3] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_seed_encrypt_batch(const BC_SEED_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_seed_bs_crypt(ks, w, 0); }
BC_FN void bc_seed_decrypt_batch(const BC_SEED_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_seed_bs_crypt(ks, w, 1); }

#endif /* BC_CORES_SEED_BLOCK_H */
