/*
 * Bitsliced AES (FIPS-197) in the portable dialect: constant time by
 * construction (no table, no address and no branch depends on key or data).
 *
 * Layout. One call works on a batch of 32 blocks held in 128 32-bit words:
 *   s[8*p + b], p = byte position in the block (0..15, FIPS order: p = 4*col + row),
 *               b = bit of that byte (0 = least significant);
 *   bit j of every word belongs to block j of the batch.
 * So a word is "bit b of byte p of all 32 blocks", and the S-box runs on 8 words
 * at a time (32 S-boxes in parallel); ShiftRows is a renaming of byte positions;
 * MixColumns is XORs of words; AddRoundKey XORs a mask word (all ones or all
 * zeros, the key bit broadcast) into each state word.
 *
 * Packing. bc_aes_bs_transpose32 transposes a 32x32 bit matrix in place. To pack
 * 32 blocks: s[32*k + j] = little-endian word k (bytes 4k..4k+3) of block j, for
 * k = 0..3, then transpose each group of 32 words. Unpacking is the same
 * transposition followed by the inverse assignment (the transposition is its
 * own inverse). bc_aes_bs_pack / bc_aes_bs_unpack do it from and to bytes.
 *
 * Round keys. bc_aes_bs_expand_masks turns the big-endian 32-bit schedule
 * words of FIPS-197 (w[0..4*(Nr+1))) into (Nr+1)*128 mask words laid out as the
 * state: rk[128*r + 8*p + b] = all ones when bit b of byte p of round key r is set.
 * Decryption uses the same masks (straight inverse cipher).
 *
 * The S-box is the 113-gate circuit of Boyar and Peralta (32 AND, 81 XOR/XNOR;
 * "A new combinational logic minimization technique with applications to
 * cryptology", SEA 2010, and the depth-16 variant of the same authors, whose
 * non-linear middle is written here with the published AND/OR form). The
 * inverse S-box is the inverse affine map, then the forward circuit, then the
 * inverse affine map again: invS(y) = A'(S(A'(y))), with A'(x) = rotl(x,1) ^
 * rotl(x,3) ^ rotl(x,6) ^ 0x05 (the inverse of the S-box's affine step).
 *
 * Round-key address space: BC_AES_BS_RK_SPACE (default BC_GLOBAL); a backend
 * that stages the masks elsewhere (OpenCL __local) defines it before including.
 */
#ifndef BC_CORES_AES_BITSLICED_H
#define BC_CORES_AES_BITSLICED_H

#include "dialect/bc_dialect.h"

#ifndef BC_AES_BS_RK_SPACE
#define BC_AES_BS_RK_SPACE BC_GLOBAL
#endif

#define BC_AES_BS_BLOCKS 32
#define BC_AES_BS_WORDS 128

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_AES_BS_UNROLL _Pragma("unroll")
#define BC_AES_BS_NOUNROLL _Pragma("unroll 1")
#else
#define BC_AES_BS_UNROLL
#define BC_AES_BS_NOUNROLL
#endif

/* BC_AES_LUT3 (one GPU LOP3 with its truth table) and the generated S-box networks. */
#include "cores/aes/aes_bitsliced_lut3.h"

/* ---------------------------------------------------------------- transposition */

#if defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
/* One swap of a fine transposition stage: *b takes the s-bit groups of *a that m marks,
 * shifted down, and *a those of *b shifted up. Written as two bit selects (LOP3, truth
 * table 0xd8: c ? b : a; as plain C the compiler splits each into two masks) with the
 * shifts on the multiply pipe (IMAD.HI for x >> s, IMAD.SHL
 * for y << s): 2 integer-pipe instructions a swap, where the XOR form's shared difference
 * compiles to 3 LOP3 and an SHF (the kernels are bound by the integer pipe). */
__device__ __forceinline__ void bc_aes_bs_swap_groups(bc_u32 *a, bc_u32 *b, unsigned s, bc_u32 m) {
    const bc_u32 x = *a, y = *b;
    const bc_u32 x_down = __umulhi(x, 1u << (32 - s)), y_up = y << s;
    *a = bc_aes_lop3<0xd8>(x, y_up, m << s);
    *b = bc_aes_lop3<0xd8>(y, x_down, m);
}
#define BC_AES_BS_SWAP(a, b, s, m) bc_aes_bs_swap_groups(&(a), &(b), (s), (m))
#else
#define BC_AES_BS_SWAP(a, b, s, m)                   \
    do {                                             \
        const bc_u32 t_ = (((a) >> (s)) ^ (b)) & (m); \
        (b) ^= t_;                                   \
        (a) ^= t_ << (s);                            \
    } while (0)
#endif

/* In place: afterwards bit j of a[i] is what bit i of a[j] was. */
BC_FN void bc_aes_bs_transpose32(bc_u32 *a) {
#if defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
    /* The two coarse stages are byte moves: one PRMT per output word. */
    BC_AES_BS_UNROLL
    for (int i = 0; i < 16; ++i) {
        bc_u32 x = a[i], y = a[i + 16];
        a[i] = __byte_perm(x, y, 0x5410);
        a[i + 16] = __byte_perm(x, y, 0x7632);
    }
    BC_AES_BS_UNROLL
    for (int g = 0; g < 32; g += 16) {
        BC_AES_BS_UNROLL
        for (int i = 0; i < 8; ++i) {
            bc_u32 x = a[g + i], y = a[g + i + 8];
            a[g + i] = __byte_perm(x, y, 0x6240);
            a[g + i + 8] = __byte_perm(x, y, 0x7351);
        }
    }
#else
    {
        BC_AES_BS_UNROLL
        for (int i = 0; i < 16; ++i) {
            bc_u32 t = ((a[i] >> 16) ^ a[i + 16]) & 0x0000ffffu;
            a[i + 16] ^= t;
            a[i] ^= t << 16;
        }
        BC_AES_BS_UNROLL
        for (int g = 0; g < 32; g += 16) {
            BC_AES_BS_UNROLL
            for (int i = 0; i < 8; ++i) {
                bc_u32 t = ((a[g + i] >> 8) ^ a[g + i + 8]) & 0x00ff00ffu;
                a[g + i + 8] ^= t;
                a[g + i] ^= t << 8;
            }
        }
    }
#endif
    BC_AES_BS_UNROLL
    for (int g = 0; g < 32; g += 8) {
        BC_AES_BS_UNROLL
        for (int i = 0; i < 4; ++i) BC_AES_BS_SWAP(a[g + i], a[g + i + 4], 4, 0x0f0f0f0fu);
    }
    BC_AES_BS_UNROLL
    for (int g = 0; g < 32; g += 4) {
        BC_AES_BS_UNROLL
        for (int i = 0; i < 2; ++i) BC_AES_BS_SWAP(a[g + i], a[g + i + 2], 2, 0x33333333u);
    }
    BC_AES_BS_UNROLL
    for (int g = 0; g < 32; g += 2) BC_AES_BS_SWAP(a[g], a[g + 1], 1, 0x55555555u);
}

/* Words already loaded (s[32k + j] = word k of block j) -> bitsliced. */
BC_FN void bc_aes_bs_slice(bc_u32 *s) {
    bc_aes_bs_transpose32(s);
    bc_aes_bs_transpose32(s + 32);
    bc_aes_bs_transpose32(s + 64);
    bc_aes_bs_transpose32(s + 96);
}
/* Bitsliced -> words (s[32k + j] = word k of block j). Same operation. */
BC_FN void bc_aes_bs_unslice(bc_u32 *s) { bc_aes_bs_slice(s); }

/* Bytes (n <= 32 consecutive blocks; the rest of the batch zero) -> bitsliced. */
BC_FN void bc_aes_bs_pack(bc_u32 *s, const bc_u8 *in, unsigned n) {
    for (unsigned j = 0; j < 32; ++j) {
        for (unsigned k = 0; k < 4; ++k)
            s[32 * k + j] = j < n ? bc_load_le32(in + 16 * j + 4 * k) : 0u;
    }
    bc_aes_bs_slice(s);
}
/* Bitsliced -> bytes of the first n blocks. Destroys s. */
BC_FN void bc_aes_bs_unpack(bc_u32 *s, bc_u8 *out, unsigned n) {
    bc_aes_bs_unslice(s);
    for (unsigned j = 0; j < n; ++j) {
        for (unsigned k = 0; k < 4; ++k) bc_store_le32(out + 16 * j + 4 * k, s[32 * k + j]);
    }
}

