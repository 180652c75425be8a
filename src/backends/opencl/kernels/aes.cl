/*
 * The AES kernels: ECB, CBC, CTR (and GCM's inc32 CTR), XTS over the dialect's
 * bitsliced constant-time core (src/cores/aes/aes_bitsliced.h). Each kernel is a
 * program part of its own (opencl_kernels.h), kept by its BC_PART_AES_* define:
 * every kernel inlines the core, so a call compiles only the ones it launches.
 * ghash.cl brings the GF(2^128) power that XTS borrows (its kernel stays out).
 *
 * The core encrypts a batch of 32 blocks per work-item. For the modes whose
 * blocks are independent (ECB, CTR, CBC decryption) work-item w of W takes the
 * buffer blocks w, w + W, w + 2W, ... so that, block by block, neighbouring
 * work-items touch neighbouring memory. XTS takes 32 consecutive blocks of one
 * data unit per work-item (the tweak advances by doubling from block to block).
 *
 * Round keys: the core's (rounds+1)*128 mask words, in constant memory (every
 * work-item reads the same word at the same time). The host expands them once
 * per key (bc::aes_expand_key, the same code the host path uses).
 */
#if BC_PART_AES_CTR_PAIR
#define BC_AES_BS_RK_SPACE BC_LOCAL /* the pair kernel's halves read different masks */
#else
#define BC_AES_BS_RK_SPACE BC_CONSTANT
#endif
#include "cores/aes/aes_bitsliced.h"
#include "ghash.cl"
#include "modes/block/xts_tweak.h"

/* the masks as the kernels pass them: constant memory, local in the pair part */
typedef const BC_AES_BS_RK_SPACE bc_u32 *bc_ocl_rk;

/* ---- block loads and stores: word k of batch lane j lives in s[32k + j] ---- */

BC_FN void bc_ocl_aes_load(const BC_GLOBAL bc_u8 *p, bc_u32 *s, int j) {
#if BC_LITTLE_ENDIAN
    uint4 v = vload4(0, (const BC_GLOBAL uint *)p);
    s[j] = v.x;
    s[32 + j] = v.y;
    s[64 + j] = v.z;
    s[96 + j] = v.w;
#else
    for (int k = 0; k < 4; ++k) s[32 * k + j] = bc_load_le32_g(p + 4 * k);
#endif
}

/* p ^= (s lane j) ^ (x0..x3), in place. */
BC_FN void bc_ocl_aes_xor_store(BC_GLOBAL bc_u8 *p, const bc_u32 *s, int j, uint4 x) {
#if BC_LITTLE_ENDIAN
    BC_GLOBAL uint *q = (BC_GLOBAL uint *)p;
    uint4 v = vload4(0, q);
    v ^= (uint4)(s[j], s[32 + j], s[64 + j], s[96 + j]) ^ x;
    vstore4(v, 0, q);
#else
    bc_u32 xs[4] = {x.x, x.y, x.z, x.w};
    for (int k = 0; k < 4; ++k) bc_store_le32_g(p + 4 * k, bc_load_le32_g(p + 4 * k) ^ s[32 * k + j] ^ xs[k]);
#endif
}

/* p = (s lane j) ^ x */
BC_FN void bc_ocl_aes_store(BC_GLOBAL bc_u8 *p, const bc_u32 *s, int j, uint4 x) {
#if BC_LITTLE_ENDIAN
    vstore4((uint4)(s[j], s[32 + j], s[64 + j], s[96 + j]) ^ x, 0, (BC_GLOBAL uint *)p);
#else
    bc_u32 xs[4] = {x.x, x.y, x.z, x.w};
    for (int k = 0; k < 4; ++k) bc_store_le32_g(p + 4 * k, s[32 * k + j] ^ xs[k]);
#endif
}

BC_FN uint4 bc_ocl_load4(const BC_GLOBAL bc_u8 *p) {
#if BC_LITTLE_ENDIAN
    return vload4(0, (const BC_GLOBAL uint *)p);
#else
    return (uint4)(bc_load_le32_g(p), bc_load_le32_g(p + 4), bc_load_le32_g(p + 8), bc_load_le32_g(p + 12));
#endif
}

/* The same for any address: XTS units need not be a multiple of 4 bytes long
 * (17-byte units and the like), and a GPU faults on a misaligned word access.
 * `aligned` is uniform across the launch, so the branch costs nothing. */
