/*
 * Poly1305's field arithmetic (RFC 8439 section 2.5) in the portable dialect,
 * written once for the CUDA stream kernels, the OpenCL Poly1305 kernel and the
 * host tests: radix 2^26, five limbs in 32-bit words, 32x32->64 products (the
 * "donna-32" shape). No branch or index depends on the key or the data.
 *
 * Elements are bc_u32[5] limb arrays. A multiplier b is prepared once as a
 * bc_p26_pow (its limbs and their multiples by 5, which fold the products at
 * and above 2^130 back since 2^130 = 5 mod p). The products are exact for any
 * two elements whose limbs are below 2^27 (r is clamped; every value here is
 * carried to 26 bits, l1 up to 2^26 + 2^15), and sums of several products fit
 * the 64-bit accumulators.
 *
 * The host keeps its own radix-2^44 code (modes/poly1305/poly1305.cpp, faster
 * with 64x64->128 products); a unit test holds the two equal.
 */
#ifndef BC_MODES_POLY1305_POLY1305_DEVICE_H
#define BC_MODES_POLY1305_POLY1305_DEVICE_H

#include "dialect/bc_dialect.h"

#define BC_P26_MASK 0x3ffffffu

/* A multiplier in radix 2^26 with s[i] = 5 r[i] for the wrap-around products. */
typedef struct bc_p26_pow {
    bc_u32 r[5];
    bc_u32 s[5];
} bc_p26_pow;

/* d += a * b (a: five limbs, b: a prepared multiplier). */
BC_FN void bc_p26_mul_acc(bc_u64 d[5], const bc_u32 a[5], const bc_p26_pow *b) {
    d[0] += (bc_u64)a[0] * b->r[0] + (bc_u64)a[1] * b->s[4] + (bc_u64)a[2] * b->s[3] + (bc_u64)a[3] * b->s[2] +
            (bc_u64)a[4] * b->s[1];
    d[1] += (bc_u64)a[0] * b->r[1] + (bc_u64)a[1] * b->r[0] + (bc_u64)a[2] * b->s[4] + (bc_u64)a[3] * b->s[3] +
            (bc_u64)a[4] * b->s[2];
    d[2] += (bc_u64)a[0] * b->r[2] + (bc_u64)a[1] * b->r[1] + (bc_u64)a[2] * b->r[0] + (bc_u64)a[3] * b->s[4] +
            (bc_u64)a[4] * b->s[3];
    d[3] += (bc_u64)a[0] * b->r[3] + (bc_u64)a[1] * b->r[2] + (bc_u64)a[2] * b->r[1] + (bc_u64)a[3] * b->r[0] +
            (bc_u64)a[4] * b->s[4];
    d[4] += (bc_u64)a[0] * b->r[4] + (bc_u64)a[1] * b->r[3] + (bc_u64)a[2] * b->r[2] + (bc_u64)a[3] * b->r[1] +
            (bc_u64)a[4] * b->r[0];
}

/* Carries d into five limbs (l1 < 2^26 + 2^15 at most, the rest < 2^26). */
BC_FN void bc_p26_carry(const bc_u64 d_in[5], bc_u32 h[5]) {
    bc_u64 d0 = d_in[0], d1 = d_in[1], d2 = d_in[2], d3 = d_in[3], d4 = d_in[4];
    d1 += d0 >> 26;
    d2 += d1 >> 26;
    d3 += d2 >> 26;
    d4 += d3 >> 26;
    bc_u64 h0 = (d0 & BC_P26_MASK) + (d4 >> 26) * 5;
    h[1] = (bc_u32)(d1 & BC_P26_MASK) + (bc_u32)(h0 >> 26);
    h[0] = (bc_u32)(h0 & BC_P26_MASK);
    h[2] = (bc_u32)(d2 & BC_P26_MASK);
    h[3] = (bc_u32)(d3 & BC_P26_MASK);
    h[4] = (bc_u32)(d4 & BC_P26_MASK);
}

/* A 16-byte block (four little-endian words) as limbs, plus 2^128. */
BC_FN void bc_p26_block(bc_u32 w0, bc_u32 w1, bc_u32 w2, bc_u32 w3, bc_u32 m[5]) {
    m[0] = w0 & BC_P26_MASK;
    m[1] = ((w0 >> 26) | (w1 << 6)) & BC_P26_MASK;
    m[2] = ((w1 >> 20) | (w2 << 12)) & BC_P26_MASK;
    m[3] = ((w2 >> 14) | (w3 << 18)) & BC_P26_MASK;
    m[4] = (w3 >> 8) | (1u << 24);
}

