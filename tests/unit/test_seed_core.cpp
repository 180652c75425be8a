// The portable bitsliced SEED core (seed_block.h through seed.h) against OpenSSL's
// SEED-ECB and the RFC 4269 vectors. OpenSSL 3 keeps SEED in its legacy provider: the
// test loads it into a library context of its own (the process's default context is
// left alone). Expected values come from OpenSSL or from the vector files under
// tests/vectors, never from this source.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/seed/seed.h"
#include "cores/seed/seed_block.h"

namespace seed_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace seed_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

// OpenSSL's SEED-ECB from the legacy provider, in a library context owned by the test;
// nullptr when the provider cannot be loaded (the tests against OpenSSL then skip).
class LegacySeed {
public:
    LegacySeed() {
        ctx_ = OSSL_LIB_CTX_new();
        if (!ctx_) return;
        legacy_ = OSSL_PROVIDER_load(ctx_, "legacy");
        deflt_ = OSSL_PROVIDER_load(ctx_, "default");
        if (legacy_ && deflt_) ecb_ = EVP_CIPHER_fetch(ctx_, "SEED-ECB", nullptr);
    }
    ~LegacySeed() {
        EVP_CIPHER_free(ecb_);
        if (legacy_) OSSL_PROVIDER_unload(legacy_);
        if (deflt_) OSSL_PROVIDER_unload(deflt_);
        OSSL_LIB_CTX_free(ctx_);
    }
    const EVP_CIPHER* ecb() const { return ecb_; }

private:
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* legacy_ = nullptr;
    OSSL_PROVIDER* deflt_ = nullptr;
    EVP_CIPHER* ecb_ = nullptr;
};

const LegacySeed& legacy() {
    static const LegacySeed l;
    return l;
}

#define REQUIRE_OPENSSL_SEED()                                                                             \
    do {                                                                                                   \
        if (!legacy().ecb()) GTEST_SKIP() << "skipped: OpenSSL's legacy provider (SEED-ECB) is not available"; \
    } while (0)

Bytes openssl_ecb(bool enc, const uint8_t* key, const uint8_t* in, size_t len) {
    return core_test::evp_ecb(legacy().ecb(), enc, key, in, len);
}

// The S-boxes from the definition, independently of the generator's network:
// S1(x) = A(1) x^247 ^ 169, S2(x) = A(2) x^251 ^ 56 in GF(2)[x]/(x^8 + x^6 + x^5 + x + 1),
// A given by its column images (bit i of the input -> byte), bit 0 the least significant.
unsigned gf_mul(unsigned a, unsigned b) {
    unsigned r = 0;
    for (; b; b >>= 1) {
        if (b & 1) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= 0x163;
    }
    return r;
}
std::vector<uint8_t> sbox_by_definition(int which) {
    static const unsigned a1[8] = {0x2c, 0xd0, 0x69, 0xc2, 0x41, 0x44, 0x58, 0xe2};
    static const unsigned a2[8] = {0xd0, 0x2a, 0xe1, 0x2c, 0x21, 0x30, 0xa2, 0x6c};
    const unsigned* a = which == 1 ? a1 : a2;
    const int e = which == 1 ? 247 : 251;
    const unsigned c = which == 1 ? 169 : 56;
    std::vector<uint8_t> s(256);
    for (unsigned x = 0; x < 256; ++x) {
        unsigned p = 1;
        for (int i = 0; i < e; ++i) p = gf_mul(p, x);
        if (x == 0) p = 0;
        unsigned y = c;
        for (int i = 0; i < 8; ++i)
            if ((p >> i) & 1) y ^= a[i];
        s[x] = static_cast<uint8_t>(y);
    }
    return s;
}

std::vector<uint32_t> expand(const uint8_t* key) {
    std::vector<uint32_t> ks(bc::kSeedKsWords);
    EXPECT_TRUE(bc::seed_expand_key(key, 16, ks.data()));
    return ks;
}

}  // namespace

TEST(SeedCore, SboxNetworksMatchDefinition) {
    for (int which : {1, 2}) {
        const std::vector<uint8_t> want = sbox_by_definition(which);
        std::vector<bool> seen(256, false);
        for (int base = 0; base < 256; base += 32) {
            bc_u32 x[8] = {0};
            for (int j = 0; j < 32; ++j)
                for (int b = 0; b < 8; ++b) x[b] |= static_cast<bc_u32>(((base + j) >> b) & 1) << j;
            if (which == 1) bc_seed_bs_s1(x);
            else bc_seed_bs_s2(x);
            for (int j = 0; j < 32; ++j) {
                int v = 0;
                for (int b = 0; b < 8; ++b) v |= static_cast<int>((x[b] >> j) & 1) << b;
                ASSERT_EQ(want[base + j], v) << "S" << which << "(" << base + j << ")";
                seen[v] = true;
            }
        }
        for (int v = 0; v < 256; ++v) ASSERT_TRUE(seen[v]) << "S" << which << " is not a permutation";
    }
}

TEST(SeedCore, BitslicedAdderMatchesIntegers) {
    std::mt19937 rng(4269);
    uint32_t a[32], b[32];
    for (int j = 0; j < 32; ++j) a[j] = rng(), b[j] = rng();
    a[0] = b[0] = 0xffffffffu;  // lane 0: 2^32 - 1 + 2^32 - 1, every carry set
    for (int j = 1; j < 32; ++j) a[j] |= 1u, b[j] |= 1u;
    bc_u32 r[32];
    bc_seed_bs_add(a, b, r);
    for (int lane = 0; lane < 32; ++lane) {
        uint32_t x = 0, y = 0, z = 0;
        for (int j = 0; j < 32; ++j) {
            x |= ((a[j] >> lane) & 1u) << j;
            y |= ((b[j] >> lane) & 1u) << j;
            z |= ((r[j] >> lane) & 1u) << j;
        }
        ASSERT_EQ(x + y, z) << "lane " << lane;
    }
}