BC_FN uint4 bc_ocl_load4u(const BC_GLOBAL bc_u8 *p, int aligned) {
    if (aligned) return bc_ocl_load4(p);
    return (uint4)(bc_load_le32_g(p), bc_load_le32_g(p + 4), bc_load_le32_g(p + 8), bc_load_le32_g(p + 12));
}
BC_FN void bc_ocl_aes_storeu(BC_GLOBAL bc_u8 *p, const bc_u32 *s, int j, uint4 x, int aligned) {
    if (aligned) {
        bc_ocl_aes_store(p, s, j, x);
        return;
    }
    bc_store_le32_g(p, s[j] ^ x.x);
    bc_store_le32_g(p + 4, s[32 + j] ^ x.y);
    bc_store_le32_g(p + 8, s[64 + j] ^ x.z);
    bc_store_le32_g(p + 12, s[96 + j] ^ x.w);
}

BC_FN void bc_ocl_aes_encrypt(bc_u32 *s, bc_ocl_rk rk, int rounds) {
    bc_aes_bs_slice(s);
    bc_aes_bs_encrypt(s, rk, rounds);
    bc_aes_bs_unslice(s);
}
BC_FN void bc_ocl_aes_decrypt(bc_u32 *s, bc_ocl_rk rk, int rounds) {
    bc_aes_bs_slice(s);
    bc_aes_bs_decrypt(s, rk, rounds);
    bc_aes_bs_unslice(s);
}

/* ---- ECB ---- */

#define BC_OCL_ECB_KERNEL(NAME, FN)                                                     \
    BC_KERNEL void NAME(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, bc_ocl_rk rk, int rounds) { \
        const bc_u64 w = get_global_id(0), W = get_global_size(0);                     \
        bc_u32 s[128];                                                                 \
        BC_AES_BS_UNROLL                                                               \
        for (int j = 0; j < 32; ++j) {                                                 \
            bc_u64 b = (bc_u64)j * W + w;                                              \
            if (b < nblocks) bc_ocl_aes_load(buf + 16 * b, s, j);                      \
            else s[j] = s[32 + j] = s[64 + j] = s[96 + j] = 0;                         \
        }                                                                              \
        FN(s, rk, rounds);                                                             \
        BC_AES_BS_UNROLL                                                               \
        for (int j = 0; j < 32; ++j) {                                                 \
            bc_u64 b = (bc_u64)j * W + w;                                              \
            if (b < nblocks) bc_ocl_aes_store(buf + 16 * b, s, j, (uint4)(0));         \
        }                                                                              \
    }

#if BC_PART_AES_ECB_ENC
BC_OCL_ECB_KERNEL(bc_aes_ecb_enc, bc_ocl_aes_encrypt)
#endif
#if BC_PART_AES_ECB_DEC
BC_OCL_ECB_KERNEL(bc_aes_ecb_dec, bc_ocl_aes_decrypt)
#endif

/* (hi:lo) += n, a 128-bit counter; with inc32 (GCM) only its low 32 bits, mod 2^32. */
BC_FN void bc_ocl_ctr_add(bc_u64 *hi, bc_u64 *lo, bc_u64 n, int inc32) {
    const bc_u64 l = *lo;
    if (inc32) {
        *lo = (l & 0xffffffff00000000ul) | (bc_u64)((bc_u32)l + (bc_u32)n);
    } else {
        *lo = l + n;
        *hi += *lo < l;
    }
}

/* ---- CTR ----
 * Block b of the buffer uses counter block (ctr_hi:ctr_lo) + b, a 128-bit
 * big-endian number; with inc32 (GCM) only its low 32 bits count, mod 2^32. */
