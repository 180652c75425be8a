// Differential tests against OpenSSL's default (and legacy) provider through EVP: every
// cipher both providers have, random keys, IVs, AAD and lengths from 0 to 64 MiB, fed in
// random update sizes, on bulkcrypt's path (threshold 0) and under the shipped settings,
// where the provider's counters show which implementation ran each message. Ours must
// give OpenSSL's bytes and tags and open OpenSSL's output; a changed tag is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "provider_env.h"

namespace bcp {
namespace {

// The ciphers both providers have, by OpenSSL's name.
std::vector<std::string> shared_ciphers() {
    ProviderEnv& env = bcp::default_settings();
    std::vector<std::string> names;
    if (!env.loaded()) return names;
    EVP_CIPHER_do_all_provided(
        env.libctx(),
        [](EVP_CIPHER* c, void* arg) {
            if (std::strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "bulkcrypt") != 0) return;
            const std::string name = EVP_CIPHER_get0_name(c);
            if (EVP_CIPHER* theirs = bcp::default_settings().theirs(name)) {
                static_cast<std::vector<std::string>*>(arg)->push_back(name);
                EVP_CIPHER_free(theirs);
            }
        },
        &names);
    std::sort(names.begin(), names.end());
    return names;
}

TEST(ProviderDifferential, BothProvidersShareTheExpectedCiphers) {
    const std::vector<std::string> names = shared_ciphers();
    ASSERT_TRUE(bcp::default_settings().loaded()) << bcp::default_settings().error();
    // AES (15), ChaCha20 (2), Camellia (9), ARIA (12), SM4 (4), SEED, BF, CAST5, DES, DES-EDE3 (2 each)
    EXPECT_GE(names.size(), 52u);
    for (const char* n : {"AES-256-GCM", "ChaCha20-Poly1305", "DES-EDE3-CBC", "BF-CBC", "SEED-ECB", "CAST5-CBC"})
        EXPECT_NE(names.end(), std::find(names.begin(), names.end(), n)) << n;
}

class ProviderDifferential : public ::testing::TestWithParam<std::string> {};

TEST_P(ProviderDifferential, MatchesOpenSsl) {
    const std::string name = GetParam();
    ProviderEnv& direct = bcp::bulkcrypt_path();
    ProviderEnv& shipped = bcp::default_settings();
    ASSERT_TRUE(direct.loaded()) << direct.error();
    EVP_CIPHER* theirs = direct.theirs(name);
    ASSERT_NE(nullptr, theirs);
    const bool aead = EVP_CIPHER_get_flags(theirs) & EVP_CIPH_FLAG_AEAD_CIPHER;
    const bool xts = EVP_CIPHER_get_mode(theirs) == EVP_CIPH_XTS_MODE;
    const size_t block = static_cast<size_t>(EVP_CIPHER_get_block_size(theirs));
    std::mt19937 rng(static_cast<unsigned>(std::hash<std::string>{}(name)));
    // lengths: empty, short, around the threshold, and one of 32 to 64 MiB (XTS: one data
    // unit, which OpenSSL caps at 2^20 blocks)
    std::vector<size_t> lengths = {0, 1 + rng() % 64, 1 + rng() % 4096, 60000 + rng() % 10000,
                                   120000 + rng() % 20000, (size_t(1) << 20) + rng() % (size_t(3) << 20),
                                   (size_t(32) << 20) + rng() % ((size_t(32) << 20) + 1)};
    if (xts)
        for (size_t& l : lengths) l = std::min(std::max<size_t>(l, 16), size_t(16) << 20);
    EVP_CIPHER* shipped_ours = shipped.ours(name);
    ASSERT_NE(nullptr, shipped_ours);
    const size_t threshold = bcp::threshold_of(shipped_ours);  // under the shipped settings
    EVP_CIPHER_free(shipped_ours);
    ASSERT_NE(SIZE_MAX, threshold);
    const uint64_t direct_dev = direct.counter("bulkcrypt-device-calls"), direct_fb = direct.counter("bulkcrypt-fallback-calls");
    const uint64_t shipped_dev = shipped.counter("bulkcrypt-device-calls"), shipped_fb = shipped.counter("bulkcrypt-fallback-calls");
    uint64_t direct_msgs = 0, shipped_small = 0, shipped_large = 0;
    for (size_t len : lengths) {
        Message m;
        m.key = bcp::random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(theirs)), rng);
        if (xts) m.key[m.key.size() / 2] ^= 0x55;  // the halves differ
        // GCM nonces of 12 bytes, and sometimes of another length (1 to 64 bytes)
        size_t ivlen = static_cast<size_t>(EVP_CIPHER_get_iv_length(theirs));
        if (EVP_CIPHER_get_mode(theirs) == EVP_CIPH_GCM_MODE && rng() % 3 == 0) ivlen = 1 + rng() % 64;
        m.iv = bcp::random_bytes(ivlen, rng);
        m.aad = aead ? bcp::random_bytes(rng() % 70, rng) : Bytes();
        m.in = bcp::random_bytes(len, rng);
        const std::string at = name + ", " + std::to_string(len) + " bytes, IV " + std::to_string(ivlen);
        const Outcome want = bcp::run_message(theirs, m, Feed::kWhole, rng);
        ASSERT_TRUE(want.ok()) << at << ": OpenSSL refused";
        // on bulkcrypt's path, and under the shipped settings (the first piece decides)
        for (ProviderEnv* env : {&direct, &shipped}) {
            // the shipped settings differ from bulkcrypt's path only in the choice of path,
            // which the lengths up to 4 MiB decide: the largest message runs once
            if (env == &shipped && len > (size_t(4) << 20)) continue;
            EVP_CIPHER* ours = env->ours(name);
            ASSERT_NE(nullptr, ours) << name;
            const size_t first = env == &shipped && len >= threshold ? threshold : 0;
            const std::string where = at + (env == &direct ? " [bulkcrypt's path]" : " [shipped settings]");
            const Outcome got = bcp::run_message(ours, m, Feed::kRandomPieces, rng, first);
            ASSERT_TRUE(got.ok()) << where << ": init " << got.init_ok << " update " << got.update_ok;
            EXPECT_TRUE(want.out == got.out) << where << ": ciphertext differs";
            EXPECT_TRUE(want.tag == got.tag) << where << ": tag differs";
            Message open = m;
            open.enc = false;
            open.in = want.out;
            open.tag = want.tag;
            const Outcome back = bcp::run_message(ours, open, Feed::kRandomPieces, rng, first);
            ASSERT_TRUE(back.ok()) << where << ": OpenSSL's output not opened";
            EXPECT_TRUE(m.in == back.out) << where << ": plaintext differs";
            int msgs = 2;
            if (aead && len < (size_t(4) << 20)) {
                open.tag[rng() % open.tag.size()] ^= 0x10;
                const Outcome bad = bcp::run_message(ours, open, Feed::kRandomPieces, rng, first);
                EXPECT_FALSE(bad.final_ok) << where << ": a changed tag accepted";
                ++msgs;
            }
            if (env == &direct) direct_msgs += msgs;
            else (len < threshold ? shipped_small : shipped_large) += msgs;
            EVP_CIPHER_free(ours);
        }
    }
    // which implementation ran each message
    EXPECT_EQ(direct_msgs, direct.counter("bulkcrypt-device-calls") - direct_dev);
    EXPECT_EQ(0u, direct.counter("bulkcrypt-fallback-calls") - direct_fb);
    EXPECT_EQ(shipped_large, shipped.counter("bulkcrypt-device-calls") - shipped_dev);
    EXPECT_EQ(shipped_small, shipped.counter("bulkcrypt-fallback-calls") - shipped_fb);
    EVP_CIPHER_free(theirs);
}

INSTANTIATE_TEST_SUITE_P(Shared, ProviderDifferential, ::testing::ValuesIn(shared_ciphers()), [](const auto& info) {
    std::string n = info.param;
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
});

}  // namespace
}  // namespace bcp
