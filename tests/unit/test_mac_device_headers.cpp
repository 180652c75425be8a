// The dialect headers the CUDA and OpenCL MAC kernels include, compiled on the
// host: modes/gcm/ghash_device.h against an independent carry-less multiply and
// reduction written here, and modes/poly1305/poly1305_device.h (radix 2^26)
// against the host's radix-2^44 Poly1305 (modes/poly1305/poly1305.cpp).
#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <cstring>
#include <vector>

#include "modes/gcm/ghash_device.h"
#include "modes/poly1305/poly1305.h"
#include "modes/poly1305/poly1305_device.h"

namespace {

std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    if (n) RAND_bytes(v.data(), static_cast<int>(n));
    return v;
}

bc_gf128 random_elem() {
    auto b = random_bytes(16);
    return bc_gf128_load(b.data());
}

bool eq(bc_gf128 a, bc_gf128 b) { return a.hi == b.hi && a.lo == b.lo; }

// Coefficient i (of x^i) of an element in GCM's bit order.
int coef(bc_gf128 a, int i) { return i < 64 ? (a.hi >> (63 - i)) & 1 : (a.lo >> (127 - i)) & 1; }

// Schoolbook: the 255-coefficient product, then reduction by x^128 = x^7 + x^2 + x + 1
// from the top down.
bc_gf128 reference_mul(bc_gf128 a, bc_gf128 b) {
    int p[255] = {0};
    for (int i = 0; i < 128; ++i)
        for (int j = 0; j < 128; ++j) p[i + j] ^= coef(a, i) & coef(b, j);
    for (int k = 254; k >= 128; --k) {
        if (!p[k]) continue;
        p[k] = 0;
        for (int t : {7, 2, 1, 0}) p[k - 128 + t] ^= 1;
    }
    bc_gf128 r = {0, 0};
    for (int i = 0; i < 128; ++i)
        if (p[i]) {
            if (i < 64) r.hi |= uint64_t(1) << (63 - i);
            else r.lo |= uint64_t(1) << (127 - i);
        }
    return r;
}

}  // namespace

TEST(GhashDevice, MultiplyAgainstSchoolbook) {
    for (int t = 0; t < 200; ++t) {
        bc_gf128 a = random_elem(), b = random_elem();
        ASSERT_TRUE(eq(bc_gf128_mul(a, b), reference_mul(a, b)));
    }
    bc_gf128 a = random_elem();
    EXPECT_TRUE(eq(bc_gf128_mul(a, bc_gf128_one()), a));
    bc_gf128 x = {uint64_t(1) << 62, 0};  // the element x
    EXPECT_TRUE(eq(bc_gf128_times_x(a), bc_gf128_mul(a, x)));
    bc_gf128 top = {0, 1};                // x^127: times x reduces to x^7 + x^2 + x + 1
    EXPECT_TRUE(eq(bc_gf128_times_x(top), reference_mul(top, x)));
}

TEST(GhashDevice, StepsSpreadOverAnotherLoopGiveTheProduct) {
    // The CUDA group kernel runs steps 8s..8s+7 one s at a time between its lookups.
    for (int t = 0; t < 50; ++t) {
        bc_gf128 a = random_elem(), b = random_elem();
        bc_gf128w z = {0, 0, 0, 0}, v = bc_gf128w_from64(b);
        const bc_gf128w aw = bc_gf128w_from64(a);
        for (int s = 0; s < 16; ++s) bc_gf128w_mul_steps(&z, &v, aw, s);
        EXPECT_TRUE(eq(bc_gf128w_to64(z), reference_mul(a, b)));
        EXPECT_TRUE(eq(bc_gf128w_to64(bc_gf128w_from64(a)), a));
        EXPECT_TRUE(eq(bc_gf128w_to64(bc_gf128w_xor(aw, bc_gf128w_from64(b))), bc_gf128_xor(a, b)));
    }
}

