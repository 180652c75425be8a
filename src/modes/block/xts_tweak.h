/*
 * XTS tweak arithmetic (IEEE 1619), written once for host C++, CUDA and OpenCL C.
 *
 * A tweak is the 128-bit little-endian number of its 16 bytes, held as two 64-bit
 * halves (lo = bytes 0..7, hi = bytes 8..15). Multiplying by alpha (x) is a left
 * shift by one with the bit that falls off folded back as x^7 + x^2 + x + 1 (0x87);
 * multiplying by x^s (1 <= s <= 32) folds the s bits that fall off the same way,
 * as their carry-less product with 0x87. No branch depends on the tweak.
 */
#ifndef BC_MODES_BLOCK_XTS_TWEAK_H
#define BC_MODES_BLOCK_XTS_TWEAK_H

#include "dialect/bc_dialect.h"

/* t = t * x. */
BC_FN void bc_xts_mul_x(bc_u64 *lo, bc_u64 *hi) {
    const bc_u64 carry = (bc_u64)0 - (*hi >> 63);
    *hi = (*hi << 1) | (*lo >> 63);
    *lo = (*lo << 1) ^ (carry & 0x87u);
}

/* t = t * x^s for 1 <= s <= 32: the s bits shifted out of the top, h, come back as
 * h * 0x87 = h ^ h << 1 ^ h << 2 ^ h << 7 (at most 39 bits, so no second fold). */
BC_FN void bc_xts_mul_xs(bc_u64 *lo, bc_u64 *hi, unsigned s) {
    const bc_u64 h = *hi >> (64u - s);
    *hi = (*hi << s) | (*lo >> (64u - s));
    *lo = (*lo << s) ^ h ^ (h << 1) ^ (h << 2) ^ (h << 7);
}

/* The same on the tweak as four little-endian 32-bit words (t[0] the least significant),
 * 1 <= s <= 32: three funnel shifts and the fold of the s bits that fall off, h * 0x87
 * (s + 7 bits: a high word only when s > 25). Cheaper on 32-bit machines (GPUs) than
 * the 64-bit form; the same result. */
BC_FN void bc_xts_mul_xs_w(bc_u32 *t, unsigned s) {
    const bc_u32 h = bc_shr32c_plain(t[3], 32u - s);
    const bc_u32 red_lo = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
    const bc_u32 red_hi = (h >> 31) ^ (h >> 30) ^ (h >> 25);
    t[3] = bc_funnel_l32c(t[2], t[3], s);
    t[2] = bc_funnel_l32c(t[1], t[2], s);
    t[1] = bc_funnel_l32c(t[0], t[1], s) ^ red_hi;
    t[0] = bc_shl32c_plain(t[0], s) ^ red_lo;
}

/* t = t * p for a public multiplier p (branches on p's bits only). */
BC_FN void bc_xts_mul_public(bc_u64 *lo, bc_u64 *hi, bc_u64 p_lo, bc_u64 p_hi) {
    bc_u64 a_lo = *lo, a_hi = *hi, z_lo = 0, z_hi = 0;
    for (unsigned i = 0; i < 128; ++i) {
        const bc_u64 bit = i < 64 ? (p_lo >> i) & 1u : (p_hi >> (i - 64)) & 1u;
        if (bit) {
            z_lo ^= a_lo;
            z_hi ^= a_hi;
        }
        bc_xts_mul_x(&a_lo, &a_hi);
    }
    *lo = z_lo;
    *hi = z_hi;
}

/* alpha^e (public e) as a tweak multiplier. */
BC_FN void bc_xts_alpha_pow(bc_u64 e, bc_u64 *lo, bc_u64 *hi) {
    bc_u64 r_lo = 1, r_hi = 0, b_lo = 2, b_hi = 0;
    while (e) {
        if (e & 1u) bc_xts_mul_public(&r_lo, &r_hi, b_lo, b_hi);
        bc_u64 s_lo = b_lo, s_hi = b_hi;
        bc_xts_mul_public(&s_lo, &s_hi, b_lo, b_hi);
        b_lo = s_lo;
        b_hi = s_hi;
        e >>= 1;
    }
    *lo = r_lo;
    *hi = r_hi;
}

#endif /* BC_MODES_BLOCK_XTS_TWEAK_H */
