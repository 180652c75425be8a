// The portable CAST5 core (cast5_block.h through cast5.h) against OpenSSL's CAST5-ECB (its
// legacy provider, in a library context of the test's own) at every key length the
// catalogue takes, over partial batches, in place and out of place; the plain-dialect
// build; pyca's copy of RFC 2144's vectors; and the CPU backend's libcrypto path with
// keys of other lengths than OpenSSL's default. Expected values come from OpenSSL or
// from the vector files under tests/vectors, never from this source.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_block.h"
#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"
#include "core_test_util.h"
#include "cores/cast5/cast5.h"
#include "cores/cast5/cast5_block.h"
#include "cores/cast5/cast5_sbox.h"
#include "legacy_cipher_util.h"

namespace cast5_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace cast5_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

const core_test::LegacyCipher& openssl_cast5() {
    static const core_test::LegacyCipher c("CAST5-ECB");
    return c;
}

#define REQUIRE_OPENSSL_CAST5()                                                                              \
    do {                                                                                                  \
        if (!openssl_cast5().get()) GTEST_SKIP() << "skipped: OpenSSL's legacy provider (CAST5-ECB) is not available"; \
    } while (0)

Bytes openssl_ecb(bool enc, const Bytes& key, const uint8_t* in, size_t len) {
    return core_test::evp_ecb_key(openssl_cast5().get(), enc, key.data(), key.size(), in, len);
}

std::vector<uint32_t> expand(const Bytes& key) {
    std::vector<uint32_t> ks(bc::kCast5KsWords);
    EXPECT_TRUE(bc::cast5_expand_key(key.data(), key.size(), ks.data())) << key.size();
    return ks;
}

Bytes rnd(std::mt19937& g, size_t n) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<uint8_t>(g());
    return b;
}

}  // namespace

TEST(Cast5Core, KeyLengthsOutsideFiveToSixteenRefused) {
    uint8_t key[80] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kCast5KsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 4u, 17u, 24u, 32u, 80u}) {
        EXPECT_FALSE(bc::cast5_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len = bc::kCast5KeyMin; len <= bc::kCast5KeyMax; ++len)
        EXPECT_TRUE(bc::cast5_expand_key(key, len, ks.data()));
}

// Subkeys, then S1..S4 as RFC 2144 gives them, then the round count: 12 for keys up
// to 80 bits, 16 above. A short key is the key zero-padded to 16 bytes, whose
// subkeys are the same (only the round count differs).
TEST(Cast5Core, ExpandedKeyLayout) {
    std::mt19937 g(2144);
    for (size_t len = bc::kCast5KeyMin; len <= bc::kCast5KeyMax; ++len) {
        const Bytes key = rnd(g, len);
        const std::vector<uint32_t> ks = expand(key);
        ASSERT_EQ(size_t(BC_CAST5_KS_WORDS), ks.size());
        EXPECT_EQ(len <= 10 ? 12u : 16u, ks[BC_CAST5_ROUNDS_AT]) << len;
        for (int i = 0; i < 16; ++i) EXPECT_LT(ks[BC_CAST5_KR + i], 32u) << "Kr" << i + 1;
        for (int b = 0; b < 4; ++b)
            EXPECT_EQ(0, std::memcmp(ks.data() + BC_CAST5_S_OFFSET + 256 * b, bc::kCast5S[b], 1024)) << "S" << b + 1;
        Bytes padded = key;
        padded.resize(16, 0);
        const std::vector<uint32_t> p = expand(padded);
        EXPECT_EQ(0, std::memcmp(ks.data(), p.data(), 32 * sizeof(uint32_t))) << len;
    }
}

// The zero-padded 10- and 11-byte forms of one key share their subkeys: only the
// round count tells them apart.
TEST(Cast5Core, TwelveAndSixteenRoundsAreDifferentCiphers) {
    std::mt19937 g(80);
    Bytes k10 = rnd(g, 10), k11 = k10;
    k11.push_back(0);
    const std::vector<uint32_t> a = expand(k10), b = expand(k11);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), BC_CAST5_ROUNDS_AT * sizeof(uint32_t)));
    uint32_t w[2 * BC_CAST5_BATCH], v[2 * BC_CAST5_BATCH];
    for (auto& x : w) x = g();
    std::memcpy(v, w, sizeof w);
    bc_cast5_encrypt_batch(a.data(), w);
    bc_cast5_encrypt_batch(b.data(), v);
    EXPECT_NE(0, std::memcmp(w, v, sizeof w));
}