/* Counter slices (bc_aes_bs_ctr_slice, bc_aes_bs_ctr_slice_pair): the 32 blocks of a
 * batch are A + (j << lg), j = 0..31, so counter bits below lg are A's, bits lg..lg+4
 * count j from L = bits lg..lg+4 of A, and the bits above are A's, flipped in the blocks
 * with L + j >= 32 where A and A + 2^(lg+5) (bits below lg+5 cleared) differ. This returns
 * those blocks' mask (carry) and the flips f; wrap32: only the low 32 bits count. */
BC_FN bc_u32 bc_aes_bs_ctr_flips(const bc_u32 *a, int wrap32, int lg, bc_u32 *f) {
    const bc_u32 L = (a[0] >> lg) & 31u;
    const bc_u32 field = (1u << (lg + 5)) - 1u;
    const bc_u32 v0 = a[0] & ~field, w0 = v0 + field + 1u;
    f[0] = v0 ^ w0;
    bc_u32 c = (bc_u32)(w0 < v0) & (bc_u32)(wrap32 == 0);
    for (int k = 1; k < 4; ++k) {
        const bc_u32 w = a[k] + c;
        f[k] = a[k] ^ w;
        c = (bc_u32)(w < c);
    }
    return (0u - (bc_u32)(L != 0u)) & (0xffffffffu << ((32u - L) & 31u));
}

/* The sliced word of counter bit i (bit j of the word: block j), as above. */
BC_FN bc_u32 bc_aes_bs_ctr_word(const bc_u32 *a, const bc_u32 *f, bc_u32 carry, bc_u32 L, int lg, int i) {
    const bc_u32 bit = (a[i >> 5] >> (i & 31)) & 1u;
    if (i < lg) return 0u - bit;
    if (i < lg + 5) {
        const int k = i - lg;  /* the pattern "bit k of j", rotated by L */
        const bc_u32 pat = k == 0 ? 0xaaaaaaaau : k == 1 ? 0xccccccccu : k == 2 ? 0xf0f0f0f0u
                         : k == 3 ? 0xff00ff00u : 0xffff0000u;
        return (pat >> L) | (pat << ((32u - L) & 31u));
    }
    return (0u - bit) ^ (carry & (0u - ((f[i >> 5] >> (i & 31)) & 1u)));
}

/* CTR counters straight into the bitsliced state, no transposition: block j of
 * the batch is the big-endian 128-bit value A + 32*j, a[0..3] the little-endian
 * 32-bit words of A (a[0] least significant); with wrap32 only the low 32 bits
 * count (GCM's inc32). Same state as packing those 32 blocks and slicing them.
 * Counter bit i = bit b of byte p, i = 8*(15 - p) + b. Bits 0-4 are A's for every
 * block; bits 5-9 are those of (L + j) mod 32, L = bits 5-9 of A, i.e. the
 * pattern "bit k of j" rotated by L; the bits above are A's, flipped (in the
 * blocks with L + j >= 32) where A and A + 1024 (bits 0-9 cleared) differ.
 * ~3 operations per word instead of the adds, byte swaps and 4 transpositions. */
BC_FN void bc_aes_bs_ctr_slice(bc_u32 *s, const bc_u32 *a, int wrap32) {
    bc_u32 f[4];
    const bc_u32 L = (a[0] >> 5) & 31u, carry = bc_aes_bs_ctr_flips(a, wrap32, 5, f);
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[8 * (15 - (i >> 3)) + (i & 7)] = bc_aes_bs_ctr_word(a, f, carry, L, 5, i);
}

/* ---------------------------------------------------------------- S-box */

/* x[0..7] = bits 0..7 of 32 bytes (x[7] the most significant), in place;
 * then x[i] ^= k_i (a round-key mask folded into the circuit's last XORs, where
 * a 3-input LOP3 takes it for free; bc_aes_bs_sbox passes zeros). */
BC_FN void bc_aes_bs_sbox_k8(bc_u32 *x, bc_u32 k0, bc_u32 k1, bc_u32 k2, bc_u32 k3, bc_u32 k4, bc_u32 k5,
                             bc_u32 k6, bc_u32 k7) {
    /* The circuit numbers bits from the most significant: U0 = bit 7. */
    bc_u32 U0 = x[7], U1 = x[6], U2 = x[5], U3 = x[4];
    bc_u32 U4 = x[3], U5 = x[2], U6 = x[1], U7 = x[0];

    /* top linear layer */
    bc_u32 T1 = U0 ^ U3;
    bc_u32 T2 = U0 ^ U5;
    bc_u32 T3 = U0 ^ U6;
    bc_u32 T4 = U3 ^ U5;
    bc_u32 T5 = U4 ^ U6;
    bc_u32 T6 = T1 ^ T5;
    bc_u32 T7 = U1 ^ U2;
    bc_u32 T8 = U7 ^ T6;
    bc_u32 T9 = U7 ^ T7;
    bc_u32 T10 = T6 ^ T7;
    bc_u32 T11 = U1 ^ U5;
    bc_u32 T12 = U2 ^ U5;
    bc_u32 T13 = T3 ^ T4;
    bc_u32 T14 = T6 ^ T11;
    bc_u32 T15 = T5 ^ T11;
    bc_u32 T16 = T5 ^ T12;
    bc_u32 T17 = T9 ^ T16;
    bc_u32 T18 = U3 ^ U7;
    bc_u32 T19 = T7 ^ T18;
    bc_u32 T20 = T1 ^ T19;
    bc_u32 T21 = U6 ^ U7;
    bc_u32 T22 = T7 ^ T21;
    bc_u32 T23 = T2 ^ T22;
    bc_u32 T24 = T2 ^ T10;
    bc_u32 T25 = T20 ^ T17;
    bc_u32 T26 = T3 ^ T16;
    bc_u32 T27 = T1 ^ T12;

    /* non-linear middle: inversion in GF(2^4)^2 */
    bc_u32 M1 = T13 & T6;
    bc_u32 M6 = T3 & T16;
    bc_u32 M11 = T1 & T15;
    bc_u32 M13 = (T4 & T27) ^ M11;
    bc_u32 M15 = (T2 & T10) ^ M11;
    bc_u32 M20 = T14 ^ M1 ^ (T23 & T8) ^ M13;
    bc_u32 M21 = (T19 & U7) ^ M1 ^ T24 ^ M15;
    bc_u32 M22 = T26 ^ M6 ^ (T22 & T9) ^ M13;
    bc_u32 M23 = (T20 & T17) ^ M6 ^ M15 ^ T25;
    bc_u32 M25 = M22 & M20;
    bc_u32 M37 = M21 ^ ((M20 ^ M21) & (M23 ^ M25));
    bc_u32 M38 = M20 ^ M25 ^ (M21 | (M20 & M23));
    bc_u32 M39 = M23 ^ ((M22 ^ M23) & (M21 ^ M25));
    bc_u32 M40 = M22 ^ M25 ^ (M23 | (M21 & M22));
    bc_u32 M41 = M38 ^ M40;
    bc_u32 M42 = M37 ^ M39;
    bc_u32 M43 = M37 ^ M38;
    bc_u32 M44 = M39 ^ M40;
    bc_u32 M45 = M42 ^ M41;
    bc_u32 M46 = M44 & T6;
    bc_u32 M47 = M40 & T8;
    bc_u32 M48 = M39 & U7;
    bc_u32 M49 = M43 & T16;
    bc_u32 M50 = M38 & T9;
    bc_u32 M51 = M37 & T17;
    bc_u32 M52 = M42 & T15;
    bc_u32 M53 = M45 & T27;
    bc_u32 M54 = M41 & T10;
    bc_u32 M55 = M44 & T13;
    bc_u32 M56 = M40 & T23;
    bc_u32 M57 = M39 & T19;
    bc_u32 M58 = M43 & T3;
    bc_u32 M59 = M38 & T22;
    bc_u32 M60 = M37 & T20;
    bc_u32 M61 = M42 & T1;
    bc_u32 M62 = M45 & T4;
    bc_u32 M63 = M41 & T2;

    /* bottom linear layer (with the affine constant as XNORs) */
    bc_u32 L0 = M61 ^ M62;
    bc_u32 L1 = M50 ^ M56;
    bc_u32 L2 = M46 ^ M48;
    bc_u32 L3 = M47 ^ M55;
    bc_u32 L4 = M54 ^ M58;
    bc_u32 L5 = M49 ^ M61;
    bc_u32 L6 = M62 ^ L5;
    bc_u32 L7 = M46 ^ L3;
    bc_u32 L8 = M51 ^ M59;
    bc_u32 L9 = M52 ^ M53;
    bc_u32 L10 = M53 ^ L4;
    bc_u32 L11 = M60 ^ L2;
    bc_u32 L12 = M48 ^ M51;
    bc_u32 L13 = M50 ^ L0;
    bc_u32 L14 = M52 ^ M61;
    bc_u32 L15 = M55 ^ L1;
    bc_u32 L16 = M56 ^ L0;
    bc_u32 L17 = M57 ^ L1;
    bc_u32 L18 = M58 ^ L8;
    bc_u32 L19 = M63 ^ L4;
    bc_u32 L20 = L0 ^ L1;
    bc_u32 L21 = L1 ^ L7;
    bc_u32 L22 = L3 ^ L12;
    bc_u32 L23 = L18 ^ L2;
    bc_u32 L24 = L15 ^ L9;
    bc_u32 L25 = L6 ^ L10;
    bc_u32 L26 = L7 ^ L9;
    bc_u32 L27 = L8 ^ L10;
    bc_u32 L28 = L11 ^ L14;
    bc_u32 L29 = L11 ^ L17;

    x[7] = L6 ^ L24 ^ k7;
    x[6] = ~(L16 ^ L26 ^ k6);
    x[5] = ~(L19 ^ L28 ^ k5);
    x[4] = L6 ^ L21 ^ k4;
    x[3] = L20 ^ L22 ^ k3;
    x[2] = L25 ^ L29 ^ k2;
    x[1] = ~(L13 ^ L27 ^ k1);
    x[0] = ~(L6 ^ L23 ^ k0);
}

