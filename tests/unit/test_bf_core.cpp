// The portable Blowfish core (bf_block.h through bf.h) against OpenSSL's BF-ECB (its
// legacy provider, in a library context of the test's own) at every key length the
// catalogue takes, over partial batches, in place and out of place; the plain-dialect
// build; pyca's copy of Eric Young's vectors; and the CPU backend's libcrypto path with
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
#include "cores/bf/bf.h"
#include "cores/bf/bf_block.h"
#include "legacy_cipher_util.h"

namespace bf_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace bf_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

const core_test::LegacyCipher& openssl_bf() {
    static const core_test::LegacyCipher c("BF-ECB");
    return c;
}

#define REQUIRE_OPENSSL_BF()                                                                              \
    do {                                                                                                  \
        if (!openssl_bf().get()) GTEST_SKIP() << "skipped: OpenSSL's legacy provider (BF-ECB) is not available"; \
    } while (0)

Bytes openssl_ecb(bool enc, const Bytes& key, const uint8_t* in, size_t len) {
    return core_test::evp_ecb_key(openssl_bf().get(), enc, key.data(), key.size(), in, len);
}

std::vector<uint32_t> expand(const Bytes& key) {
    std::vector<uint32_t> ks(bc::kBfKsWords);
    EXPECT_TRUE(bc::bf_expand_key(key.data(), key.size(), ks.data())) << key.size();
    return ks;
}

Bytes rnd(std::mt19937& g, size_t n) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<uint8_t>(g());
    return b;
}

}  // namespace

TEST(BfCore, KeyLengthsOutsideFourToFiftySixRefused) {
    uint8_t key[80] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kBfKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 2u, 3u, 57u, 64u, 72u, 80u}) {
        EXPECT_FALSE(bc::bf_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len = bc::kBfKeyMin; len <= bc::kBfKeyMax; ++len) EXPECT_TRUE(bc::bf_expand_key(key, len, ks.data()));
}

TEST(BfCore, ExpandedKeyLayout) {
    std::mt19937 g(1993);
    const std::vector<uint32_t> ks = expand(rnd(g, 16));
    ASSERT_EQ(size_t(BC_BF_KS_WORDS), ks.size());
    for (int i = BC_BF_P_WORDS; i < BC_BF_S_OFFSET; ++i) EXPECT_EQ(0u, ks[i]) << "padding word " << i;
    // Keys that differ in their last byte only give different tables everywhere.
    Bytes k1 = rnd(g, 20), k2 = k1;
    k2[19] ^= 1;
    const std::vector<uint32_t> a = expand(k1), b = expand(k2);
    size_t same = 0;
    for (size_t i = 0; i < a.size(); ++i) same += (i >= BC_BF_P_WORDS && i < BC_BF_S_OFFSET) ? 0 : a[i] == b[i];
    EXPECT_LT(same, 4u);
}

TEST(BfCore, EncryptWordsMatchesTheBatch) {
    std::mt19937 g(56);
    const std::vector<uint32_t> ks = expand(rnd(g, 13));
    uint32_t w[2 * BC_BF_BATCH];
    for (auto& v : w) v = g();
    uint32_t want[2 * BC_BF_BATCH];
    for (int j = 0; j < BC_BF_BATCH; ++j) {
        uint32_t l = bc_bswap32(w[2 * j]), r = bc_bswap32(w[2 * j + 1]);
        bc_bf_encrypt_words(ks.data(), &l, &r);
        want[2 * j] = bc_bswap32(l);
        want[2 * j + 1] = bc_bswap32(r);
    }
    bc_bf_encrypt_batch(ks.data(), w);
    EXPECT_EQ(0, std::memcmp(want, w, sizeof w));
}

TEST(BfCore, MatchesOpenSslEveryKeyLengthAndPartialBatches) {
    REQUIRE_OPENSSL_BF();
    std::mt19937 g(20261125);
    for (size_t klen = bc::kBfKeyMin; klen <= bc::kBfKeyMax; ++klen) {
        const Bytes key = rnd(g, klen);
        const std::vector<uint32_t> ks = expand(key);
        const size_t n = klen == 4 ? 0 : klen == 5 ? 1 : klen == 6 ? 31 : klen == 7 ? 32 : klen == 8 ? 33 : g() % 101;
        const size_t len = 8 * n;
        const Bytes pt = rnd(g, len);
        const Bytes want = openssl_ecb(true, key, pt.data(), len);
        ASSERT_EQ(len, want.size());

        // out of place, both buffers misaligned by different offsets
        const size_t oi = 1 + g() % 7, oo = 1 + g() % 7;
        Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
        std::memcpy(inbuf.data() + oi, pt.data(), len);
        bc::bf_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
        ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "key " << klen << " blocks " << n;
        for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
        for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

        // decryption against OpenSSL's, out of place
        const Bytes want_pt = openssl_ecb(false, key, want.data(), len);
        Bytes dec(len + 3);
        bc::bf_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
        ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
        ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

        // in place, misaligned: encrypt then decrypt
        Bytes buf(len + 5);
        std::memcpy(buf.data() + 5, pt.data(), len);
        bc::bf_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
        bc::bf_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
    }
}

