/*
 * CAST-128 / CAST5 (RFC 2144; 64-bit block, keys of 5 to 16 bytes, 12 rounds up to 80
 * bits, 16 above) in the portable dialect. Host C++, CUDA and OpenCL C 1.2 compile it
 * unchanged.
 *
 * NOT CONSTANT TIME. CAST-128 is table-based by nature: every round reads its four
 * fixed 8x32 S-boxes at addresses that depend on the key and the data (the boxes are
 * not small algebraic maps that a gate network could replace at a sane cost). Cache-
 * timing attacks apply wherever the tables sit in a cache that another party shares.
 * The round count depends on the key length only.
 *
 * Interface (the modes and backends code against these names):
 *   bc_cast5_encrypt_batch(ks, w), bc_cast5_decrypt_batch(ks, w): 32 blocks in place;
 *   w[2j + k] = bytes 4k..4k+3 of block j read little-endian (bc_load_le32).
 *
 * Expanded key ks (32-bit words; cast5_expand_key in cast5.h writes it), everything the
 * rounds read:
 *   ks[0..15]             the masking subkeys Km1..Km16
 *   ks[16..31]            the rotation subkeys Kr1..Kr16 (5 bits each, 0..31)
 *   ks[32 + 256 i + x]    S-box i + 1 (i = 0..3) at x: a copy of RFC 2144's S1..S4
 *   ks[1056]              the number of rounds, 12 (keys up to 10 bytes) or 16
 *   BC_CAST5_KS_WORDS = 1,057 words (4,228 bytes). One ks serves both directions.
 * Every word of ks is read through BC_KS_AT (bc_dialect.h), in the BC_CAST5_KS_SPACE
 * address space: a backend that stages ks in shared (CUDA) or local (OpenCL) memory,
 * as one copy or as interleaved copies a lane, passes its copy, and every lookup then
 * comes from there.
 *
 * Round n (RFC 2144 2.2), type (n - 1) mod 3 + 1, D the half it reads:
 *   type 1: I = (Km + D) <<< Kr, f = ((S1[Ia] ^ S2[Ib]) - S3[Ic]) + S4[Id]
 *   type 2: I = (Km ^ D) <<< Kr, f = ((S1[Ia] - S2[Ib]) + S3[Ic]) ^ S4[Id]
 *   type 3: I = (Km - D) <<< Kr, f = ((S1[Ia] + S2[Ib]) ^ S3[Ic]) - S4[Id]
 * Ia the most significant byte. No swaps: odd rounds do L ^= f(R), even ones R ^= f(L),
 * and the output is R || L (12 or 16 rounds, both even). The types repeat every 3 and
 * the halves every 2 rounds, so the loop body is 6 rounds with constant types, and 16
 * rounds leave the third pass after its fourth round. Decryption takes the rounds backwards. The batch runs
 * round by round over all 32 blocks (32 independent lookup chains, for latency), the
 * state 64 words in registers.
 *
 * Count per 32-block batch (256 bytes), 32-bit operations on the GPU, 16 rounds:
 *   per block and round: Km op D 1, rotate (SHF) 1, four byte extractions 4, four table
 *     addresses 4, the three combining ops 3, XOR into the other half 1 -> 14,
 *     and 4 table lookups
 *   per block: 16 x 14 + 4 byte swaps (PRMT) = 228 (12 rounds: 172)
 *   batch: 32 x 228 = 7,296 ops / 256 bytes = 28.5 ops/byte
 *          -> 16.7e12 / 28.5 = 586 GB/s on an H100 (16.7 T 32-bit ops/s);
 *          12 rounds: 21.5 ops/byte -> 777 GB/s;
 *          lookups: 32 x 64 = 2,048 a batch, 8 a byte (12 rounds: 6).
 *   The lookups: one load instruction each, on the LSU pipe, each warp load reading
 *   one 1 KB S-box at 32 data-dependent indices. One copy in shared memory puts them
 *   on about 3.5 times the conflict-free bank cycles (32 random draws over 32 banks):
 *   9 lookups a clock per SM x 132 SMs x 1.98 GHz = 2.4e12 lookups/s, / 8 = 300 GB/s.
 *   The CUDA kernels stage ks (BC_CAST5_KS_SHARED) as 32 interleaved copies instead
 *   (BC_KS_AT; lane l reads copy l, so bank l, whatever the data): one bank cycle a
 *   warp lookup, 32 a clock per SM -> 1,045 GB/s, and the ALU count above binds
 *   first. The copies take 132 KiB a block, so one block of 8 warps an SM. OpenCL
 *   copies ks into local memory once a work-group (one copy: 32 would pass the 48 KiB
 *   a work-group gets there). Not counted: the key-word loads of a round (the same
 *   index in every lane), the mode's work.
 * sm_90 (nvcc 13.0, -O3, a kernel holding w in registers, each direction): 80 registers,
 * no spills; the PTX of one pass of the 6-round loop over 32 blocks has 5,461
 * instructions, 28 a block-round with its 4 loads, among them the 64-bit address
 * arithmetic of global memory (a wide multiply and an add a lookup, which the count
 * above takes as one IMAD.WIDE; the SASS was not inspected).
 */