/* The kernels' S-boxes (aes_bitsliced_lut3.h, included at the top for its LOP3 helper):
 * the circuits above remapped onto 3-input functions, one LOP3 each on the GPU (81 against
 * the 94 ptxas makes of bc_aes_bs_sbox_k8, 98 against ~110 for the inverse;
 * scripts/gen_aes_bs_sbox.py, bench/notes/aes-gpu.md). */
#include "cores/aes/aes_bitsliced_imc.h"

BC_FN void bc_aes_bs_sbox(bc_u32 *x) { bc_aes_bs_sbox_lut3(x); }

/* The inverse of the S-box's affine step, bitsliced: y_i = x_{i+2} ^ x_{i+5} ^
 * x_{i+7} ^ (bit i of 0x05), indices mod 8. */
BC_FN void bc_aes_bs_inv_affine(bc_u32 *x) {
    bc_u32 a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
    bc_u32 a4 = x[4], a5 = x[5], a6 = x[6], a7 = x[7];
    x[0] = ~(a2 ^ a5 ^ a7);
    x[1] = a3 ^ a6 ^ a0;
    x[2] = ~(a4 ^ a7 ^ a1);
    x[3] = a5 ^ a0 ^ a2;
    x[4] = a6 ^ a1 ^ a3;
    x[5] = a7 ^ a2 ^ a4;
    x[6] = a0 ^ a3 ^ a5;
    x[7] = a1 ^ a4 ^ a6;
}

/* The reference form of the inverse: invS(y) = A'(S(A'(y))). */
BC_FN void bc_aes_bs_inv_sbox_ref(bc_u32 *x) {
    bc_aes_bs_inv_affine(x);
    bc_aes_bs_sbox_k8(x, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    bc_aes_bs_inv_affine(x);
}

BC_FN void bc_aes_bs_inv_sbox(bc_u32 *x) { bc_aes_bs_inv_sbox_lut3(x); }

/* ---------------------------------------------------------------- linear layers */

/* ShiftRows as a renaming: the byte that lands at position p = 4c + r comes
 * from column (c + r) mod 4 of the same row. */
#define BC_AES_BS_SR(p) ((((((p) >> 2) + ((p) & 3)) & 3) << 2) | ((p) & 3))
/* InvShiftRows: from column (c - r) mod 4. */
#define BC_AES_BS_ISR(p) ((((((p) >> 2) - ((p) & 3)) & 3) << 2) | ((p) & 3))

/* o[0..7] = xtime(v[0..7]) in GF(2^8) with x^8 + x^4 + x^3 + x + 1. */
#define BC_AES_BS_XTIME(o, v)        \
    do {                             \
        (o)[0] = (v)[7];             \
        (o)[1] = (v)[0] ^ (v)[7];    \
        (o)[2] = (v)[1];             \
        (o)[3] = (v)[2] ^ (v)[7];    \
        (o)[4] = (v)[3] ^ (v)[7];    \
        (o)[5] = (v)[4];             \
        (o)[6] = (v)[5];             \
        (o)[7] = (v)[6];             \
    } while (0)

/* out = MixColumns(ShiftRows(in)) ^ rk (rk may be null: no key). Column c of the
 * shifted state holds, in row r, the byte at position BC_AES_BS_SR(4c + r). */
BC_FN void bc_aes_bs_shift_mix_key(const bc_u32 *in, bc_u32 *out,
                                   const BC_AES_BS_RK_SPACE bc_u32 *rk) {
    BC_AES_BS_UNROLL
    for (int c = 0; c < 4; ++c) {
        const bc_u32 *a0 = in + 8 * BC_AES_BS_SR(4 * c + 0);
        const bc_u32 *a1 = in + 8 * BC_AES_BS_SR(4 * c + 1);
        const bc_u32 *a2 = in + 8 * BC_AES_BS_SR(4 * c + 2);
        const bc_u32 *a3 = in + 8 * BC_AES_BS_SR(4 * c + 3);
        bc_u32 t0[8], t1[8], t2[8], t3[8], all[8];
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) {
            t0[b] = a0[b] ^ a1[b];
            t1[b] = a1[b] ^ a2[b];
            t2[b] = a2[b] ^ a3[b];
            t3[b] = a3[b] ^ a0[b];
            all[b] = t0[b] ^ t2[b];
        }
        bc_u32 x0[8], x1[8], x2[8], x3[8];
        BC_AES_BS_XTIME(x0, t0);
        BC_AES_BS_XTIME(x1, t1);
        BC_AES_BS_XTIME(x2, t2);
        BC_AES_BS_XTIME(x3, t3);
        bc_u32 *o = out + 32 * c;
        /* out_r = 2 a_r ^ 3 a_{r+1} ^ a_{r+2} ^ a_{r+3} = xtime(a_r ^ a_{r+1}) ^ all ^ a_r */
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) {
            o[b] = x0[b] ^ all[b] ^ a0[b];
            o[8 + b] = x1[b] ^ all[b] ^ a1[b];
            o[16 + b] = x2[b] ^ all[b] ^ a2[b];
            o[24 + b] = x3[b] ^ all[b] ^ a3[b];
        }
        if (rk) {
            BC_AES_BS_UNROLL
            for (int b = 0; b < 32; ++b) o[b] ^= rk[32 * c + b];
        }
    }
}

/* MixColumns in place of one column whose rows are the bytes at words
 * s + w0 .. s + w3, then (key != 0) XOR k[8*i + b] into row i:
 *   out_i = xtime(a_i ^ a_i+1) ^ a_i+1 ^ (a_i+2 ^ a_i+3)
 * one 3-input LOP3 per output bit, two where xtime adds the top bit (or a key). */
