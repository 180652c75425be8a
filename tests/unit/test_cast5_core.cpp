// The portable CAST5 core (cast5_block.h through cast5.h) against OpenSSL's CAST5-ECB (its
// legacy provider, in a library context of the test's own) at every key length the
// catalogue takes, over partial batches, in place and out of place; the plain-dialect
// build; pyca's copy of RFC 2144's vectors; and the CPU backend's libcrypto path with
// keys of other lengths than OpenSSL's default. Expected values come from OpenSSL or
// from the vector files under tests/vectors, never from this source.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

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
using core_test::rnd;

const bc::BlockCipher& core() { return core_test::block_cipher("cast5"); }

const core_test::LegacyCipher& openssl_cast5() {
    static const core_test::LegacyCipher c("CAST5-ECB");
    return c;
}

std::vector<uint32_t> expand(const Bytes& key) { return core_test::expand(core(), key.data(), key.size()); }

}  // namespace

TEST(Cast5Core, KeyLengthsOutsideFiveToSixteenRefused) {
    core_test::expect_key_lengths(core(), {0, 1, 4, 17, 24, 32, 80},
                                  core_test::lengths_from_to(bc::kCast5KeyMin, bc::kCast5KeyMax));
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
    REQUIRE_LEGACY_CIPHER(openssl_cast5());
    core_test::every_key_length_against_openssl(core(), openssl_cast5(), bc::kCast5KeyMin, bc::kCast5KeyMax);
}

// Many random keys of random lengths, a few blocks each: the key schedule reads every entry of S1..S8 many times over.
TEST(Cast5Core, ManyRandomKeysAgainstOpenSsl) {
    REQUIRE_LEGACY_CIPHER(openssl_cast5());
    core_test::many_random_keys_against_openssl(core(), openssl_cast5(), bc::kCast5KeyMin, bc::kCast5KeyMax,
                                                2007, 2000);
}

TEST(Cast5Core, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against OpenSSL (when it has CAST5), and
    // the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, cast5_plain::intrinsics());
    const core_test::BatchFns batch = {bc_cast5_encrypt_batch, bc_cast5_decrypt_batch, cast5_plain::encrypt_batch,
                                       cast5_plain::decrypt_batch};
    std::mt19937 g(128);
    for (size_t klen : {5u, 10u, 11u, 16u}) {
        const Bytes key = rnd(g, klen), blocks = rnd(g, 8 * BC_CAST5_BATCH);
        const Bytes want = openssl_cast5().get() ? openssl_cast5().ecb(true, key, blocks.data(), blocks.size()) : Bytes();
        ASSERT_NO_FATAL_FAILURE(core_test::check_batch(batch, expand(key), blocks.data(), want)) << "key of " << klen;
    }
}

// RFC 2144 Appendix B.1 through pyca's copy (NIST format, lowercase field names: key,
// plaintext, ciphertext): 128-, 80- and 40-bit keys, so 16 and 12 rounds.
TEST(Cast5Core, Rfc2144Vectors) {
    const char* path = "pyca-cryptography/ciphers/CAST5/cast5-ecb.txt";
    const std::vector<core_test::Kat> kats = core_test::read_kats(path, "key", "plaintext", "ciphertext");
    if (kats.empty()) GTEST_SKIP() << "skipped: " << path << " not found";
    EXPECT_EQ(3u, kats.size());
    for (const core_test::Kat& k : kats) ASSERT_NO_FATAL_FAILURE(core_test::check_kat(core(), k));
}

TEST(Cast5Core, CpuBackendLibcryptoTakesEveryKeyLength) {
    REQUIRE_LEGACY_CIPHER(openssl_cast5());
    core_test::cpu_libcrypto_takes_every_key_length("cast5", openssl_cast5(), {5, 7, 10, 11, 13, 16});
}
