#include "cores/clefia/clefia.h"

#include <cstring>

#include "cores/clefia/clefia_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kClefiaKsWords == BC_CLEFIA_KS_WORDS, "clefia.h and clefia_block.h disagree");

namespace {

const uint32_t kCon128[BC_CLEFIA_CON128_COUNT] = {BC_CLEFIA_CON128};
const uint32_t kCon192[BC_CLEFIA_CON192_COUNT] = {BC_CLEFIA_CON192};
const uint32_t kCon256[BC_CLEFIA_CON256_COUNT] = {BC_CLEFIA_CON256};

uint32_t load_be32(const uint8_t* p) {
    return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
           (static_cast<uint32_t>(p[2]) << 8) | p[3];
}

// v * 2 in GF(2^8)/0x11d without a branch on v.
uint8_t mul2(uint8_t v) {
    return static_cast<uint8_t>((v << 1) ^ (0x1du & (0u - static_cast<unsigned>(v >> 7))));
}

// F0 (f1 = 0) or F1 (RFC 6114 2.4.1) for the key schedule. The S-boxes go through the
// bitsliced networks (lane q = byte q, byte 0 the most significant), so no table is
// indexed by key material; which lane takes S0 and which S1 is public.
uint32_t clefia_f(int f1, uint32_t rk, uint32_t x) {
    const uint32_t t = x ^ rk;
    bc_u32 a[8], b[8];
    for (int bit = 0; bit < 8; ++bit) {
        bc_u32 v = 0;
        for (int q = 0; q < 4; ++q) v |= ((t >> (24 - 8 * q + bit)) & 1u) << q;
        a[bit] = b[bit] = v;
    }
    bc_clefia_bs_s0(a);
    bc_clefia_bs_s1(b);
    uint8_t z[4];
    for (int q = 0; q < 4; ++q) {
        const bc_u32* r = ((q & 1) ^ f1) ? b : a;  // F0: S0 S1 S0 S1, F1: S1 S0 S1 S0
        uint8_t v = 0;
        for (int bit = 0; bit < 8; ++bit) v = static_cast<uint8_t>(v | (((r[bit] >> q) & 1u) << bit));
        z[q] = v;
    }
    // M0 or M1 (RFC 6114 2.4.3) through sums of byte pairs, as in clefia_block.h
    const uint8_t p01 = z[0] ^ z[1], p23 = z[2] ^ z[3], p02 = z[0] ^ z[2], p13 = z[1] ^ z[3];
    uint8_t y[4];
    if (f1) {
        const uint8_t a01 = mul2(p01), a23 = mul2(p23);
        const uint8_t b02 = mul2(mul2(mul2(p02))), b13 = mul2(mul2(mul2(p13)));
        y[0] = z[0] ^ a23 ^ b13;
        y[1] = z[1] ^ a23 ^ b02;
        y[2] = z[2] ^ a01 ^ b13;
        y[3] = z[3] ^ a01 ^ b02;
    } else {
        const uint8_t a02 = mul2(p02), a13 = mul2(p13);
        const uint8_t b01 = mul2(mul2(p01)), b23 = mul2(mul2(p23));
        y[0] = z[0] ^ a13 ^ b23;
        y[1] = z[1] ^ a02 ^ b23;
        y[2] = z[2] ^ a13 ^ b01;
        y[3] = z[3] ^ a02 ^ b01;
    }
    const uint32_t r = (static_cast<uint32_t>(y[0]) << 24) | (static_cast<uint32_t>(y[1]) << 16) |
                       (static_cast<uint32_t>(y[2]) << 8) | y[3];
    secure_wipe(a, sizeof a);
    secure_wipe(b, sizeof b);
    secure_wipe(z, sizeof z);
    secure_wipe(y, sizeof y);
    return r;
}

// GFN_{d,n} (RFC 6114 2.3) on d = 4 or 8 words t in place, round keys rk (d / 2 a
// round): F0 and F1 alternate over the even branches, the branches rotate one place
// left after every round but the last.
void gfn(int d, int n, const uint32_t* rk, uint32_t* t) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < d; j += 2) t[j + 1] ^= clefia_f((j / 2) & 1, rk[d / 2 * i + j / 2], t[j]);
        if (i + 1 < n) {
            const uint32_t first = t[0];
            for (int j = 0; j + 1 < d; ++j) t[j] = t[j + 1];
            t[d - 1] = first;
        }
    }
}