BC_FN void bc_aes_bs_mix_col(bc_u32 *s, int w0, int w1, int w2, int w3, const BC_AES_BS_RK_SPACE bc_u32 *k,
                             int key) {
    const int w[4] = {w0, w1, w2, w3};
    bc_u32 a[4][8], t[4][8];
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) a[i][b] = s[w[i] + b];
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) t[i][b] = a[i][b] ^ a[(i + 1) & 3][b];
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) {
        const bc_u32 *n = a[(i + 1) & 3];
        const bc_u32 *u = t[(i + 2) & 3];
        const bc_u32 *v = t[i];
        bc_u32 kk[8];
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) kk[b] = key ? k[8 * i + b] : 0u;
        bc_u32 *o = s + w[i];
        o[0] = v[7] ^ n[0] ^ u[0] ^ kk[0];
        o[1] = v[0] ^ v[7] ^ n[1] ^ u[1] ^ kk[1];
        o[2] = v[1] ^ n[2] ^ u[2] ^ kk[2];
        o[3] = v[2] ^ v[7] ^ n[3] ^ u[3] ^ kk[3];
        o[4] = v[3] ^ v[7] ^ n[4] ^ u[4] ^ kk[4];
        o[5] = v[4] ^ n[5] ^ u[5] ^ kk[5];
        o[6] = v[5] ^ n[6] ^ u[6] ^ kk[6];
        o[7] = v[6] ^ n[7] ^ u[7] ^ kk[7];
    }
}

/* InvMixColumns in place of one column whose rows are the bytes at words
 * s + w0 .. s + w3. */
BC_FN void bc_aes_bs_inv_mix_col(bc_u32 *s, int w0, int w1, int w2, int w3) {
    bc_u32 *a0 = s + w0, *a1 = s + w1, *a2 = s + w2, *a3 = s + w3;
    /* InvMixColumns = MixColumns after a0,a2 ^= 4(a0^a2) and a1,a3 ^= 4(a1^a3). */
    bc_u32 u[8], v[8], u2[8], v2[8], u4[8], v4[8];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        u[b] = a0[b] ^ a2[b];
        v[b] = a1[b] ^ a3[b];
    }
    BC_AES_BS_XTIME(u2, u);
    BC_AES_BS_XTIME(u4, u2);
    BC_AES_BS_XTIME(v2, v);
    BC_AES_BS_XTIME(v4, v2);
    bc_u32 b0[8], b1[8], b2[8], b3[8];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        b0[b] = a0[b] ^ u4[b];
        b1[b] = a1[b] ^ v4[b];
        b2[b] = a2[b] ^ u4[b];
        b3[b] = a3[b] ^ v4[b];
    }
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        a0[b] = b0[b];
        a1[b] = b1[b];
        a2[b] = b2[b];
        a3[b] = b3[b];
    }
    bc_aes_bs_mix_col(s, w0, w1, w2, w3, 0, 0);
}

/* s = InvMixColumns(s) in place (column by column). */
BC_FN void bc_aes_bs_inv_mix(bc_u32 *s) {
    BC_AES_BS_UNROLL
    for (int c = 0; c < 4; ++c) bc_aes_bs_inv_mix_col(s, 32 * c, 32 * c + 8, 32 * c + 16, 32 * c + 24);
}

/* s = ShiftRows(s) ^ k (inv: InvShiftRows(s) ^ k), k 128 masks. */
BC_FN void bc_aes_bs_shift_key(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *k, int inv) {
    bc_u32 t[128];
    BC_AES_BS_UNROLL
    for (int p = 0; p < 16; ++p) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) t[8 * p + b] = s[8 * (inv ? BC_AES_BS_ISR(p) : BC_AES_BS_SR(p)) + b] ^ k[8 * p + b];
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] = t[i];
}

/* ---------------------------------------------------------------- rounds */

/* Encrypts the 32 bitsliced blocks of s in place; rk holds (rounds+1)*128 masks.
 * t is 128 words of scratch (registers on a GPU once everything is unrolled). */
BC_FN void bc_aes_bs_encrypt(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds) {
    bc_u32 t[128];
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] ^= rk[i];
    BC_AES_BS_NOUNROLL
    for (int r = 1; r < rounds; ++r) {
        BC_AES_BS_UNROLL
        for (int p = 0; p < 16; ++p) bc_aes_bs_sbox(s + 8 * p);
        bc_aes_bs_shift_mix_key(s, t, rk + 128 * r);
        BC_AES_BS_UNROLL
        for (int i = 0; i < 128; ++i) s[i] = t[i];
    }
    BC_AES_BS_UNROLL
    for (int p = 0; p < 16; ++p) bc_aes_bs_sbox(s + 8 * p);
    bc_aes_bs_shift_key(s, rk + 128 * rounds, 0);
}

/* s = InvShiftRows(s). */
BC_FN void bc_aes_bs_inv_shift_rows(bc_u32 *s) {
    bc_u32 t[128];
    BC_AES_BS_UNROLL
    for (int p = 0; p < 16; ++p) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) t[8 * p + b] = s[8 * BC_AES_BS_ISR(p) + b];
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] = t[i];
}

/* s ^= k (128 masks). */
BC_FN void bc_aes_bs_add_key(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *k) {
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] ^= k[i];
}

/* InvSubBytes: the inverse S-box on all 16 bytes. */
BC_FN void bc_aes_bs_inv_sub(bc_u32 *s) {
    BC_AES_BS_UNROLL
    for (int p = 0; p < 16; ++p) bc_aes_bs_inv_sbox(s + 8 * p);
}

/* Decrypts in place with the same masks (straight inverse cipher). InvSubBytes
 * and InvShiftRows commute, so each round is InvSubBytes, InvShiftRows fused
 * with AddRoundKey, InvMixColumns. */
BC_FN void bc_aes_bs_decrypt(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds) {
    bc_u32 t[128];
    bc_aes_bs_add_key(s, rk + 128 * rounds);
    BC_AES_BS_NOUNROLL
    for (int r = rounds - 1; r >= 1; --r) {
        bc_aes_bs_inv_sub(s);
        const BC_AES_BS_RK_SPACE bc_u32 *k = rk + 128 * r;
        BC_AES_BS_UNROLL
        for (int p = 0; p < 16; ++p) {
            BC_AES_BS_UNROLL
            for (int b = 0; b < 8; ++b) t[8 * p + b] = s[8 * BC_AES_BS_ISR(p) + b] ^ k[8 * p + b];
        }
        bc_aes_bs_inv_mix(t);
        BC_AES_BS_UNROLL
        for (int i = 0; i < 128; ++i) s[i] = t[i];
    }
    bc_aes_bs_inv_sub(s);
    bc_aes_bs_shift_key(s, rk, 1);
}

/* Decryption with the masks of bc_aes_bs_dec_fold_masks (the equivalent inverse
 * cipher's keys): InvMixColumns(a ^ k) = InvMixColumns(a) ^ k', k' = InvMixColumns(k),
 * and the generated network (bc_aes_bs_inv_mix_col_key) takes each bit of k' in a gate
 * it needs anyway: 95 LOP3 a column for the key and InvMixColumns instead of ~184 for
 * the key XOR and the pre-mapped MixColumns (bench/notes/aes-gpu.md).
 * edge_keys = 0: without the first and the last AddRoundKey (round keys Nr and 0), for a
 * caller that XORs them into the blocks itself (CUDA XTS decryption: with the tweaks, in
 * the same 3-input LOP3; measured +4 % there, bench/notes/aes-gpu.md). */
BC_FN void bc_aes_bs_decrypt_fk_edges(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *dk, int rounds, int edge_keys) {
    bc_u32 t[128];
    if (edge_keys) bc_aes_bs_add_key(s, dk + 128 * rounds);
    BC_AES_BS_NOUNROLL
    for (int r = rounds - 1; r >= 1; --r) {
        bc_aes_bs_inv_sub(s);
        const BC_AES_BS_RK_SPACE bc_u32 *k = dk + 128 * r;
        /* output column c, row i: the byte InvShiftRows brings to 4c + i */
        BC_AES_BS_UNROLL
        for (int c = 0; c < 4; ++c)
            bc_aes_bs_inv_mix_col_key(s + 8 * BC_AES_BS_ISR(4 * c), s + 8 * BC_AES_BS_ISR(4 * c + 1),
                                      s + 8 * BC_AES_BS_ISR(4 * c + 2), s + 8 * BC_AES_BS_ISR(4 * c + 3),
                                      k + 32 * c, t + 32 * c, t + 32 * c + 8, t + 32 * c + 16, t + 32 * c + 24);
        BC_AES_BS_UNROLL
        for (int i = 0; i < 128; ++i) s[i] = t[i];
    }
    bc_aes_bs_inv_sub(s);
    if (edge_keys)
        bc_aes_bs_shift_key(s, dk, 1);
    else
        bc_aes_bs_inv_shift_rows(s);
}

BC_FN void bc_aes_bs_decrypt_fk(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *dk, int rounds) {
    bc_aes_bs_decrypt_fk_edges(s, dk, rounds, 1);
}

