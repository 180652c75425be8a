/*
 * GF(2^128) arithmetic of GCM (NIST SP 800-38D), written once in the portable
 * dialect for the host, the CUDA GHASH kernels and the OpenCL GHASH kernel.
 *
 * Two spellings of one element, both in GCM's bit order (the coefficient of x^0
 * is the most significant bit of byte 0):
 *   bc_gf128  two 64-bit words: hi = bytes 0..7 read big-endian, lo = bytes 8..15;
 *   bc_gf128w four 32-bit words x, y, z, w = bytes 0..3, 4..7, 8..11, 12..15, each
 *             read big-endian (the layout of the CUDA kernels' uint4 and of their
 *             tables).
 * The multiply is SP 800-38D algorithm 1 on the 32-bit words with masks instead
 * of branches: constant time, no table, no data-dependent branch or index. It
 * is cut into 16 runs of 8 steps (bc_gf128w_mul_steps) so that a kernel can
 * spread one product over the iterations of another loop (the CUDA group kernel
 * does). bc_gf128_mul is the same product on the 64-bit spelling; it is the
 * reference and the combiner of partial sums, not the bulk GHASH of the fast
 * paths.
 */
#ifndef BC_MODES_GCM_GHASH_DEVICE_H
#define BC_MODES_GCM_GHASH_DEVICE_H

#include "dialect/bc_dialect.h"

typedef struct bc_gf128 {
    bc_u64 hi, lo;
} bc_gf128;

typedef struct bc_gf128w {
    bc_u32 x, y, z, w;
} bc_gf128w;

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

BC_FN bc_gf128w bc_gf128w_from64(bc_gf128 a) {
    bc_gf128w r;
    r.x = (bc_u32)(a.hi >> 32);
    r.y = (bc_u32)a.hi;
    r.z = (bc_u32)(a.lo >> 32);
    r.w = (bc_u32)a.lo;
    return r;
}
BC_FN bc_gf128 bc_gf128w_to64(bc_gf128w a) {
    bc_gf128 r;
    r.hi = ((bc_u64)a.x << 32) | a.y;
    r.lo = ((bc_u64)a.z << 32) | a.w;
    return r;
}
BC_FN bc_gf128w bc_gf128w_xor(bc_gf128w a, bc_gf128w b) {
    bc_gf128w r;
    r.x = a.x ^ b.x;
    r.y = a.y ^ b.y;
    r.z = a.z ^ b.z;
    r.w = a.w ^ b.w;
    return r;
}

/* v * x: one step right in this bit order, reduced by R = 0xe1 || 0^120 when
 * the coefficient of x^127 falls out (constant time). */
BC_FN void bc_gf128w_times_x(bc_gf128w *v) {
    const bc_u32 r = (bc_u32)((int)(v->w << 31) >> 31) & 0xe1000000u;
#if defined(__CUDA_ARCH__)
    v->w = __funnelshift_r(v->w, v->z, 1);
    v->z = __funnelshift_r(v->z, v->y, 1);
    v->y = __funnelshift_r(v->y, v->x, 1);
#else
    v->w = (v->w >> 1) | (v->z << 31);
    v->z = (v->z >> 1) | (v->y << 31);
    v->y = (v->y >> 1) | (v->x << 31);
#endif
    v->x = (v->x >> 1) ^ r;
}

/* Steps 8s .. 8s + 7 (s = 0..15) of the 128 of a * b, on the state z (product
 * so far, zero at the start) and v (b times x^step, b at the start). The same
 * operations whatever the values; after s = 15, z = a * b. */
BC_FN void bc_gf128w_mul_steps(bc_gf128w *z, bc_gf128w *v, bc_gf128w a, int s) {
    const bc_u32 word = s < 8 ? (s < 4 ? a.x : a.y) : (s < 12 ? a.z : a.w);
    bc_u32 bits = word << ((s & 3) * 8);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < 8; ++i) {
        const bc_u32 m = (bc_u32)((int)bits >> 31);
        bits <<= 1;
        z->x ^= v->x & m;
        z->y ^= v->y & m;
        z->z ^= v->z & m;
        z->w ^= v->w & m;
        bc_gf128w_times_x(v);
    }
}

/* a * b in GF(2^128) with GCM's polynomial x^128 + x^7 + x^2 + x + 1; both may be secret. */
BC_FN bc_gf128w bc_gf128w_mul(bc_gf128w a, bc_gf128w b) {
    bc_gf128w z, v = b;
    z.x = z.y = z.z = z.w = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
    for (int s = 0; s < 16; ++s) bc_gf128w_mul_steps(&z, &v, a, s);
    return z;
}

/* The same product on the 64-bit spelling. */
BC_FN bc_gf128 bc_gf128_mul(bc_gf128 x, bc_gf128 y) {
    return bc_gf128w_to64(bc_gf128w_mul(bc_gf128w_from64(x), bc_gf128w_from64(y)));
}

/* v * x on the 64-bit spelling (the CUDA table builder steps through P * x^k). */
BC_FN bc_gf128 bc_gf128_times_x(bc_gf128 v) {
    bc_gf128w t = bc_gf128w_from64(v);
    bc_gf128w_times_x(&t);
    return bc_gf128w_to64(t);
}

/* GHASH update over whole 16-byte blocks: y = (y + X_i) * H for each block. */
BC_FN bc_gf128 bc_ghash_blocks(bc_gf128 y, bc_gf128 h, const bc_u8 *data, bc_u64 nblocks) {
    for (bc_u64 i = 0; i < nblocks; ++i) y = bc_gf128_mul(bc_gf128_xor(y, bc_gf128_load(data + 16 * i)), h);
    return y;
}

/* Bit position, in a 32-bit word loaded little-endian from memory, of the k-th
 * nibble (k = 0..7) of the same four bytes read big-endian (GCM's order): byte
 * k / 2, its high nibble for even k. Lets a kernel index 4-bit window tables
 * straight from little-endian loads, without byte swaps. */
BC_FN int bc_ghash_le_nibble_shift(int k) { return 8 * (k >> 1) + ((k & 1) ? 0 : 4); }

#endif /* BC_MODES_GCM_GHASH_DEVICE_H */
