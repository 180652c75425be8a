/*
 * ECB, CBC decryption, CTR and XTS over any block cipher, written once in the
 * portable dialect: the same source compiles as host C++, CUDA and OpenCL C.
 *
 * The unit of work is an item: one batch of the cipher core, BC_BM_BATCH blocks of
 * a piece, the blocks first, first + stride, ..., first + (BC_BM_BATCH-1) * stride
 * (block indices from the piece's start; blocks at or past the piece's end are
 * neither read nor written). The host runs items of consecutive blocks (stride 1);
 * a GPU kernel may give lane l of a warp the blocks l, l + 32, ... of a tile
 * (stride 32), so that each load instruction of the warp reads one contiguous span.
 * CBC decryption takes stride 1 only: a block needs the ciphertext before it.
 *
 * Instantiation: define these, then include this header (once per cipher and
 * block size; the header has no include guard on purpose):
 *   BC_BM_NAME(x)         the prefix of every function, e.g. bc_camellia_##x
 *   BC_BM_BLOCK           block bytes, 8 or 16
 *   BC_BM_BATCH           blocks per call of the core
 *   BC_BM_KS              the expanded key's parameter type, e.g. const BC_GLOBAL bc_u32 *
 *   BC_BM_ENCRYPT(ks, w)  the core: encrypts the BC_BM_BATCH blocks of w in place
 *   BC_BM_DECRYPT(ks, w)  the core's inverse
 *   BC_BM_IN / BC_BM_OUT  the data pointers' types (default const BC_GLOBAL bc_u8 * / BC_GLOBAL bc_u8 *)
 *   BC_BM_CUSTOM_LOAD     optional: the instantiation defines BC_BM_NAME(bm_load) itself
 *                         (same signature, `in` of type BC_BM_IN), e.g. to read blocks a
 *                         GPU kernel staged in shared memory
 *   BC_BM_CUSTOM_STORE    likewise BC_BM_NAME(bm_store), `out` of type BC_BM_OUT
 *   BC_BM_AFTER(x, dep)   optional: makes the 64-bit x depend on dep, so that work on x
 *                         cannot be scheduled before dep (the core's output) exists
 * A batch w holds block k in words w[BW*k .. BW*k + BW), BW = BC_BM_BLOCK / 4, each
 * word four bytes of the block read little-endian.
 *
 * Each item function takes `aligned`: nonzero when in and out are 4-byte aligned on a
 * little-endian target, so blocks move as words; callers pass a literal, and the
 * compiler drops the other path.
 *
 * Every temporary holding plaintext or keystream lives in private memory (registers on
 * a GPU); the host instantiation wipes its batches (BC_BM_WIPE).
 */

#include "dialect/bc_dialect.h"
#include "modes/block/xts_tweak.h"

#ifndef BC_BM_IN
#define BC_BM_IN const BC_GLOBAL bc_u8 *
#endif
#ifndef BC_BM_OUT
#define BC_BM_OUT BC_GLOBAL bc_u8 *
#endif
#ifndef BC_BM_WIPE
#define BC_BM_WIPE(p, n)
#endif
#ifndef BC_BM_AFTER
#define BC_BM_AFTER(x, dep) /* x is used only after dep is computed (a GPU build pins it) */
#endif
#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_BM_UNROLL _Pragma("unroll")
#else
#define BC_BM_UNROLL
#endif

#define BC_BM_BW (BC_BM_BLOCK / 4)
#define BC_BM_WORDS (BC_BM_BATCH * BC_BM_BW)

#ifndef BC_BM_CUSTOM_LOAD
/* One block's words from memory (block index b of the piece). */
BC_FN void BC_BM_NAME(bm_load)(BC_BM_IN in, bc_u64 b, bc_u32 *w, int aligned) {
    BC_BM_UNROLL
    for (int i = 0; i < BC_BM_BW; ++i) {
        if (aligned && BC_LITTLE_ENDIAN)
            w[i] = ((const BC_GLOBAL bc_u32 *)(in + BC_BM_BLOCK * b))[i];
        else
            w[i] = bc_load_le32_g(in + BC_BM_BLOCK * b + 4 * i);
    }
}
#endif