/* ---------------------------------------------------------------- folded round keys
 *
 * "fk" encryption (the CUDA backend's default): AddRoundKey is linear, so
 *   MixColumns(ShiftRows(S(x))) ^ rk = MixColumns(ShiftRows(S(x) ^ k')),
 *   k' = InvShiftRows(InvMixColumns(rk))   (last round: k' = InvShiftRows(rk)),
 * and S(x) ^ k' costs nothing: the key word joins the 2-input XOR that ends
 * each S-box output (one 3-input LOP3 either way). MixColumns then needs no key
 * and is written with 3-input XORs (bc_aes_bs_mix_phase), 76 LOP3 per column
 * instead of ~121 with the key. bc_aes_bs_fold_masks makes the k' masks from the
 * plain ones (and places them for the rotating layout below); round 0's key is
 * applied as before. */

/* Rotating layout: ShiftRows is never done. At phase f the byte at logical
 * column c, row i lives at physical column (c + f*i) mod 4 (word 32*that + 8*i):
 * ShiftRows only moves the phase on by one, and MixColumns of logical column c
 * reads and writes the same four physical bytes, in place, so every output
 * word stays in its input's register (a copying MixColumns permutes registers
 * at the loop back edge and costs ~100 moves per round, or needs 256 live words). */
#define BC_AES_BS_PH(f, c, i) (32 * (((c) + (f) * (i)) & 3) + 8 * (i))

/* s[32c + 8i + b] = s[BC_AES_BS_PH(f, c, i) + b] for f = 1, 2, 3: row i of column c
 * back from physical column c + f*i (every index a constant, f may be a variable). */
BC_FN void bc_aes_bs_unskew(bc_u32 *s, int f) {
    bc_u32 t[128];
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) t[i] = s[i];
    BC_AES_BS_UNROLL
    for (int c = 0; c < 4; ++c) {
        BC_AES_BS_UNROLL
        for (int i = 1; i < 4; ++i) {
            BC_AES_BS_UNROLL
            for (int b = 0; b < 8; ++b) {
                const int w = 32 * c + 8 * i + b;
                s[w] = f == 1 ? t[BC_AES_BS_PH(1, c, i) + b]
                     : f == 2 ? t[BC_AES_BS_PH(2, c, i) + b] : t[BC_AES_BS_PH(3, c, i) + b];
            }
        }
    }
}

/* MixColumns in place on the state in phase f (after ShiftRows), no key. */
BC_FN void bc_aes_bs_mix_phase(bc_u32 *s, int f) {
    BC_AES_BS_UNROLL
    for (int c = 0; c < 4; ++c)
        bc_aes_bs_mix_col(s, BC_AES_BS_PH(f, c, 0), BC_AES_BS_PH(f, c, 1), BC_AES_BS_PH(f, c, 2),
                          BC_AES_BS_PH(f, c, 3), 0, 0);
}

/* S-boxes of all 16 bytes with the folded key masks k (128 words). */
BC_FN void bc_aes_bs_sub_key(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *k) {
    BC_AES_BS_UNROLL
    for (int p = 0; p < 16; ++p)
        bc_aes_bs_sbox_k8(s + 8 * p, k[8 * p + 0], k[8 * p + 1], k[8 * p + 2], k[8 * p + 3], k[8 * p + 4],
                          k[8 * p + 5], k[8 * p + 6], k[8 * p + 7]);
}

/* Encrypts with folded masks fk (bc_aes_bs_fold_masks, already placed in the
 * rotating layout); same result as bc_aes_bs_encrypt with the plain masks. Round
 * r's S-boxes run in phase (r-1) mod 4; the state leaves in phase rounds mod 4
 * and is put back in order at the end. */
BC_FN void bc_aes_bs_encrypt_fk(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *fk, int rounds) {
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] ^= fk[i];
    BC_AES_BS_NOUNROLL
    for (int r = 1; r < rounds; ++r) {
        bc_aes_bs_sub_key(s, fk + 128 * r);
        switch (r & 3) {
            case 0: bc_aes_bs_mix_phase(s, 0); break;
            case 1: bc_aes_bs_mix_phase(s, 1); break;
            case 2: bc_aes_bs_mix_phase(s, 2); break;
            default: bc_aes_bs_mix_phase(s, 3); break;
        }
    }
    bc_aes_bs_sub_key(s, fk + 128 * rounds);
    /* back to phase 0: logical (c, i) from physical BC_AES_BS_PH(f, c, i) */
    const int f = rounds & 3;
    if (f != 0) bc_aes_bs_unskew(s, f);
}

BC_FN bc_u32 bc_aes_bs_xt8(bc_u32 x) { return ((x << 1) ^ (0x1bu & (0u - ((x >> 7) & 1u)))) & 0xffu; }

/* Column c of round r of masks rk as 4 bytes (row i in a[i]). */
BC_FN void bc_aes_bs_mask_column(const BC_AES_BS_RK_SPACE bc_u32 *rk, int r, int c, bc_u32 *a) {
    const BC_AES_BS_RK_SPACE bc_u32 *src = rk + 128 * r + 32 * c;
    for (int i = 0; i < 4; ++i) {
        bc_u32 v = 0;
        for (int b = 0; b < 8; ++b) v |= (src[8 * i + b] & 1u) << b;
        a[i] = v;
    }
}

/* Little-endian word w (bytes 4w..4w+3) of round key r, from its masks rk. */
BC_FN bc_u32 bc_aes_bs_mask_word(const BC_AES_BS_RK_SPACE bc_u32 *rk, int r, int w) {
    bc_u32 a[4];
    bc_aes_bs_mask_column(rk, r, w, a);
    return a[0] | (a[1] << 8) | (a[2] << 16) | (a[3] << 24);
}

/* m = InvMixColumns of the column a (bytes), row i: 14 a_i ^ 11 a_i+1 ^ 13 a_i+2 ^ 9 a_i+3. */
BC_FN void bc_aes_bs_inv_mix_bytes(const bc_u32 *a, bc_u32 *m) {
    bc_u32 x2[4], x4[4], x8[4];
    for (int i = 0; i < 4; ++i) {
        x2[i] = bc_aes_bs_xt8(a[i]);
        x4[i] = bc_aes_bs_xt8(x2[i]);
        x8[i] = bc_aes_bs_xt8(x4[i]);
    }
    for (int i = 0; i < 4; ++i) {
        const int j = (i + 1) & 3, k = (i + 2) & 3, l = (i + 3) & 3;
        m[i] = (x8[i] ^ x4[i] ^ x2[i]) ^ (x8[j] ^ x2[j] ^ a[j]) ^ (x8[k] ^ x4[k] ^ a[k]) ^ (x8[l] ^ a[l]);
    }
}

/* One column c of round r of the folded masks: fk[128r + 8*SR(4c+i) + b] = bit b
 * of row i of InvMixColumns(column c of round key r) (rounds 1..Nr-1), of the
 * column itself (round Nr), and fk = rk for round 0. Key dependent but branch
 * and table free. */
BC_FN void bc_aes_bs_fold_column(const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds, int r, int c, bc_u32 *fk) {
    const BC_AES_BS_RK_SPACE bc_u32 *src = rk + 128 * r + 32 * c;
    bc_u32 a[4], m[4];
    if (r == 0) {
        for (int i = 0; i < 32; ++i) fk[128 * r + 32 * c + i] = src[i];
        return;
    }
    bc_aes_bs_mask_column(rk, r, c, a);
    if (r < rounds) {
        bc_aes_bs_inv_mix_bytes(a, m);
    } else {
        for (int i = 0; i < 4; ++i) m[i] = a[i];
    }
    /* logical position q (before ShiftRows), placed for phase (r-1) mod 4 */
    const int f = (r - 1) & 3;
    for (int i = 0; i < 4; ++i) {
        const int q = BC_AES_BS_SR(4 * c + i);
        const int w = BC_AES_BS_PH(f, q >> 2, q & 3);
        for (int b = 0; b < 8; ++b) fk[128 * r + w + b] = 0u - ((m[i] >> b) & 1u);
    }
}

/* One column c of round r of the decryption masks of bc_aes_bs_decrypt_fk (the
 * equivalent inverse cipher's keys, in place of the plain layout): dk[128r + 32c +
 * 8i + b] = bit b of row i of InvMixColumns(column c of round key r) for rounds
 * 1..Nr-1; rounds 0 and Nr as rk. */