#if BC_PART_AES_CTR
BC_KERNEL void bc_aes_ctr(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, bc_ocl_rk rk, int rounds,
                          bc_u64 ctr_hi, bc_u64 ctr_lo, int inc32) {
    const bc_u64 w = get_global_id(0), W = get_global_size(0);
    bc_u32 s[128];
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        bc_u64 b = (bc_u64)j * W + w;
        bc_u64 hi = ctr_hi, lo = ctr_lo;
        bc_ocl_ctr_add(&hi, &lo, b, inc32);
        s[j] = bc_bswap32((bc_u32)(hi >> 32));
        s[32 + j] = bc_bswap32((bc_u32)hi);
        s[64 + j] = bc_bswap32((bc_u32)(lo >> 32));
        s[96 + j] = bc_bswap32((bc_u32)lo);
    }
    bc_ocl_aes_encrypt(s, rk, rounds);
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        bc_u64 b = (bc_u64)j * W + w;
        if (b < nblocks) bc_ocl_aes_xor_store(buf + 16 * b, s, j, (uint4)(0));
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] = 0;
}
#endif

/* ---- CTR on lane pairs ----
 * The lane-pair form of the CUDA backend's CTR kernel (bc_aes_bs_pair_* in
 * aes_bitsliced.h): work-items l and l ^ 16 of each 32 share a batch of 32
 * blocks, each keeping 8 of a block's 16 bytes, so a work-item holds 64 state
 * words instead of 128 and more of them fit a compute unit. ShiftRows trades 32
 * words a round with the partner: a warp shuffle on NVIDIA (inline PTX; a warp
 * is 32 consecutive work-items of a group whose size is a multiple of 32), local
 * memory and barriers elsewhere. A tile of 32 work-items is 16 pairs x 32
 * blocks; pair k's block j is tile * 512 + k + 16 j, so each 8-byte access of
 * the 32 covers 256 contiguous bytes. Every work-item makes the same number of
 * trips (tiles past the end compute and store nothing), as the barriers need.
 * The round-key masks are copied to local memory first: the halves read
 * different words, which constant memory would serve one at a time. */
#if BC_PART_AES_CTR_PAIR
#define BC_OCL_PAIR_SHFL (BC_DEV_NVIDIA && BC_DEV_GPU)

/* recv[8i + b] = the partner's s[8 q + b], q = BC_AES_BS_PAIR_SENT(i) (ShiftRows). */
BC_FN void bc_ocl_pair_exchange(const bc_u32 *s, bc_u32 *recv, BC_LOCAL bc_u32 *x) {
#if BC_OCL_PAIR_SHFL
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) {
            bc_u32 r;
            asm volatile("shfl.sync.bfly.b32 %0, %1, 16, 0x1f, 0xffffffff;" : "=r"(r) : "r"(s[8 * BC_AES_BS_PAIR_SENT(i) + b]));
            recv[8 * i + b] = r;
        }
    }
#else
    /* word k of work-item l at x[k * L + l]: the 32 writes and reads of a round fall in
     * consecutive words across the group */
    const int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE); /* the partner has read the previous round's words */
    BC_AES_BS_UNROLL
    for (int i = 0; i < 4; ++i) {
        BC_AES_BS_UNROLL
        for (int b = 0; b < 8; ++b) x[(8 * i + b) * L + l] = s[8 * BC_AES_BS_PAIR_SENT(i) + b];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    BC_AES_BS_UNROLL
    for (int k = 0; k < 32; ++k) recv[k] = x[k * L + (l ^ 16)];
#endif
}

/* Block b of the buffer uses counter block (ctr_hi:ctr_lo) + b, as bc_aes_ctr.
 * x: 32 words a work-item of local memory where there is no shuffle (else unused). */
