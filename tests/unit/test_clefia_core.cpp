// The portable bitsliced CLEFIA core (clefia_block.h through clefia.h) against RFC
// 6114's vectors (tests/vectors/clefia/rfc6114.txt) and against itself one block at a
// time; OpenSSL has no CLEFIA. Expected values come from the vector file, never from
// this source.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/clefia/clefia.h"
#include "cores/clefia/clefia_block.h"

namespace clefia_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace clefia_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

struct Kat {
    Bytes key, pt, ct;
};

// tests/vectors/clefia/rfc6114.txt: evp_test stanzas; a record ends at its Ciphertext.
std::vector<Kat> rfc6114_vectors() {
    std::ifstream f(vector_dir() + "/clefia/rfc6114.txt");
    std::vector<Kat> out;
    std::string line;
    Kat cur;
    while (std::getline(f, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        const std::string value = line.substr(line.find('=') + 2);
        if (line.rfind("Key = ", 0) == 0) cur.key = from_hex(value);
        else if (line.rfind("Plaintext = ", 0) == 0) cur.pt = from_hex(value);
        else if (line.rfind("Ciphertext = ", 0) == 0) {
            cur.ct = from_hex(value);
            out.push_back(cur);
            cur = Kat{};
        }
    }
    return out;
}

// S0 from RFC 6114's definition, independently of the generator's network:
// SS2[T0 ^ 2 T1] | SS3[2 T0 ^ T1], T0 = SS0[high nibble], T1 = SS1[low nibble],
// products in GF(2^4)/(z^4 + z + 1).
std::vector<uint8_t> s0_by_definition() {
    static const unsigned ss[4][16] = {{BC_CLEFIA_SS0}, {BC_CLEFIA_SS1}, {BC_CLEFIA_SS2}, {BC_CLEFIA_SS3}};
    auto mul2 = [](unsigned v) { v <<= 1; return (v & 16) ? v ^ 0x13 : v; };
    std::vector<uint8_t> s(256);
    for (unsigned x = 0; x < 256; ++x) {
        const unsigned t0 = ss[0][x >> 4], t1 = ss[1][x & 15];
        s[x] = static_cast<uint8_t>((ss[2][t0 ^ mul2(t1)] << 4) | ss[3][mul2(t0) ^ t1]);
    }
    return s;
}

// S1 as the affine maps around the inverse in GF(2^8)/(z^8 + z^4 + z^3 + z^2 + 1) that
// the generator found, with a scalar inverse (the network inverts in AES's field).
std::vector<uint8_t> s1_by_decomposition() {
    auto mul = [](unsigned a, unsigned b) {
        unsigned r = 0;
        for (; b; b >>= 1) {
            if (b & 1) r ^= a;
            a <<= 1;
            if (a & 0x100) a ^= 0x11d;
        }
        return r;
    };
    static const unsigned acols[8] = {BC_CLEFIA_S1_A_COLS}, bcols[8] = {BC_CLEFIA_S1_B_COLS};
    auto apply = [](const unsigned* cols, unsigned v) {
        unsigned r = 0;
        for (int i = 0; i < 8; ++i)
            if ((v >> i) & 1) r ^= cols[i];
        return r;
    };
    std::vector<unsigned> inv(256, 0);
    for (unsigned x = 1; x < 256; ++x)
        for (unsigned y = 1; y < 256; ++y)
            if (mul(x, y) == 1) inv[x] = y;
    std::vector<uint8_t> s(256);
    for (unsigned x = 0; x < 256; ++x)
        s[x] = static_cast<uint8_t>(apply(bcols, inv[apply(acols, x) ^ BC_CLEFIA_S1_A_CONST]) ^ BC_CLEFIA_S1_B_CONST);
    return s;
}

void check_network(void (*net)(bc_u32*), const std::vector<uint8_t>& want, const char* what) {
    std::vector<bool> seen(256, false);
    for (int base = 0; base < 256; base += 32) {
        bc_u32 x[8] = {0};
        for (int j = 0; j < 32; ++j)
            for (int b = 0; b < 8; ++b) x[b] |= static_cast<bc_u32>(((base + j) >> b) & 1) << j;
        net(x);
        for (int j = 0; j < 32; ++j) {
            int v = 0;
            for (int b = 0; b < 8; ++b) v |= static_cast<int>((x[b] >> j) & 1) << b;
            ASSERT_EQ(want[base + j], v) << what << "(" << base + j << ")";
            seen[v] = true;
        }
    }
    for (int v = 0; v < 256; ++v) ASSERT_TRUE(seen[v]) << what << " is not a permutation";
}

std::vector<uint32_t> expand(const uint8_t* key, size_t len) {
    std::vector<uint32_t> ks(bc::kClefiaKsWords);
    EXPECT_TRUE(bc::clefia_expand_key(key, len, ks.data()));
    return ks;
}

// ECB one block a call: the n = 1 path the RFC vectors check.
Bytes single_blocks(bool enc, const std::vector<uint32_t>& ks, const uint8_t* in, size_t n) {
    Bytes out(16 * n);
    for (size_t i = 0; i < n; ++i) {
        if (enc) bc::clefia_encrypt_blocks(ks.data(), in + 16 * i, out.data() + 16 * i, 1);
        else bc::clefia_decrypt_blocks(ks.data(), in + 16 * i, out.data() + 16 * i, 1);
    }
    return out;
}

}  // namespace