TEST(SeedCore, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kSeedKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 15u, 17u, 24u, 32u, 64u}) {
        EXPECT_FALSE(bc::seed_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    EXPECT_TRUE(bc::seed_expand_key(key, 16, ks.data()));
}

TEST(SeedCore, ExpandedKeyLayout) {
    uint8_t key[16] = {0};
    std::vector<uint32_t> ks = expand(key);
    EXPECT_EQ(16u, ks[0]);
    EXPECT_EQ(128u, ks[1]);
    EXPECT_EQ(0u, ks[2]);
    EXPECT_EQ(0u, ks[3]);
    for (size_t i = 4; i < ks.size(); ++i) ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
}

TEST(SeedCore, MatchesOpenSslRandomKeysAndLengths) {
    REQUIRE_OPENSSL_SEED();
    std::mt19937 rng(20261201);
    for (int trial = 0; trial < 30; ++trial) {
        uint8_t key[16];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : trial == 3 ? 1 : rng() % 101;
        const size_t len = 16 * n;
        Bytes pt(len);
        for (auto& c : pt) c = static_cast<uint8_t>(rng());
        const Bytes want = openssl_ecb(true, key, pt.data(), len);
        ASSERT_EQ(len, want.size());

        // out of place, both buffers misaligned by different offsets
        const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
        Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
        std::memcpy(inbuf.data() + oi, pt.data(), len);
        bc::seed_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
        ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "blocks " << n;
        for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
        for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

        // decryption against OpenSSL's, out of place
        const Bytes want_pt = openssl_ecb(false, key, want.data(), len);
        Bytes dec(len + 3);
        bc::seed_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
        ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
        ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

        // in place, misaligned: encrypt then decrypt
        Bytes buf(len + 5);
        std::memcpy(buf.data() + 5, pt.data(), len);
        bc::seed_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
        bc::seed_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
    }
}

TEST(SeedCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[4j + k] directly, against OpenSSL (when it has SEED),
    // and the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, seed_plain::intrinsics());
    std::mt19937 rng(4196);
    for (int trial = 0; trial < 3; ++trial) {
        uint8_t key[16], blocks[512];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        uint32_t w[128], p[128];
        for (int i = 0; i < 128; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_seed_encrypt_batch(ks.data(), w);
        seed_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        if (legacy().ecb()) {
            const Bytes want = openssl_ecb(true, key, blocks, sizeof blocks);
            for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        }
        bc_seed_decrypt_batch(ks.data(), w);
        seed_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}

// RFC 4269 Appendix B through pyca's copy (NIST format: KEY, PLAINTEXT, CIPHERTEXT).
TEST(SeedCore, Rfc4269Vectors) {
    const std::string path = vector_dir() + "/pyca-cryptography/ciphers/SEED/rfc-4269.txt";
    std::ifstream f(path);
    if (!f) GTEST_SKIP() << "skipped: " << path << " not found";
    std::string line, key_hex, pt_hex;
    int records = 0;
    while (std::getline(f, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        auto value = [&line]() { return line.substr(line.find('=') + 2); };
        if (line.rfind("KEY = ", 0) == 0) key_hex = value();
        else if (line.rfind("PLAINTEXT = ", 0) == 0) pt_hex = value();
        else if (line.rfind("CIPHERTEXT = ", 0) == 0) {
            const Bytes key = from_hex(key_hex), pt = from_hex(pt_hex), ct = from_hex(value());
            ASSERT_EQ(16u, key.size());
            ASSERT_EQ(16u, pt.size());
            const std::vector<uint32_t> ks = expand(key.data());
            Bytes got(16);
            bc::seed_encrypt_blocks(ks.data(), pt.data(), got.data(), 1);
            ASSERT_EQ(ct, got) << "key " << key_hex;
            bc::seed_decrypt_blocks(ks.data(), ct.data(), got.data(), 1);
            ASSERT_EQ(pt, got) << "key " << key_hex;
            ++records;
        }
    }
    EXPECT_EQ(4, records);
}

// The table form (seed_table_block.h, kept for measurement) against OpenSSL's SEED-ECB,
// both directions, over partial batches; its key layout from the bitsliced key's masks.
TEST(SeedCore, TableFormMatchesOpenSsl) {
    REQUIRE_OPENSSL_SEED();
    std::mt19937 rng(20261125);
    std::vector<uint32_t> ks(bc::kSeedTableKsWords);
    uint8_t bad[16] = {0};
    EXPECT_FALSE(bc::seed_table_expand_key(bad, 15, ks.data()));
    for (int trial = 0; trial < 12; ++trial) {
        uint8_t key[16];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        ASSERT_TRUE(bc::seed_table_expand_key(key, 16, ks.data()));
        const size_t n = trial == 0 ? 1 : trial == 1 ? 4 : trial == 2 ? 5 : rng() % 67;
        Bytes pt(16 * n);
        for (auto& c : pt) c = static_cast<uint8_t>(rng());
        const Bytes want = openssl_ecb(true, key, pt.data(), pt.size());
        Bytes ct(pt.size()), back(pt.size());
        bc::seed_table_encrypt_blocks(ks.data(), pt.data(), ct.data(), n);
        ASSERT_EQ(want, ct) << "blocks " << n;
        bc::seed_table_decrypt_blocks(ks.data(), ct.data(), back.data(), n);
        ASSERT_EQ(pt, back) << "blocks " << n;
    }
}