BC_FN void bc_aes_bs_dec_fold_column(const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds, int r, int c, bc_u32 *dk) {
    const BC_AES_BS_RK_SPACE bc_u32 *src = rk + 128 * r + 32 * c;
    bc_u32 *dst = dk + 128 * r + 32 * c;
    if (r == 0 || r == rounds) {
        for (int i = 0; i < 32; ++i) dst[i] = src[i];
        return;
    }
    bc_u32 a[4], m[4];
    bc_aes_bs_mask_column(rk, r, c, a);
    bc_aes_bs_inv_mix_bytes(a, m);
    for (int i = 0; i < 4; ++i)
        for (int b = 0; b < 8; ++b) dst[8 * i + b] = 0u - ((m[i] >> b) & 1u);
}

/* All (rounds+1)*128 decryption masks (host / tests). */
BC_FN void bc_aes_bs_dec_fold_masks(const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds, bc_u32 *dk) {
    for (int r = 0; r <= rounds; ++r)
        for (int c = 0; c < 4; ++c) bc_aes_bs_dec_fold_column(rk, rounds, r, c, dk);
}

/* All (rounds+1)*128 folded masks (host / tests). */
BC_FN void bc_aes_bs_fold_masks(const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds, bc_u32 *fk) {
    for (int r = 0; r <= rounds; ++r)
        for (int c = 0; c < 4; ++c) bc_aes_bs_fold_column(rk, rounds, r, c, fk);
}

/* ---------------------------------------------------------------- compact loop
 *
 * "cl" (compact loop): the same rounds and plain masks as bc_aes_bs_encrypt /
 * bc_aes_bs_decrypt, but a round's code is small enough for the GPU's
 * per-scheduler instruction cache (the fully unrolled round is 32-46 KB of
 * code). A full round is a loop, not unrolled, of G = BC_AES_BS_CL_GROUPS trips
 * (1, 2 or 4); each trip makes 4/G output columns: the S-boxes of the 4 input
 * bytes that ShiftRows brings into the column, then MixColumns and AddRoundKey
 * in place on those bytes. After each trip the state is rotated down by 128/G
 * words (one or two columns), so every index in the loop body is a constant
 * (the state stays in registers) and the next columns' bytes sit where the
 * previous ones did. After G trips new column c, row i is in the slot of input
 * column c + i (c - i when decrypting), and a renaming puts it back. The
 * rotation and the renaming cost register moves, not logic operations. */
#ifndef BC_AES_BS_CL_GROUPS
#define BC_AES_BS_CL_GROUPS 4
#endif
#if BC_AES_BS_CL_GROUPS != 1 && BC_AES_BS_CL_GROUPS != 2 && BC_AES_BS_CL_GROUPS != 4
#error "BC_AES_BS_CL_GROUPS must be 1, 2 or 4"
#endif
#define BC_AES_BS_CL_W (128 / BC_AES_BS_CL_GROUPS)
#define BC_AES_BS_CL_COLS (4 / BC_AES_BS_CL_GROUPS)

/* s = s rotated down by BC_AES_BS_CL_W words (constant indices). */
BC_FN void bc_aes_bs_cl_rotate(bc_u32 *s) {
    if (BC_AES_BS_CL_GROUPS == 1) return;
    bc_u32 u[BC_AES_BS_CL_W];
    BC_AES_BS_UNROLL
    for (int i = 0; i < BC_AES_BS_CL_W; ++i) u[i] = s[i];
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128 - BC_AES_BS_CL_W; ++i) s[i] = s[i + BC_AES_BS_CL_W];
    BC_AES_BS_UNROLL
    for (int i = 0; i < BC_AES_BS_CL_W; ++i) s[128 - BC_AES_BS_CL_W + i] = u[i];
}

/* SubBytes (inv: InvSubBytes) of all 16 bytes in G trips of 16/G bytes (last round). */
BC_FN void bc_aes_bs_sub_cl(bc_u32 *s, int inv) {
    BC_AES_BS_NOUNROLL
    for (int g = 0; g < BC_AES_BS_CL_GROUPS; ++g) {
        BC_AES_BS_UNROLL
        for (int p = 0; p < 16 / BC_AES_BS_CL_GROUPS; ++p) {
            if (inv)
                bc_aes_bs_inv_sbox(s + 8 * p);
            else
                bc_aes_bs_sbox(s + 8 * p);
        }
        bc_aes_bs_cl_rotate(s);
    }
}

/* Same result as bc_aes_bs_encrypt (plain masks). */
BC_FN void bc_aes_bs_encrypt_cl(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds) {
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] ^= rk[i];
    BC_AES_BS_NOUNROLL
    for (int r = 1; r < rounds; ++r) {
        const BC_AES_BS_RK_SPACE bc_u32 *k = rk + 128 * r;
        BC_AES_BS_NOUNROLL
        for (int g = 0; g < BC_AES_BS_CL_GROUPS; ++g) {
            BC_AES_BS_UNROLL
            for (int q = 0; q < BC_AES_BS_CL_COLS; ++q) {
                /* output column g*COLS + q: row i from input column q + i (after the rotations) */
                BC_AES_BS_UNROLL
                for (int i = 0; i < 4; ++i) bc_aes_bs_sbox(s + 32 * ((q + i) & 3) + 8 * i);
                bc_aes_bs_mix_col(s, 32 * (q & 3), 32 * ((q + 1) & 3) + 8, 32 * ((q + 2) & 3) + 16,
                                  32 * ((q + 3) & 3) + 24, k + BC_AES_BS_CL_W * g + 32 * q, 1);
            }
            bc_aes_bs_cl_rotate(s);
        }
        bc_aes_bs_unskew(s, 1);
    }
    bc_aes_bs_sub_cl(s, 0);
    bc_aes_bs_shift_key(s, rk + 128 * rounds, 0);
}

/* Same result as bc_aes_bs_decrypt (plain masks): each trip makes output
 * columns of InvMixColumns(InvShiftRows(InvSubBytes(s)) ^ rk). */
BC_FN void bc_aes_bs_decrypt_cl(bc_u32 *s, const BC_AES_BS_RK_SPACE bc_u32 *rk, int rounds) {
    const BC_AES_BS_RK_SPACE bc_u32 *k = rk + 128 * rounds;
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] ^= k[i];
    BC_AES_BS_NOUNROLL
    for (int r = rounds - 1; r >= 1; --r) {
        k = rk + 128 * r;
        BC_AES_BS_NOUNROLL
        for (int g = 0; g < BC_AES_BS_CL_GROUPS; ++g) {
            BC_AES_BS_UNROLL
            for (int q = 0; q < BC_AES_BS_CL_COLS; ++q) {
                /* output column g*COLS + q: row i from input column q - i */
                BC_AES_BS_UNROLL
                for (int i = 0; i < 4; ++i) {
                    bc_u32 *x = s + 32 * ((q - i) & 3) + 8 * i;
                    bc_aes_bs_inv_sbox(x);
                    BC_AES_BS_UNROLL
                    for (int b = 0; b < 8; ++b) x[b] ^= k[BC_AES_BS_CL_W * g + 32 * q + 8 * i + b];
                }
                bc_aes_bs_inv_mix_col(s, 32 * (q & 3), 32 * ((q - 1) & 3) + 8, 32 * ((q - 2) & 3) + 16,
                                      32 * ((q - 3) & 3) + 24);
            }
            bc_aes_bs_cl_rotate(s);
        }
        bc_aes_bs_unskew(s, 3);
    }
    bc_aes_bs_sub_cl(s, 1);
    bc_aes_bs_shift_key(s, rk, 1);
}

/* ---------------------------------------------------------------- key masks */

/* w: the 4*(rounds+1) big-endian schedule words of FIPS-197. masks: (rounds+1)*128
 * words, rk[128*r + 8*p + b] = -(bit b of byte p of round key r). */
BC_FN void bc_aes_bs_expand_masks(const bc_u32 *w, int rounds, bc_u32 *masks) {
    for (int r = 0; r <= rounds; ++r) {
        for (int p = 0; p < 16; ++p) {
            bc_u32 byte = (w[4 * r + (p >> 2)] >> (24 - 8 * (p & 3))) & 0xffu;
            for (int b = 0; b < 8; ++b) masks[128 * r + 8 * p + b] = (bc_u32)0 - ((byte >> b) & 1u);
        }
    }
}

