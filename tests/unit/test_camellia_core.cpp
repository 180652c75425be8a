// The portable bitsliced Camellia core (camellia_block.h through camellia.h) against
// OpenSSL's EVP Camellia and botan's published vectors. Expected values come from
// OpenSSL or from the vector file under tests/vectors, never from this source.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/camellia/camellia.h"
#include "cores/camellia/camellia_block.h"

namespace camellia_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace camellia_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

const EVP_CIPHER* ecb_cipher(size_t key_len) {
    return key_len == 16 ? EVP_camellia_128_ecb() : key_len == 24 ? EVP_camellia_192_ecb() : EVP_camellia_256_ecb();
}

Bytes openssl_ecb(bool enc, const uint8_t* key, size_t key_len, const uint8_t* in, size_t len) {
    return core_test::evp_ecb(ecb_cipher(key_len), enc, key, in, len);
}

// s1 from the Camellia paper's definition, independently of the generator's network:
// h(g(f(x ^ 0xc5))) ^ 0x6e, g the inverse in GF(2^4)[b]/(b^2 + b + a^3 + 1),
// GF(2^4) = GF(2)[a]/(a^4 + a + 1), low nibble the constant coefficient.
unsigned gf16_mul(unsigned a, unsigned b) {
    unsigned r = 0;
    for (int i = 0; i < 4; ++i)
        if ((b >> i) & 1) r ^= a << i;
    for (int i = 6; i >= 4; --i)
        if ((r >> i) & 1) r ^= 0x13u << (i - 4);
    return r;
}
unsigned tower_mul(unsigned x, unsigned y) {
    unsigned a0 = x & 15, a1 = x >> 4, b0 = y & 15, b1 = y >> 4, hh = gf16_mul(a1, b1);
    return (gf16_mul(a0, b0) ^ gf16_mul(hh, 9)) | ((gf16_mul(a0, b1) ^ gf16_mul(a1, b0) ^ hh) << 4);
}
// a[1..8], a1 the most significant bit
unsigned lin(unsigned v, const int (*terms)[3]) {
    auto bit = [v](int i) { return i ? (v >> (8 - i)) & 1u : 0u; };
    unsigned r = 0;
    for (int o = 0; o < 8; ++o) r |= (bit(terms[o][0]) ^ bit(terms[o][1]) ^ bit(terms[o][2])) << (7 - o);
    return r;
}
std::vector<uint8_t> s1_by_definition() {
    static const int f[8][3] = {{6, 2, 0}, {7, 1, 0}, {8, 5, 3}, {8, 3, 0}, {7, 4, 0}, {5, 2, 0}, {8, 1, 0}, {6, 4, 0}};
    static const int h[8][3] = {{5, 6, 2}, {6, 2, 0}, {7, 4, 0}, {8, 2, 0}, {7, 3, 0}, {8, 1, 0}, {5, 1, 0}, {6, 3, 0}};
    std::vector<uint8_t> inv(256, 0), s(256);
    for (unsigned x = 1; x < 256; ++x)
        for (unsigned y = 1; y < 256; ++y)
            if (tower_mul(x, y) == 1) inv[x] = static_cast<uint8_t>(y);
    for (unsigned x = 0; x < 256; ++x) s[x] = static_cast<uint8_t>(lin(inv[lin(x ^ 0xc5, f)], h) ^ 0x6e);
    return s;
}

std::vector<uint32_t> expand(const uint8_t* key, size_t len) {
    std::vector<uint32_t> ks(bc::kCamelliaKsWords);
    EXPECT_TRUE(bc::camellia_expand_key(key, len, ks.data()));
    return ks;
}

}  // namespace

TEST(CamelliaCore, S1NetworkMatchesDefinition) {
    const std::vector<uint8_t> s1 = s1_by_definition();
    std::vector<bool> seen(256, false);
    for (int base = 0; base < 256; base += 32) {
        bc_u32 x[8] = {0};
        for (int j = 0; j < 32; ++j)
            for (int b = 0; b < 8; ++b) x[b] |= static_cast<bc_u32>(((base + j) >> b) & 1) << j;
        bc_camellia_bs_s1(x);
        for (int j = 0; j < 32; ++j) {
            int v = 0;
            for (int b = 0; b < 8; ++b) v |= static_cast<int>((x[b] >> j) & 1) << b;
            ASSERT_EQ(s1[base + j], v) << "s1(" << base + j << ")";
            seen[v] = true;
        }
    }
    for (int v = 0; v < 256; ++v) ASSERT_TRUE(seen[v]) << "s1 is not a permutation";
}