#ifndef BC_BM_CUSTOM_STORE
BC_FN void BC_BM_NAME(bm_store)(BC_BM_OUT out, bc_u64 b, const bc_u32 *w, int aligned) {
    BC_BM_UNROLL
    for (int i = 0; i < BC_BM_BW; ++i) {
        if (aligned && BC_LITTLE_ENDIAN)
            ((BC_GLOBAL bc_u32 *)(out + BC_BM_BLOCK * b))[i] = w[i];
        else
            bc_store_le32_g(out + BC_BM_BLOCK * b + 4 * i, w[i]);
    }
}
#endif

/* ECB: encrypt (enc != 0) or decrypt the item's blocks of a piece of nblocks blocks. */
BC_FN void BC_BM_NAME(ecb_item)(BC_BM_KS ks, BC_BM_IN in, BC_BM_OUT out, bc_u64 nblocks, bc_u64 first,
                                bc_u64 stride, int enc, int aligned) {
    bc_u32 w[BC_BM_WORDS];
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 b = first + stride * (bc_u64)k;
        if (b < nblocks) {
            BC_BM_NAME(bm_load)(in, b, w + BC_BM_BW * k, aligned);
        } else {
            BC_BM_UNROLL
            for (int i = 0; i < BC_BM_BW; ++i) w[BC_BM_BW * k + i] = 0;
        }
    }
    if (enc) BC_BM_ENCRYPT(ks, w);
    else BC_BM_DECRYPT(ks, w);
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 b = first + stride * (bc_u64)k;
        if (b < nblocks) BC_BM_NAME(bm_store)(out, b, w + BC_BM_BW * k, aligned);
    }
    BC_BM_WIPE(w, sizeof w);
}

/* CTR keystream. ctr: the counter block of keystream block 0 as BW big-endian words
 * (word 0 the most significant: bytes 0..3). Keystream block i is E(ctr + i), the
 * counter a BC_BM_BLOCK*8-bit big-endian number (the caller refuses a wrap), or with
 * inc32 only its last 32 bits counting modulo 2^32 (GCM). Writes keystream blocks
 * first + stride*k, k < BC_BM_BATCH, to w (block k in w[BW*k ..]). */
BC_FN void BC_BM_NAME(ctr_keystream)(BC_BM_KS ks, const bc_u32 *ctr, int inc32, bc_u64 first, bc_u64 stride,
                                     bc_u32 *w) {
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 i = first + stride * (bc_u64)k;
        bc_u32 c[BC_BM_BW];
        BC_BM_UNROLL
        for (int q = 0; q < BC_BM_BW; ++q) c[q] = ctr[q];
        if (inc32) {
            c[BC_BM_BW - 1] += (bc_u32)i;
        } else {
            /* the low 64 bits, then the carry into the high 64 (16-byte blocks) */
            const bc_u64 lo = (((bc_u64)c[BC_BM_BW - 2] << 32) | c[BC_BM_BW - 1]);
            const bc_u64 nlo = lo + i;
            c[BC_BM_BW - 2] = (bc_u32)(nlo >> 32);
            c[BC_BM_BW - 1] = (bc_u32)nlo;
#if BC_BM_BLOCK == 16
            const bc_u64 hi = (((bc_u64)c[0] << 32) | c[1]) + (nlo < lo ? 1u : 0u);
            c[0] = (bc_u32)(hi >> 32);
            c[1] = (bc_u32)hi;
#endif
        }
        BC_BM_UNROLL
        for (int q = 0; q < BC_BM_BW; ++q) w[BC_BM_BW * k + q] = bc_bswap32(c[q]);
    }
    BC_BM_ENCRYPT(ks, w);
}

