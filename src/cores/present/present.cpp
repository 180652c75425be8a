#include "cores/present/present.h"

#include <cstring>

#include "cores/host_batches.h"
#include "cores/present/present_block.h"
#include "util/secure.h"

namespace bc {

static_assert(kPresentKsWords == BC_PRESENT_KS_WORDS, "present.h and present_block.h disagree");

namespace {

// The S-box on one nibble of key material through the bitsliced network (every lane
// the same nibble, no key), so no table is indexed by the key.
unsigned sbox_nibble(unsigned v) {
    bc_u32 x[4], y[4];
    for (int i = 0; i < 4; ++i) x[i] = 0u - ((v >> i) & 1u);
    bc_present_bs_sbox_k(x[0], x[1], x[2], x[3], 0u, 0u, 0u, 0u, y);
    unsigned r = 0;
    for (int b = 0; b < 4; ++b) r |= (y[b] & 1u) << b;
    secure_wipe(x, sizeof x);
    secure_wipe(y, sizeof y);
    return r;
}

}  // namespace

bool present_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 10 && len != 16) return false;
    const int bits = static_cast<int>(8 * len);
    // The key register one bit a byte, reg[i] = bit i (0 = least significant).
    uint8_t reg[128], tmp[128];
    for (int i = 0; i < bits; ++i) reg[i] = (key[len - 1 - i / 8] >> (i % 8)) & 1u;
    std::memset(ks, 0, kPresentKsWords * sizeof(uint32_t));
    ks[0] = BC_PRESENT_ROUNDS;
    ks[1] = static_cast<uint32_t>(bits);
    for (int r = 1; r <= BC_PRESENT_ROUNDS + 1; ++r) {
        // K_r: the register's leftmost 64 bits.
        uint32_t* m = ks + BC_PRESENT_KS_HEADER + BC_PRESENT_KS_ROUND * (r - 1);
        for (int i = 0; i < 64; ++i) m[i] = 0u - reg[bits - 64 + i];
        if (r == BC_PRESENT_ROUNDS + 1) break;
        // Rotate left by 61; the S-box on the top nibble (both top nibbles for
        // 128-bit keys); the round counter r into bits 19..15 (66..62).
        for (int i = 0; i < bits; ++i) tmp[i] = reg[(i + bits - 61) % bits];
        std::memcpy(reg, tmp, static_cast<size_t>(bits));
        for (int q = 0; q < (bits == 80 ? 1 : 2); ++q) {
            const int lo = bits - 4 - 4 * q;
            unsigned v = 0;
            for (int b = 0; b < 4; ++b) v |= static_cast<unsigned>(reg[lo + b]) << b;
            v = sbox_nibble(v);
            for (int b = 0; b < 4; ++b) reg[lo + b] = (v >> b) & 1u;
            secure_wipe(&v, sizeof v);
        }
        const int c = bits == 80 ? 15 : 62;
        for (int b = 0; b < 5; ++b) reg[c + b] ^= static_cast<uint8_t>((r >> b) & 1);
    }
    secure_wipe(reg, sizeof reg);
    secure_wipe(tmp, sizeof tmp);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec)
        run_host_batches<8, BC_PRESENT_BATCH>([ks](bc_u32* w) { bc_present_decrypt_batch(ks, w); }, in, out, n);
    else
        run_host_batches<8, BC_PRESENT_BATCH>([ks](bc_u32* w) { bc_present_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void present_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void present_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
