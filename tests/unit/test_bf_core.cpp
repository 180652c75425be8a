// The portable Blowfish core (bf_block.h through bf.h) against OpenSSL's BF-ECB (its
// legacy provider, in a library context of the test's own) at every key length the
// catalogue takes, over partial batches, in place and out of place; the plain-dialect
// build; pyca's copy of Eric Young's vectors; and the CPU backend's libcrypto path with
// keys of other lengths than OpenSSL's default. Expected values come from OpenSSL or
// from the vector files under tests/vectors, never from this source.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

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
using core_test::rnd;

const bc::BlockCipher& core() { return core_test::block_cipher("bf"); }

const core_test::LegacyCipher& openssl_bf() {
    static const core_test::LegacyCipher c("BF-ECB");
    return c;
}

std::vector<uint32_t> expand(const Bytes& key) { return core_test::expand(core(), key.data(), key.size()); }

}  // namespace

TEST(BfCore, KeyLengthsOutsideFourToFiftySixRefused) {
    core_test::expect_key_lengths(core(), {0, 1, 2, 3, 57, 64, 72, 80},
                                  core_test::lengths_from_to(bc::kBfKeyMin, bc::kBfKeyMax));
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
    REQUIRE_LEGACY_CIPHER(openssl_bf());
    core_test::every_key_length_against_openssl(core(), openssl_bf(), bc::kBfKeyMin, bc::kBfKeyMax);
}

// Many random keys of random lengths, a few blocks each: the key schedule starts from every word of the pi tables.
TEST(BfCore, ManyRandomKeysAgainstOpenSsl) {
    REQUIRE_LEGACY_CIPHER(openssl_bf());
    core_test::many_random_keys_against_openssl(core(), openssl_bf(), bc::kBfKeyMin, bc::kBfKeyMax,
                                                307, 300);
}

TEST(BfCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against OpenSSL (when it has BF), and
    // the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, bf_plain::intrinsics());
    const core_test::BatchFns batch = {bc_bf_encrypt_batch, bc_bf_decrypt_batch, bf_plain::encrypt_batch,
                                       bf_plain::decrypt_batch};
    std::mt19937 g(448);
    for (size_t klen : {4u, 16u, 37u, 56u}) {
        const Bytes key = rnd(g, klen), blocks = rnd(g, 8 * BC_BF_BATCH);
        const Bytes want = openssl_bf().get() ? openssl_bf().ecb(true, key, blocks.data(), blocks.size()) : Bytes();
        ASSERT_NO_FATAL_FAILURE(core_test::check_batch(batch, expand(key), blocks.data(), want)) << "key of " << klen;
    }
}

// Eric Young's vectors through pyca's copy (NIST format: KEY, PLAINTEXT, CIPHERTEXT).
TEST(BfCore, PycaVectors) {
    const char* path = "pyca-cryptography/ciphers/Blowfish/bf-ecb.txt";
    const std::vector<core_test::Kat> kats = core_test::read_kats(path, "KEY", "PLAINTEXT", "CIPHERTEXT");
    if (kats.empty()) GTEST_SKIP() << "skipped: " << path << " not found";
    EXPECT_EQ(55u, kats.size());
    for (const core_test::Kat& k : kats) ASSERT_NO_FATAL_FAILURE(core_test::check_kat(core(), k));
}

TEST(BfCore, CpuBackendLibcryptoTakesEveryKeyLength) {
    REQUIRE_LEGACY_CIPHER(openssl_bf());
    core_test::cpu_libcrypto_takes_every_key_length("bf", openssl_bf(), {4, 5, 15, 16, 17, 20, 41, 56});
}
