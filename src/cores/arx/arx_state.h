/*
 * The 16-word state of the ARX stream ciphers (ChaCha, Salsa20), in the portable
 * dialect. The words live in sixteen named scalars, not an array, so every
 * compiler keeps them in registers; these macros are the load and the final
 * feed-forward both cores share.
 */
#ifndef BC_CORES_ARX_STATE_H
#define BC_CORES_ARX_STATE_H

#include "dialect/bc_dialect.h"

/* Declares x0..x15 and loads them from the 16-word array src. */
#define BC_ARX_LOAD16(src)                                                   \
    bc_u32 x0 = (src)[0], x1 = (src)[1], x2 = (src)[2], x3 = (src)[3];       \
    bc_u32 x4 = (src)[4], x5 = (src)[5], x6 = (src)[6], x7 = (src)[7];       \
    bc_u32 x8 = (src)[8], x9 = (src)[9], x10 = (src)[10], x11 = (src)[11];   \
    bc_u32 x12 = (src)[12], x13 = (src)[13], x14 = (src)[14], x15 = (src)[15]

/* out[i] = x_i + in[i]: the feed-forward that ends a keystream block. */
#define BC_ARX_FEEDFORWARD16(out, in)                                        \
    do {                                                                     \
        (out)[0] = x0 + (in)[0];   (out)[1] = x1 + (in)[1];                  \
        (out)[2] = x2 + (in)[2];   (out)[3] = x3 + (in)[3];                  \
        (out)[4] = x4 + (in)[4];   (out)[5] = x5 + (in)[5];                  \
        (out)[6] = x6 + (in)[6];   (out)[7] = x7 + (in)[7];                  \
        (out)[8] = x8 + (in)[8];   (out)[9] = x9 + (in)[9];                  \
        (out)[10] = x10 + (in)[10]; (out)[11] = x11 + (in)[11];              \
        (out)[12] = x12 + (in)[12]; (out)[13] = x13 + (in)[13];              \
        (out)[14] = x14 + (in)[14]; (out)[15] = x15 + (in)[15];              \
    } while (0)

#endif /* BC_CORES_ARX_STATE_H */