TEST(GhashDevice, NibbleShiftOfLittleEndianWords) {
    auto bytes = random_bytes(4);
    const uint32_t le = bc_load_le32(bytes.data()), be = bc_load_be32(bytes.data());
    for (int k = 0; k < 8; ++k)
        EXPECT_EQ((be >> (28 - 4 * k)) & 15u, (le >> bc_ghash_le_nibble_shift(k)) & 15u) << k;
}

TEST(GhashDevice, BlocksAreHornersRule) {
    auto data = random_bytes(16 * 9);
    bc_gf128 h = random_elem(), y = {0, 0};
    for (int i = 0; i < 9; ++i) y = reference_mul(bc_gf128_xor(y, bc_gf128_load(data.data() + 16 * i)), h);
    bc_gf128 zero = {0, 0};
    EXPECT_TRUE(eq(bc_ghash_blocks(zero, h, data.data(), 9), y));
}

namespace {

// The device partial: Horner over zero-padded blocks with the 2^128 bit, radix 2^26.
void device_partial(const uint8_t r16[16], const std::vector<uint8_t>& data, uint8_t out[17]) {
    bc_u32 r[5], h[5] = {0, 0, 0, 0, 0};
    bc_p26_load_r(r16, r);
    for (size_t i = 0; i < data.size(); i += 16) {
        uint8_t blk[16] = {0};
        std::memcpy(blk, data.data() + i, std::min<size_t>(16, data.size() - i));
        bc_u32 m[5];
        bc_p26_block(bc_load_le32(blk), bc_load_le32(blk + 4), bc_load_le32(blk + 8), bc_load_le32(blk + 12), m);
        bc_p26_add(h, m, h);
        bc_p26_mul(h, r, h);
    }
    bc_u64 sum[5];
    for (int i = 0; i < 5; ++i) sum[i] = h[i];
    bc_p26_finish(sum, out);
}

}  // namespace

TEST(Poly1305Device, PartialEqualsHostRadix44) {
    for (size_t len = 0; len <= 200; ++len) {
        auto r = random_bytes(16), data = random_bytes(len);
        uint8_t want[17], got[17];
        bc::poly1305_partial(r.data(), data.data(), data.size(), want);
        device_partial(r.data(), data, got);
        ASSERT_EQ(0, std::memcmp(want, got, 17)) << len;
    }
    // All-ones blocks and r with every unclamped bit set: the largest limbs.
    std::vector<uint8_t> ones(16 * 40, 0xff);
    uint8_t r[16], want[17], got[17];
    std::memset(r, 0xff, 16);
    bc::poly1305_partial(r, ones.data(), ones.size(), want);
    device_partial(r, ones, got);
    EXPECT_EQ(0, std::memcmp(want, got, 17));
}

TEST(Poly1305Device, MultiplyAndBytesEqualHost) {
    for (int t = 0; t < 200; ++t) {
        auto a_bytes = random_bytes(17), b_bytes = random_bytes(16);
        a_bytes[16] &= 3;  // below 2^130
        bc::Poly1305Elem a = bc::poly1305_load17(a_bytes.data()), b = bc::poly1305_load_r(b_bytes.data());
        uint8_t want[17], got[17];
        bc::poly1305_store17(bc::poly1305_mul(a, b), want);
        bc_u32 da[5], db[5], dp[5];
        bc_p26_from_bytes(a_bytes.data(), da);
        bc_p26_load_r(b_bytes.data(), db);
        bc_p26_mul(da, db, dp);
        bc_u64 sum[5];
        for (int i = 0; i < 5; ++i) sum[i] = dp[i];
        bc_p26_finish(sum, got);
        ASSERT_EQ(0, std::memcmp(want, got, 17));
        // from_bytes then finish is the identity on reduced values.
        uint8_t red[17];
        bc::poly1305_store17(a, red);
        bc_p26_from_bytes(red, da);
        for (int i = 0; i < 5; ++i) sum[i] = da[i];
        bc_p26_finish(sum, got);
        ASSERT_EQ(0, std::memcmp(red, got, 17));
    }
}
