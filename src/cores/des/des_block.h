/*
 * DES (FIPS 46-3) and triple DES (NIST SP 800-67's TDEA: encrypt, decrypt, encrypt
 * under K1, K2, K3; two-key TDEA has K3 = K1) in the portable dialect, bitsliced:
 * constant time by construction (no table, no address and no branch depends on the
 * key or the data). Host C++, CUDA and OpenCL C 1.2 compile it unchanged. One core
 * serves the three key sizes; the expanded key says how many DES passes to run.
 *
 * Interface (the modes and backends code against these names):
 *   bc_des_encrypt_batch(ks, w), bc_des_decrypt_batch(ks, w): 32 blocks in place;
 *   w[2j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; des_expand_key in des.h writes it):
 *   ks[0] = the DES passes: 1 (DES) or 3 (TDEA); ks[1] = the key's length in bits as
 *          given, parity bits included (64, 128 or 192); ks[2] = ks[3] = 0
 *   ks[4 + 48r + i], r = 0 .. 16 * passes - 1: round r of the whole cipher in encryption
 *          order, all ones when bit i + 1 (FIPS 46-3 numbering, from the most
 *          significant) of that round's 48-bit subkey is set, else zero. TDEA's rounds
 *          are K1's subkeys 1..16, K2's 16..1 (the middle pass decrypts), K3's 1..16.
 *   BC_DES_KS_WORDS = 4 + 48 * 48 = 2308 words (9232 bytes); DES uses 4 + 48 * 16.
 *   Decryption walks the rounds backwards (for TDEA that is D under K3, E under K2, D
 *   under K1), so one ks serves both directions.
 *
 * State: 64 words, s[8p + b] = bit b (0 = least significant) of byte p of the block,
 * bit j of each word = block j (the transposition is bc_aes_bs_transpose32 of
 * aes_bitsliced.h, twice). The initial permutation, E, P and the final permutation
 * are renamings (des_sbox.h, generated from the standard's tables): the halves are
 * arrays l[32] and r[32] (l[i] = bit i + 1 of L), and a round is dst ^= f(src, K), the
 * halves alternating instead of swapping. Between TDEA's passes IP^-1 and IP cancel
 * and the swap at the end of a pass is a renaming: the middle pass starts on the
 * other half. The S-boxes are networks of 3-input functions (des_sbox.h), each output
 * XORed into its word of the other half. Every index into the state is a constant
 * once unrolled, so on CUDA the 64 words stay in registers.
 *
 * Operation count per 32-block batch (3-input functions, one LOP3 each on the GPU):
 *   round: key 48 XOR; S-boxes BC_DES_SBOX_LUTS = 232 functions (29 an S-box on average)
 *          and BC_DES_SBOX_XORS = 32 XORs into the other half -> 312
 *   transposition in and out: 4 x bc_aes_bs_transpose32 = 4 x (32 PRMT + 96 LOP3 +
 *          96 IMAD on the multiply pipe) = 896
 *   DES: 16 x 312 + 896 = 5,888 ops / 256 bytes = 23.0 ops/byte
 *          -> ceiling 16.7e12 / 23.0 = 726 GB/s on an H100 (16.7 T 32-bit logic ops/s);
 *          the IMADs run on another pipe, so the logic pipe alone sees 21.5 (777 GB/s).
 *   TDEA: 48 x 312 + 896 = 15,872 ops / 256 bytes = 62.0 ops/byte -> 269 GB/s.
 *   Not counted: 48 mask loads a round from ks (LDG, another pipe), the mode's work.
 * sm_90 (nvcc 13.0, -O3, the generic kernels of block_kernels_impl.cuh): 96 to 168
 * registers, no spills; a pass is a loop of 8 round pairs (BC_DES_NOUNROLL). Not yet
 * measured on a GPU.
 *
 * Key address space: BC_DES_KS_SPACE (default BC_GLOBAL); a backend that stages the
 * masks in __constant or __local memory defines it before including this header.
 */
