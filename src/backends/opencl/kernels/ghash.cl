/*
 * GHASH partials on the device: the part "ghash" (BC_PART_GHASH), built from this
 * file alone; aes.cl includes it for bc_ocl_gf_pow, without the kernel.
 *
 * GHASH_H of a piece X1..Xn (16-byte blocks, the last one zero-padded) is
 * G = sum Xi * H^(n-i+1) (backend.h's partial is H * G: the host adds that
 * factor once). It is linear, and two adjacent pieces A then B combine as
 * G(AB) = G(A) * H^len(B) + G(B). So each work-item hashes a
 * run of `per_item` blocks by Horner's rule, the work-group folds its items'
 * partials pairwise in a tree (each step one multiplication by a power of H
 * taken from a table of H^(2^k)), and the host folds the groups' results.
 * Multiplication is ghash.h's constant-time bc_gf128_mul; the exponents are
 * block counts, public, so branching on their bits leaks nothing.
 */
#include "modes/gcm/ghash_device.h"

/* x^e for e > 0 from tab[k] = x^(2^k) (hi, lo pairs, k = 0..63), GCM's bit order.
 * The exponent is a public count: branching on its bits leaks nothing. */
BC_FN bc_gf128 bc_ocl_gf_pow(BC_CONSTANT const bc_u64 *tab, bc_u64 e) {
    bc_gf128 r = bc_gf128_one();
    int first = 1;
    for (int k = 0; k < 64; ++k) {
        if ((e >> k) & 1u) {
            bc_gf128 p;
            p.hi = tab[2 * k];
            p.lo = tab[2 * k + 1];
            r = first ? p : bc_gf128_mul(r, p);
            first = 0;
        }
    }
    return r;
}

/* One 16-byte block of the piece, zero beyond `len` bytes. */
BC_FN bc_gf128 bc_ocl_ghash_load(const BC_GLOBAL bc_u8 *data, bc_u64 block, bc_u64 len) {
    const BC_GLOBAL bc_u8 *p = data + 16 * block;
    bc_gf128 x;
    if (16 * block + 16 <= len) {
        x.hi = bc_load_be64_g(p);
        x.lo = bc_load_be64_g(p + 8);
    } else {
        bc_u8 b[16];
        bc_u64 have = len - 16 * block;
        for (int i = 0; i < 16; ++i) b[i] = (bc_u64)i < have ? p[i] : (bc_u8)0;
        x.hi = bc_load_be64(b);
        x.lo = bc_load_be64(b + 8);
    }
    return x;
}

/*
 * data:     the piece, `len` bytes (the last block is zero-padded here)
 * per_item: blocks per work-item
 * hpow:     64 (hi, lo) pairs, H^(2^k) for k = 0..63; hpow[0] is H
 * out:      per work-group (hi, lo): the partial of the group's blocks
 * scratch:  3 * local size words
 */
#if BC_PART_GHASH
BC_KERNEL void bc_ghash_partial(const BC_GLOBAL bc_u8 *data, bc_u64 len, bc_u32 per_item,
                                BC_CONSTANT const bc_u64 *hpow, BC_GLOBAL bc_u64 *out,
                                BC_LOCAL bc_u64 *scratch) {
    const bc_u64 nblocks = (len + 15) / 16;
    const bc_u32 lid = (bc_u32)get_local_id(0);
    const bc_u32 lsize = (bc_u32)get_local_size(0);
    const bc_u64 first = (bc_u64)get_global_id(0) * per_item;
    bc_u64 last = first + per_item;
    if (last > nblocks) last = nblocks;

    bc_gf128 h;
    h.hi = hpow[0];
    h.lo = hpow[1];
    bc_gf128 y;
    y.hi = 0;
    y.lo = 0;
    bc_u32 count = 0;
    for (bc_u64 b = first; b < last; ++b, ++count)
        y = bc_gf128_mul(bc_gf128_xor(y, bc_ocl_ghash_load(data, b, len)), h);

    BC_LOCAL bc_u64 *acc_hi = scratch;
    BC_LOCAL bc_u64 *acc_lo = scratch + lsize;
    BC_LOCAL bc_u64 *blocks = scratch + 2 * lsize;
    acc_hi[lid] = y.hi;
    acc_lo[lid] = y.lo;
    blocks[lid] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (bc_u32 s = 1; s < lsize; s <<= 1) {
        if ((lid & (2 * s - 1)) == 0 && lid + s < lsize) {
            bc_u32 right = (bc_u32)blocks[lid + s];
            if (right != 0) {
                bc_gf128 a, b;
                a.hi = acc_hi[lid];
                a.lo = acc_lo[lid];
                b.hi = acc_hi[lid + s];
                b.lo = acc_lo[lid + s];
                a = bc_gf128_xor(bc_gf128_mul(a, bc_ocl_gf_pow(hpow, right)), b);
                acc_hi[lid] = a.hi;
                acc_lo[lid] = a.lo;
                blocks[lid] += right;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[2 * get_group_id(0)] = acc_hi[0];
        out[2 * get_group_id(0) + 1] = acc_lo[0];
    }
}
#endif
