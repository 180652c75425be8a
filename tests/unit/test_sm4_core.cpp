// The portable bitsliced SM4 core (sm4_block.h through sm4.h) against OpenSSL's EVP
// SM4 and the published vectors of OpenSSL's evpciph_sm4.txt. Expected values come
// from OpenSSL or from the vector file under tests/vectors, never from this source.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/sm4/sm4.h"
#include "cores/sm4/sm4_block.h"

namespace sm4_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace sm4_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

Bytes openssl_ecb(bool enc, const uint8_t* key, const uint8_t* in, size_t len) {
    return core_test::evp_ecb(EVP_sm4_ecb(), enc, key, in, len);
}

// The S-box from its algebraic description (Liu et al., ACISP 2007), independently of
// the generator's network: S(x) = A inv(A x ^ 0xd3) ^ 0xd3, inv in GF(2)[X]/(X^8 +
// X^7 + X^6 + X^5 + X^4 + X^2 + 1), row i of A (output bit i) = 11100101 (column 0
// first) rotated right by i. OpenSSL's ECB checks the result again through the cipher.
unsigned field_mul(unsigned a, unsigned b) {
    unsigned r = 0;
    for (; b; b >>= 1) {
        if (b & 1) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= 0x1f5;
    }
    return r;
}
unsigned mat_a(unsigned v) {
    static const unsigned row0[8] = {1, 1, 1, 0, 0, 1, 0, 1};
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        unsigned bit = 0;
        for (int j = 0; j < 8; ++j) bit ^= row0[(j - i + 8) % 8] & (v >> j) & 1u;
        r |= bit << i;
    }
    return r;
}
std::vector<uint8_t> sbox_by_definition() {
    std::vector<uint8_t> inv(256, 0), s(256);
    for (unsigned x = 1; x < 256; ++x)
        for (unsigned y = 1; y < 256; ++y)
            if (field_mul(x, y) == 1) inv[x] = static_cast<uint8_t>(y);
    for (unsigned x = 0; x < 256; ++x) s[x] = static_cast<uint8_t>(mat_a(inv[mat_a(x) ^ 0xd3]) ^ 0xd3);
    return s;
}

std::vector<uint32_t> expand(const uint8_t* key) {
    std::vector<uint32_t> ks(bc::kSm4KsWords);
    EXPECT_TRUE(bc::sm4_expand_key(key, 16, ks.data()));
    return ks;
}

}  // namespace

TEST(Sm4Core, SboxNetworkMatchesDefinition) {
    const std::vector<uint8_t> sbox = sbox_by_definition();
    std::vector<bool> seen(256, false);
    for (int base = 0; base < 256; base += 32) {
        bc_u32 x[8] = {0};
        for (int j = 0; j < 32; ++j)
            for (int b = 0; b < 8; ++b) x[b] |= static_cast<bc_u32>(((base + j) >> b) & 1) << j;
        bc_sm4_bs_sbox(x);
        for (int j = 0; j < 32; ++j) {
            int v = 0;
            for (int b = 0; b < 8; ++b) v |= static_cast<int>((x[b] >> j) & 1) << b;
            ASSERT_EQ(sbox[base + j], v) << "S(" << base + j << ")";
            seen[v] = true;
        }
    }
    for (int v = 0; v < 256; ++v) ASSERT_TRUE(seen[v]) << "S is not a permutation";
}

TEST(Sm4Core, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kSm4KsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 15u, 17u, 24u, 32u, 64u}) {
        EXPECT_FALSE(bc::sm4_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    EXPECT_TRUE(bc::sm4_expand_key(key, 16, ks.data()));
    for (uint32_t v : ks) ASSERT_TRUE(v == 0u || v == 0xffffffffu) << "not a mask word";
}

TEST(Sm4Core, MatchesOpenSslRandomKeysAndLengths) {
    std::mt19937 rng(329072016);
    for (int trial = 0; trial < 24; ++trial) {
        uint8_t key[16];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        const size_t n = trial == 0 ? 0 : trial == 1 ? 1 : trial == 2 ? 32 : trial == 3 ? 33 : rng() % 101;
        const size_t len = 16 * n;
        Bytes pt(len);
        for (auto& c : pt) c = static_cast<uint8_t>(rng());
        const Bytes want = openssl_ecb(true, key, pt.data(), len);
        ASSERT_EQ(len, want.size());

        // out of place, both buffers misaligned by different offsets
        const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
        Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
        std::memcpy(inbuf.data() + oi, pt.data(), len);
        bc::sm4_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
        ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "blocks " << n;
        for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
        for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

        // decryption against OpenSSL's, out of place
        const Bytes want_pt = openssl_ecb(false, key, want.data(), len);
        Bytes dec(len + 3);
        bc::sm4_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
        ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
        ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

        // in place, misaligned: encrypt then decrypt
        Bytes buf(len + 5);
        std::memcpy(buf.data() + 5, pt.data(), len);
        bc::sm4_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
        bc::sm4_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
    }
}

TEST(Sm4Core, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[4j + k] directly, against OpenSSL, and the build of the
    // core with the dialect's plain paths against this one.
    ASSERT_EQ(0, sm4_plain::intrinsics());
    std::mt19937 rng(32907);
    for (int trial = 0; trial < 3; ++trial) {
        uint8_t key[16], blocks[512];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        uint32_t w[128], p[128];
        for (int i = 0; i < 128; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_sm4_encrypt_batch(ks.data(), w);
        sm4_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        const Bytes want = openssl_ecb(true, key, blocks, sizeof blocks);
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        bc_sm4_decrypt_batch(ks.data(), w);
        sm4_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}

TEST(Sm4Core, PublishedEcbVector) {
    // The SM4-ECB stanzas of OpenSSL's evpciph_sm4.txt (the standard's example 1).
    const std::string path = vector_dir() + "/openssl/test/recipes/30-test_evp_data/evpciph_sm4.txt";
    std::ifstream f(path);
    if (!f) GTEST_SKIP() << "skipped: " << path << " not found";
    std::string line, cipher, key_hex, pt_hex;
    int records = 0;
    auto trim = [](std::string v) {
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
        return v;
    };
    while (std::getline(f, line)) {
        const size_t eq = line.find('=');
        if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
        const std::string name = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
        if (name == "Cipher") cipher = value;
        else if (name == "Key") key_hex = value;
        else if (name == "Plaintext") pt_hex = value;
        else if (name == "Ciphertext" && cipher == "SM4-ECB") {
            const Bytes key = from_hex(key_hex), pt = from_hex(pt_hex), ct = from_hex(value);
            ASSERT_EQ(16u, key.size());
            ASSERT_EQ(pt.size(), ct.size());
            ASSERT_EQ(0u, pt.size() % 16);
            const std::vector<uint32_t> ks = expand(key.data());
            Bytes got(pt.size());
            bc::sm4_encrypt_blocks(ks.data(), pt.data(), got.data(), pt.size() / 16);
            ASSERT_EQ(ct, got);
            bc::sm4_decrypt_blocks(ks.data(), ct.data(), got.data(), ct.size() / 16);
            ASSERT_EQ(pt, got);
            ++records;
        }
    }
    EXPECT_EQ(1, records);
}