TEST(Cast5Core, MatchesOpenSslEveryKeyLengthAndPartialBatches) {
    REQUIRE_OPENSSL_CAST5();
    std::mt19937 g(20261125);
    for (size_t klen = bc::kCast5KeyMin; klen <= bc::kCast5KeyMax; ++klen) {
        const Bytes key = rnd(g, klen);
        const std::vector<uint32_t> ks = expand(key);
        const size_t n = klen == 5 ? 0 : klen == 6 ? 1 : klen == 7 ? 31 : klen == 8 ? 32 : klen == 9 ? 33 : g() % 101;
        const size_t len = 8 * n;
        const Bytes pt = rnd(g, len);
        const Bytes want = openssl_ecb(true, key, pt.data(), len);
        ASSERT_EQ(len, want.size());

        // out of place, both buffers misaligned by different offsets
        const size_t oi = 1 + g() % 7, oo = 1 + g() % 7;
        Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
        std::memcpy(inbuf.data() + oi, pt.data(), len);
        bc::cast5_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
        ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "key " << klen << " blocks " << n;
        for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
        for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

        // decryption against OpenSSL's, out of place
        const Bytes want_pt = openssl_ecb(false, key, want.data(), len);
        Bytes dec(len + 3);
        bc::cast5_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
        ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
        ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

        // in place, misaligned: encrypt then decrypt
        Bytes buf(len + 5);
        std::memcpy(buf.data() + 5, pt.data(), len);
        bc::cast5_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
        bc::cast5_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
    }
}

// Many random keys of random lengths, a few blocks each: the key schedule reads every entry of S1..S8 many times over.
TEST(Cast5Core, ManyRandomKeysAgainstOpenSsl) {
    REQUIRE_OPENSSL_CAST5();
    std::mt19937 g(2007);
    for (int t = 0; t < 2000; ++t) {
        const Bytes key = rnd(g, bc::kCast5KeyMin + g() % (bc::kCast5KeyMax - bc::kCast5KeyMin + 1)), pt = rnd(g, 8 * 4);
        const std::vector<uint32_t> ks = expand(key);
        Bytes got(pt.size());
        bc::cast5_encrypt_blocks(ks.data(), pt.data(), got.data(), 4);
        ASSERT_EQ(openssl_ecb(true, key, pt.data(), pt.size()), got) << "key of " << key.size() << " bytes, trial " << t;
    }
}