// DoubleSwap Sigma (RFC 6114 2.5): Y = X[7-63] | X[121-127] | X[0-6] | X[64-120],
// bit 0 the most significant of the four words l.
void double_swap(uint32_t* l) {
    const uint64_t hi = (static_cast<uint64_t>(l[0]) << 32) | l[1];
    const uint64_t lo = (static_cast<uint64_t>(l[2]) << 32) | l[3];
    const uint64_t nhi = (hi << 7) | (lo & 0x7fu);
    const uint64_t nlo = (hi & 0xfe00000000000000ull) | (lo >> 7);
    l[0] = static_cast<uint32_t>(nhi >> 32);
    l[1] = static_cast<uint32_t>(nhi);
    l[2] = static_cast<uint32_t>(nlo >> 32);
    l[3] = static_cast<uint32_t>(nlo);
}

void put_unit(uint32_t* ks, int u, uint32_t v) {
    uint32_t* m = ks + BC_CLEFIA_KS_HEADER + BC_CLEFIA_KS_UNIT * u;
    for (int q = 0; q < 4; ++q)
        for (int b = 0; b < 8; ++b) m[8 * q + b] = 0u - ((v >> (24 - 8 * q + b)) & 1u);
}

}  // namespace

bool clefia_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16 && len != 24 && len != 32) return false;
    const int rounds = len == 16 ? 18 : len == 24 ? 22 : 26;
    uint32_t k[8], l[8], wk[4], rk[52], t[4];
    for (size_t i = 0; i < len / 4; ++i) k[i] = load_be32(key + 4 * i);
    if (len == 16) {
        // RFC 6114 2.5.1: L = GFN_{4,12}(CON0..23, K); WK = K;
        // RK(4i..4i+3) = L ^ CON(24+4i..) (^ K for odd i), L = Sigma(L), i = 0..8
        std::memcpy(l, k, 16);
        gfn(4, 12, kCon128, l);
        std::memcpy(wk, k, 16);
        for (int i = 0; i < 9; ++i) {
            for (int j = 0; j < 4; ++j) t[j] = l[j] ^ kCon128[24 + 4 * i + j] ^ ((i & 1) ? k[j] : 0u);
            double_swap(l);
            std::memcpy(rk + 4 * i, t, 16);
        }
    } else {
        // RFC 6114 2.5.2/2.5.3: KL = K0..K3, KR = K4 K5 ~K0 ~K1 (192) or K4..K7 (256);
        // LL | LR = GFN_{8,10}(CON0..39, KL | KR); WK = KL ^ KR; for i = 0..r/2-1 the
        // four round keys RK(4i..4i+3) are LL ^ CON(40+4i..) (^ KR for odd i) when
        // i mod 4 is 0 or 1, else LR ^ CON(40+4i..) (^ KL for odd i), and the half
        // used steps through Sigma.
        const uint32_t* con = len == 24 ? kCon192 : kCon256;
        if (len == 24) {
            k[6] = ~k[0];
            k[7] = ~k[1];
        }
        std::memcpy(l, k, 32);
        gfn(8, 10, con, l);
        for (int j = 0; j < 4; ++j) wk[j] = k[j] ^ k[4 + j];
        for (int i = 0; i < rounds / 2; ++i) {
            const bool left = ((i / 2) & 1) == 0;
            uint32_t* half = left ? l : l + 4;
            const uint32_t* other = left ? k + 4 : k;
            for (int j = 0; j < 4; ++j) t[j] = half[j] ^ con[40 + 4 * i + j] ^ ((i & 1) ? other[j] : 0u);
            double_swap(half);
            std::memcpy(rk + 4 * i, t, 16);
        }
    }
    std::memset(ks, 0, kClefiaKsWords * sizeof(uint32_t));
    ks[0] = static_cast<uint32_t>(rounds);
    ks[1] = static_cast<uint32_t>(8 * len);
    ks[2] = static_cast<uint32_t>((rounds - 2) / 4);
    for (int j = 0; j < 4; ++j) put_unit(ks, j, wk[j]);
    for (int i = 0; i < 2 * rounds; ++i) put_unit(ks, 4 + i, rk[i]);
    secure_wipe(k, sizeof k);
    secure_wipe(l, sizeof l);
    secure_wipe(wk, sizeof wk);
    secure_wipe(rk, sizeof rk);
    secure_wipe(t, sizeof t);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<16, BC_CLEFIA_BATCH>([ks](bc_u32* w) { bc_clefia_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<16, BC_CLEFIA_BATCH>([ks](bc_u32* w) { bc_clefia_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void clefia_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void clefia_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
