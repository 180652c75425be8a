/*
 * SEED (RFC 4269) with lookup tables: the form SEED's designers describe (G as four
 * 256-word tables SS0..SS3), kept to measure against the bitsliced core
 * (seed_block.h), which is the default everywhere. NOT constant time: every table
 * index is a byte of key-mixed data, so cache lines, shared-memory banks and their
 * timing depend on the key and the data. No catalogue row uses it.
 *
 * Interface as every device core: bc_seed_table_encrypt_batch(ks, w) and
 * bc_seed_table_decrypt_batch(ks, w), BC_SEED_TABLE_BATCH blocks in place,
 * w[4j + k] = bytes 4k..4k+3 of block j read little-endian.
 *
 * Expanded key ks (seed_table_expand_key in seed.h writes it), 32-bit words:
 *   ks[2r], ks[2r + 1]   K_{r+1,0}, K_{r+1,0} ^ K_{r+1,1}, r = 0..15 (encryption order)
 *   ks[32 + 256q + x]    SS_q[x]: byte position q (0 = least significant) of G's input
 *                        x, through S1 (q even) or S2 (q odd) and the masks m_k
 *   BC_SEED_TABLE_KS_WORDS = 32 + 1024 (4,224 bytes); BC_SEED_TABLE_KS_SHARED asks the
 *   GPU kernels to copy it into shared memory once per thread block.
 *
 * Work per 16-byte block: 16 rounds x (3 G of 4 lookups, 3 byte extracts and 3 XOR;
 * 3 additions; 5 XOR and the key loads) = 192 lookups and ~500 operations (31 a byte:
 * ~540 GB/s on an H100's ~16.7 T operations a second). Shared memory serves one warp
 * access a cycle per SM when the 32 addresses fall in different banks; 32 random bytes
 * into a 256-word table collide about 3.5-fold, so the bound is the lookups:
 * 132 SMs x 1.755 GHz x 32 / (192 x 3.5) = ~11 G blocks/s = ~175 GB/s (~610 without
 * conflicts). The bitsliced core's ceiling is 333 GB/s (seed_block.h).
 */
#ifndef BC_CORES_SEED_TABLE_BLOCK_H
#define BC_CORES_SEED_TABLE_BLOCK_H

#include "dialect/bc_dialect.h"

#define BC_SEED_TABLE_BLOCK_BYTES 16
#define BC_SEED_TABLE_BATCH 4
#define BC_SEED_TABLE_KS_WORDS (32 + 1024)
#define BC_SEED_TABLE_KS_SHARED 1
#ifndef BC_SEED_TABLE_KS_SPACE
#define BC_SEED_TABLE_KS_SPACE BC_GLOBAL
#endif

/* Word i of the expanded key (BC_KS_AT: one copy, or the lane's own of interleaved copies). */
#define BC_SEED_TABLE_KS(ks, i) BC_KS_AT(ks, i)

BC_FN bc_u32 bc_seed_table_g(const BC_SEED_TABLE_KS_SPACE bc_u32 *ks, bc_u32 x) {
    return BC_SEED_TABLE_KS(ks, 32 + (x & 0xffu)) ^ BC_SEED_TABLE_KS(ks, 32 + 256 + ((x >> 8) & 0xffu)) ^
           BC_SEED_TABLE_KS(ks, 32 + 512 + ((x >> 16) & 0xffu)) ^ BC_SEED_TABLE_KS(ks, 32 + 768 + (x >> 24));
}

/* One block: w the four little-endian words; rounds forward (dec = 0) or backward. */
BC_FN void bc_seed_table_block(const BC_SEED_TABLE_KS_SPACE bc_u32 *ks, bc_u32 *w, int dec) {
    bc_u32 l0 = bc_bswap32(w[0]), l1 = bc_bswap32(w[1]), r0 = bc_bswap32(w[2]), r1 = bc_bswap32(w[3]);
    for (int i = 0; i < 16; ++i) {
        const int r = dec ? 15 - i : i;
        /* F (RFC 4269 2.1) of (r0, r1): a = C ^ K0, t1 = G(C ^ D ^ K0 ^ K1), t2 = G(t1 + a),
         * D' = G(t2 + t1), C' = D' + t2 */
        const bc_u32 a = r0 ^ BC_SEED_TABLE_KS(ks, 2 * r);
        const bc_u32 t1 = bc_seed_table_g(ks, r0 ^ r1 ^ BC_SEED_TABLE_KS(ks, 2 * r + 1));
        const bc_u32 t2 = bc_seed_table_g(ks, t1 + a);
        const bc_u32 d = bc_seed_table_g(ks, t2 + t1);
        const bc_u32 c = d + t2;
        const bc_u32 n0 = l0 ^ c, n1 = l1 ^ d;
        l0 = r0;
        l1 = r1;
        r0 = n0;
        r1 = n1;
    }
    /* after the last round the halves are not swapped: output R || L */
    w[0] = bc_bswap32(r0);
    w[1] = bc_bswap32(r1);
    w[2] = bc_bswap32(l0);
    w[3] = bc_bswap32(l1);
}

BC_FN void bc_seed_table_encrypt_batch(const BC_SEED_TABLE_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    for (int j = 0; j < BC_SEED_TABLE_BATCH; ++j) bc_seed_table_block(ks, w + 4 * j, 0);
}

BC_FN void bc_seed_table_decrypt_batch(const BC_SEED_TABLE_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    for (int j = 0; j < BC_SEED_TABLE_BATCH; ++j) bc_seed_table_block(ks, w + 4 * j, 1);
}

#endif