TEST(Cast5Core, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against OpenSSL (when it has CAST5), and
    // the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, cast5_plain::intrinsics());
    std::mt19937 g(128);
    for (size_t klen : {5u, 10u, 11u, 16u}) {
        const Bytes key = rnd(g, klen), blocks = rnd(g, 8 * BC_CAST5_BATCH);
        const std::vector<uint32_t> ks = expand(key);
        uint32_t w[2 * BC_CAST5_BATCH], p[2 * BC_CAST5_BATCH];
        for (int i = 0; i < 2 * BC_CAST5_BATCH; ++i) w[i] = bc_load_le32(blocks.data() + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_cast5_encrypt_batch(ks.data(), w);
        cast5_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        if (openssl_cast5().get()) {
            const Bytes want = openssl_ecb(true, key, blocks.data(), blocks.size());
            for (int i = 0; i < 2 * BC_CAST5_BATCH; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        }
        bc_cast5_decrypt_batch(ks.data(), w);
        cast5_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 2 * BC_CAST5_BATCH; ++i) ASSERT_EQ(bc_load_le32(blocks.data() + 4 * i), w[i]) << i;
    }
}

// RFC 2144 Appendix B.1 through pyca's copy (NIST format, lowercase field names: key,
// plaintext, ciphertext): 128-, 80- and 40-bit keys, so 16 and 12 rounds.
TEST(Cast5Core, Rfc2144Vectors) {
    const std::string path = vector_dir() + "/pyca-cryptography/ciphers/CAST5/cast5-ecb.txt";
    std::ifstream f(path);
    if (!f) GTEST_SKIP() << "skipped: " << path << " not found";
    std::string line, key_hex, pt_hex;
    int records = 0;
    while (std::getline(f, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        auto value = [&line]() { return line.substr(line.find('=') + 2); };
        if (line.rfind("key = ", 0) == 0) key_hex = value();
        else if (line.rfind("plaintext = ", 0) == 0) pt_hex = value();
        else if (line.rfind("ciphertext = ", 0) == 0) {
            const Bytes key = from_hex(key_hex), pt = from_hex(pt_hex), ct = from_hex(value());
            ASSERT_EQ(8u, pt.size());
            const std::vector<uint32_t> ks = expand(key);
            Bytes got(8);
            bc::cast5_encrypt_blocks(ks.data(), pt.data(), got.data(), 1);
            ASSERT_EQ(ct, got) << "key " << key_hex;
            bc::cast5_decrypt_blocks(ks.data(), ct.data(), got.data(), 1);
            ASSERT_EQ(pt, got) << "key " << key_hex;
            ++records;
        }
    }
    EXPECT_EQ(3, records);
}

// The CPU backend serves cast5-ecb and cast5-cbc from libcrypto (the legacy provider)
// and must hand it keys of every length, not only OpenSSL's default 16 bytes: its output
// matches the portable path's (cpu.impl=portable) and OpenSSL's own at odd lengths.
TEST(Cast5Core, CpuBackendLibcryptoTakesEveryKeyLength) {
    REQUIRE_OPENSSL_CAST5();
    bc::EvpBlockCiphers evp;
    evp.load();
    for (const char* name : {"cast5-ecb", "cast5-cbc"})
        EXPECT_EQ(bc::EvpBlockCiphers::Source::Legacy, evp.source(bc::find_algorithm(name)))
            << name << " is not served by libcrypto's legacy provider";
    EXPECT_EQ(nullptr, evp.find(bc::find_algorithm("cast5-ctr"))) << "OpenSSL has no CAST5-CTR";

    bc_context *lib = nullptr, *port = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &lib)) << bc_last_error();
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2,cpu.impl=portable", &port)) << bc_last_error();
    std::mt19937 g(32);
    for (size_t klen : {5u, 7u, 10u, 11u, 13u, 16u}) {
        const Bytes key = rnd(g, klen), iv = rnd(g, 8), pt = rnd(g, 8 * 1000);
        const Bytes want_ecb = openssl_ecb(true, key, pt.data(), pt.size());
        for (const char* name : {"cast5-ecb", "cast5-cbc"}) {
            const bool cbc = name[6] == 'c';
            Bytes a(pt.size()), b(pt.size());
            size_t na = 0, nb = 0;
            bc_key *ka = nullptr, *kb = nullptr;
            ASSERT_EQ(BC_OK, bc_key_create(lib, name, key.data(), klen, &ka)) << bc_last_error();
            ASSERT_EQ(BC_OK, bc_key_create(port, name, key.data(), klen, &kb)) << bc_last_error();
            ASSERT_EQ(BC_OK, bc_encrypt(ka, cbc ? iv.data() : nullptr, cbc ? 8 : 0, pt.data(), pt.size(), a.data(),
                                        a.size(), &na, nullptr))
                << bc_last_error();
            ASSERT_EQ(BC_OK, bc_encrypt(kb, cbc ? iv.data() : nullptr, cbc ? 8 : 0, pt.data(), pt.size(), b.data(),
                                        b.size(), &nb, nullptr))
                << bc_last_error();
            EXPECT_EQ(a, b) << name << " key of " << klen << " bytes: libcrypto and portable differ";
            if (!cbc) EXPECT_EQ(want_ecb, a) << "key of " << klen << " bytes";
            bc_key_destroy(ka);
            bc_key_destroy(kb);
        }
    }
    bc_context_destroy(lib);
    bc_context_destroy(port);
}
