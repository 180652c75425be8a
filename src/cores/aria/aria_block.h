/*
 * ARIA (RFC 5794; 128-, 192- and 256-bit keys) in the portable dialect, bitsliced:
 * constant time by construction (no table, no address and no branch depends on the key
 * or the data). Host C++, CUDA and OpenCL C 1.2 compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_aria_encrypt_batch(ks, w), bc_aria_decrypt_batch(ks, w): 32 blocks in place;
 *   w[4j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; aria_expand_key in aria.h writes it):
 *   ks[0]  R, the number of rounds: 12, 14 or 16 (128-, 192-, 256-bit keys)
 *   ks[1]  the key length in bits; ks[2] = ks[3] = 0
 *   ks[4 + 128u + 8p + b], u = 0..R: the encryption round key ek(u+1) as mask words,
 *          all ones when bit b (0 = least significant) of byte p (0 = the first, RFC
 *          order) of the round key is set, else zero; the state's layout.
 *   ks[4 + 128 * 17 + 128u + 8p + b], u = 0..R: the decryption round keys dk(u+1)
 *          (RFC 5794 2.4: dk1 = ek(R+1), dk(i) = A(ek(R+2-i)), dk(R+1) = ek1),
 *          so decryption is the encryption network over other keys.
 *   BC_ARIA_KS_WORDS = 4 + 2 * 128 * 17 = 4,356 words (17,424 bytes), whatever the key
 *   length (the decryption keys sit at a fixed offset).
 *
 * State: 128 words as AES's bitsliced core, s[8p + b] = bit b of byte p of the block,
 * bit j of each word = block j (the transposition is bc_aes_bs_transpose32 of
 * aes_bitsliced.h). Round i < R: the substitution layer (SL1 in odd rounds: SB1 SB2 SB3
 * SB4 on bytes 4q..4q+3; SL2 in even rounds: SB3 SB4 SB1 SB2), then the diffusion layer
 * A with the next round key XORed in, per bit plane one generated network over the 16
 * words of that bit (aria_sbox.h). The first round key is XORed before round 1; the
 * last round is SL2 and the XOR of ek(R+1). SB1 and SB3 are AES's S-box and its inverse
 * (bc_aes_bs_sbox, bc_aes_bs_inv_sbox), SB2 and SB4 generated networks. Every index into
 * the state is a constant once unrolled, so on CUDA the 128 words stay in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   substitution layer: 4 x (SB1 81 + SB2 92 + SB3 85 + SB4 89) = 1,388
 *   diffusion with the next key: 8 bit planes x 38 = 304 (A alone as 7-input XORs: 384,
 *          and the key apart another 128)
 *   round: 1,692; the first key 128; the last round 1,388 + 128
 *   transposition in and out: 8 x bc_aes_bs_transpose32 = 8 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,792
 *   ARIA-128: 11 x 1,692 + 128 + 1,516 + 1,792 = 22,048 ops / 512 bytes = 43.1 ops/byte
 *          -> ceiling 16.7e12 / 43.1 = 388 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 41.6 (401 GB/s).
 *   ARIA-192: 13 x 1,692 + 3,436 = 25,432 -> 49.7 ops/byte, 336 GB/s.
 *   ARIA-256: 15 x 1,692 + 3,436 = 28,816 -> 56.3 ops/byte, 297 GB/s.
 *   Not counted: 16 mask loads a bit plane from ks (LDG, another pipe), the mode's work.
 *
 * Key address space: BC_ARIA_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_ARIA_BLOCK_H
#define BC_CORES_ARIA_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32, bc_aes_bs_sbox, bc_aes_bs_inv_sbox and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
/* BC_ARIA_KS_SPACE, bc_aria_bs_sb2, bc_aria_bs_sb4, bc_aria_bs_diffuse_key */
#include "cores/aria/aria_sbox.h"

#define BC_ARIA_BLOCK_BYTES 16
#define BC_ARIA_BATCH 32 /* blocks per batch call */

#define BC_ARIA_KS_HEADER 4
#define BC_ARIA_KS_UNIT 128
#define BC_ARIA_KS_MAX_UNITS 17 /* 16 rounds + 1 */
#define BC_ARIA_KS_DEC (BC_ARIA_KS_HEADER + BC_ARIA_KS_UNIT * BC_ARIA_KS_MAX_UNITS)
#define BC_ARIA_KS_WORDS (BC_ARIA_KS_HEADER + 2 * BC_ARIA_KS_UNIT * BC_ARIA_KS_MAX_UNITS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_ARIA_UNROLL _Pragma("unroll")
#define BC_ARIA_NOUNROLL _Pragma("unroll 1")
#else
#define BC_ARIA_UNROLL
#define BC_ARIA_NOUNROLL
#endif