BC_FN void bc_p26_make(const bc_u32 r[5], bc_p26_pow *p) {
    for (int i = 0; i < 5; ++i) {
        p->r[i] = r[i];
        p->s[i] = r[i] * 5u;
    }
}

/* h = a * b, carried. */
BC_FN void bc_p26_mul(const bc_u32 a[5], const bc_u32 b[5], bc_u32 h[5]) {
    bc_p26_pow p;
    bc_u64 d[5] = {0, 0, 0, 0, 0};
    bc_p26_make(b, &p);
    bc_p26_mul_acc(d, a, &p);
    bc_p26_carry(d, h);
}

/* h = a + b, carried. */
BC_FN void bc_p26_add(const bc_u32 a[5], const bc_u32 b[5], bc_u32 h[5]) {
    bc_u64 d[5];
    for (int i = 0; i < 5; ++i) d[i] = (bc_u64)a[i] + b[i];
    bc_p26_carry(d, h);
}

/* Sums of limbs (each < 2^64) to the fully reduced value as 17 little-endian bytes. */
BC_FN void bc_p26_finish(const bc_u64 sum[5], bc_u8 out[17]) {
    bc_u64 h[5];
    for (int i = 0; i < 5; ++i) h[i] = sum[i];
    for (int pass = 0; pass < 3; ++pass) {
        h[1] += h[0] >> 26;
        h[0] &= BC_P26_MASK;
        h[2] += h[1] >> 26;
        h[1] &= BC_P26_MASK;
        h[3] += h[2] >> 26;
        h[2] &= BC_P26_MASK;
        h[4] += h[3] >> 26;
        h[3] &= BC_P26_MASK;
        h[0] += (h[4] >> 26) * 5;
        h[4] &= BC_P26_MASK;
    }
    h[1] += h[0] >> 26;
    h[0] &= BC_P26_MASK;
    /* h < 2^130 = p + 5: subtract p when h + 5 reaches 2^130 (constant time). */
    bc_u64 g[5];
    g[0] = h[0] + 5;
    g[1] = h[1] + (g[0] >> 26);
    g[0] &= BC_P26_MASK;
    g[2] = h[2] + (g[1] >> 26);
    g[1] &= BC_P26_MASK;
    g[3] = h[3] + (g[2] >> 26);
    g[2] &= BC_P26_MASK;
    g[4] = h[4] + (g[3] >> 26);
    g[3] &= BC_P26_MASK;
    bc_u64 take = (bc_u64)0 - (g[4] >> 26);
    g[4] &= BC_P26_MASK;
    for (int i = 0; i < 5; ++i) h[i] = (h[i] & ~take) | (g[i] & take);
    bc_u64 lo = h[0] | (h[1] << 26) | (h[2] << 52);
    bc_u64 hi = (h[2] >> 12) | (h[3] << 14) | (h[4] << 40);
    bc_store_le64(out, lo);
    bc_store_le64(out + 8, hi);
    out[16] = (bc_u8)(h[4] >> 24);
}

/* 17 little-endian bytes (a value < 2^130) as five limbs. */
BC_FN void bc_p26_from_bytes(const bc_u8 in[17], bc_u32 r[5]) {
    bc_u64 lo = bc_load_le64(in), hi = bc_load_le64(in + 8);
    r[0] = (bc_u32)(lo & BC_P26_MASK);
    r[1] = (bc_u32)((lo >> 26) & BC_P26_MASK);
    r[2] = (bc_u32)(((lo >> 52) | (hi << 12)) & BC_P26_MASK);
    r[3] = (bc_u32)((hi >> 14) & BC_P26_MASK);
    r[4] = (bc_u32)(((hi >> 40) | ((bc_u64)in[16] << 24)) & BC_P26_MASK);
}

/* r clamped (RFC 8439: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff), as limbs. */
BC_FN void bc_p26_load_r(const bc_u8 r16[16], bc_u32 r[5]) {
    bc_p26_block(bc_load_le32(r16) & 0x0fffffffu, bc_load_le32(r16 + 4) & 0x0ffffffcu,
                 bc_load_le32(r16 + 8) & 0x0ffffffcu, bc_load_le32(r16 + 12) & 0x0ffffffcu, r);
    r[4] &= 0xffffffu; /* a key has no 2^128 bit */
}

#endif /* BC_MODES_POLY1305_POLY1305_DEVICE_H */
