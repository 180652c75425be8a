// The portable bitsliced ARIA core (aria_block.h through aria.h) against OpenSSL's
// EVP ARIA, and its generated networks against ARIA's definitions. Expected values
// come from OpenSSL or from the definitions (RFC 5794) computed here, never from
// tables in this source.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/aria/aria.h"
#include "cores/aria/aria_block.h"

namespace aria_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace aria_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

const EVP_CIPHER* ecb_cipher(size_t key_len) {
    return key_len == 16 ? EVP_aria_128_ecb() : key_len == 24 ? EVP_aria_192_ecb() : EVP_aria_256_ecb();
}

Bytes openssl_ecb(bool enc, const uint8_t* key, size_t key_len, const uint8_t* in, size_t len) {
    return core_test::evp_ecb(ecb_cipher(key_len), enc, key, in, len);
}

// The S-boxes from the ARIA specification (2.4.2), independently of the generator:
// SB1(x) = A x^-1 ^ 0x63, SB2(x) = B x^247 ^ 0xe2 over GF(2)[X]/(X^8 + X^4 + X^3 + X + 1),
// matrix row i = output bit i (bit 0 the least significant), column j = input bit j;
// SB3 and SB4 their inverses.
unsigned gf_mul(unsigned a, unsigned b) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        if ((b >> i) & 1) r ^= a;
        a = ((a << 1) ^ ((a & 0x80) ? 0x11bu : 0u)) & 0xffu;
    }
    return r;
}
unsigned gf_pow(unsigned x, int e) {
    unsigned r = 1;
    for (int i = 0; i < e; ++i) r = gf_mul(r, x);
    return r;
}
unsigned mat(const char* const rows[8], unsigned v) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        unsigned bit = 0;
        for (int j = 0; j < 8; ++j) bit ^= static_cast<unsigned>(rows[i][j] - '0') & (v >> j);
        r |= (bit & 1u) << i;
    }
    return r;
}
struct SBoxes {
    std::vector<uint8_t> sb[4];
};
SBoxes sboxes_by_definition() {
    static const char* const a[8] = {"10001111", "11000111", "11100011", "11110001",
                                     "11111000", "01111100", "00111110", "00011111"};
    static const char* const b[8] = {"01011110", "00111101", "11010111", "10011101",
                                     "00101100", "10000001", "01011101", "11010011"};
    SBoxes s;
    for (auto& t : s.sb) t.assign(256, 0);
    for (unsigned x = 0; x < 256; ++x) {
        s.sb[0][x] = static_cast<uint8_t>(mat(a, gf_pow(x, 254)) ^ 0x63);
        s.sb[1][x] = static_cast<uint8_t>(mat(b, gf_pow(x, 247)) ^ 0xe2);
    }
    for (unsigned x = 0; x < 256; ++x) {
        s.sb[2][s.sb[0][x]] = static_cast<uint8_t>(x);
        s.sb[3][s.sb[1][x]] = static_cast<uint8_t>(x);
    }
    return s;
}

// RFC 5794 2.4.3: output byte i of the diffusion layer A is the XOR of these bytes.
const int kATerms[16][7] = {
    {3, 4, 6, 8, 9, 13, 14}, {2, 5, 7, 8, 9, 12, 15}, {1, 4, 6, 10, 11, 12, 15}, {0, 5, 7, 10, 11, 13, 14},
    {0, 2, 5, 8, 11, 14, 15}, {1, 3, 4, 9, 10, 14, 15}, {0, 2, 7, 9, 10, 12, 13}, {1, 3, 6, 8, 11, 12, 13},
    {0, 1, 4, 7, 10, 13, 15}, {0, 1, 5, 6, 11, 12, 14}, {2, 3, 5, 6, 8, 13, 15}, {2, 3, 4, 7, 9, 12, 14},
    {1, 2, 6, 7, 9, 11, 12}, {0, 3, 6, 7, 8, 10, 13}, {0, 3, 4, 5, 9, 11, 14}, {1, 2, 4, 5, 8, 10, 15},
};

std::vector<uint32_t> expand(const uint8_t* key, size_t len) {
    std::vector<uint32_t> ks(bc::kAriaKsWords);
    EXPECT_TRUE(bc::aria_expand_key(key, len, ks.data()));
    return ks;
}

}  // namespace

TEST(AriaCore, SBoxNetworksMatchDefinition) {
    const SBoxes want = sboxes_by_definition();
    // SB1 is AES's S-box: the same definition, so the table check also ties the two
    for (unsigned x = 0; x < 256; ++x) ASSERT_EQ(x, want.sb[2][want.sb[0][x]]);
    for (int box = 0; box < 4; ++box) {
        std::vector<bool> seen(256, false);
        for (int base = 0; base < 256; base += 32) {
            bc_u32 x[8] = {0};
            for (int j = 0; j < 32; ++j)
                for (int b = 0; b < 8; ++b) x[b] |= static_cast<bc_u32>(((base + j) >> b) & 1) << j;
            if (box == 0) bc_aes_bs_sbox(x);
            else if (box == 1) bc_aria_bs_sb2(x);
            else if (box == 2) bc_aes_bs_inv_sbox(x);
            else bc_aria_bs_sb4(x);
            for (int j = 0; j < 32; ++j) {
                int v = 0;
                for (int b = 0; b < 8; ++b) v |= static_cast<int>((x[b] >> j) & 1) << b;
                ASSERT_EQ(want.sb[box][base + j], v) << "SB" << box + 1 << "(" << base + j << ")";
                seen[v] = true;
            }
        }
        for (int v = 0; v < 256; ++v) ASSERT_TRUE(seen[v]) << "SB" << box + 1 << " is not a permutation";
    }
}

