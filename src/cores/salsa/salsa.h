/*
 * Salsa20 (Bernstein, "The Salsa20 family of stream ciphers", 2007) in the
 * portable dialect: the block function with 8, 12 or 20 rounds, 128- and
 * 256-bit keys, HSalsa20 (for XSalsa20, "Extending the Salsa20 nonce", 2008),
 * and keystream XOR from any byte offset. Compiles as host C/C++, CUDA and
 * OpenCL C.
 *
 * State (16 little-endian 32-bit words):
 *   c0 k0 k1 k2      c = "expand 32-byte k" (256-bit key) or
 *   k3 c1 n0 n1          "expand 16-byte k" (128-bit key, k4..k7 = k0..k3)
 *   b0 b1 c2 k4      n = 64-bit nonce, b = 64-bit block counter (b0 low word)
 *   k5 k6 k7 c3
 */
#ifndef BC_CORES_SALSA_H
#define BC_CORES_SALSA_H

#include "cores/arx/arx_state.h"
#include "dialect/bc_dialect.h"

/* One Salsa20 quarter-round on (a, b, c, d) in the order of the spec. */
#define BC_SALSA_QR(a, b, c, d)      \
    do {                             \
        b ^= bc_rotl32(a + d, 7);    \
        c ^= bc_rotl32(b + a, 9);    \
        d ^= bc_rotl32(c + b, 13);   \
        a ^= bc_rotl32(d + c, 18);   \
    } while (0)

/* `rounds` rounds (even) as column round + row round pairs, on x0..x15. */
#define BC_SALSA_ROUNDS_BODY(rounds)                                           \
    for (int bc_r_ = 0; bc_r_ < (rounds); bc_r_ += 2) {                        \
        BC_SALSA_QR(x0, x4, x8, x12);                                          \
        BC_SALSA_QR(x5, x9, x13, x1);                                          \
        BC_SALSA_QR(x10, x14, x2, x6);                                         \
        BC_SALSA_QR(x15, x3, x7, x11);                                         \
        BC_SALSA_QR(x0, x1, x2, x3);                                           \
        BC_SALSA_QR(x5, x6, x7, x4);                                           \
        BC_SALSA_QR(x10, x11, x8, x9);                                         \
        BC_SALSA_QR(x15, x12, x13, x14);                                       \
    }

/* Constants and key words from a 16- or 32-byte key; nonce and counter words
 * (6..9) are left for the caller. */
BC_FN void bc_salsa_set_key(bc_u32 st[16], const bc_u8 *key, int key_len) {
    st[0] = 0x61707865u;
    st[5] = key_len == 16 ? 0x3120646eu : 0x3320646eu;
    st[10] = key_len == 16 ? 0x79622d36u : 0x79622d32u;
    st[15] = 0x6b206574u;
    for (int i = 0; i < 4; ++i) st[1 + i] = bc_load_le32(key + 4 * i);
    for (int i = 0; i < 4; ++i)
        st[11 + i] = key_len == 16 ? st[1 + i] : bc_load_le32(key + 16 + 4 * i);
}

/* 8-byte nonce and 64-bit block counter. */
BC_FN void bc_salsa_set_nonce(bc_u32 st[16], const bc_u8 *nonce8, bc_u64 counter) {
    st[6] = bc_load_le32(nonce8);
    st[7] = bc_load_le32(nonce8 + 4);
    st[8] = (bc_u32)counter;
    st[9] = (bc_u32)(counter >> 32);
}

/* Adds `blocks` to the 64-bit block counter (mod 2^64). */
BC_FN void bc_salsa_add_counter(bc_u32 st[16], bc_u64 blocks) {
    bc_u64 c = ((bc_u64)st[9] << 32) | st[8];
    c += blocks;
    st[8] = (bc_u32)c;
    st[9] = (bc_u32)(c >> 32);
}

/* out = Salsa20_rounds(in) + in. */
BC_FN void bc_salsa_block(const bc_u32 in[16], bc_u32 out[16], int rounds) {
    BC_ARX_LOAD16(in);
    BC_SALSA_ROUNDS_BODY(rounds)
    BC_ARX_FEEDFORWARD16(out, in);
}

/* HSalsa20: 20 rounds over the 256-bit key with the 16-byte nonce in words
 * 6..9, output words 0,5,10,15,6,7,8,9 (no feed-forward) as a 32-byte subkey. */
BC_FN void bc_hsalsa20(const bc_u8 *key32, const bc_u8 *nonce16, bc_u8 *subkey32) {
    bc_u32 st[16];
    bc_salsa_set_key(st, key32, 32);
    for (int i = 0; i < 4; ++i) st[6 + i] = bc_load_le32(nonce16 + 4 * i);
    BC_ARX_LOAD16(st);
    BC_SALSA_ROUNDS_BODY(20)
    bc_store_le32(subkey32 + 0, x0);
    bc_store_le32(subkey32 + 4, x5);
    bc_store_le32(subkey32 + 8, x10);
    bc_store_le32(subkey32 + 12, x15);
    bc_store_le32(subkey32 + 16, x6);
    bc_store_le32(subkey32 + 20, x7);
    bc_store_le32(subkey32 + 24, x8);
    bc_store_le32(subkey32 + 28, x9);
    for (int i = 0; i < 16; ++i) st[i] = 0;
}

/* The 64-byte keystream block `block` blocks after the state's counter. */
BC_FN void bc_salsa_keystream_block(const bc_u32 base[16], int rounds, bc_u64 block,
                                    bc_u8 *out64) {
    bc_u32 st[16], ks[16];
    for (int i = 0; i < 16; ++i) st[i] = base[i];
    bc_salsa_add_counter(st, block);
    bc_salsa_block(st, ks, rounds);
    for (int i = 0; i < 16; ++i) bc_store_le32(out64 + 4 * i, ks[i]);
}

/* out[i] = in[i] ^ keystream[offset + i] for i < len (keystream byte 0 = byte 0
 * of the block at base's counter). in == out is allowed. */
BC_FN void bc_salsa_xor_g(const bc_u32 base[16], int rounds, bc_u64 offset,
                          const BC_GLOBAL bc_u8 *in, BC_GLOBAL bc_u8 *out, bc_u64 len) {
    bc_u32 st[16], ks[16];
    for (int i = 0; i < 16; ++i) st[i] = base[i];
    bc_salsa_add_counter(st, offset >> 6);
    unsigned skip = (unsigned)(offset & 63u);
    bc_u64 done = 0;
    while (done < len) {
        bc_salsa_block(st, ks, rounds);
        bc_salsa_add_counter(st, 1);
        bc_u64 left = len - done;
        if (skip == 0 && left >= 64) {
            for (int w = 0; w < 16; ++w) {
                bc_u32 v = bc_load_le32_g(in + done + 4 * w) ^ ks[w];
                bc_store_le32_g(out + done + 4 * w, v);
            }
            done += 64;
        } else {
            unsigned n = 64u - skip;
            if ((bc_u64)n > left) n = (unsigned)left;
            for (unsigned j = 0; j < n; ++j) {
                unsigned k = skip + j;
                bc_u8 kb = (bc_u8)(ks[k >> 2] >> (8u * (k & 3u)));
                out[done + j] = (bc_u8)(in[done + j] ^ kb);
            }
            done += n;
            skip = 0;
        }
    }
    for (int i = 0; i < 16; ++i) ks[i] = 0;
    for (int i = 0; i < 16; ++i) st[i] = 0;
}

#endif /* BC_CORES_SALSA_H */
