#include "cores/camellia/camellia.h"

#include <cstring>

#include "cores/camellia/camellia_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kCamelliaKsWords == BC_CAMELLIA_KS_WORDS, "camellia.h and camellia_block.h disagree");

namespace {

// A 128-bit value as two 64-bit halves (hi: bytes 0..7, big-endian).
struct U128 {
    uint64_t hi, lo;
};

U128 rotl128(U128 v, unsigned n) {
    if (n >= 64) {
        const uint64_t t = v.hi;
        v.hi = v.lo;
        v.lo = t;
        n -= 64;
    }
    if (n == 0) return v;
    return U128{(v.hi << n) | (v.lo >> (64 - n)), (v.lo << n) | (v.hi >> (64 - n))};
}

uint64_t load_be64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
    return v;
}

// The F function (RFC 3713 2.4.1) for the key schedule. The S-boxes go through the
// bitsliced s1 network (lane q = byte q), so no table is indexed by key material.
uint64_t camellia_f(uint64_t in, uint64_t ke) {
    const uint64_t x = in ^ ke;
    uint8_t t[8];
    for (int q = 0; q < 8; ++q) {
        uint8_t v = static_cast<uint8_t>(x >> (56 - 8 * q));
        if (BC_CAMELLIA_SBOX_OF(q) == 4) v = static_cast<uint8_t>((v << 1) | (v >> 7));  // s4: s1(x <<< 1)
        t[q] = v;
    }
    bc_u32 w[8];
    for (int b = 0; b < 8; ++b) {
        bc_u32 v = 0;
        for (int q = 0; q < 8; ++q) v |= static_cast<bc_u32>((t[q] >> b) & 1u) << q;
        w[b] = v;
    }
    bc_camellia_bs_s1(w);
    uint8_t y[8];
    for (int q = 0; q < 8; ++q) {
        uint8_t v = 0;
        for (int b = 0; b < 8; ++b) v = static_cast<uint8_t>(v | (((w[b] >> q) & 1u) << b));
        const int box = BC_CAMELLIA_SBOX_OF(q);
        if (box == 2) v = static_cast<uint8_t>((v << 1) | (v >> 7));  // s2: s1(x) <<< 1
        if (box == 3) v = static_cast<uint8_t>((v >> 1) | (v << 7));  // s3: s1(x) >>> 1
        y[q] = v;
    }
    // P (RFC 3713 2.4.3)
    uint8_t z[8];
    z[0] = y[0] ^ y[2] ^ y[3] ^ y[5] ^ y[6] ^ y[7];
    z[1] = y[0] ^ y[1] ^ y[3] ^ y[4] ^ y[6] ^ y[7];
    z[2] = y[0] ^ y[1] ^ y[2] ^ y[4] ^ y[5] ^ y[7];
    z[3] = y[1] ^ y[2] ^ y[3] ^ y[4] ^ y[5] ^ y[6];
    z[4] = y[0] ^ y[1] ^ y[5] ^ y[6] ^ y[7];
    z[5] = y[1] ^ y[2] ^ y[4] ^ y[6] ^ y[7];
    z[6] = y[2] ^ y[3] ^ y[4] ^ y[5] ^ y[7];
    z[7] = y[0] ^ y[3] ^ y[4] ^ y[5] ^ y[6];
    uint64_t r = 0;
    for (int q = 0; q < 8; ++q) r = (r << 8) | z[q];
    secure_wipe(t, sizeof t);
    secure_wipe(w, sizeof w);
    secure_wipe(y, sizeof y);
    secure_wipe(z, sizeof z);
    return r;
}

uint64_t sigma(int i) {
    static const uint32_t hi[6] = {BC_CAMELLIA_SIGMA1_HI, BC_CAMELLIA_SIGMA2_HI, BC_CAMELLIA_SIGMA3_HI,
                                   BC_CAMELLIA_SIGMA4_HI, BC_CAMELLIA_SIGMA5_HI, BC_CAMELLIA_SIGMA6_HI};
    static const uint32_t lo[6] = {BC_CAMELLIA_SIGMA1_LO, BC_CAMELLIA_SIGMA2_LO, BC_CAMELLIA_SIGMA3_LO,
                                   BC_CAMELLIA_SIGMA4_LO, BC_CAMELLIA_SIGMA5_LO, BC_CAMELLIA_SIGMA6_LO};
    return (static_cast<uint64_t>(hi[i - 1]) << 32) | lo[i - 1];
}

// One 64-bit subkey in the unit order of camellia_block.h: half (0 = the high 64
// bits, 1 = the low) of key (0 KL, 1 KR, 2 KA, 3 KB) rotated left by rot.
struct Sub {
    uint8_t key, rot, half;
};
enum { KL = 0, KR = 1, KA = 2, KB = 3 };