BC_KERNEL void bc_aes_ctr_pair(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, BC_CONSTANT const bc_u32 *rk, int rounds,
                               bc_u64 ctr_hi, bc_u64 ctr_lo, int inc32, BC_LOCAL bc_u32 *x) {
    BC_LOCAL bc_u32 masks[15 * 128];
    for (int i = (int)get_local_id(0); i < (rounds + 1) * 128; i += (int)get_local_size(0)) masks[i] = rk[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    const bc_u32 lane = (bc_u32)get_local_id(0) & 31u, h = lane >> 4;
    const bc_u64 ntiles = (nblocks + 511) / 512;
    const bc_u64 nw = get_global_size(0) / 32, trips = (ntiles + nw - 1) / nw;
    for (bc_u64 trip = 0; trip < trips; ++trip) {
        const bc_u64 tile = trip * nw + get_global_id(0) / 32;
        const bc_u64 base = tile * 512 + (lane & 15u);
        bc_u64 hi = ctr_hi, lo = ctr_lo;
        bc_ocl_ctr_add(&hi, &lo, base, inc32);
        const bc_u32 a[4] = {(bc_u32)lo, (bc_u32)(lo >> 32), (bc_u32)hi, (bc_u32)(hi >> 32)};
        bc_u32 s[64], recv[32];
        bc_aes_bs_ctr_slice_pair(s, a, inc32, (int)h);
        BC_AES_BS_UNROLL
        for (int i = 0; i < 64; ++i) s[i] ^= masks[64 * h + i];
        BC_AES_BS_NOUNROLL
        for (int r = 1; r < rounds; ++r) {
            bc_aes_bs_pair_sub(s);
            bc_ocl_pair_exchange(s, recv, x);
            bc_aes_bs_pair_mix(s, recv, masks + 128 * r, (int)h);
        }
        bc_aes_bs_pair_sub(s);
        bc_ocl_pair_exchange(s, recv, x);
        bc_aes_bs_pair_last(s, recv, masks + 128 * rounds, (int)h);
        /* keystream word 2h of block j in s[j], word 2h + 1 in s[32 + j] */
        bc_aes_bs_transpose32(s);
        bc_aes_bs_transpose32(s + 32);
        BC_AES_BS_UNROLL
        for (int j = 0; j < 32; ++j) {
            const bc_u64 b = base + 16 * (bc_u64)j;
            if (b < nblocks) {
                BC_GLOBAL bc_u8 *p = buf + 16 * b + 8 * h;
#if BC_LITTLE_ENDIAN
                BC_GLOBAL uint *q = (BC_GLOBAL uint *)p;
                vstore2(vload2(0, q) ^ (uint2)(s[j], s[32 + j]), 0, q);
#else
                bc_store_le32_g(p, bc_load_le32_g(p) ^ s[j]);
                bc_store_le32_g(p + 4, bc_load_le32_g(p + 4) ^ s[32 + j]);
#endif
            }
        }
        BC_AES_BS_UNROLL
        for (int i = 0; i < 64; ++i) s[i] = 0;
    }
}
#endif

/* ---- CBC ----
 * Decryption reads `in` and writes `out` (distinct buffers: block b needs
 * ciphertext block b - 1, which another work-item would overwrite in place).
 * iv: the chaining block as little-endian words. */
#if BC_PART_AES_CBC_DEC
BC_KERNEL void bc_aes_cbc_dec(const BC_GLOBAL bc_u8 *in, BC_GLOBAL bc_u8 *out, bc_u64 nblocks,
                              bc_ocl_rk rk, int rounds, uint4 iv) {
    const bc_u64 w = get_global_id(0), W = get_global_size(0);
    bc_u32 s[128];
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        bc_u64 b = (bc_u64)j * W + w;
        if (b < nblocks) bc_ocl_aes_load(in + 16 * b, s, j);
        else s[j] = s[32 + j] = s[64 + j] = s[96 + j] = 0;
    }
    bc_ocl_aes_decrypt(s, rk, rounds);
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        bc_u64 b = (bc_u64)j * W + w;
        if (b < nblocks) bc_ocl_aes_store(out + 16 * b, s, j, b == 0 ? iv : bc_ocl_load4(in + 16 * (b - 1)));
    }
    BC_AES_BS_UNROLL
    for (int i = 0; i < 128; ++i) s[i] = 0;
}
#endif

/* Encryption is one chain: a single work-item walks it (the engine prefers the
 * CPU for it; this keeps every mode available on every device). chain holds the
 * chaining block (little-endian words) on entry and the last ciphertext block
 * on return, so consecutive pieces on one queue continue the chain. */
#if BC_PART_AES_CBC_ENC
BC_KERNEL void bc_aes_cbc_enc(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, bc_ocl_rk rk, int rounds,
                              BC_GLOBAL bc_u32 *chain) {
    if (get_global_id(0) != 0) return;
    uint4 c = (uint4)(chain[0], chain[1], chain[2], chain[3]);
    bc_u32 s[128];
    for (bc_u64 b = 0; b < nblocks; ++b) {
        for (int i = 0; i < 128; ++i) s[i] = 0;
        uint4 p = bc_ocl_load4(buf + 16 * b) ^ c;
        s[0] = p.x;
        s[32] = p.y;
        s[64] = p.z;
        s[96] = p.w;
        bc_ocl_aes_encrypt(s, rk, rounds);
        c = (uint4)(s[0], s[32], s[64], s[96]);
        bc_ocl_aes_store(buf + 16 * b, s, 0, (uint4)(0));
    }
    chain[0] = c.x;
    chain[1] = c.y;
    chain[2] = c.z;
    chain[3] = c.w;
    for (int i = 0; i < 128; ++i) s[i] = 0;
}
#endif

