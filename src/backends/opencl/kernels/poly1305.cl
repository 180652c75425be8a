/*
 * Poly1305 partials on the device (part of the stream program: stream.cl
 * includes it), for ChaCha20-Poly1305 chunks and MACs.
 *
 * backend.h's partial of blocks m1..mn (16 bytes, the last zero-padded, each
 * with the 2^128 bit added, as the RFC 8439 AEAD pads) is
 * P = sum mi * r^(n-i+1) mod p, p = 2^130 - 5. It is linear: adjacent pieces
 * combine as P(AB) = P(A) * r^len(B) + P(B). As for GHASH (ghash.cl), each
 * work-item runs Horner's rule over `per_item` blocks, the group folds its
 * items in a tree with powers r^(2^k) from the host, and the host folds the
 * groups.
 *
 * Arithmetic: five 26-bit limbs in 32-bit words, products in 64 bits (the
 * "donna-32" shape). mul works for any two elements whose limbs are below 2^27,
 * which covers r (clamped), its powers and every partially reduced value here;
 * no branch or index depends on the key or the data.
 */
#include "dialect/bc_dialect.h"

typedef struct bc_p1305 {
    bc_u32 l[5];
} bc_p1305;

#define BC_P1305_MASK 0x3ffffffu

/* Carries so that every limb is below 2^26 (value < 2^130 + small). */
BC_FN bc_p1305 bc_p1305_carry(bc_u64 d0, bc_u64 d1, bc_u64 d2, bc_u64 d3, bc_u64 d4) {
    bc_p1305 h;
    bc_u64 c;
    c = d0 >> 26; d0 &= BC_P1305_MASK; d1 += c;
    c = d1 >> 26; d1 &= BC_P1305_MASK; d2 += c;
    c = d2 >> 26; d2 &= BC_P1305_MASK; d3 += c;
    c = d3 >> 26; d3 &= BC_P1305_MASK; d4 += c;
    c = d4 >> 26; d4 &= BC_P1305_MASK; d0 += c * 5;
    c = d0 >> 26; d0 &= BC_P1305_MASK; d1 += c;
    h.l[0] = (bc_u32)d0;
    h.l[1] = (bc_u32)d1;
    h.l[2] = (bc_u32)d2;
    h.l[3] = (bc_u32)d3;
    h.l[4] = (bc_u32)d4;
    return h;
}

BC_FN bc_p1305 bc_p1305_mul(bc_p1305 a, bc_p1305 b) {
    const bc_u64 a0 = a.l[0], a1 = a.l[1], a2 = a.l[2], a3 = a.l[3], a4 = a.l[4];
    const bc_u64 b0 = b.l[0], b1 = b.l[1], b2 = b.l[2], b3 = b.l[3], b4 = b.l[4];
    const bc_u64 s1 = 5 * b1, s2 = 5 * b2, s3 = 5 * b3, s4 = 5 * b4;
    return bc_p1305_carry(a0 * b0 + a1 * s4 + a2 * s3 + a3 * s2 + a4 * s1,
                          a0 * b1 + a1 * b0 + a2 * s4 + a3 * s3 + a4 * s2,
                          a0 * b2 + a1 * b1 + a2 * b0 + a3 * s4 + a4 * s3,
                          a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + a4 * s4,
                          a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0);
}

BC_FN bc_p1305 bc_p1305_add(bc_p1305 a, bc_p1305 b) {
    return bc_p1305_carry((bc_u64)a.l[0] + b.l[0], (bc_u64)a.l[1] + b.l[1], (bc_u64)a.l[2] + b.l[2],
                          (bc_u64)a.l[3] + b.l[3], (bc_u64)a.l[4] + b.l[4]);
}

