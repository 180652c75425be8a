/*
 * PRESENT (Bogdanov et al., CHES 2007; 64-bit block, 80- or 128-bit key, 31 rounds) in
 * the portable dialect, bitsliced: constant time by construction (no table, no address
 * and no branch depends on the key or the data). Host C++, CUDA and OpenCL C 1.2
 * compile it unchanged.
 *
 * Interface (the modes and backends code against these names):
 *   bc_present_encrypt_batch(ks, w), bc_present_decrypt_batch(ks, w): 32 blocks in
 *   place; w[2j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *   The block's bytes are the 64-bit state big-endian (byte 0 holds bits 63..56), as
 *   the paper's hex strings write it.
 *
 * Expanded key ks (32-bit words; present_expand_key in present.h writes it):
 *   ks[0] = 31 (rounds), ks[1] = 80 or 128 (key bits), ks[2] = ks[3] = 0
 *   ks[4 + 64r + i], r = 0..31, i = 0..63: all ones when bit i (0 = least significant)
 *          of round key K_{r+1} is set, else zero.
 *   BC_PRESENT_KS_WORDS = 4 + 64 * 32 = 2052 words (8208 bytes). The device core never
 *   looks at the key size: both schedules end in the same 32 round keys, and
 *   decryption walks them backwards, so one ks serves both directions.
 *
 * State: 64 words, s[i] = bit i of the state (bit j of each word = block j), after
 * the two 32x32 transpositions of bc_aes_bs_transpose32 (w's word k of every block ->
 * 32 words; bit b of word k is bit 8 (7 - 4k - b/8) + b%8 of the state: a renaming).
 * Encryption: s ^= K1; then 31 times S-layer, pLayer, s ^= K_{r+1}. The S-box network
 * (present_sbox.h) takes the next round key's four bits as inputs and folds each into
 * its output's last gate; pLayer sends bit 4n + b (output b of S-box n) to 16b + n, a
 * renaming into a second array (the loop runs rounds in pairs, ping-pong, so no copy).
 * Decryption: s ^= K32; then 31 times inverse pLayer (the renaming read backwards),
 * inverse S-layer with K_r folded in.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   round: 16 S-boxes with the key x 10 = 160 (the plain S-box takes 8 and a separate
 *          key layer 64 XORs: 192)
 *   first key: 64 XOR; 31 rounds: 4,960
 *   transposition in and out: 4 x bc_aes_bs_transpose32 = 4 x (64 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 1,024
 *   PRESENT: 64 + 4,960 + 1,024 = 6,048 ops / 256 bytes = 23.6 ops/byte
 *          -> ceiling 16.7e12 / 23.6 = 707 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 22.1 (755 GB/s).
 *   Not counted: 64 mask loads a round from ks (LDG, another pipe), the mode's work.
 * sm_90 (nvcc 13.0, a kernel holding w in registers, each direction): 96 registers, no
 * spills; its SASS has 928 LOP3 (a round pair and the last round, 3 x 160, the first
 * key 64, the transpositions 384), 256 PRMT and 384 IMAD, as counted above.
 * Not yet measured on a GPU.
 *
 * Key address space: BC_PRESENT_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_PRESENT_BLOCK_H
#define BC_CORES_PRESENT_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"
#include "cores/present/present_sbox.h"

#define BC_PRESENT_BLOCK_BYTES 8
#define BC_PRESENT_BATCH 32 /* blocks per batch call */
#ifndef BC_PRESENT_KS_SPACE
#define BC_PRESENT_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#define BC_PRESENT_ROUNDS 31
#define BC_PRESENT_KS_HEADER 4
#define BC_PRESENT_KS_ROUND 64
#define BC_PRESENT_KS_WORDS (BC_PRESENT_KS_HEADER + BC_PRESENT_KS_ROUND * (BC_PRESENT_ROUNDS + 1))

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_PRESENT_UNROLL _Pragma("unroll")
#define BC_PRESENT_NOUNROLL _Pragma("unroll 1")
#else
#define BC_PRESENT_UNROLL
#define BC_PRESENT_NOUNROLL
#endif

/* Index into the transposed words (32k + b: bit b of w's word k) of state bit i. */
#define BC_PRESENT_SLOT(i) (32 * ((7 - ((i) >> 3)) >> 2) + 8 * ((7 - ((i) >> 3)) & 3) + ((i) & 7))

/* One encryption round after the key: u = pLayer(S-layer(s)) ^ k, k the next round
 * key's 64 masks. */
