/*
 * AES behind the block-cipher interface of the generic modes (src/modes/block/):
 * 32 blocks a batch through the bitsliced core (aes_bitsliced.h), constant time.
 * The specialised AES kernels of the backends (lane pairs, CTR's cached counter
 * bytes, XTS tiles) are registered fast variants beside this generic path.
 *
 * Expanded key (BC_AES_KS_WORDS words, made on the host by aes_block_expand):
 *   ks[0]                           rounds (10, 12 or 14); ks[1..3] zero
 *   ks[4 .. 4 + 128*(rounds+1))     the bitsliced round-key masks of bc_aes_bs_expand_masks
 */
#ifndef BC_CORES_AES_BLOCK_H
#define BC_CORES_AES_BLOCK_H

#include "dialect/bc_dialect.h"

#ifndef BC_AES_KS_SPACE
#define BC_AES_KS_SPACE BC_GLOBAL
#endif
#ifndef BC_AES_BS_RK_SPACE
#define BC_AES_BS_RK_SPACE BC_AES_KS_SPACE
#endif
#include "cores/aes/aes_bitsliced.h"

#define BC_AES_BLOCK_BYTES 16
#define BC_AES_BATCH 32
#define BC_AES_KS_HEADER 4
#define BC_AES_KS_WORDS (BC_AES_KS_HEADER + 15 * 128)

/* w: block j is w[4j..4j+3] (little-endian words) -> AES's packing s[32k + j]. */
BC_FN void bc_aes_batch_slice(const bc_u32 *w, bc_u32 *s) {
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_AES_BS_UNROLL
        for (int k = 0; k < 4; ++k) s[32 * k + j] = w[4 * j + k];
    }
    bc_aes_bs_slice(s);
}

BC_FN void bc_aes_batch_unslice(bc_u32 *s, bc_u32 *w) {
    bc_aes_bs_unslice(s);
    BC_AES_BS_UNROLL
    for (int j = 0; j < 32; ++j) {
        BC_AES_BS_UNROLL
        for (int k = 0; k < 4; ++k) w[4 * j + k] = s[32 * k + j];
    }
}

BC_FN void bc_aes_encrypt_batch(const BC_AES_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 s[128];
    bc_aes_batch_slice(w, s);
    bc_aes_bs_encrypt(s, ks + BC_AES_KS_HEADER, (int)ks[0]);
    bc_aes_batch_unslice(s, w);
}

BC_FN void bc_aes_decrypt_batch(const BC_AES_KS_SPACE bc_u32 *ks, bc_u32 *w) {
    bc_u32 s[128];
    bc_aes_batch_slice(w, s);
    bc_aes_bs_decrypt(s, ks + BC_AES_KS_HEADER, (int)ks[0]);
    bc_aes_batch_unslice(s, w);
}

#endif /* BC_CORES_AES_BLOCK_H */
