/*
 * Poly1305 partials on the device, for ChaCha20-Poly1305 chunks and MACs: the
 * part "poly1305" (BC_PART_POLY1305), built from this file alone.
 *
 * backend.h's partial of blocks m1..mn (16 bytes, the last zero-padded, each
 * with the 2^128 bit added, as the RFC 8439 AEAD pads) is
 * P = sum mi * r^(n-i+1) mod p, p = 2^130 - 5. It is linear: adjacent pieces
 * combine as P(AB) = P(A) * r^len(B) + P(B). As for GHASH (ghash.cl), each
 * work-item runs Horner's rule over `per_item` blocks, the group folds its
 * items in a tree with powers r^(2^k) from the host, and the host folds the
 * groups.
 *
 * Arithmetic: modes/poly1305/poly1305_device.h (five 26-bit limbs in 32-bit
 * words, products in 64 bits), shared with the CUDA kernels; no branch or index
 * depends on the key or the data.
 */
#include "modes/poly1305/poly1305_device.h"

typedef struct bc_p1305 {
    bc_u32 l[5];
} bc_p1305;

BC_FN bc_p1305 bc_p1305_mul(bc_p1305 a, bc_p1305 b) {
    bc_p1305 h;
    bc_p26_mul(a.l, b.l, h.l);
    return h;
}

BC_FN bc_p1305 bc_p1305_add(bc_p1305 a, bc_p1305 b) {
    bc_p1305 h;
    bc_p26_add(a.l, b.l, h.l);
    return h;
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
    bc_p26_block(t0, t1, t2, t3, m.l);
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
#if BC_PART_POLY1305
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
#endif