#if !defined(BC_BM_CUSTOM_LOAD) && !defined(BC_BM_CUSTOM_STORE) /* edge blocks go byte by byte */
/* CTR over a piece: keystream blocks as ctr_keystream; keystream block i covers data
 * bytes [BLOCK*i - shift, BLOCK*i - shift + BLOCK) of the piece, clipped to [0, len). */
BC_FN void BC_BM_NAME(ctr_item)(BC_BM_KS ks, const bc_u32 *ctr, int inc32, unsigned shift, BC_BM_IN in,
                                BC_BM_OUT out, bc_u64 len, bc_u64 first, bc_u64 stride, int aligned) {
    bc_u32 w[BC_BM_WORDS];
    BC_BM_NAME(ctr_keystream)(ks, ctr, inc32, first, stride, w);
    const bc_u64 last = first + stride * (bc_u64)(BC_BM_BATCH - 1);
    if (shift == 0 && (bc_u64)BC_BM_BLOCK * (last + 1) <= len) {
        /* Every block of the item whole and inside the piece, the case of all but the
         * edge items: straight-line code apart from the edge handling below, so a GPU's
         * instruction cache holds the steady state. */
        BC_BM_UNROLL
        for (int k = 0; k < BC_BM_BATCH; ++k) {
            const bc_u64 i = first + stride * (bc_u64)k;
            bc_u32 d[BC_BM_BW];
            BC_BM_NAME(bm_load)(in, i, d, aligned);
            BC_BM_UNROLL
            for (int q = 0; q < BC_BM_BW; ++q) d[q] ^= w[BC_BM_BW * k + q];
            BC_BM_NAME(bm_store)(out, i, d, aligned);
        }
        BC_BM_WIPE(w, sizeof w);
        return;
    }
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 i = first + stride * (bc_u64)k;
        const bc_u64 start = BC_BM_BLOCK * i; /* data byte of keystream byte 0 is start - shift */
        if (start >= len + shift) continue;
        if (shift == 0 && start + BC_BM_BLOCK <= len) {
            /* a whole block */
            bc_u32 d[BC_BM_BW];
            BC_BM_NAME(bm_load)(in, i, d, aligned);
            BC_BM_UNROLL
            for (int q = 0; q < BC_BM_BW; ++q) d[q] ^= w[BC_BM_BW * k + q];
            BC_BM_NAME(bm_store)(out, i, d, aligned);
        } else {
            /* a block cut by the piece's edges: byte by byte */
            for (int j = 0; j < BC_BM_BLOCK; ++j) {
                const bc_u64 pos = start + (bc_u64)j;
                if (pos < shift || pos - shift >= len) continue;
                const bc_u8 ksb = (bc_u8)(w[BC_BM_BW * k + j / 4] >> (8 * (j % 4)));
                out[pos - shift] = (bc_u8)(in[pos - shift] ^ ksb);
            }
        }
    }
    BC_BM_WIPE(w, sizeof w);
}

#endif

/* CBC decryption of the item's blocks (stride 1): block b's plaintext is
 * D(C_b) ^ C_(b-1), with C_(first-1) given in chain (BW little-endian words: the IV for
 * the piece's first block). The item reads every ciphertext block it needs before it
 * writes, so in == out works when each item's chain was saved before any item ran. */