TEST(CamelliaCore, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kCamelliaKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 15u, 17u, 20u, 23u, 25u, 31u, 33u, 48u, 64u}) {
        EXPECT_FALSE(bc::camellia_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len : {16u, 24u, 32u}) EXPECT_TRUE(bc::camellia_expand_key(key, len, ks.data())) << len;
}

TEST(CamelliaCore, ExpandedKeyHeader) {
    uint8_t key[32] = {0};
    for (size_t len : {16u, 24u, 32u}) {
        std::vector<uint32_t> ks = expand(key, len);
        EXPECT_EQ(len == 16 ? 3u : 4u, ks[0]);
        EXPECT_EQ(8 * len, ks[1]);
        EXPECT_EQ(8 * ks[0] + 2, ks[2]);
        for (size_t i = 4; i < ks.size(); ++i) ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
    }
}

TEST(CamelliaCore, MatchesOpenSslRandomKeysAndLengths) {
    std::mt19937 rng(20261125);
    for (size_t key_len : {16u, 24u, 32u}) {
        for (int trial = 0; trial < 12; ++trial) {
            uint8_t key[32];
            for (auto& c : key) c = static_cast<uint8_t>(rng());
            const std::vector<uint32_t> ks = expand(key, key_len);
            const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : rng() % 101;
            const size_t len = 16 * n;
            Bytes pt(len);
            for (auto& c : pt) c = static_cast<uint8_t>(rng());
            const Bytes want = openssl_ecb(true, key, key_len, pt.data(), len);
            ASSERT_EQ(len, want.size());

            // out of place, both buffers misaligned by different offsets
            const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
            Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
            std::memcpy(inbuf.data() + oi, pt.data(), len);
            bc::camellia_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
            ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len))
                << "key " << key_len << " blocks " << n;
            for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
            for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

            // decryption against OpenSSL's, out of place
            const Bytes want_pt = openssl_ecb(false, key, key_len, want.data(), len);
            Bytes dec(len + 3);
            bc::camellia_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
            ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
            ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

            // in place, misaligned: encrypt then decrypt
            Bytes buf(len + 5);
            std::memcpy(buf.data() + 5, pt.data(), len);
            bc::camellia_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
            bc::camellia_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
        }
    }
}

TEST(CamelliaCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[4j + k] directly, against OpenSSL, and the build of the
    // core with the dialect's plain paths against this one.
    ASSERT_EQ(0, camellia_plain::intrinsics());
    std::mt19937 rng(3713);
    for (size_t key_len : {16u, 24u, 32u}) {
        uint8_t key[32], blocks[512];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        uint32_t w[128], p[128];
        for (int i = 0; i < 128; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_camellia_encrypt_batch(ks.data(), w);
        camellia_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        const Bytes want = openssl_ecb(true, key, key_len, blocks, sizeof blocks);
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        bc_camellia_decrypt_batch(ks.data(), w);
        camellia_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}

TEST(CamelliaCore, BotanVectors) {
    const std::string path = vector_dir() + "/botan/src/tests/data/block/camellia.vec";
    std::ifstream f(path);
    if (!f) GTEST_SKIP() << "skipped: " << path << " not found";
    std::string line, key_hex, in_hex;
    int records = 0;
    while (std::getline(f, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        auto value = [&line]() { return line.substr(line.find('=') + 2); };
        if (line.rfind("Key = ", 0) == 0) key_hex = value();
        else if (line.rfind("In = ", 0) == 0) in_hex = value();
        else if (line.rfind("Out = ", 0) == 0) {
            const Bytes key = from_hex(key_hex), in = from_hex(in_hex), out = from_hex(value());
            ASSERT_EQ(in.size(), out.size());
            ASSERT_EQ(0u, in.size() % 16);
            const std::vector<uint32_t> ks = expand(key.data(), key.size());
            Bytes got(in.size());
            bc::camellia_encrypt_blocks(ks.data(), in.data(), got.data(), in.size() / 16);
            ASSERT_EQ(out, got) << "key " << key_hex;
            bc::camellia_decrypt_blocks(ks.data(), out.data(), got.data(), in.size() / 16);
            ASSERT_EQ(in, got) << "key " << key_hex;
            ++records;
        }
    }
    EXPECT_EQ(17, records);
}