// RFC 3713 2.3: 128-bit keys (26 subkeys), then 192/256-bit keys (34).
const Sub kSubs128[26] = {
    {KL, 0, 0},   {KL, 0, 1},                                                     // kw1, kw2
    {KA, 0, 0},   {KA, 0, 1},   {KL, 15, 0},  {KL, 15, 1},  {KA, 15, 0}, {KA, 15, 1},  // k1..k6
    {KA, 30, 0},  {KA, 30, 1},                                                    // ke1, ke2
    {KL, 45, 0},  {KL, 45, 1},  {KA, 45, 0},  {KL, 60, 1},  {KA, 60, 0}, {KA, 60, 1},  // k7..k12
    {KL, 77, 0},  {KL, 77, 1},                                                    // ke3, ke4
    {KL, 94, 0},  {KL, 94, 1},  {KA, 94, 0},  {KA, 94, 1},  {KL, 111, 0}, {KL, 111, 1},  // k13..k18
    {KA, 111, 0}, {KA, 111, 1},                                                   // kw3, kw4
};
const Sub kSubs256[34] = {
    {KL, 0, 0},   {KL, 0, 1},                                                     // kw1, kw2
    {KB, 0, 0},   {KB, 0, 1},   {KR, 15, 0},  {KR, 15, 1},  {KA, 15, 0}, {KA, 15, 1},  // k1..k6
    {KR, 30, 0},  {KR, 30, 1},                                                    // ke1, ke2
    {KB, 30, 0},  {KB, 30, 1},  {KL, 45, 0},  {KL, 45, 1},  {KA, 45, 0}, {KA, 45, 1},  // k7..k12
    {KL, 60, 0},  {KL, 60, 1},                                                    // ke3, ke4
    {KR, 60, 0},  {KR, 60, 1},  {KB, 60, 0},  {KB, 60, 1},  {KL, 77, 0}, {KL, 77, 1},  // k13..k18
    {KA, 77, 0},  {KA, 77, 1},                                                    // ke5, ke6
    {KR, 94, 0},  {KR, 94, 1},  {KA, 94, 0},  {KA, 94, 1},  {KL, 111, 0}, {KL, 111, 1},  // k19..k24
    {KB, 111, 0}, {KB, 111, 1},                                                   // kw3, kw4
};

}  // namespace

bool camellia_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16 && len != 24 && len != 32) return false;
    U128 k[4];
    k[KL] = U128{load_be64(key), load_be64(key + 8)};
    k[KR] = U128{0, 0};
    if (len == 24) {
        k[KR].hi = load_be64(key + 16);
        k[KR].lo = ~k[KR].hi;
    } else if (len == 32) {
        k[KR] = U128{load_be64(key + 16), load_be64(key + 24)};
    }
    // KA and KB (RFC 3713 2.2)
    uint64_t d1 = k[KL].hi ^ k[KR].hi, d2 = k[KL].lo ^ k[KR].lo;
    d2 ^= camellia_f(d1, sigma(1));
    d1 ^= camellia_f(d2, sigma(2));
    d1 ^= k[KL].hi;
    d2 ^= k[KL].lo;
    d2 ^= camellia_f(d1, sigma(3));
    d1 ^= camellia_f(d2, sigma(4));
    k[KA] = U128{d1, d2};
    d1 = k[KA].hi ^ k[KR].hi;
    d2 = k[KA].lo ^ k[KR].lo;
    d2 ^= camellia_f(d1, sigma(5));
    d1 ^= camellia_f(d2, sigma(6));
    k[KB] = U128{d1, d2};

    const bool small = len == 16;
    const Sub* subs = small ? kSubs128 : kSubs256;
    const int units = small ? 26 : 34;
    std::memset(ks, 0, kCamelliaKsWords * sizeof(uint32_t));
    ks[0] = small ? 3u : 4u;
    ks[1] = static_cast<uint32_t>(8 * len);
    ks[2] = static_cast<uint32_t>(units);
    for (int u = 0; u < units; ++u) {
        const U128 r = rotl128(k[subs[u].key], subs[u].rot);
        const uint64_t v = subs[u].half ? r.lo : r.hi;
        uint32_t* m = ks + BC_CAMELLIA_KS_HEADER + BC_CAMELLIA_KS_UNIT * u;
        for (int q = 0; q < 8; ++q)
            for (int b = 0; b < 8; ++b) m[8 * q + b] = 0u - static_cast<uint32_t>((v >> (56 - 8 * q + b)) & 1u);
        U128 t = r;
        secure_wipe(&t, sizeof t);
    }
    secure_wipe(k, sizeof k);
    secure_wipe(&d1, sizeof d1);
    secure_wipe(&d2, sizeof d2);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<16, BC_CAMELLIA_BATCH>([ks](bc_u32* w) { bc_camellia_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<16, BC_CAMELLIA_BATCH>([ks](bc_u32* w) { bc_camellia_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void camellia_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void camellia_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