#ifndef BC_CORES_CAST5_BLOCK_H
#define BC_CORES_CAST5_BLOCK_H

#include "dialect/bc_dialect.h"

#define BC_CAST5_BLOCK_BYTES 8
#define BC_CAST5_BATCH 32 /* blocks per batch call */
/* the CUDA kernels copy the key, tables included, into shared memory per thread block */
#define BC_CAST5_KS_SHARED 1
#ifndef BC_CAST5_KS_SPACE
#define BC_CAST5_KS_SPACE BC_GLOBAL /* where the expanded key (subkeys, S1..S4) lives */
#endif

#define BC_CAST5_KM 0
#define BC_CAST5_KR 16
#define BC_CAST5_S_OFFSET 32
#define BC_CAST5_ROUNDS_AT (BC_CAST5_S_OFFSET + 4 * 256)
#define BC_CAST5_KS_WORDS (BC_CAST5_ROUNDS_AT + 1)

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_CAST5_UNROLL _Pragma("unroll")
#define BC_CAST5_NOUNROLL _Pragma("unroll 1")
#else
#define BC_CAST5_UNROLL
#define BC_CAST5_NOUNROLL
#endif

/* Word i of the expanded key (BC_KS_AT: one copy, or the lane's own of interleaved copies). */
#define BC_CAST5_KS(ks, i) BC_KS_AT(ks, i)
#define BC_CAST5_S(ks, box, v) BC_KS_AT(ks, BC_CAST5_S_OFFSET + 256 * (box) + (v))

/* f of the given type (1..3, a constant at every call site) over the S-boxes of ks. */
BC_FN bc_u32 bc_cast5_f(const BC_CAST5_KS_SPACE bc_u32 *ks, int type, bc_u32 d, bc_u32 km, bc_u32 kr) {
    const bc_u32 in = type == 1 ? km + d : type == 2 ? (km ^ d) : km - d;
    const bc_u32 i = bc_rotl32(in, kr);
    const bc_u32 a = BC_CAST5_S(ks, 0, i >> 24), b = BC_CAST5_S(ks, 1, (i >> 16) & 0xffu);
    const bc_u32 c = BC_CAST5_S(ks, 2, (i >> 8) & 0xffu), e = BC_CAST5_S(ks, 3, i & 0xffu);
    if (type == 1) return ((a ^ b) - c) + e;
    if (type == 2) return ((a - b) + c) ^ e;
    return ((a + b) ^ c) - e;
}

