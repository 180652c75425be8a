/*
 * Blowfish (Schneier, FSE 1993; 64-bit block, 16 rounds, keys of 4 to 56 bytes) in the
 * portable dialect. Host C++, CUDA and OpenCL C 1.2 compile it unchanged.
 *
 * NOT CONSTANT TIME. Blowfish is table-based by nature: its four S-boxes are made from
 * the key, so every round reads them at addresses that depend on the key and the data.
 * A bitsliced form would need the key-dependent S-boxes as gate networks, one per key;
 * there is none. Cache-timing attacks apply wherever the tables sit in a cache that
 * another party shares.
 *
 * Interface (the modes and backends code against these names):
 *   bc_bf_encrypt_batch(ks, w), bc_bf_decrypt_batch(ks, w): 32 blocks in place;
 *   w[2j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; bf_expand_key in bf.h writes it), everything the rounds
 * read, so a backend that copies ks into fast memory serves every lookup from there:
 *   ks[0..17]             P1..P18 after the key schedule
 *   ks[18..31]            zero (the S-boxes start 128 bytes in)
 *   ks[32 + 256 i + x]    S-box i + 1 (i = 0..3) at x, after the key schedule
 *   BC_BF_KS_WORDS = 32 + 4 * 256 = 1,056 words (4,224 bytes). One ks serves both
 *   directions (decryption takes P18..P1).
 * Every word of ks is read through BC_KS_AT (bc_dialect.h), in the BC_BF_KS_SPACE
 * address space: a backend that stages ks in shared (CUDA) or local (OpenCL) memory,
 * as one copy or as interleaved copies a lane, passes its copy, and every lookup then
 * comes from there.
 *
 * Round (no swaps: the halves take turns): L ^= P[i]; R ^= F(L), then R ^= P[i+1];
 * L ^= F(R); after 16 rounds the output is R ^ P18 || L ^ P17. F(x) = ((S1[a] + S2[b]) ^
 * S3[c]) + S4[d], a the most significant byte of x. The halves are the block's bytes as
 * big-endian words, one byte swap each way. The batch runs round by round over all 32
 * blocks (32 independent lookup chains, for latency), the state 64 words in registers.
 *
 * Count per 32-block batch (256 bytes), 32-bit operations on the GPU:
 *   per block and round: P XOR 1; four byte extractions (shift, bit-field extract) 4;
 *     four table addresses 4; add, XOR, add 3; XOR into the other half 1 -> 13,
 *     and 4 table lookups
 *   per block: 16 x 13 + 2 (P17, P18) + 4 byte swaps (PRMT) = 214
 *   batch: 32 x 214 = 6,848 ops / 256 bytes = 26.8 ops/byte
 *          -> 16.7e12 / 26.8 = 624 GB/s on an H100 (16.7 T 32-bit ops/s);
 *          lookups: 32 x 64 = 2,048 a batch, 8 a byte.
 *   The lookups: one load instruction each, on the LSU pipe, each warp load reading
 *   one 1 KB S-box at 32 data-dependent indices. One copy in shared memory puts them
 *   on about 3.5 times the conflict-free bank cycles (32 random draws over 32 banks):
 *   9 lookups a clock per SM x 132 SMs x 1.98 GHz = 2.4e12 lookups/s, / 8 = 300 GB/s.
 *   The CUDA kernels stage ks (BC_BF_KS_SHARED) as 32 interleaved copies instead
 *   (BC_KS_AT; lane l reads copy l, so bank l, whatever the data): one bank cycle a
 *   warp lookup, 32 a clock per SM -> 1,045 GB/s, and the ALU count above binds
 *   first. The copies take 132 KiB a block, so one block of 8 warps an SM. OpenCL
 *   copies ks into local memory once a work-group (one copy: 32 would pass the 48 KiB
 *   a work-group gets there). Not counted: the key-word loads of a round (the same
 *   index in every lane), the mode's work.
 * sm_90 (nvcc 13.0, -O3, a kernel holding w in registers, each direction): 80 registers,
 * no spills; the PTX of one pass of the round loop (2 rounds x 32 blocks) has 1,869
 * instructions, 29 a block-round with its 4 loads, among them the 64-bit address
 * arithmetic of global memory (a wide multiply and an add a lookup, which the count
 * above takes as one IMAD.WIDE; the SASS was not inspected).
 */
#ifndef BC_CORES_BF_BLOCK_H
#define BC_CORES_BF_BLOCK_H