/* ---- XTS (IEEE 1619) ----
 * A tweak is a 128-bit little-endian number (lo, hi); bit i is the coefficient
 * of x^i. GCM's GF(2^128) (ghash.h) is the same field with the bits of each
 * 64-bit half reversed, which lets XTS borrow bc_gf128_mul for the jumps
 * T * alpha^e; apow[k] = alpha^(2^k) in GCM's order, from the host. */

BC_FN bc_u64 bc_ocl_bitrev64(bc_u64 x) {
    x = ((x >> 1) & 0x5555555555555555ul) | ((x & 0x5555555555555555ul) << 1);
    x = ((x >> 2) & 0x3333333333333333ul) | ((x & 0x3333333333333333ul) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0ful) | ((x & 0x0f0f0f0f0f0f0f0ful) << 4);
    x = ((x >> 8) & 0x00ff00ff00ff00fful) | ((x & 0x00ff00ff00ff00fful) << 8);
    x = ((x >> 16) & 0x0000ffff0000fffful) | ((x & 0x0000ffff0000fffful) << 16);
    return (x >> 32) | (x << 32);
}

/* t = t * alpha^e (e public). */
BC_FN void bc_ocl_xts_jump(bc_u64 *lo, bc_u64 *hi, BC_CONSTANT const bc_u64 *apow, bc_u64 e) {
    if (e == 0) return;
    bc_gf128 t;
    t.hi = bc_ocl_bitrev64(*lo);
    t.lo = bc_ocl_bitrev64(*hi);
    t = bc_gf128_mul(t, bc_ocl_gf_pow(apow, e));
    *lo = bc_ocl_bitrev64(t.hi);
    *hi = bc_ocl_bitrev64(t.lo);
}


BC_FN uint4 bc_ocl_xts_words(bc_u64 lo, bc_u64 hi) {
    return (uint4)((bc_u32)lo, (bc_u32)(lo >> 32), (bc_u32)hi, (bc_u32)(hi >> 32));
}

BC_FN void bc_ocl_xts_load_tweak(const BC_GLOBAL bc_u8 *p, bc_u64 *lo, bc_u64 *hi) {
    *lo = bc_load_le64_g(p);
    *hi = bc_load_le64_g(p + 8);
}

/* tweaks[u] = E_k2(start + u) for u < nunits; start is (t_lo, t_hi), added as a
 * 128-bit little-endian number. */
#if BC_PART_AES_XTS_TWEAKS
BC_KERNEL void bc_aes_xts_tweaks(BC_GLOBAL bc_u8 *tweaks, bc_u64 nunits, bc_u64 t_lo, bc_u64 t_hi,
                                 bc_ocl_rk rk2, int rounds) {
    const bc_u64 w = get_global_id(0), W = get_global_size(0);
    bc_u32 s[128];
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        bc_u64 u = (bc_u64)j * W + w;
        bc_u64 lo = t_lo + u, hi = t_hi + (t_lo + u < t_lo);
        s[j] = (bc_u32)lo;
        s[32 + j] = (bc_u32)(lo >> 32);
        s[64 + j] = (bc_u32)hi;
        s[96 + j] = (bc_u32)(hi >> 32);
    }
    bc_ocl_aes_encrypt(s, rk2, rounds);
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        bc_u64 u = (bc_u64)j * W + w;
        if (u < nunits) bc_ocl_aes_store(tweaks + 16 * u, s, j, (uint4)(0));
    }
}
#endif

/* The blocks of each data unit that need no stealing: plain_blocks per unit,
 * 32 per work-item (segs work-items per unit). Unit u starts at byte
 * base + u * unit_bytes; its encrypted tweak is tweaks[tbase + u]. */