#ifndef BC_CORES_DES_BLOCK_H
#define BC_CORES_DES_BLOCK_H

#include "dialect/bc_dialect.h"
/* bc_aes_bs_transpose32 and BC_AES_LUT3 */
#include "cores/aes/aes_bitsliced.h"

#define BC_DES_BLOCK_BYTES 8
#define BC_DES_BATCH 32 /* blocks per batch call */
#ifndef BC_DES_KS_SPACE
#define BC_DES_KS_SPACE BC_GLOBAL /* where the expanded key lives */
#endif

#include "cores/des/des_sbox.h"

#define BC_DES_ROUNDS 16 /* a pass */
#define BC_DES_KS_HEADER 4
#define BC_DES_KS_ROUND 48
#define BC_DES_KS_WORDS (BC_DES_KS_HEADER + BC_DES_KS_ROUND * 3 * BC_DES_ROUNDS)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_DES_UNROLL _Pragma("unroll")
#define BC_DES_NOUNROLL _Pragma("unroll 1")
#else
#define BC_DES_UNROLL
#define BC_DES_NOUNROLL
#endif

/* One DES pass, 16 rounds from k on (step: +48 or -48 words a round): a ^= f(b), then
 * b ^= f(a), eight times. */
BC_FN void bc_des_bs_pass(bc_u32 *a, bc_u32 *b, const BC_DES_KS_SPACE bc_u32 *k, int step) {
    BC_DES_NOUNROLL
    for (int i = 0; i < BC_DES_ROUNDS; i += 2) {
        bc_des_bs_round(a, b, k);
        k += step;
        bc_des_bs_round(b, a, k);
        k += step;
    }
}

/* Both directions: dec = 0 walks the rounds forwards, dec = 1 backwards (a constant at
 * every call site). The pass count is the key's (public) length, the same for every
 * lane, so the branch on it is uniform. */
BC_FN void bc_des_bs_crypt(const BC_DES_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 s[64], l[32], r[32];
    /* w -> s: the renaming s[32k + j] = w[2j + k], then the two 32x32 transpositions */
    BC_DES_UNROLL
    for (int j = 0; j < 32; ++j) {
        s[j] = w[2 * j];
        s[32 + j] = w[2 * j + 1];
    }
    bc_aes_bs_transpose32(s);
    bc_aes_bs_transpose32(s + 32);
    bc_des_bs_ip(s, l, r);
    const int passes = ks[0] == 3u ? 3 : 1;
    const int step = dec ? -BC_DES_KS_ROUND : BC_DES_KS_ROUND;
    const BC_DES_KS_SPACE bc_u32 *k =
        ks + BC_DES_KS_HEADER + (dec ? BC_DES_KS_ROUND * (BC_DES_ROUNDS * passes - 1) : 0);
    bc_des_bs_pass(l, r, k, step);
    if (passes == 3) {
        bc_des_bs_pass(r, l, k + BC_DES_ROUNDS * step, step);
        bc_des_bs_pass(l, r, k + 2 * BC_DES_ROUNDS * step, step);
    }
    bc_des_bs_fp(l, r, s);
    bc_aes_bs_transpose32(s);
    bc_aes_bs_transpose32(s + 32);
    BC_DES_UNROLL
    for (int j = 0; j < 32; ++j) {
        w[2 * j] = s[j];
        w[2 * j + 1] = s[32 + j];
    }
}

/* w: 32 blocks * 2 words in private memory, block j = w[2j], w[2j + 1] (little-endian
 * words of its bytes); all 32 in place. */
BC_FN void bc_des_encrypt_batch(const BC_DES_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_des_bs_crypt(ks, w, 0); }
BC_FN void bc_des_decrypt_batch(const BC_DES_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_des_bs_crypt(ks, w, 1); }

#endif /* BC_CORES_DES_BLOCK_H */