#include "dialect/bc_dialect.h"

#define BC_BF_BLOCK_BYTES 8
#define BC_BF_BATCH 32 /* blocks per batch call */
/* the CUDA kernels copy the key, tables included, into shared memory per thread block */
#define BC_BF_KS_SHARED 1
#ifndef BC_BF_KS_SPACE
#define BC_BF_KS_SPACE BC_GLOBAL /* where the expanded key (P and the S-boxes) lives */
#endif

#define BC_BF_ROUNDS 16
#define BC_BF_P_WORDS 18
#define BC_BF_S_OFFSET 32
#define BC_BF_KS_WORDS (BC_BF_S_OFFSET + 4 * 256)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_BF_UNROLL _Pragma("unroll")
#define BC_BF_NOUNROLL _Pragma("unroll 1")
#else
#define BC_BF_UNROLL
#define BC_BF_NOUNROLL
#endif

/* Word i of the expanded key (BC_KS_AT: one copy, or the lane's own of interleaved copies). */
#define BC_BF_KS(ks, i) BC_KS_AT(ks, i)
#define BC_BF_S(ks, box, v) BC_KS_AT(ks, BC_BF_S_OFFSET + 256 * (box) + (v))

/* F(x) over the S-boxes of ks. */
BC_FN bc_u32 bc_bf_f(const BC_BF_KS_SPACE bc_u32 *ks, bc_u32 x) {
    return ((BC_BF_S(ks, 0, x >> 24) + BC_BF_S(ks, 1, (x >> 16) & 0xffu)) ^ BC_BF_S(ks, 2, (x >> 8) & 0xffu)) +
           BC_BF_S(ks, 3, x & 0xffu);
}

/* One block, halves as big-endian words, encryption: the key schedule's step (bf.cpp)
 * and a reference for the tests. */
BC_FN void bc_bf_encrypt_words(const BC_BF_KS_SPACE bc_u32 *ks, bc_u32 *xl, bc_u32 *xr) {
    bc_u32 l = *xl, r = *xr;
    for (int i = 0; i < BC_BF_ROUNDS; i += 2) {
        l ^= BC_BF_KS(ks, i);
        r ^= bc_bf_f(ks, l);
        r ^= BC_BF_KS(ks, i + 1);
        l ^= bc_bf_f(ks, r);
    }
    *xl = r ^ BC_BF_KS(ks, 17);
    *xr = l ^ BC_BF_KS(ks, 16);
}

/* Both directions over 32 blocks: dec = 0 takes P1..P18, dec = 1 P18..P1 (a constant at
 * every call site, so the selects fold). */
BC_FN void bc_bf_crypt(const BC_BF_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 l[BC_BF_BATCH], r[BC_BF_BATCH];
    BC_BF_UNROLL
    for (int j = 0; j < BC_BF_BATCH; ++j) {
        l[j] = bc_bswap32(w[2 * j]);
        r[j] = bc_bswap32(w[2 * j + 1]);
    }
    BC_BF_NOUNROLL
    for (int i = 0; i < BC_BF_ROUNDS; i += 2) {
        const bc_u32 p0 = BC_BF_KS(ks, dec ? 17 - i : i), p1 = BC_BF_KS(ks, dec ? 16 - i : i + 1);
        BC_BF_UNROLL
        for (int j = 0; j < BC_BF_BATCH; ++j) {
            l[j] ^= p0;
            r[j] ^= bc_bf_f(ks, l[j]) ^ p1;
            l[j] ^= bc_bf_f(ks, r[j]);
        }
    }
    const bc_u32 pl = BC_BF_KS(ks, dec ? 1 : 16), pr = BC_BF_KS(ks, dec ? 0 : 17);
    BC_BF_UNROLL
    for (int j = 0; j < BC_BF_BATCH; ++j) {
        w[2 * j] = bc_bswap32(r[j] ^ pr);
        w[2 * j + 1] = bc_bswap32(l[j] ^ pl);
    }
}

/* w: 32 blocks * 2 words in private memory, block j = w[2j..2j+1] (little-endian words
 * of its bytes); all 32 in place. */
BC_FN void bc_bf_encrypt_batch(const BC_BF_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_bf_crypt(ks, w, 0); }
BC_FN void bc_bf_decrypt_batch(const BC_BF_KS_SPACE bc_u32 *ks, bc_u32 *w) { bc_bf_crypt(ks, w, 1); }

#endif /* BC_CORES_BF_BLOCK_H */
