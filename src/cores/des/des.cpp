#include "cores/des/des.h"

#include <cstring>

#include "cores/des/des_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kDesKsWords == BC_DES_KS_WORDS, "des.h and des_block.h disagree");

namespace {

const uint8_t kPc1[56] = BC_DES_PC1;
const uint8_t kPc2[48] = BC_DES_PC2;
const uint8_t kShifts[16] = BC_DES_SHIFTS;

uint32_t rotl28(uint32_t v, unsigned n) { return ((v << n) | (v >> (28 - n))) & 0x0fffffffu; }

// The 16 subkeys of one 8-byte key, 48 bits each (bit 47 = the standard's bit 1).
// Every shift and position is a constant of the standard, so nothing depends on the
// key but the values.
void des_subkeys(const uint8_t* key, uint64_t sub[16]) {
    uint64_t k = 0;
    for (int i = 0; i < 8; ++i) k = (k << 8) | key[i];
    uint32_t c = 0, d = 0;
    for (int i = 0; i < 28; ++i) c = (c << 1) | static_cast<uint32_t>((k >> (64 - kPc1[i])) & 1u);
    for (int i = 28; i < 56; ++i) d = (d << 1) | static_cast<uint32_t>((k >> (64 - kPc1[i])) & 1u);
    uint64_t cd = 0, s = 0;
    for (int r = 0; r < 16; ++r) {
        c = rotl28(c, kShifts[r]);
        d = rotl28(d, kShifts[r]);
        cd = (static_cast<uint64_t>(c) << 28) | d;
        s = 0;
        for (int i = 0; i < 48; ++i) s = (s << 1) | ((cd >> (56 - kPc2[i])) & 1u);
        sub[r] = s;
    }
    secure_wipe(&s, sizeof s);
    secure_wipe(&k, sizeof k);
    secure_wipe(&c, sizeof c);
    secure_wipe(&d, sizeof d);
    secure_wipe(&cd, sizeof cd);
}

}  // namespace

bool des_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 8 && len != 16 && len != 24) return false;
    const int passes = len == 8 ? 1 : 3;
    // TDEA: E under K1, D under K2, E under K3 (K3 = K1 for a 16-byte key).
    const uint8_t* keys[3] = {key, key + 8, len == 24 ? key + 16 : key};
    std::memset(ks, 0, kDesKsWords * sizeof(uint32_t));
    ks[0] = static_cast<uint32_t>(passes);
    ks[1] = static_cast<uint32_t>(8 * len);
    uint64_t sub[16], s = 0;
    for (int p = 0; p < passes; ++p) {
        des_subkeys(keys[p], sub);
        for (int i = 0; i < BC_DES_ROUNDS; ++i) {
            s = sub[p == 1 ? BC_DES_ROUNDS - 1 - i : i];
            uint32_t* m = ks + BC_DES_KS_HEADER + BC_DES_KS_ROUND * (BC_DES_ROUNDS * p + i);
            for (int b = 0; b < 48; ++b) m[b] = 0u - static_cast<uint32_t>((s >> (47 - b)) & 1u);
        }
    }
    secure_wipe(sub, sizeof sub);
    secure_wipe(&s, sizeof s);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<8, BC_DES_BATCH>([ks](bc_u32* w) { bc_des_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<8, BC_DES_BATCH>([ks](bc_u32* w) { bc_des_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void des_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void des_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
