// Key lengths: a catalogue row takes key_size alone, or a range [key_min, key_max]
// with key_size its default (ciphers of variable key length). The catalogue's rows,
// what bc_algorithm_query reports, and what bc_key_create accepts, on a test-only row
// with a range over a toy cipher (not in the catalogue) and on the real rows.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "capi/capi_internal.h"
#include "catalog/catalog.h"

namespace {

using Bytes = std::vector<uint8_t>;

// A toy 64-bit "cipher" of 8- to 24-byte keys (test-only, no security): each block is
// XORed with a pad made from every key byte and the key length, so keys of different
// lengths give different outputs and a truncated key is noticed.
constexpr size_t kToyMin = 8, kToyMax = 24;

bool toy_expand(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len < kToyMin || len > kToyMax) return false;
    uint32_t a = 0x9e3779b9u ^ static_cast<uint32_t>(len), b = 0x7f4a7c15u;
    for (size_t i = 0; i < len; ++i) {
        a = (a ^ key[i]) * 0x01000193u;
        b = (b + key[i]) * 0x85ebca6bu + a;
    }
    ks[0] = a;
    ks[1] = b;
    return true;
}

void toy_crypt(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    for (size_t i = 0; i < 8 * n; ++i) out[i] = in[i] ^ static_cast<uint8_t>(ks[(i / 4) % 2] >> (8 * (i % 4)));
}

const bc::BlockCipher kToy = {"keyrange-test", 8, 32, 2, toy_expand, toy_crypt, toy_crypt};

bc::Algorithm toy_row() {
    bc::Algorithm a = {"keyrange-test-ecb", bc::Cipher::Block, bc::Mode::ECB, BC_KIND_BLOCK_MODE,
                       16, 0, 0, 0, 0, 0, 0, 8, UINT64_MAX, 0, nullptr, &kToy};
    a.key_min = kToyMin;
    a.key_max = kToyMax;
    return a;
}

struct Ctx {
    bc_context* ctx = nullptr;
    Ctx() { EXPECT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &ctx)) << bc_last_error(); }
    ~Ctx() { bc_context_destroy(ctx); }
};

}  // namespace

TEST(KeyLengths, EveryRowHasAConsistentRange) {
    size_t ranged = 0;
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i) {
        SCOPED_TRACE(a->name);
        // the benchmarks' noop is not in the C API's catalogue (test_catalog_public.cpp)
        if (bc::find_public_algorithm(a->name) == nullptr) continue;
        const size_t lo = bc::key_min_bytes(*a), hi = bc::key_max_bytes(*a);
        EXPECT_LE(lo, a->key_size);
        EXPECT_GE(hi, a->key_size);
        if (a->key_max == 0) {
            EXPECT_EQ(0u, a->key_min) << "key_min without key_max";
            EXPECT_EQ(a->key_size, lo);
            EXPECT_EQ(a->key_size, hi);
        } else {
            ++ranged;
            EXPECT_GE(a->key_min, 1u);
            EXPECT_LT(a->key_min, a->key_max);
            EXPECT_TRUE(a->mode == bc::Mode::ECB || a->mode == bc::Mode::CBC || a->mode == bc::Mode::CTR)
                << "a range of key lengths is defined for the plain block modes only";
        }
        bc_algorithm_info info;
        ASSERT_EQ(BC_OK, bc_algorithm_query(a->name, &info));
        EXPECT_EQ(a->key_size, info.key_size);
        EXPECT_EQ(lo, info.key_size_min);
        EXPECT_EQ(hi, info.key_size_max);
        EXPECT_EQ(a->key_size, bc_key_size(a->name));
    }
    std::printf("%zu catalogue rows take a range of key lengths\n", ranged);
}

TEST(KeyLengths, FixedRowsReportOneLength) {
    bc_algorithm_info info;
    ASSERT_EQ(BC_OK, bc_algorithm_query("aes-192-cbc", &info));
    EXPECT_EQ(24u, info.key_size_min);
    EXPECT_EQ(24u, info.key_size_max);
    ASSERT_EQ(BC_OK, bc_algorithm_query("aes-256-xts", &info));
    EXPECT_EQ(64u, info.key_size_min);
    EXPECT_EQ(64u, info.key_size_max);
}

TEST(KeyLengths, FixedRowsRefuseEveryOtherLength) {
    Ctx c;
    ASSERT_NE(nullptr, c.ctx);
    const Bytes key(64, 0x11);
    for (size_t len : {size_t(0), size_t(8), size_t(15), size_t(17), size_t(24), size_t(32)}) {
        bc_key* k = nullptr;
        EXPECT_EQ(BC_ERR_KEY_SIZE, bc_key_create(c.ctx, "aes-128-ctr", key.data(), len, &k)) << len;
        EXPECT_EQ(nullptr, k);
        EXPECT_NE(std::string::npos, std::string(bc_last_error()).find("takes a 16-byte key")) << bc_last_error();
    }
    bc_key* k = nullptr;
    ASSERT_EQ(BC_OK, bc_key_create(c.ctx, "aes-128-ctr", key.data(), 16, &k));
    bc_key_destroy(k);
}

TEST(KeyLengths, RangeRowTakesEveryLengthInItAndNoOther) {
    Ctx c;
    ASSERT_NE(nullptr, c.ctx);
    const bc::Algorithm row = toy_row();
    Bytes key(kToyMax + 8);
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(0x31 + 7 * i);
    const Bytes pt(64, 0x5c);
    std::vector<Bytes> outs;
    for (size_t len = 0; len <= kToyMax + 8; ++len) {
        SCOPED_TRACE("key length " + std::to_string(len));
        bc_key* k = nullptr;
        const bc::Status st = bc::key_create(c.ctx, &row, key.data(), len, &k);
        if (len < kToyMin || len > kToyMax) {
            EXPECT_EQ(BC_ERR_KEY_SIZE, st.code);
            EXPECT_EQ(nullptr, k);
            EXPECT_NE(std::string::npos, st.detail.find("takes a key of 8 to 24 bytes")) << st.detail;
            continue;
        }
        ASSERT_TRUE(st.is_ok()) << st.detail;
        ASSERT_NE(nullptr, k);
        // The cipher saw the whole key: the output is the toy's for exactly these bytes.
        uint32_t ks[2];
        ASSERT_TRUE(toy_expand(key.data(), len, ks));
        Bytes want(pt.size()), got(pt.size());
        toy_crypt(ks, pt.data(), want.data(), pt.size() / 8);
        size_t n = 0;
        ASSERT_EQ(BC_OK, bc_encrypt(k, nullptr, 0, pt.data(), pt.size(), got.data(), got.size(), &n, nullptr))
            << bc_last_error();
        EXPECT_EQ(want, got);
        for (const Bytes& o : outs) EXPECT_NE(o, got) << "a shorter key gave the same output";
        outs.push_back(got);
        bc_key_destroy(k);
    }
    EXPECT_EQ(kToyMax - kToyMin + 1, outs.size());
}
