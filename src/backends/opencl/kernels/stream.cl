/*
 * The stream-cipher kernels: ChaCha (both layouts, 8/12/20 rounds) and Salsa20
 * (8/12/20 rounds) keystream XOR, over the dialect cores in src/cores; each
 * variant a program part of its own (BC_PART_CHACHA20 etc., opencl_kernels.h).
 *
 * The host places a piece in the buffer `lead` bytes in, where lead is the
 * piece's keystream offset modulo 64, so buffer block g lines up with keystream
 * block g after the state's counter (the host has already advanced the counter
 * to the piece's first block). Each work-item then XORs one whole 64-byte block;
 * the bytes before `lead` and past the piece are scratch that the host never
 * reads back, so no work-item needs a partial-block path.
 *
 * st: the 16 state words of keystream block 0 (key, constants, counter, nonce).
 */
#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"

/* XOR of one 64-byte buffer block with keystream words ks[0..15]. */
BC_FN void bc_ocl_xor64(BC_GLOBAL bc_u8 *buf, bc_u64 block, const bc_u32 ks[16]) {
#if BC_LITTLE_ENDIAN
    BC_GLOBAL uint16 *p = (BC_GLOBAL uint16 *)buf + block;
    uint16 k = (uint16)(ks[0], ks[1], ks[2], ks[3], ks[4], ks[5], ks[6], ks[7], ks[8], ks[9],
                        ks[10], ks[11], ks[12], ks[13], ks[14], ks[15]);
    *p ^= k;
#else
    BC_GLOBAL bc_u8 *p = buf + 64 * block;
    for (int w = 0; w < 16; ++w) bc_store_le32_g(p + 4 * w, bc_load_le32_g(p + 4 * w) ^ ks[w]);
#endif
}

BC_FN void bc_ocl_state(uint16 st, bc_u32 s[16]) {
    s[0] = st.s0; s[1] = st.s1; s[2] = st.s2; s[3] = st.s3;
    s[4] = st.s4; s[5] = st.s5; s[6] = st.s6; s[7] = st.s7;
    s[8] = st.s8; s[9] = st.s9; s[10] = st.sa; s[11] = st.sb;
    s[12] = st.sc; s[13] = st.sd; s[14] = st.se; s[15] = st.sf;
}

/* layout: BC_CHACHA_LAYOUT_IETF or _DJB; nblocks: 64-byte blocks in the buffer. */
#define BC_OCL_CHACHA_KERNEL(ROUNDS)                                                   \
    BC_KERNEL void bc_chacha##ROUNDS##_xor(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks,        \
                                           uint16 st, int layout) {                   \
        const bc_u64 g = get_global_id(0);                                            \
        if (g >= nblocks) return;                                                     \
        bc_u32 s[16], ks[16];                                                         \
        bc_ocl_state(st, s);                                                          \
        bc_chacha_add_counter(s, layout, g);                                          \
        bc_chacha_block(s, ks, ROUNDS);                                               \
        bc_ocl_xor64(buf, g, ks);                                                     \
    }

#define BC_OCL_SALSA_KERNEL(ROUNDS)                                                    \
    BC_KERNEL void bc_salsa##ROUNDS##_xor(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks,         \
                                          uint16 st) {                                \
        const bc_u64 g = get_global_id(0);                                            \
        if (g >= nblocks) return;                                                     \
        bc_u32 s[16], ks[16];                                                         \
        bc_ocl_state(st, s);                                                          \
        bc_salsa_add_counter(s, g);                                                   \
        bc_salsa_block(s, ks, ROUNDS);                                                \
        bc_ocl_xor64(buf, g, ks);                                                     \
    }

#if BC_PART_CHACHA20
BC_OCL_CHACHA_KERNEL(20)
#endif
#if BC_PART_CHACHA12
BC_OCL_CHACHA_KERNEL(12)
#endif
#if BC_PART_CHACHA8
BC_OCL_CHACHA_KERNEL(8)
#endif
#if BC_PART_SALSA20
BC_OCL_SALSA_KERNEL(20)
#endif
#if BC_PART_SALSA12
BC_OCL_SALSA_KERNEL(12)
#endif
#if BC_PART_SALSA8
BC_OCL_SALSA_KERNEL(8)
#endif