BC_FN void bc_present_bs_round(const bc_u32 *s, bc_u32 *u, const BC_PRESENT_KS_SPACE bc_u32 *k) {
    BC_PRESENT_UNROLL
    for (int n = 0; n < 16; ++n) {
        bc_u32 y[4];
        bc_present_bs_sbox_k(s[4 * n], s[4 * n + 1], s[4 * n + 2], s[4 * n + 3], k[n], k[16 + n], k[32 + n],
                             k[48 + n], y);
        BC_PRESENT_UNROLL
        for (int b = 0; b < 4; ++b) u[16 * b + n] = y[b];
    }
}

/* One decryption round: u = S^-1-layer(pLayer^-1(s)) ^ k, k the round key below. */
BC_FN void bc_present_bs_inv_round(const bc_u32 *s, bc_u32 *u, const BC_PRESENT_KS_SPACE bc_u32 *k) {
    BC_PRESENT_UNROLL
    for (int n = 0; n < 16; ++n) {
        bc_u32 y[4];
        bc_present_bs_inv_sbox_k(s[n], s[16 + n], s[32 + n], s[48 + n], k[4 * n], k[4 * n + 1], k[4 * n + 2],
                                 k[4 * n + 3], y);
        BC_PRESENT_UNROLL
        for (int b = 0; b < 4; ++b) u[4 * n + b] = y[b];
    }
}

/* w (w[2j + k]) -> s (s[i] = state bit i) with the first key k (64 masks) XORed in. */
BC_FN void bc_present_bs_load(bc_u32 *s, const bc_u32 *w, const BC_PRESENT_KS_SPACE bc_u32 *k) {
    bc_u32 t[64];
    BC_PRESENT_UNROLL
    for (int j = 0; j < 32; ++j) {
        t[j] = w[2 * j];
        t[32 + j] = w[2 * j + 1];
    }
    bc_aes_bs_transpose32(t);
    bc_aes_bs_transpose32(t + 32);
    BC_PRESENT_UNROLL
    for (int i = 0; i < 64; ++i) s[i] = t[BC_PRESENT_SLOT(i)] ^ k[i];
}

/* s -> w. */
BC_FN void bc_present_bs_store(const bc_u32 *s, bc_u32 *w) {
    bc_u32 t[64];
    BC_PRESENT_UNROLL
    for (int i = 0; i < 64; ++i) t[BC_PRESENT_SLOT(i)] = s[i];
    bc_aes_bs_transpose32(t);
    bc_aes_bs_transpose32(t + 32);
    BC_PRESENT_UNROLL
    for (int j = 0; j < 32; ++j) {
        w[2 * j] = t[j];
        w[2 * j + 1] = t[32 + j];
    }
}

/* w: 32 blocks * 2 words in private memory, block j = w[2j..2j+1] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_present_encrypt_batch(const BC_PRESENT_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 s[64], u[64];
    const BC_PRESENT_KS_SPACE bc_u32 *k = ks + BC_PRESENT_KS_HEADER;
    bc_present_bs_load(s, w, k);
    /* rounds 1..30 in pairs, then round 31 (its key is K32) */
    BC_PRESENT_NOUNROLL
    for (int r = 0; r < BC_PRESENT_ROUNDS - 1; r += 2) {
        bc_present_bs_round(s, u, k + BC_PRESENT_KS_ROUND);
        bc_present_bs_round(u, s, k + 2 * BC_PRESENT_KS_ROUND);
        k += 2 * BC_PRESENT_KS_ROUND;
    }
    bc_present_bs_round(s, u, k + BC_PRESENT_KS_ROUND);
    bc_present_bs_store(u, w);
}

BC_FN void bc_present_decrypt_batch(const BC_PRESENT_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 s[64], u[64];
    const BC_PRESENT_KS_SPACE bc_u32 *k = ks + BC_PRESENT_KS_HEADER + BC_PRESENT_KS_ROUND * BC_PRESENT_ROUNDS;
    bc_present_bs_load(s, w, k);
    BC_PRESENT_NOUNROLL
    for (int r = 0; r < BC_PRESENT_ROUNDS - 1; r += 2) {
        bc_present_bs_inv_round(s, u, k - BC_PRESENT_KS_ROUND);
        bc_present_bs_inv_round(u, s, k - 2 * BC_PRESENT_KS_ROUND);
        k -= 2 * BC_PRESENT_KS_ROUND;
    }
    bc_present_bs_inv_round(s, u, k - BC_PRESENT_KS_ROUND);
    bc_present_bs_store(u, w);
}

#endif /* BC_CORES_PRESENT_BLOCK_H */
