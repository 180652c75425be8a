#include "cores/bf/bf.h"

#include <cstring>

#include "cores/bf/bf_block.h"
#include "cores/bf/bf_pi.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kBfKsWords == BC_BF_KS_WORDS, "bf.h and bf_block.h disagree");

bool bf_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len < kBfKeyMin || len > kBfKeyMax) return false;
    std::memset(ks, 0, kBfKsWords * sizeof(uint32_t));
    // P_i ^= the key's bytes taken four at a time, big-endian, cycling over the key.
    size_t k = 0;
    uint32_t w = 0;
    for (int i = 0; i < BC_BF_P_WORDS; ++i) {
        w = 0;
        for (int b = 0; b < 4; ++b) {
            w = (w << 8) | key[k];
            k = k + 1 == len ? 0 : k + 1;
        }
        ks[i] = kBfPiP[i] ^ w;
    }
    for (int t = 0; t < 4; ++t) std::memcpy(ks + BC_BF_S_OFFSET + 256 * t, kBfPiS[t], sizeof kBfPiS[t]);
    // Then P and the S-boxes, in that order, are replaced two words at a time by the
    // encryption of the previous output (the first: of the zero block) under the
    // tables as they stand.
    uint32_t l = 0, r = 0;
    for (int i = 0; i < BC_BF_P_WORDS; i += 2) {
        bc_bf_encrypt_words(ks, &l, &r);
        ks[i] = l;
        ks[i + 1] = r;
    }
    for (int i = 0; i < 4 * 256; i += 2) {
        bc_bf_encrypt_words(ks, &l, &r);
        ks[BC_BF_S_OFFSET + i] = l;
        ks[BC_BF_S_OFFSET + i + 1] = r;
    }
    secure_wipe(&l, sizeof l);
    secure_wipe(&r, sizeof r);
    secure_wipe(&w, sizeof w);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<8, BC_BF_BATCH>([ks](bc_u32* w) { bc_bf_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<8, BC_BF_BATCH>([ks](bc_u32* w) { bc_bf_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void bf_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) { run_blocks(ks, in, out, n, 0); }
void bf_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) { run_blocks(ks, in, out, n, 1); }

}  // namespace bc