BC_FN void BC_BM_NAME(cbc_dec_item)(BC_BM_KS ks, const bc_u32 *chain, BC_BM_IN in, BC_BM_OUT out, bc_u64 nblocks,
                                    bc_u64 first, int aligned) {
    bc_u32 w[BC_BM_WORDS];
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 b = first + (bc_u64)k;
        if (b < nblocks) {
            BC_BM_NAME(bm_load)(in, b, w + BC_BM_BW * k, aligned);
        } else {
            BC_BM_UNROLL
            for (int i = 0; i < BC_BM_BW; ++i) w[BC_BM_BW * k + i] = 0;
        }
    }
    BC_BM_DECRYPT(ks, w);
    /* XOR the previous ciphertext blocks, read again (still ciphertext: only this item
     * writes its blocks, and it writes after this loop), then store. */
    BC_BM_UNROLL
    for (int k = BC_BM_BATCH - 1; k >= 0; --k) {
        const bc_u64 b = first + (bc_u64)k;
        if (b >= nblocks) continue;
        bc_u32 p[BC_BM_BW];
        if (k == 0) {
            BC_BM_UNROLL
            for (int q = 0; q < BC_BM_BW; ++q) p[q] = chain[q];
        } else {
            BC_BM_NAME(bm_load)(in, b - 1, p, aligned);
        }
        BC_BM_UNROLL
        for (int q = 0; q < BC_BM_BW; ++q) w[BC_BM_BW * k + q] ^= p[q];
    }
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 b = first + (bc_u64)k;
        if (b < nblocks) BC_BM_NAME(bm_store)(out, b, w + BC_BM_BW * k, aligned);
    }
    BC_BM_WIPE(w, sizeof w);
}

#if BC_BM_BLOCK == 16
/* XTS (IEEE 1619) over whole blocks of one data unit: the item's blocks are blocks
 * first + stride*k of the unit (nblocks of them), t_lo/t_hi the tweak of block `first`
 * (the unit's encrypted tweak times alpha^first), stride <= 32. Ciphertext stealing
 * (a partial last block) is left to the caller. */
BC_FN void BC_BM_NAME(xts_item)(BC_BM_KS ks, bc_u64 t_lo, bc_u64 t_hi, BC_BM_IN in, BC_BM_OUT out,
                                bc_u64 nblocks, bc_u64 first, unsigned stride, int enc, int aligned) {
    bc_u32 w[BC_BM_WORDS];
    /* the tweak as four words, stepped by x^stride on one straight-line path whatever the
     * stride (an unrolled walk per stride would double the code a GPU streams per item) */
    bc_u32 t[4] = {(bc_u32)t_lo, (bc_u32)(t_lo >> 32), (bc_u32)t_hi, (bc_u32)(t_hi >> 32)};
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 b = first + (bc_u64)stride * (bc_u64)k;
        bc_u32 *x = w + 4 * k;
        if (b < nblocks) BC_BM_NAME(bm_load)(in, b, x, aligned);
        else x[0] = x[1] = x[2] = x[3] = 0;
        x[0] ^= t[0];
        x[1] ^= t[1];
        x[2] ^= t[2];
        x[3] ^= t[3];
        bc_xts_mul_xs_w(t, stride);
    }
    if (enc) BC_BM_ENCRYPT(ks, w);
    else BC_BM_DECRYPT(ks, w);
    /* The tweaks again, walked after the core: nothing tweak-related stays live across it. */
    bc_u64 lo = t_lo, hi = t_hi;
    BC_BM_AFTER(lo, w[0]);
    BC_BM_AFTER(hi, w[0]);
    t[0] = (bc_u32)lo;
    t[1] = (bc_u32)(lo >> 32);
    t[2] = (bc_u32)hi;
    t[3] = (bc_u32)(hi >> 32);
    BC_BM_UNROLL
    for (int k = 0; k < BC_BM_BATCH; ++k) {
        const bc_u64 b = first + (bc_u64)stride * (bc_u64)k;
        bc_u32 *x = w + 4 * k;
        x[0] ^= t[0];
        x[1] ^= t[1];
        x[2] ^= t[2];
        x[3] ^= t[3];
        if (b < nblocks) BC_BM_NAME(bm_store)(out, b, x, aligned);
        bc_xts_mul_xs_w(t, stride);
    }
    BC_BM_WIPE(w, sizeof w);
    BC_BM_WIPE(t, sizeof t);
}
#endif

#undef BC_BM_BW
#undef BC_BM_WORDS
#undef BC_BM_UNROLL
