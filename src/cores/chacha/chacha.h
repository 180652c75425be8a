/*
 * ChaCha (Bernstein 2008; RFC 8439) in the portable dialect: the block function
 * with 8, 12 or 20 rounds, both state layouts, HChaCha20, and keystream XOR from
 * any byte offset. Compiles as host C/C++, CUDA and OpenCL C.
 *
 * State (16 little-endian 32-bit words):
 *   0..3    constants "expand 32-byte k" (or "expand 16-byte k" for 128-bit keys)
 *   4..11   key (a 128-bit key is written twice)
 *   12..15  IETF layout (RFC 8439): word 12 = 32-bit block counter, 13..15 = 96-bit nonce
 *           DJB layout (original):   words 12,13 = 64-bit block counter (low word first),
 *                                    14,15 = 64-bit nonce
 * OpenSSL's "chacha20" IV is the 16 bytes of words 12..15 in the IETF layout:
 * le32(counter) || nonce(12).
 *
 * The block function keeps the state in 16 scalar variables so that GPU
 * compilers hold it in registers; call it with a constant round count so the
 * round loop unrolls after inlining.
 */
#ifndef BC_CORES_CHACHA_H
#define BC_CORES_CHACHA_H

#include "cores/arx/arx_state.h"
#include "dialect/bc_dialect.h"

#define BC_CHACHA_LAYOUT_IETF 0 /* 32-bit counter in word 12 */
#define BC_CHACHA_LAYOUT_DJB 1  /* 64-bit counter in words 12..13 */

#define BC_CHACHA_QR(a, b, c, d)  \
    do {                          \
        a += b;                   \
        d = bc_rotl32(d ^ a, 16); \
        c += d;                   \
        b = bc_rotl32(b ^ c, 12); \
        a += b;                   \
        d = bc_rotl32(d ^ a, 8);  \
        c += d;                   \
        b = bc_rotl32(b ^ c, 7);  \
    } while (0)

/* The 16 words of the round function applied `rounds` times (rounds even),
 * into x[] without the final addition. */
#define BC_CHACHA_ROUNDS_BODY(rounds)                                          \
    for (int bc_r_ = 0; bc_r_ < (rounds); bc_r_ += 2) {                        \
        BC_CHACHA_QR(x0, x4, x8, x12);                                         \
        BC_CHACHA_QR(x1, x5, x9, x13);                                         \
        BC_CHACHA_QR(x2, x6, x10, x14);                                        \
        BC_CHACHA_QR(x3, x7, x11, x15);                                        \
        BC_CHACHA_QR(x0, x5, x10, x15);                                        \
        BC_CHACHA_QR(x1, x6, x11, x12);                                        \
        BC_CHACHA_QR(x2, x7, x8, x13);                                         \
        BC_CHACHA_QR(x3, x4, x9, x14);                                         \
    }

/* Words 0..11 from a 16- or 32-byte key (key_len in bytes). */
BC_FN void bc_chacha_set_key(bc_u32 st[16], const bc_u8 *key, int key_len) {
    st[0] = 0x61707865u;
    st[1] = key_len == 16 ? 0x3120646eu : 0x3320646eu;
    st[2] = key_len == 16 ? 0x79622d36u : 0x79622d32u;
    st[3] = 0x6b206574u;
    for (int i = 0; i < 4; ++i) st[4 + i] = bc_load_le32(key + 4 * i);
    for (int i = 0; i < 4; ++i)
        st[8 + i] = key_len == 16 ? st[4 + i] : bc_load_le32(key + 16 + 4 * i);
}

/* Words 12..15 from their 16-byte little-endian image (e.g. OpenSSL's IV). */
BC_FN void bc_chacha_set_words12(bc_u32 st[16], const bc_u8 *w16) {
    for (int i = 0; i < 4; ++i) st[12 + i] = bc_load_le32(w16 + 4 * i);
}

/* IETF layout: counter and 12-byte nonce. */
BC_FN void bc_chacha_set_ietf(bc_u32 st[16], bc_u32 counter, const bc_u8 *nonce12) {
    st[12] = counter;
    st[13] = bc_load_le32(nonce12);
    st[14] = bc_load_le32(nonce12 + 4);
    st[15] = bc_load_le32(nonce12 + 8);
}

