#include "cores/misty1/misty1.h"

#include <cstring>

#include "cores/host_batches.h"
#include "cores/misty1/misty1_block.h"
#include "util/secure.h"

namespace bc {

static_assert(kMisty1KsWords == BC_MISTY1_KS_WORDS, "misty1.h and misty1_block.h disagree");

namespace {

// Mask words of a 16-bit subkey: m[b] all ones when bit b is set.
void put_masks(uint32_t* m, uint32_t v) {
    for (int b = 0; b < 16; ++b) m[b] = 0u - ((v >> b) & 1u);
}

// A KI in FI's layout (misty1_block.h): bits 0..8, then bit 9 + i ^ bit i.
uint32_t fi_key_form(uint32_t ki) { return (ki & 0x1ffu) | ((ki ^ (ki << 9)) & 0xfe00u); }

}  // namespace

bool misty1_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16) return false;
    // RFC 2994 2.2: EK[0..7] the key's big-endian 16-bit words, EK[8 + i] =
    // FI(EK[i], EK[(i + 1) % 8]). The eight FIs run as lanes 0..7 of the bitsliced FI,
    // so no table is indexed by key material.
    uint32_t ek[16];
    for (int i = 0; i < 8; ++i) ek[i] = (static_cast<uint32_t>(key[2 * i]) << 8) | key[2 * i + 1];
    bc_u32 x[16] = {0}, kiw[16] = {0}, zero[16] = {0}, y[16];
    for (int i = 0; i < 8; ++i)
        for (int b = 0; b < 16; ++b) {
            x[b] |= ((ek[i] >> b) & 1u) << i;
            kiw[b] |= ((fi_key_form(ek[(i + 1) & 7]) >> b) & 1u) << i;
        }
    bc_misty1_bs_fi(x, zero, kiw, y);
    for (int i = 0; i < 8; ++i) {
        ek[8 + i] = 0;
        for (int b = 0; b < 16; ++b) ek[8 + i] |= ((y[b] >> i) & 1u) << b;
    }
    // The RFC's subkey selection (0-based, k the FL or FO number).
    for (int k = 0; k < BC_MISTY1_ROUNDS + 2; ++k) {
        uint32_t* m = ks + BC_MISTY1_KS_FL * k;
        const int j = k / 2;
        put_masks(m, (k & 1) ? ek[8 + (j + 2) % 8] : ek[j]);            // KL1
        put_masks(m + 16, (k & 1) ? ek[(j + 4) % 8] : ek[8 + (j + 6) % 8]);  // KL2
    }
    for (int k = 0; k < BC_MISTY1_ROUNDS; ++k) {
        uint32_t* m = ks + BC_MISTY1_KS_FO_BASE + BC_MISTY1_KS_FO * k;
        put_masks(m, ek[k]);                              // KO1
        put_masks(m + 16, ek[(k + 2) % 8]);               // KO2
        put_masks(m + 32, ek[(k + 7) % 8]);               // KO3
        put_masks(m + 48, ek[(k + 4) % 8]);               // KO4
        put_masks(m + 64, fi_key_form(ek[8 + (k + 5) % 8]));  // KI1
        put_masks(m + 80, fi_key_form(ek[8 + (k + 1) % 8]));  // KI2
        put_masks(m + 96, fi_key_form(ek[8 + (k + 3) % 8]));  // KI3
    }
    secure_wipe(ek, sizeof ek);
    secure_wipe(x, sizeof x);
    secure_wipe(kiw, sizeof kiw);
    secure_wipe(y, sizeof y);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<8, BC_MISTY1_BATCH>([ks](bc_u32* w) { bc_misty1_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<8, BC_MISTY1_BATCH>([ks](bc_u32* w) { bc_misty1_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void misty1_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void misty1_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