TEST(AriaCore, DiffusionNetworkMatchesDefinition) {
    // Random words in every state and key position: each lane is an independent
    // 16-byte input, bit plane b of it in s[8p + b].
    std::mt19937 rng(5794);
    for (int trial = 0; trial < 8; ++trial) {
        bc_u32 s[128], k[128], want[128];
        for (auto& v : s) v = rng();
        for (auto& v : k) v = rng();
        for (int p = 0; p < 16; ++p)
            for (int b = 0; b < 8; ++b) {
                bc_u32 v = k[8 * p + b];
                for (int t : kATerms[p]) v ^= s[8 * t + b];
                want[8 * p + b] = v;
            }
        bc_aria_bs_diffuse(s, k);
        for (int i = 0; i < 128; ++i) ASSERT_EQ(want[i], s[i]) << i;
    }
}

TEST(AriaCore, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kAriaKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 15u, 17u, 20u, 23u, 25u, 31u, 33u, 48u, 64u}) {
        EXPECT_FALSE(bc::aria_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len : {16u, 24u, 32u}) EXPECT_TRUE(bc::aria_expand_key(key, len, ks.data())) << len;
}

TEST(AriaCore, ExpandedKeyHeader) {
    uint8_t key[32] = {0};
    for (size_t len : {16u, 24u, 32u}) {
        std::vector<uint32_t> ks = expand(key, len);
        const uint32_t rounds = len == 16 ? 12u : len == 24 ? 14u : 16u;
        EXPECT_EQ(rounds, ks[0]);
        EXPECT_EQ(8 * len, ks[1]);
        EXPECT_EQ(0u, ks[2]);
        EXPECT_EQ(0u, ks[3]);
        for (size_t i = 4; i < ks.size(); ++i) ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
        // the units past the last round are zero
        for (size_t u = rounds + 1; u < 17; ++u)
            for (size_t i = 0; i < 128; ++i) {
                ASSERT_EQ(0u, ks[BC_ARIA_KS_HEADER + 128 * u + i]);
                ASSERT_EQ(0u, ks[BC_ARIA_KS_DEC + 128 * u + i]);
            }
    }
}

TEST(AriaCore, MatchesOpenSslRandomKeysAndLengths) {
    std::mt19937 rng(20261201);
    for (size_t key_len : {16u, 24u, 32u}) {
        for (int trial = 0; trial < 12; ++trial) {
            uint8_t key[32];
            for (auto& c : key) c = static_cast<uint8_t>(rng());
            const std::vector<uint32_t> ks = expand(key, key_len);
            const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : trial == 3 ? 1 : rng() % 101;
            const size_t len = 16 * n;
            Bytes pt(len);
            for (auto& c : pt) c = static_cast<uint8_t>(rng());
            const Bytes want = openssl_ecb(true, key, key_len, pt.data(), len);
            ASSERT_EQ(len, want.size());

            // out of place, both buffers misaligned by different offsets
            const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
            Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
            std::memcpy(inbuf.data() + oi, pt.data(), len);
            bc::aria_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
            ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "key " << key_len << " blocks " << n;
            for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
            for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

            // decryption against OpenSSL's, out of place
            const Bytes want_pt = openssl_ecb(false, key, key_len, want.data(), len);
            Bytes dec(len + 3);
            bc::aria_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
            ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
            ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

            // decryption of random data (not a ciphertext of ours) against OpenSSL's
            const Bytes dec_want = openssl_ecb(false, key, key_len, pt.data(), len);
            Bytes dec2(len);
            bc::aria_decrypt_blocks(ks.data(), pt.data(), dec2.data(), n);
            ASSERT_EQ(dec_want, dec2);

            // in place, misaligned: encrypt then decrypt
            Bytes buf(len + 5);
            std::memcpy(buf.data() + 5, pt.data(), len);
            bc::aria_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
            bc::aria_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
        }
    }
}

TEST(AriaCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[4j + k] directly, against OpenSSL, and the build of the
    // core with the dialect's plain paths against this one.
    ASSERT_EQ(0, aria_plain::intrinsics());
    std::mt19937 rng(5794);
    for (size_t key_len : {16u, 24u, 32u}) {
        uint8_t key[32], blocks[512];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        uint32_t w[128], p[128];
        for (int i = 0; i < 128; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_aria_encrypt_batch(ks.data(), w);
        aria_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        const Bytes want = openssl_ecb(true, key, key_len, blocks, sizeof blocks);
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        bc_aria_decrypt_batch(ks.data(), w);
        aria_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}