/* DJB layout: 64-bit counter and 8-byte nonce. */
BC_FN void bc_chacha_set_djb(bc_u32 st[16], bc_u64 counter, const bc_u8 *nonce8) {
    st[12] = (bc_u32)counter;
    st[13] = (bc_u32)(counter >> 32);
    st[14] = bc_load_le32(nonce8);
    st[15] = bc_load_le32(nonce8 + 4);
}

/* Adds `blocks` to the block counter of a state, in the layout's width
 * (mod 2^32 for IETF, mod 2^64 for DJB; callers check for wrap beforehand). */
BC_FN void bc_chacha_add_counter(bc_u32 st[16], int layout, bc_u64 blocks) {
    if (layout == BC_CHACHA_LAYOUT_IETF) {
        st[12] += (bc_u32)blocks;
    } else {
        bc_u64 c = ((bc_u64)st[13] << 32) | st[12];
        c += blocks;
        st[12] = (bc_u32)c;
        st[13] = (bc_u32)(c >> 32);
    }
}

/* out = ChaCha_rounds(in) + in, word by word. */
BC_FN void bc_chacha_block(const bc_u32 in[16], bc_u32 out[16], int rounds) {
    BC_ARX_LOAD16(in);
    BC_CHACHA_ROUNDS_BODY(rounds)
    BC_ARX_FEEDFORWARD16(out, in);
}

/* HChaCha20 (draft-irtf-cfrg-xchacha): 20 rounds over key and a 16-byte nonce
 * in words 12..15, output words 0..3 and 12..15 (no feed-forward) as a 32-byte
 * subkey, little-endian. */
BC_FN void bc_hchacha20(const bc_u8 *key32, const bc_u8 *nonce16, bc_u8 *subkey32) {
    bc_u32 st[16];
    bc_chacha_set_key(st, key32, 32);
    bc_chacha_set_words12(st, nonce16);
    BC_ARX_LOAD16(st);
    BC_CHACHA_ROUNDS_BODY(20)
    bc_store_le32(subkey32 + 0, x0);
    bc_store_le32(subkey32 + 4, x1);
    bc_store_le32(subkey32 + 8, x2);
    bc_store_le32(subkey32 + 12, x3);
    bc_store_le32(subkey32 + 16, x12);
    bc_store_le32(subkey32 + 20, x13);
    bc_store_le32(subkey32 + 24, x14);
    bc_store_le32(subkey32 + 28, x15);
    for (int i = 0; i < 16; ++i) st[i] = 0;
}

/* The 64-byte keystream block `block` blocks after the state's counter. */
BC_FN void bc_chacha_keystream_block(const bc_u32 base[16], int layout, int rounds,
                                     bc_u64 block, bc_u8 *out64) {
    bc_u32 st[16], ks[16];
    for (int i = 0; i < 16; ++i) st[i] = base[i];
    bc_chacha_add_counter(st, layout, block);
    bc_chacha_block(st, ks, rounds);
    for (int i = 0; i < 16; ++i) bc_store_le32(out64 + 4 * i, ks[i]);
}

/* out[i] = in[i] ^ keystream[offset + i] for i < len, where keystream byte 0 is
 * byte 0 of the block given by base's counter. in == out is allowed. */
BC_FN void bc_chacha_xor_g(const bc_u32 base[16], int layout, int rounds, bc_u64 offset,
                           const BC_GLOBAL bc_u8 *in, BC_GLOBAL bc_u8 *out, bc_u64 len) {
    bc_u32 st[16], ks[16];
    for (int i = 0; i < 16; ++i) st[i] = base[i];
    bc_chacha_add_counter(st, layout, offset >> 6);
    unsigned skip = (unsigned)(offset & 63u);
    bc_u64 done = 0;
    while (done < len) {
        bc_chacha_block(st, ks, rounds);
        bc_chacha_add_counter(st, layout, 1);
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

#endif /* BC_CORES_CHACHA_H */