TEST(ClefiaCore, S0NetworkMatchesDefinition) { check_network(bc_clefia_bs_s0, s0_by_definition(), "S0"); }

TEST(ClefiaCore, S1NetworkMatchesDecomposition) { check_network(bc_clefia_bs_s1, s1_by_decomposition(), "S1"); }

TEST(ClefiaCore, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kClefiaKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 15u, 17u, 20u, 23u, 25u, 31u, 33u, 48u, 64u}) {
        EXPECT_FALSE(bc::clefia_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len : {16u, 24u, 32u}) EXPECT_TRUE(bc::clefia_expand_key(key, len, ks.data())) << len;
}

TEST(ClefiaCore, ExpandedKeyHeader) {
    uint8_t key[32] = {0};
    for (size_t len : {16u, 24u, 32u}) {
        std::vector<uint32_t> ks = expand(key, len);
        const uint32_t rounds = len == 16 ? 18u : len == 24 ? 22u : 26u;
        EXPECT_EQ(rounds, ks[0]);
        EXPECT_EQ(8 * len, ks[1]);
        EXPECT_EQ((rounds - 2) / 4, ks[2]);
        EXPECT_EQ(2u, rounds % 4) << "the core runs groups of four rounds and a tail of two";
        for (size_t i = 4; i < ks.size(); ++i) ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
        // nothing past the last round key
        for (size_t i = 4 + 32 * (4 + 2 * rounds); i < ks.size(); ++i) ASSERT_EQ(0u, ks[i]) << i;
    }
}

TEST(ClefiaCore, Rfc6114Vectors) {
    const std::vector<Kat> kats = rfc6114_vectors();
    ASSERT_EQ(3u, kats.size()) << "tests/vectors/clefia/rfc6114.txt";
    for (const Kat& k : kats) {
        ASSERT_EQ(16u, k.pt.size());
        ASSERT_EQ(16u, k.ct.size());
        const std::vector<uint32_t> ks = expand(k.key.data(), k.key.size());
        Bytes got(16);
        bc::clefia_encrypt_blocks(ks.data(), k.pt.data(), got.data(), 1);
        EXPECT_EQ(k.ct, got) << "key bytes " << k.key.size();
        bc::clefia_decrypt_blocks(ks.data(), k.ct.data(), got.data(), 1);
        EXPECT_EQ(k.pt, got) << "key bytes " << k.key.size();
        // every lane of a full batch, and a batch and a half
        Bytes many(16 * 48), out(16 * 48);
        for (size_t i = 0; i < 48; ++i) std::memcpy(many.data() + 16 * i, k.pt.data(), 16);
        bc::clefia_encrypt_blocks(ks.data(), many.data(), out.data(), 48);
        for (size_t i = 0; i < 48; ++i) ASSERT_EQ(0, std::memcmp(k.ct.data(), out.data() + 16 * i, 16)) << i;
    }
}

TEST(ClefiaCore, MultiBlockMatchesSingleBlocks) {
    std::mt19937 rng(6114);
    for (size_t key_len : {16u, 24u, 32u}) {
        for (int trial = 0; trial < 8; ++trial) {
            uint8_t key[32];
            for (auto& c : key) c = static_cast<uint8_t>(rng());
            const std::vector<uint32_t> ks = expand(key, key_len);
            const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : trial == 3 ? 1 : rng() % 101;
            const size_t len = 16 * n;
            Bytes pt(len);
            for (auto& c : pt) c = static_cast<uint8_t>(rng());
            const Bytes want = single_blocks(true, ks, pt.data(), n);

            // out of place, both buffers misaligned by different offsets
            const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
            Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
            std::memcpy(inbuf.data() + oi, pt.data(), len);
            bc::clefia_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
            ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "key " << key_len << " blocks " << n;
            for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
            for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

            // decryption, out of place, against the single-block path and the plaintext
            const Bytes want_pt = single_blocks(false, ks, want.data(), n);
            ASSERT_EQ(pt, want_pt);
            Bytes dec(len + 3);
            bc::clefia_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
            ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

            // in place, misaligned: encrypt then decrypt
            Bytes buf(len + 5);
            std::memcpy(buf.data() + 5, pt.data(), len);
            bc::clefia_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
            bc::clefia_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
        }
    }
}

TEST(ClefiaCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[4j + k] directly, against the block functions, and the
    // build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, clefia_plain::intrinsics());
    std::mt19937 rng(2011);
    for (size_t key_len : {16u, 24u, 32u}) {
        uint8_t key[32], blocks[512];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        uint32_t w[128], p[128];
        for (int i = 0; i < 128; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_clefia_encrypt_batch(ks.data(), w);
        clefia_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        const Bytes want = single_blocks(true, ks, blocks, 32);
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        bc_clefia_decrypt_batch(ks.data(), w);
        clefia_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 128; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}