/* The substitution layer: SL1 (even = 0) or SL2 (even = 1), a constant at every call
 * site. Byte p goes through SB(1 + ((p + 2 * even) & 3)). */
BC_FN void bc_aria_bs_subst(bc_u32 *s, int even) {
    BC_ARIA_UNROLL
    for (int p = 0; p < 16; ++p) {
        const int box = (p + 2 * even) & 3;
        if (box == 0) bc_aes_bs_sbox(s + 8 * p);
        else if (box == 1) bc_aria_bs_sb2(s + 8 * p);
        else if (box == 2) bc_aes_bs_inv_sbox(s + 8 * p);
        else bc_aria_bs_sb4(s + 8 * p);
    }
}

/* s = A(s) ^ k, k the next round key's 128 masks. */
BC_FN void bc_aria_bs_diffuse(bc_u32 *s, const BC_ARIA_KS_SPACE bc_u32 *k) {
    BC_ARIA_UNROLL
    for (int b = 0; b < 8; ++b) bc_aria_bs_diffuse_key(s + b, k + b);
}

/* s ^= the 128 masks k. */
BC_FN void bc_aria_bs_xor_key(bc_u32 *s, const BC_ARIA_KS_SPACE bc_u32 *k) {
    BC_ARIA_UNROLL
    for (int i = 0; i < 128; ++i) s[i] ^= k[i];
}

/* w (w[4j + k]) <-> bitsliced state s (s[8p + b]): the renaming s[32k + j] = w[4j + k]
 * and the four 32x32 transpositions (their own inverse). */
BC_FN void bc_aria_bs_load(bc_u32 *s, const bc_u32 *w) {
    BC_ARIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_ARIA_UNROLL
        for (int k = 0; k < 4; ++k) s[32 * k + j] = w[4 * j + k];
    }
    BC_ARIA_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
}

/* Destroys s. */
BC_FN void bc_aria_bs_store(bc_u32 *s, bc_u32 *w) {
    BC_ARIA_UNROLL
    for (int k = 0; k < 4; ++k) bc_aes_bs_transpose32(s + 32 * k);
    BC_ARIA_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_ARIA_UNROLL
        for (int k = 0; k < 4; ++k) w[4 * j + k] = s[32 * k + j];
    }
}

/* Both directions: the same network over the encryption keys (dec = 0) or the
 * decryption keys (dec = 1). */
BC_FN void bc_aria_bs_crypt(const BC_ARIA_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[128];
    const int rounds = (int)ks[0];
    const BC_ARIA_KS_SPACE bc_u32 *k = ks + (dec ? BC_ARIA_KS_DEC : BC_ARIA_KS_HEADER);
    bc_aria_bs_load(s, w);
    bc_aria_bs_xor_key(s, k);
    /* rounds 1 .. R-2 in odd/even pairs; the round count is public: a uniform loop */
    BC_ARIA_NOUNROLL
    for (int r = 1; r < rounds - 1; r += 2) {
        bc_aria_bs_subst(s, 0);
        bc_aria_bs_diffuse(s, k + BC_ARIA_KS_UNIT * r);
        bc_aria_bs_subst(s, 1);
        bc_aria_bs_diffuse(s, k + BC_ARIA_KS_UNIT * (r + 1));
    }
    /* round R-1 (odd), then round R: SL2 and the last key */
    bc_aria_bs_subst(s, 0);
    bc_aria_bs_diffuse(s, k + BC_ARIA_KS_UNIT * (rounds - 1));
    bc_aria_bs_subst(s, 1);
    bc_aria_bs_xor_key(s, k + BC_ARIA_KS_UNIT * rounds);
    bc_aria_bs_store(s, w);
}

/* w: 32 blocks * 4 words in private memory, block j = w[4j..4j+3] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_aria_encrypt_batch(const BC_ARIA_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_aria_bs_crypt(ks, w, 0); }
BC_FN void bc_aria_decrypt_batch(const BC_ARIA_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_aria_bs_crypt(ks, w, 1); }

#endif /* BC_CORES_ARIA_BLOCK_H */