#define BC_OCL_XTS_KERNEL(NAME, FN)                                                         \
    BC_KERNEL void NAME(BC_GLOBAL bc_u8 *buf, bc_u64 base, bc_u64 nunits, bc_u64 unit_bytes, \
                        bc_u64 plain_blocks, bc_u64 segs, const BC_GLOBAL bc_u8 *tweaks,      \
                        bc_u64 tbase, BC_CONSTANT const bc_u64 *apow, bc_ocl_rk rk,          \
                        int rounds) {                                                        \
        const bc_u64 w = get_global_id(0);                                                  \
        const bc_u64 u = w / segs, seg = w % segs;                                          \
        if (u >= nunits) return;                                                            \
        const bc_u64 first = 32 * seg;                                                      \
        const bc_u64 n = plain_blocks - first < 32 ? plain_blocks - first : 32;             \
        BC_GLOBAL bc_u8 *p = buf + base + u * unit_bytes + 16 * first;                      \
        const int aligned = (int)(((base | unit_bytes) & 15) == 0);                         \
        bc_u64 t0_lo, t0_hi;                                                                \
        bc_ocl_xts_load_tweak(tweaks + 16 * (tbase + u), &t0_lo, &t0_hi);                   \
        bc_ocl_xts_jump(&t0_lo, &t0_hi, apow, first);                                       \
        bc_u32 s[128];                                                                      \
        bc_u64 lo = t0_lo, hi = t0_hi;                                                      \
        BC_AES_BS_UNROLL                                                                    \
        for (int j = 0; j < 32; ++j) {                                                      \
            if ((bc_u64)j < n) {                                                            \
                uint4 v = bc_ocl_load4u(p + 16 * j, aligned) ^ bc_ocl_xts_words(lo, hi);    \
                s[j] = v.x;                                                                 \
                s[32 + j] = v.y;                                                            \
                s[64 + j] = v.z;                                                            \
                s[96 + j] = v.w;                                                            \
            } else {                                                                        \
                s[j] = s[32 + j] = s[64 + j] = s[96 + j] = 0;                               \
            }                                                                               \
            bc_xts_mul_x(&lo, &hi);                                                    \
        }                                                                                   \
        FN(s, rk, rounds);                                                                  \
        lo = t0_lo;                                                                         \
        hi = t0_hi;                                                                         \
        BC_AES_BS_UNROLL                                                                    \
        for (int j = 0; j < 32; ++j) {                                                      \
            if ((bc_u64)j < n) bc_ocl_aes_storeu(p + 16 * j, s, j, bc_ocl_xts_words(lo, hi), aligned); \
            bc_xts_mul_x(&lo, &hi);                                                    \
        }                                                                                   \
        BC_AES_BS_UNROLL                                                                    \
        for (int i = 0; i < 128; ++i) s[i] = 0;                                             \
    }

#if BC_PART_AES_XTS_ENC
BC_OCL_XTS_KERNEL(bc_aes_xts_enc, bc_ocl_aes_encrypt)
#endif
#if BC_PART_AES_XTS_DEC
BC_OCL_XTS_KERNEL(bc_aes_xts_dec, bc_ocl_aes_decrypt)
#endif

/* Ciphertext stealing for units of full_blocks whole blocks plus `tail` bytes
 * (0 < tail < 16): the last whole block and the tail, 32 units per work-item,
 * in two passes through the core (the second needs the first's output). */