/* Round n (1..16) of the given type over the batch: dst[j] ^= f(src[j]). */
BC_FN void bc_cast5_round(const BC_CAST5_KS_SPACE bc_u32 *ks, int n, int type, bc_u32 *dst, const bc_u32 *src) {
    const bc_u32 km = BC_CAST5_KS(ks, BC_CAST5_KM + n - 1), kr = BC_CAST5_KS(ks, BC_CAST5_KR + n - 1);
    BC_CAST5_UNROLL
    for (int j = 0; j < BC_CAST5_BATCH; ++j) dst[j] ^= bc_cast5_f(ks, type, src[j], km, kr);
}

BC_FN void bc_cast5_load(const bc_u32 *w, bc_u32 *l, bc_u32 *r) {
    BC_CAST5_UNROLL
    for (int j = 0; j < BC_CAST5_BATCH; ++j) {
        l[j] = bc_bswap32(w[2 * j]);
        r[j] = bc_bswap32(w[2 * j + 1]);
    }
}

/* The output is R || L. */
BC_FN void bc_cast5_store(bc_u32 *w, const bc_u32 *l, const bc_u32 *r) {
    BC_CAST5_UNROLL
    for (int j = 0; j < BC_CAST5_BATCH; ++j) {
        w[2 * j] = bc_bswap32(r[j]);
        w[2 * j + 1] = bc_bswap32(l[j]);
    }
}

/* w: 32 blocks * 2 words in private memory, block j = w[2j..2j+1] (little-endian words
 * of its bytes); all 32 in place. Odd rounds write L, even ones R. The rounds run in
 * passes of the six-round body (types 1, 2, 3, 1, 2, 3 from round 6h + 1), and the pass
 * that reaches the last round (12: after six, 16: after four) leaves mid-body: rounds
 * 13-16 as straight-line code after the loop would be ~3,600 more instructions in every
 * GPU kernel, past what the instruction cache holds (bench/notes/
 * block-ciphers-64-bit-gpu.md, "Blowfish and CAST5: bank conflicts"). */
BC_FN void bc_cast5_encrypt_batch(const BC_CAST5_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 l[BC_CAST5_BATCH], r[BC_CAST5_BATCH];
    bc_cast5_load(w, l, r);
    const int rounds = (int)BC_CAST5_KS(ks, BC_CAST5_ROUNDS_AT);
    BC_CAST5_NOUNROLL
    for (int h = 0;; h += 6) {
        bc_cast5_round(ks, h + 1, 1, l, r);
        bc_cast5_round(ks, h + 2, 2, r, l);
        bc_cast5_round(ks, h + 3, 3, l, r);
        bc_cast5_round(ks, h + 4, 1, r, l);
        if (h + 4 == rounds) break;
        bc_cast5_round(ks, h + 5, 2, l, r);
        bc_cast5_round(ks, h + 6, 3, r, l);
        if (h + 6 == rounds) break;
    }
    bc_cast5_store(w, l, r);
}

/* The rounds backwards from the last, in the same passes from the top one down: a pass
 * whose body would start past the last round (16 rounds: rounds 18 and 17) enters it
 * two rounds in. Even rounds write L, odd ones R. */
BC_FN void bc_cast5_decrypt_batch(const BC_CAST5_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 l[BC_CAST5_BATCH], r[BC_CAST5_BATCH];
    bc_cast5_load(w, l, r);
    const int rounds = (int)BC_CAST5_KS(ks, BC_CAST5_ROUNDS_AT);
    BC_CAST5_NOUNROLL
    for (int h = rounds == 16 ? 12 : 6;; h -= 6) {
        if (h + 6 <= rounds) {
            bc_cast5_round(ks, h + 6, 3, l, r);
            bc_cast5_round(ks, h + 5, 2, r, l);
        }
        bc_cast5_round(ks, h + 4, 1, l, r);
        bc_cast5_round(ks, h + 3, 3, r, l);
        bc_cast5_round(ks, h + 2, 2, l, r);
        bc_cast5_round(ks, h + 1, 1, r, l);
        if (h == 0) break;
    }
    bc_cast5_store(w, l, r);
}

#endif /* BC_CORES_CAST5_BLOCK_H */