/* ---------------------------------------------------------------- lane pairs */

/* Pair layout (the CUDA CTR kernel of variant "pair"): two lanes share one batch of 32
 * blocks; half h keeps bytes 8h..8h+7 (columns 2h and 2h+1) as 64 words s[8q + b],
 * q = 0..7 the local byte. ShiftRows brings 4 of a half's 8 bytes from its partner, and the
 * map is the same for both halves: new bytes 0, 1, 4, 7 are own bytes 0, 5, 4, 3; new bytes
 * 2, 3, 5, 6 are the partner's bytes 2, 7, 1, 6. So a round is: the 8 S-boxes
 * (bc_aes_bs_pair_sub), the exchange of bytes 1, 2, 6, 7 (32 words, done by the caller:
 * a shuffle on the GPU), then bc_aes_bs_pair_mix (ShiftRows, MixColumns, AddRoundKey), or
 * bc_aes_bs_pair_last in the last round. k: the round's 128 masks; the half reads 64 of them.
 * BC_AES_BS_PAIR_SENT(i): the local byte sent as the i-th of the 4. */
#define BC_AES_BS_PAIR_SENT(i) ((i) == 0 ? 1 : (i) == 1 ? 2 : (i) == 2 ? 6 : 7)

/* CTR counters straight into a half's bitsliced state (bc_aes_bs_ctr_slice at the pair
 * layout's stride, lg = 4): block j of the pair's batch is A + 16*j. Half h keeps bytes
 * 8h..8h+7, i.e. counter bits 64..127 (h = 0) or 0..63 (h = 1); both halves' words are
 * formed and one is selected, so the code does not branch on h. */
BC_FN void bc_aes_bs_ctr_slice_pair(bc_u32 *s, const bc_u32 *a, int wrap32, int h) {
    bc_u32 f[4];
    const bc_u32 L = (a[0] >> 4) & 31u, carry = bc_aes_bs_ctr_flips(a, wrap32, 4, f);
    const bc_u32 lo_half = 0u - (bc_u32)(h != 0);
    BC_AES_BS_UNROLL
    for (int q = 0; q < 8; ++q) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) {
            const int i = 8 * (7 - q) + b; /* the bit of byte 8 + q (h = 1); byte q is bit i + 64 */
            const bc_u32 lo = bc_aes_bs_ctr_word(a, f, carry, L, 4, i);
            const bc_u32 hi = bc_aes_bs_ctr_word(a, f, carry, L, 4, i + 64);
            s[8 * q + b] = (lo & lo_half) | (hi & ~lo_half);
        }
    }
}

BC_FN void bc_aes_bs_pair_sub(bc_u32 *s) {
    BC_AES_BS_UNROLL
    for (int q = 0; q < 8; ++q) bc_aes_bs_sbox(s + 8 * q);
}

/* recv[8i + b]: bit b of the partner's byte BC_AES_BS_PAIR_SENT(i). */
BC_FN void bc_aes_bs_pair_shift(bc_u32 *s, const bc_u32 *recv) {
    bc_u32 t[64];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        t[0 + b] = s[0 + b];
        t[8 + b] = s[40 + b];
        t[16 + b] = recv[8 + b];  /* partner's byte 2 */
        t[24 + b] = recv[24 + b]; /* partner's byte 7 */
        t[32 + b] = s[32 + b];
        t[40 + b] = recv[0 + b];  /* partner's byte 1 */
        t[48 + b] = recv[16 + b]; /* partner's byte 6 */
        t[56 + b] = s[24 + b];
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 64; ++i) s[i] = t[i];
}

BC_FN void bc_aes_bs_pair_mix(bc_u32 *s, const bc_u32 *recv, const BC_AES_BS_RK_SPACE bc_u32 *k, int h) {
    bc_aes_bs_pair_shift(s, recv);
    bc_aes_bs_mix_col(s, 0, 8, 16, 24, k + 64 * h, 1);
    bc_aes_bs_mix_col(s, 32, 40, 48, 56, k + 64 * h + 32, 1);
}

BC_FN void bc_aes_bs_pair_last(bc_u32 *s, const bc_u32 *recv, const BC_AES_BS_RK_SPACE bc_u32 *k, int h) {
    bc_aes_bs_pair_shift(s, recv);
    BC_AES_BS_UNROLL
    for (int i = 0; i < 64; ++i) s[i] ^= k[64 * h + i];
}

/* Decryption on lane pairs, with the equivalent inverse cipher's masks (bc_aes_bs_dec_fold_column).
 * InvShiftRows also brings 4 of a half's 8 bytes from the partner, with one map for both
 * halves: new bytes 0, 3, 4, 5 are own bytes 0, 7, 4, 1; new bytes 1, 2, 6, 7 are the
 * partner's bytes 5, 2, 6, 3. A round is the 8 inverse S-boxes (bc_aes_bs_pair_inv_sub), the
 * exchange of BC_AES_BS_PAIR_INV_SENT (done by the caller), then bc_aes_bs_pair_inv_mix
 * (InvShiftRows, InvMixColumns and the key as one network a column), or bc_aes_bs_pair_inv_last
 * (InvShiftRows, round key 0) in the last. */
#define BC_AES_BS_PAIR_INV_SENT(i) ((i) == 0 ? 5 : (i) == 1 ? 2 : (i) == 2 ? 6 : 3)

BC_FN void bc_aes_bs_pair_inv_sub(bc_u32 *s) {
    BC_AES_BS_UNROLL
    for (int q = 0; q < 8; ++q) bc_aes_bs_inv_sbox(s + 8 * q);
}

/* recv[8i + b]: bit b of the partner's byte BC_AES_BS_PAIR_INV_SENT(i); k: the round's 128 masks. */
BC_FN void bc_aes_bs_pair_inv_mix(bc_u32 *s, const bc_u32 *recv, const BC_AES_BS_RK_SPACE bc_u32 *k, int h) {
    bc_u32 t[64]; /* column 0's outputs overwrite bytes column 1 still reads */
    bc_aes_bs_inv_mix_col_key(s, recv, recv + 8, s + 56, k + 64 * h, t, t + 8, t + 16, t + 24);
    bc_aes_bs_inv_mix_col_key(s + 32, s + 8, recv + 16, recv + 24, k + 64 * h + 32, t + 32, t + 40, t + 48, t + 56);
    BC_AES_BS_UNROLL
    for (int i = 0; i < 64; ++i) s[i] = t[i];
}

/* The last round's InvShiftRows and AddRoundKey with round key 0 (k: its 128 masks). */
BC_FN void bc_aes_bs_pair_inv_last(bc_u32 *s, const bc_u32 *recv, const BC_AES_BS_RK_SPACE bc_u32 *k, int h) {
    bc_u32 t[64];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        t[0 + b] = s[0 + b];
        t[8 + b] = recv[0 + b];   /* partner's byte 5 */
        t[16 + b] = recv[8 + b];  /* partner's byte 2 */
        t[24 + b] = s[56 + b];
        t[32 + b] = s[32 + b];
        t[40 + b] = s[8 + b];
        t[48 + b] = recv[16 + b]; /* partner's byte 6 */
        t[56 + b] = recv[24 + b]; /* partner's byte 3 */
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 64; ++i) s[i] = t[i] ^ k[64 * h + i];
}

/* ---------------------------------------------------------------- CTR rounds 1-2 from constants */

