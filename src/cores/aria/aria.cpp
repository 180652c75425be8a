#include "cores/aria/aria.h"

#include <cstring>

#include "cores/aria/aria_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kAriaKsWords == BC_ARIA_KS_WORDS, "aria.h and aria_block.h disagree");

namespace {

// The key schedule works on 128-bit values as 128 mask words in the state's layout
// (m[8p + b] all ones when bit b of byte p is set), so it runs the core's own
// substitution and diffusion networks and never indexes a table with key material.
struct Masks {
    bc_u32 m[128];
};

void to_masks(const uint8_t* bytes, Masks* out) {
    for (int p = 0; p < 16; ++p)
        for (int b = 0; b < 8; ++b) out->m[8 * p + b] = 0u - static_cast<bc_u32>((bytes[p] >> b) & 1u);
}

void ck_masks(int i, Masks* out) {
    static const uint32_t ck[3][4] = {BC_ARIA_CK1, BC_ARIA_CK2, BC_ARIA_CK3};
    uint8_t bytes[16];
    for (int w = 0; w < 4; ++w)
        for (int q = 0; q < 4; ++q) bytes[4 * w + q] = static_cast<uint8_t>(ck[i][w] >> (24 - 8 * q));
    to_masks(bytes, out);
}

// Mask word of bit i (0 = least significant) of the 128-bit value whose byte 0 is the
// most significant.
int bit_index(int i) { return 8 * (15 - (i >> 3)) + (i & 7); }

// out = a ^ (b >>> n)
void xor_rotr(const Masks& a, const Masks& b, int n, Masks* out) {
    for (int i = 0; i < 128; ++i) out->m[bit_index(i)] = a.m[bit_index(i)] ^ b.m[bit_index((i + n) & 127)];
}

// FO (odd = 1) or FE (odd = 0) of RFC 5794 2.4.1, then XOR x: out = A(SL(d ^ rk)) ^ x.
void round_f(const Masks& d, const Masks& rk, int odd, const Masks& x, Masks* out) {
    for (int i = 0; i < 128; ++i) out->m[i] = d.m[i] ^ rk.m[i];
    bc_aria_bs_subst(out->m, odd ? 0 : 1);
    bc_aria_bs_diffuse(out->m, x.m);
}

}  // namespace

bool aria_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16 && len != 24 && len != 32) return false;
    const int rounds = len == 16 ? 12 : len == 24 ? 14 : 16;
    // RFC 5794 2.2: KL || KR = the key padded with zeros to 256 bits; CK1..CK3 in an
    // order that depends on the key length.
    uint8_t kr[16] = {0};
    std::memcpy(kr, key + 16, len - 16);
    const int first = len == 16 ? 0 : len == 24 ? 1 : 2;
    Masks w[4], t, c;
    to_masks(key, &w[0]);
    to_masks(kr, &t);
    ck_masks(first, &c);
    round_f(w[0], c, 1, t, &w[1]);
    ck_masks((first + 1) % 3, &c);
    round_f(w[1], c, 0, w[0], &w[2]);
    ck_masks((first + 2) % 3, &c);
    round_f(w[2], c, 1, w[1], &w[3]);

    std::memset(ks, 0, kAriaKsWords * sizeof(uint32_t));
    ks[0] = static_cast<uint32_t>(rounds);
    ks[1] = static_cast<uint32_t>(8 * len);
    // ek(4g + i + 1) = W(i) ^ (W(i + 1 mod 4) >>> r(g)), the left rotations of the RFC
    // as right ones: <<< 61 = >>> 67, <<< 31 = >>> 97, <<< 19 = >>> 109.
    static const int kRot[5] = {19, 31, 67, 97, 109};
    uint32_t* ek = ks + BC_ARIA_KS_HEADER;
    uint32_t* dk = ks + BC_ARIA_KS_DEC;
    for (int u = 0; u <= rounds; ++u) {
        xor_rotr(w[u & 3], w[(u + 1) & 3], kRot[u >> 2], &t);
        std::memcpy(ek + BC_ARIA_KS_UNIT * u, t.m, sizeof t.m);
    }
    // dk1 = ek(R+1), dk(i) = A(ek(R+2-i)) for 2 <= i <= R, dk(R+1) = ek1.
    static const bc_u32 kZero[128] = {0};
    for (int u = 0; u <= rounds; ++u) {
        std::memcpy(t.m, ek + BC_ARIA_KS_UNIT * (rounds - u), sizeof t.m);
        if (u > 0 && u < rounds) bc_aria_bs_diffuse(t.m, kZero);
        std::memcpy(dk + BC_ARIA_KS_UNIT * u, t.m, sizeof t.m);
    }
    secure_wipe(w, sizeof w);
    secure_wipe(&t, sizeof t);
    secure_wipe(&c, sizeof c);
    secure_wipe(kr, sizeof kr);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<16, BC_ARIA_BATCH>([ks](bc_u32* w) { bc_aria_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<16, BC_ARIA_BATCH>([ks](bc_u32* w) { bc_aria_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void aria_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void aria_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