// Many random keys of random lengths, a few blocks each: the key schedule starts from every word of the pi tables.
TEST(BfCore, ManyRandomKeysAgainstOpenSsl) {
    REQUIRE_OPENSSL_BF();
    std::mt19937 g(307);
    for (int t = 0; t < 300; ++t) {
        const Bytes key = rnd(g, bc::kBfKeyMin + g() % (bc::kBfKeyMax - bc::kBfKeyMin + 1)), pt = rnd(g, 8 * 4);
        const std::vector<uint32_t> ks = expand(key);
        Bytes got(pt.size());
        bc::bf_encrypt_blocks(ks.data(), pt.data(), got.data(), 4);
        ASSERT_EQ(openssl_ecb(true, key, pt.data(), pt.size()), got) << "key of " << key.size() << " bytes, trial " << t;
    }
}

TEST(BfCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against OpenSSL (when it has BF), and
    // the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, bf_plain::intrinsics());
    std::mt19937 g(448);
    for (size_t klen : {4u, 16u, 37u, 56u}) {
        const Bytes key = rnd(g, klen), blocks = rnd(g, 8 * BC_BF_BATCH);
        const std::vector<uint32_t> ks = expand(key);
        uint32_t w[2 * BC_BF_BATCH], p[2 * BC_BF_BATCH];
        for (int i = 0; i < 2 * BC_BF_BATCH; ++i) w[i] = bc_load_le32(blocks.data() + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_bf_encrypt_batch(ks.data(), w);
        bf_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        if (openssl_bf().get()) {
            const Bytes want = openssl_ecb(true, key, blocks.data(), blocks.size());
            for (int i = 0; i < 2 * BC_BF_BATCH; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        }
        bc_bf_decrypt_batch(ks.data(), w);
        bf_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 2 * BC_BF_BATCH; ++i) ASSERT_EQ(bc_load_le32(blocks.data() + 4 * i), w[i]) << i;
    }
}

// Eric Young's vectors through pyca's copy (NIST format: KEY, PLAINTEXT, CIPHERTEXT).
TEST(BfCore, PycaVectors) {
    const std::string path = vector_dir() + "/pyca-cryptography/ciphers/Blowfish/bf-ecb.txt";
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
            ASSERT_EQ(8u, pt.size());
            const std::vector<uint32_t> ks = expand(key);
            Bytes got(8);
            bc::bf_encrypt_blocks(ks.data(), pt.data(), got.data(), 1);
            ASSERT_EQ(ct, got) << "key " << key_hex;
            bc::bf_decrypt_blocks(ks.data(), ct.data(), got.data(), 1);
            ASSERT_EQ(pt, got) << "key " << key_hex;
            ++records;
        }
    }
    EXPECT_EQ(55, records);
}

// The CPU backend serves bf-ecb and bf-cbc from libcrypto (the legacy provider) and
// must hand it keys of every length, not only OpenSSL's default 16 bytes: its output
// matches the portable path's (cpu.impl=portable) and OpenSSL's own at odd lengths.
TEST(BfCore, CpuBackendLibcryptoTakesEveryKeyLength) {
    REQUIRE_OPENSSL_BF();
    bc::EvpBlockCiphers evp;
    evp.load();
    for (const char* name : {"bf-ecb", "bf-cbc"})
        EXPECT_EQ(bc::EvpBlockCiphers::Source::Legacy, evp.source(bc::find_algorithm(name)))
            << name << " is not served by libcrypto's legacy provider";
    EXPECT_EQ(nullptr, evp.find(bc::find_algorithm("bf-ctr"))) << "OpenSSL has no BF-CTR";

    bc_context *lib = nullptr, *port = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &lib)) << bc_last_error();
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2,cpu.impl=portable", &port)) << bc_last_error();
    std::mt19937 g(32);
    for (size_t klen : {4u, 5u, 15u, 16u, 17u, 20u, 41u, 56u}) {
        const Bytes key = rnd(g, klen), iv = rnd(g, 8), pt = rnd(g, 8 * 1000);
        const Bytes want_ecb = openssl_ecb(true, key, pt.data(), pt.size());
        for (const char* name : {"bf-ecb", "bf-cbc"}) {
            const bool cbc = name[3] == 'c';
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