/* Counter-mode caching on lane pairs (variant "pair-cc"). In a tile of counters that does
 * not cross a multiple of 2^16, bytes 0-13 of every counter block are equal and only bytes
 * 14 and 15 vary. Through round 1, byte 15 reaches only column 0 (row 3) and byte 14 only
 * column 1 (row 2); columns 2-3 stay constant, so in round 2 their S-boxes are constant
 * too. MixColumns is linear, so per batch rounds 1-2 are the S-boxes S14, S15 of bytes 14
 * and 15, round 1's bytes 0-7 as constants F plus small multiples of S14 and S15:
 *   R1[0..3] = F ^ (S15, S15, 3 S15, 2 S15),  R1[4..7] = F ^ (S14, 3 S14, 2 S14, S14),
 * the S-boxes of those 8 bytes, and round 2's output as constants G plus their multiples:
 * 10 S-boxes instead of 32 (per half 1 + 4 instead of 16), the constants computed once per
 * 2^16 counters (bc_aes_bs_pair_cc_round1/_f/_round2). Constant time: which path a tile
 * takes depends on the counter only, which is public.
 * Round 2: half 0's output columns 0 and 1 need the S-boxes of R1 bytes 0, 5 (rows 0, 1 of
 * column 0) and 4, 3 (rows 0, 3 of column 1); half 1's columns 2 and 3 need 2, 7 (rows 2,
 * 3) and 6, 1 (rows 2, 1). Taken in the order A0, B0, A1, B1 (BC_AES_BS_CC_SLOT), both
 * halves' outputs are the same combinations, half 1's with rows m and m ^ 2 swapped:
 *   v0 = 2A0 ^ 3B0, v1 = A0 ^ 2B0, v2 = A0 ^ B0, v3 = 3A0 ^ B0,
 *   v4 = 2A1 ^ B1,  v5 = A1 ^ B1,  v6 = A1 ^ 3B1, v7 = 3A1 ^ 2B1,
 * and the half's local byte q after round 2 is G[q] ^ v[q ^ 2h].
 * A half's constants: BC_AES_BS_CC_WORDS words, F of its 4 slots (8 words each), then G of
 * its 8 bytes. */
#define BC_AES_BS_CC_WORDS 96
#define BC_AES_BS_CC_SLOT(h, i) \
    ((h) ? ((i) == 0 ? 2 : (i) == 1 ? 7 : (i) == 2 ? 6 : 1) : ((i) == 0 ? 0 : (i) == 1 ? 5 : (i) == 2 ? 4 : 3))

/* Every one of the 32 blocks = the counter a (little-endian words), half h's bytes. */
BC_FN void bc_aes_bs_pair_uniform(bc_u32 *s, const bc_u32 *a, int h) {
    const bc_u32 lo_half = 0u - (bc_u32)(h != 0);
    BC_AES_BS_UNROLL
    for (int q = 0; q < 8; ++q) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) {
            const int i = 8 * (7 - q) + b;
            const bc_u32 lo = 0u - ((a[i >> 5] >> (i & 31)) & 1u);
            const bc_u32 hi = 0u - ((a[2 + (i >> 5)] >> (i & 31)) & 1u);
            s[8 * q + b] = (lo & lo_half) | (hi & ~lo_half);
        }
    }
}

/* Constants, step 1: round 1's SubBytes of the counter a with the S-boxes of bytes 14 and
 * 15 cleared. Then the caller exchanges and runs bc_aes_bs_pair_mix with round key 1: half
 * 0 then holds F (bc_aes_bs_pair_cc_f) and both halves R1 as round 2 needs it. */
BC_FN void bc_aes_bs_pair_cc_round1(bc_u32 *s, const bc_u32 *a, const BC_AES_BS_RK_SPACE bc_u32 *k, int h) {
    bc_aes_bs_pair_uniform(s, a, h);
    BC_AES_BS_UNROLL
    for (int i = 0; i < 64; ++i) s[i] ^= k[64 * h + i];
    bc_aes_bs_pair_sub(s);
    const bc_u32 keep = 0u - (bc_u32)(h == 0);
    BC_AES_BS_UNROLL
    for (int i = 48; i < 64; ++i) s[i] &= keep; /* half 1's local bytes 6, 7 = bytes 14, 15 */
}

/* F of half hh's 4 slots from half 0's state after step 1. */
BC_FN void bc_aes_bs_pair_cc_f(const bc_u32 *s, bc_u32 *f, int hh) {
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) f[8 * i + b] = s[8 * BC_AES_BS_CC_SLOT(hh, i) + b];
    }
}

/* Constants, step 2: round 2's SubBytes with the S-boxes of bytes 0-7 (half 0) cleared;
 * then exchange and bc_aes_bs_pair_mix with round key 2 leave each half's G. */
BC_FN void bc_aes_bs_pair_cc_round2(bc_u32 *s, int h) {
    bc_aes_bs_pair_sub(s);
    const bc_u32 keep = 0u - (bc_u32)(h != 0);
    BC_AES_BS_UNROLL
    for (int i = 0; i < 64; ++i) s[i] &= keep;
}

/* Per batch, first: y = the S-box of counter byte 14 + h after AddRoundKey 0, for the
 * batch of bc_aes_bs_ctr_slice_pair(a, wrap32); the halves then swap y. */
BC_FN void bc_aes_bs_pair_cc_head(bc_u32 *y, const bc_u32 *a, int wrap32, const BC_AES_BS_RK_SPACE bc_u32 *k, int h) {
    bc_u32 f[4];
    const bc_u32 L = (a[0] >> 4) & 31u, carry = bc_aes_bs_ctr_flips(a, wrap32, 4, f);
    const bc_u32 hm = 0u - (bc_u32)(h != 0);
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        const bc_u32 c15 = bc_aes_bs_ctr_word(a, f, carry, L, 4, b);
        const bc_u32 c14 = bc_aes_bs_ctr_word(a, f, carry, L, 4, 8 + b);
        y[b] = ((c15 & hm) | (c14 & ~hm)) ^ k[112 + 8 * h + b];
    }
    bc_aes_bs_sbox(y);
}

/* Three times v (8 words): xtime(v) ^ v. */
#define BC_AES_BS_X3(o, d, v)                                     \
    do {                                                          \
        BC_AES_BS_XTIME(d, v);                                    \
        BC_AES_BS_UNROLL                                          \
        for (int b_ = 0; b_ < 8; ++b_) (o)[b_] = (d)[b_] ^ (v)[b_]; \
    } while (0)

/* Per batch, then: rounds 1 and 2 (through AddRoundKey 2) into s, from this half's y (own),
 * the partner's (recv) and this half's constants c. */
BC_FN void bc_aes_bs_pair_cc_rounds12(bc_u32 *s, const bc_u32 *own, const bc_u32 *recv,
                                      const BC_AES_BS_RK_SPACE bc_u32 *c, int h) {
    const bc_u32 hm = 0u - (bc_u32)(h != 0);
    bc_u32 s14[8], s15[8], d14[8], d15[8], t14[8], t15[8];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        s14[b] = (recv[b] & hm) | (own[b] & ~hm);
        s15[b] = (own[b] & hm) | (recv[b] & ~hm);
    }
    BC_AES_BS_X3(t14, d14, s14);
    BC_AES_BS_X3(t15, d15, s15);
    /* the slots' R1 bytes: half 0 (0, 5, 4, 3) = (S15, 3 S14, S14, 2 S15) ^ F;
     * half 1 (2, 7, 6, 1) = (3 S15, S14, 2 S14, S15) ^ F */
    bc_u32 u[4][8];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        u[0][b] = c[b] ^ ((t15[b] & hm) | (s15[b] & ~hm));
        u[1][b] = c[8 + b] ^ ((s14[b] & hm) | (t14[b] & ~hm));
        u[2][b] = c[16 + b] ^ ((d14[b] & hm) | (s14[b] & ~hm));
        u[3][b] = c[24 + b] ^ ((s15[b] & hm) | (d15[b] & ~hm));
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) bc_aes_bs_sbox(u[i]);
    bc_u32 d[4][8], t[4][8];
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) BC_AES_BS_X3(t[i], d[i], u[i]);
    bc_u32 v[8][8];
    BC_AES_BS_UNROLL
    for (int b = 0; b < 8; ++b) {
        v[0][b] = d[0][b] ^ t[1][b];
        v[1][b] = u[0][b] ^ d[1][b];
        v[2][b] = u[0][b] ^ u[1][b];
        v[3][b] = t[0][b] ^ u[1][b];
        v[4][b] = d[2][b] ^ u[3][b];
        v[5][b] = u[2][b] ^ u[3][b];
        v[6][b] = u[2][b] ^ t[3][b];
        v[7][b] = t[2][b] ^ d[3][b];
    }
    BC_AES_BS_UNROLL
    for (int q = 0; q < 8; ++q) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) s[8 * q + b] = c[32 + 8 * q + b] ^ ((v[q ^ 2][b] & hm) | (v[q][b] & ~hm));
    }
}

#endif /* BC_CORES_AES_BITSLICED_H */
