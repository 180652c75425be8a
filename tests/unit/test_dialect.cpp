// The portable dialect: each helper's intrinsic path against its plain-C path,
// and both against definitions written out by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "dialect/bc_dialect.h"

namespace plain {
uint32_t rotl32(uint32_t x, unsigned n);
uint32_t rotr32(uint32_t x, unsigned n);
uint64_t rotl64(uint64_t x, unsigned n);
uint32_t bswap32(uint32_t x);
uint32_t byte_perm(uint32_t lo, uint32_t hi, uint32_t sel);
int intrinsics();
}  // namespace plain

TEST(Dialect, PlainTranslationUnitReallyIsPlain) {
    EXPECT_EQ(plain::intrinsics(), 0);
    EXPECT_EQ(BC_DIALECT_INTRINSICS, 1);
}

TEST(Dialect, RotatesMatchPlainAndDefinition) {
    std::mt19937_64 rng(1);
    for (int i = 0; i < 2000; ++i) {
        uint32_t x = static_cast<uint32_t>(rng());
        uint64_t y = rng();
        unsigned n = static_cast<unsigned>(rng() % 32);
        uint32_t want = n ? (x << n) | (x >> (32 - n)) : x;
        EXPECT_EQ(bc_rotl32(x, n), want);
        EXPECT_EQ(plain::rotl32(x, n), want);
        EXPECT_EQ(bc_rotr32(bc_rotl32(x, n), n), x);
        EXPECT_EQ(plain::rotr32(x, n), bc_rotr32(x, n));
        unsigned m = static_cast<unsigned>(rng() % 64);
        uint64_t want64 = m ? (y << m) | (y >> (64 - m)) : y;
        EXPECT_EQ(bc_rotl64(y, m), want64);
        EXPECT_EQ(plain::rotl64(y, m), want64);
    }
}

// Clamped shifts and the funnel shift, 0 <= n <= 32 (n = 32 included, unlike C's shifts).
TEST(Dialect, FunnelShiftMatchesDefinition) {
    std::mt19937_64 rng(2);
    for (int i = 0; i < 2000; ++i) {
        const uint32_t lo = static_cast<uint32_t>(rng()), hi = static_cast<uint32_t>(rng());
        const unsigned n = static_cast<unsigned>(rng() % 33);
        const uint64_t v = (uint64_t(hi) << 32) | lo;
        const uint32_t want = n == 32 ? lo : static_cast<uint32_t>((v << n) >> 32);
        EXPECT_EQ(bc_funnel_l32c(lo, hi, n), want) << n;
        EXPECT_EQ(bc_funnel_l32c_plain(lo, hi, n), want) << n;
        EXPECT_EQ(bc_shl32c_plain(lo, n), n == 32 ? 0u : static_cast<uint32_t>(uint64_t(lo) << n)) << n;
        EXPECT_EQ(bc_shr32c_plain(lo, n), n == 32 ? 0u : lo >> n) << n;
    }
}

TEST(Dialect, ByteSwapAndPermute) {
    EXPECT_EQ(bc_bswap32(0x11223344u), 0x44332211u);
    EXPECT_EQ(plain::bswap32(0x11223344u), 0x44332211u);
    EXPECT_EQ(bc_bswap64(0x0102030405060708ull), 0x0807060504030201ull);
    // __byte_perm semantics: selector nibble i picks result byte i from (hi:lo).
    EXPECT_EQ(bc_byte_perm(0x33221100u, 0x77665544u, 0x3210), 0x33221100u);
    EXPECT_EQ(bc_byte_perm(0x33221100u, 0x77665544u, 0x7654), 0x77665544u);
    EXPECT_EQ(bc_byte_perm(0x33221100u, 0x77665544u, 0x0123), 0x00112233u);
    EXPECT_EQ(bc_byte_perm(0x33221100u, 0x77665544u, 0x4567), 0x44556677u);
    std::mt19937 rng(2);
    for (int i = 0; i < 1000; ++i) {
        uint32_t lo = rng(), hi = rng(), sel = rng() & 0x7777u;
        EXPECT_EQ(bc_byte_perm(lo, hi, sel), plain::byte_perm(lo, hi, sel));
    }
}

TEST(Dialect, LoadsAndStoresAreEndianExplicit) {
    const uint8_t bytes[9] = {0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
    const uint8_t* p = bytes + 1;  // misaligned on purpose
    EXPECT_EQ(bc_load_le32(p), 0x04030201u);
    EXPECT_EQ(bc_load_be32(p), 0x01020304u);
    EXPECT_EQ(bc_load_le64(p), 0x0807060504030201ull);
    EXPECT_EQ(bc_load_be64(p), 0x0102030405060708ull);
    uint8_t out[9] = {0};
    bc_store_le64(out + 1, 0x0807060504030201ull);
    EXPECT_EQ(0, std::memcmp(out + 1, p, 8));
    bc_store_be64(out + 1, 0x0102030405060708ull);
    EXPECT_EQ(0, std::memcmp(out + 1, p, 8));
    bc_store_be32(out, 0xa1b2c3d4u);
    EXPECT_EQ(out[0], 0xa1);
    EXPECT_EQ(out[3], 0xd4);
    uint32_t native;
    std::memcpy(&native, p, 4);
    EXPECT_EQ(BC_LITTLE_ENDIAN ? bc_load_le32(p) : bc_load_be32(p), native);
}

TEST(Dialect, ConstantTimeHelpers) {
    EXPECT_EQ(bc_ct_mask_nonzero32(0), 0u);
    EXPECT_EQ(bc_ct_mask_nonzero32(1), 0xffffffffu);
    EXPECT_EQ(bc_ct_mask_nonzero32(0x80000000u), 0xffffffffu);
    EXPECT_EQ(bc_ct_select32(0xffffffffu, 7, 9), 7u);
    EXPECT_EQ(bc_ct_select32(0, 7, 9), 9u);
}
