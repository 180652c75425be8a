/*
 * GF(2^128) arithmetic of GCM (NIST SP 800-38D), in the portable dialect.
 *
 * An element is two 64-bit words in GCM's bit order: hi holds bytes 0..7 of the
 * block read big-endian, lo bytes 8..15; the polynomial coefficient of x^0 is
 * the most significant bit of byte 0. Multiplication is SP 800-38D algorithm 1
 * with masks instead of branches, so it is constant time (no table, no
 * data-dependent branch); it is the reference and the combiner of partial sums,
 * not the bulk GHASH of the fast paths.
 */
#ifndef BC_MODES_GCM_GHASH_H
#define BC_MODES_GCM_GHASH_H

#include "dialect/bc_dialect.h"

typedef struct bc_gf128 {
    bc_u64 hi, lo;
} bc_gf128;

BC_FN bc_gf128 bc_gf128_load(const bc_u8 *p) {
    bc_gf128 r;
    r.hi = bc_load_be64(p);
    r.lo = bc_load_be64(p + 8);
    return r;
}
BC_FN void bc_gf128_store(bc_u8 *p, bc_gf128 x) {
    bc_store_be64(p, x.hi);
    bc_store_be64(p + 8, x.lo);
}
BC_FN bc_gf128 bc_gf128_xor(bc_gf128 a, bc_gf128 b) {
    bc_gf128 r;
    r.hi = a.hi ^ b.hi;
    r.lo = a.lo ^ b.lo;
    return r;
}
/* The multiplicative identity: x^0, the top bit of byte 0. */
BC_FN bc_gf128 bc_gf128_one(void) {
    bc_gf128 r;
    r.hi = (bc_u64)1 << 63;
    r.lo = 0;
    return r;
}

/* x * y in GF(2^128) with GCM's reduction polynomial x^128 + x^7 + x^2 + x + 1. */
BC_FN bc_gf128 bc_gf128_mul(bc_gf128 x, bc_gf128 y) {
    bc_gf128 z;
    bc_gf128 v = y;
    z.hi = 0;
    z.lo = 0;
    for (int i = 0; i < 128; ++i) {
        /* bit i of x, counting from the top bit of hi */
        bc_u64 word = i < 64 ? x.hi : x.lo;
        bc_u64 bit = (word >> (63 - (i & 63))) & 1u;
        bc_u64 take = (bc_u64)0 - bit;
        z.hi ^= v.hi & take;
        z.lo ^= v.lo & take;
        /* v = v * x: a right shift in this bit order, reduced by R = 0xe1 || 0^120 */
        bc_u64 carry = (bc_u64)0 - (v.lo & 1u);
        v.lo = (v.lo >> 1) | (v.hi << 63);
        v.hi = (v.hi >> 1) ^ (carry & 0xe100000000000000ull);
    }
    return z;
}

/* GHASH update over whole 16-byte blocks: y = (y + X_i) * H for each block. */
BC_FN bc_gf128 bc_ghash_blocks(bc_gf128 y, bc_gf128 h, const bc_u8 *data, bc_u64 nblocks) {
    for (bc_u64 i = 0; i < nblocks; ++i) y = bc_gf128_mul(bc_gf128_xor(y, bc_gf128_load(data + 16 * i)), h);
    return y;
}

#endif /* BC_MODES_GCM_GHASH_H */