/* Block `block` of the piece as an element, with the 2^128 bit; zero-padded past len. */
BC_FN bc_p1305 bc_p1305_load(const BC_GLOBAL bc_u8 *data, bc_u64 block, bc_u64 len) {
    const BC_GLOBAL bc_u8 *p = data + 16 * block;
    bc_u32 t0, t1, t2, t3;
    if (16 * block + 16 <= len) {
        t0 = bc_load_le32_g(p);
        t1 = bc_load_le32_g(p + 4);
        t2 = bc_load_le32_g(p + 8);
        t3 = bc_load_le32_g(p + 12);
    } else {
        bc_u8 b[16];
        bc_u64 have = len - 16 * block;
        for (int i = 0; i < 16; ++i) b[i] = (bc_u64)i < have ? p[i] : (bc_u8)0;
        t0 = bc_load_le32(b);
        t1 = bc_load_le32(b + 4);
        t2 = bc_load_le32(b + 8);
        t3 = bc_load_le32(b + 12);
    }
    bc_p1305 m;
    m.l[0] = t0 & BC_P1305_MASK;
    m.l[1] = ((t0 >> 26) | (t1 << 6)) & BC_P1305_MASK;
    m.l[2] = ((t1 >> 20) | (t2 << 12)) & BC_P1305_MASK;
    m.l[3] = ((t2 >> 14) | (t3 << 18)) & BC_P1305_MASK;
    m.l[4] = (t3 >> 8) | (1u << 24);
    return m;
}

/* x^e, e > 0 a public count, from tab[5k..5k+4] = x^(2^k). */
BC_FN bc_p1305 bc_p1305_pow(BC_CONSTANT const bc_u32 *tab, bc_u64 e) {
    bc_p1305 r;
    int first = 1;
    for (int i = 0; i < 5; ++i) r.l[i] = 0;
    for (int k = 0; k < 64; ++k) {
        if ((e >> k) & 1u) {
            bc_p1305 p;
            for (int i = 0; i < 5; ++i) p.l[i] = tab[5 * k + i];
            r = first ? p : bc_p1305_mul(r, p);
            first = 0;
        }
    }
    return r;
}

/*
 * data:     the piece, `len` bytes
 * per_item: blocks per work-item
 * rpow:     r^(2^k), k = 0..63, five limbs each (rpow[0..4] is the clamped r)
 * out:      per work-group five limbs: the partial of the group's blocks
 * scratch:  6 * local size words
 */
BC_KERNEL void bc_poly1305_partial(const BC_GLOBAL bc_u8 *data, bc_u64 len, bc_u32 per_item,
                                   BC_CONSTANT const bc_u32 *rpow, BC_GLOBAL bc_u32 *out,
                                   BC_LOCAL bc_u32 *scratch) {
    const bc_u64 nblocks = (len + 15) / 16;
    const bc_u32 lid = (bc_u32)get_local_id(0);
    const bc_u32 lsize = (bc_u32)get_local_size(0);
    const bc_u64 first = (bc_u64)get_global_id(0) * per_item;
    bc_u64 last = first + per_item;
    if (last > nblocks) last = nblocks;

    bc_p1305 r, h;
    for (int i = 0; i < 5; ++i) {
        r.l[i] = rpow[i];
        h.l[i] = 0;
    }
    bc_u32 count = 0;
    for (bc_u64 b = first; b < last; ++b, ++count) h = bc_p1305_mul(bc_p1305_add(h, bc_p1305_load(data, b, len)), r);

    BC_LOCAL bc_u32 *acc = scratch;              /* 5 limbs per item */
    BC_LOCAL bc_u32 *blocks = scratch + 5 * lsize;
    for (int i = 0; i < 5; ++i) acc[5 * lid + i] = h.l[i];
    blocks[lid] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (bc_u32 s = 1; s < lsize; s <<= 1) {
        if ((lid & (2 * s - 1)) == 0 && lid + s < lsize) {
            bc_u32 right = blocks[lid + s];
            if (right != 0) {
                bc_p1305 a, b;
                for (int i = 0; i < 5; ++i) {
                    a.l[i] = acc[5 * lid + i];
                    b.l[i] = acc[5 * (lid + s) + i];
                }
                a = bc_p1305_add(bc_p1305_mul(a, bc_p1305_pow(rpow, right)), b);
                for (int i = 0; i < 5; ++i) acc[5 * lid + i] = a.l[i];
                blocks[lid] += right;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        for (int i = 0; i < 5; ++i) out[5 * get_group_id(0) + i] = acc[i];
}