#define BC_OCL_XTS_STEAL_KERNEL(NAME, FN, ENC)                                              \
    BC_KERNEL void NAME(BC_GLOBAL bc_u8 *buf, bc_u64 base, bc_u64 nunits, bc_u64 unit_bytes, \
                        bc_u64 full_blocks, int tail, const BC_GLOBAL bc_u8 *tweaks,         \
                        bc_u64 tbase, BC_CONSTANT const bc_u64 *apow, bc_ocl_rk rk,          \
                        int rounds) {                                                        \
        const bc_u64 w = get_global_id(0), W = get_global_size(0);                          \
        const int aligned = (int)(((base | unit_bytes) & 15) == 0);                         \
        bc_u32 s[128];                                                                      \
        /* pass 1: CC = E(P[m-1] ^ T1) ^ T1 */                                              \
        for (int j = 0; j < 32; ++j) {                                                      \
            bc_u64 u = (bc_u64)j * W + w;                                                   \
            s[j] = s[32 + j] = s[64 + j] = s[96 + j] = 0;                                   \
            if (u >= nunits) continue;                                                      \
            bc_u64 lo, hi;                                                                  \
            bc_ocl_xts_load_tweak(tweaks + 16 * (tbase + u), &lo, &hi);                     \
            bc_ocl_xts_jump(&lo, &hi, apow, full_blocks - 1 + (ENC ? 0 : 1));               \
            uint4 v = bc_ocl_load4u(buf + base + u * unit_bytes + 16 * (full_blocks - 1), aligned) ^ \
                      bc_ocl_xts_words(lo, hi);                                             \
            s[j] = v.x;                                                                     \
            s[32 + j] = v.y;                                                                \
            s[64 + j] = v.z;                                                                \
            s[96 + j] = v.w;                                                                \
        }                                                                                   \
        FN(s, rk, rounds);                                                                  \
        /* pass 2: PP = E((tail bytes || CC[tail..16)) ^ T2) ^ T2; the tail gets CC[0..tail) */ \
        for (int j = 0; j < 32; ++j) {                                                      \
            bc_u64 u = (bc_u64)j * W + w;                                                   \
            if (u >= nunits) continue;                                                      \
            bc_u64 lo, hi;                                                                  \
            bc_ocl_xts_load_tweak(tweaks + 16 * (tbase + u), &lo, &hi);                     \
            bc_ocl_xts_jump(&lo, &hi, apow, full_blocks - 1);                               \
            bc_u64 lo2 = lo, hi2 = hi;                                                      \
            bc_xts_mul_x(&lo2, &hi2);                                                  \
            /* T1 (used in pass 1) and T2 (pass 2) */                                       \
            uint4 t1 = ENC ? bc_ocl_xts_words(lo, hi) : bc_ocl_xts_words(lo2, hi2);         \
            uint4 t2 = ENC ? bc_ocl_xts_words(lo2, hi2) : bc_ocl_xts_words(lo, hi);         \
            bc_u32 cc[4] = {s[j] ^ t1.x, s[32 + j] ^ t1.y, s[64 + j] ^ t1.z, s[96 + j] ^ t1.w}; \
            BC_GLOBAL bc_u8 *part = buf + base + u * unit_bytes + 16 * full_blocks;         \
            bc_u8 pp[16];                                                                   \
            for (int i = 0; i < 16; ++i) {                                                  \
                bc_u8 ccb = (bc_u8)(cc[i >> 2] >> (8 * (i & 3)));                           \
                pp[i] = i < tail ? part[i] : ccb;                                           \
            }                                                                               \
            for (int i = 0; i < tail; ++i) part[i] = (bc_u8)(cc[i >> 2] >> (8 * (i & 3)));  \
            s[j] = bc_load_le32(pp) ^ t2.x;                                                 \
            s[32 + j] = bc_load_le32(pp + 4) ^ t2.y;                                        \
            s[64 + j] = bc_load_le32(pp + 8) ^ t2.z;                                        \
            s[96 + j] = bc_load_le32(pp + 12) ^ t2.w;                                       \
        }                                                                                   \
        FN(s, rk, rounds);                                                                  \
        for (int j = 0; j < 32; ++j) {                                                      \
            bc_u64 u = (bc_u64)j * W + w;                                                   \
            if (u >= nunits) continue;                                                      \
            bc_u64 lo, hi;                                                                  \
            bc_ocl_xts_load_tweak(tweaks + 16 * (tbase + u), &lo, &hi);                     \
            bc_ocl_xts_jump(&lo, &hi, apow, full_blocks - 1 + (ENC ? 1 : 0));               \
            bc_ocl_aes_storeu(buf + base + u * unit_bytes + 16 * (full_blocks - 1), s, j,    \
                              bc_ocl_xts_words(lo, hi), aligned);                           \
        }                                                                                   \
        for (int i = 0; i < 128; ++i) s[i] = 0;                                             \
    }

#if BC_PART_AES_XTS_STEAL_ENC
BC_OCL_XTS_STEAL_KERNEL(bc_aes_xts_steal_enc, bc_ocl_aes_encrypt, 1)
#endif
#if BC_PART_AES_XTS_STEAL_DEC
BC_OCL_XTS_STEAL_KERNEL(bc_aes_xts_steal_dec, bc_ocl_aes_decrypt, 0)
#endif
