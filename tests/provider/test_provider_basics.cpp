// The provider as OpenSSL sees it: it loads from a config file and names itself; its
// settings are read and a bad one stops it from loading; it offers every catalogue cipher
// (OpenSSL's names, and bulkcrypt's for the ciphers OpenSSL lacks); a context serves one
// message after another with only a new IV; the checks OpenSSL's own ciphers make (XTS's
// two key halves) are made.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>

#include <cctype>
#include <cstring>
#include <set>
#include <thread>
#include <vector>
#include <string>

#include "provider_env.h"

namespace {

using bcp::Bytes;
using bcp::Feed;
using bcp::Message;
using bcp::ProviderEnv;

TEST(ProviderBasics, LoadsFromAConfigFileAndNamesItself) {
    ProviderEnv& env = bcp::default_settings();
    ASSERT_TRUE(env.loaded()) << env.error();
    EXPECT_EQ("bulkcrypt", env.text(OSSL_PROV_PARAM_NAME));
    EXPECT_FALSE(env.text(OSSL_PROV_PARAM_VERSION).empty());
    EXPECT_FALSE(env.text("bulkcrypt-device").empty());
    // the measured defaults: AES and ChaCha20 (the CPU pool) and the others (the GPU)
    EXPECT_EQ(uint64_t(1) << 20, env.counter("bulkcrypt-threshold-fast"));
    EXPECT_EQ(uint64_t(64) << 10, env.counter("bulkcrypt-threshold-other"));
    EVP_CIPHER* aes = env.ours("AES-256-GCM");
    EVP_CIPHER* seed = env.ours("SEED-CBC");
    ASSERT_TRUE(aes && seed);
    EXPECT_EQ(size_t(1) << 20, bcp::threshold_of(aes));
    EXPECT_EQ(size_t(64) << 10, bcp::threshold_of(seed));
    EVP_CIPHER_free(aes);
    EVP_CIPHER_free(seed);
}

TEST(ProviderBasics, ReadsItsSettings) {
    ProviderEnv env("device = cpu\nthreshold = 1M");
    ASSERT_TRUE(env.loaded()) << env.error();
    EXPECT_EQ(uint64_t(1) << 20, env.counter("bulkcrypt-threshold-fast"));
    EXPECT_EQ(uint64_t(1) << 20, env.counter("bulkcrypt-threshold-other"));
    EXPECT_EQ(0u, env.text("bulkcrypt-device").rfind("cpu", 0)) << env.text("bulkcrypt-device");
    ProviderEnv plain("threshold = 4096");
    ASSERT_TRUE(plain.loaded()) << plain.error();
    EXPECT_EQ(4096u, plain.counter("bulkcrypt-threshold-other"));
}

// A setting that does not parse stops the provider from loading (and says so in OpenSSL's
// error queue) rather than running with a guess.
TEST(ProviderBasics, RefusesABadSetting) {
    for (const char* bad : {"threshold = lots", "threshold = 12X", "device = gpu7"}) {
        ERR_clear_error();
        ProviderEnv env(bad);
        EXPECT_FALSE(env.loaded()) << bad;
        bool said = false;
        const char* data = nullptr;
        int flags = 0;
        while (unsigned long e = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags))
            if (e && data && (flags & ERR_TXT_STRING) && std::strstr(data, "bulkcrypt")) said = true;
        EXPECT_TRUE(said) << bad << ": no bulkcrypt message in OpenSSL's error queue";
    }
}

TEST(ProviderBasics, OffersTheCatalogue) {
    ProviderEnv& env = bcp::default_settings();
    ASSERT_TRUE(env.loaded()) << env.error();
    std::set<std::string> names;
    EVP_CIPHER_do_all_provided(
        env.libctx(),
        [](EVP_CIPHER* c, void* arg) {
            if (std::strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "bulkcrypt") != 0) return;
            EVP_CIPHER_names_do_all(
                c,
                [](const char* n, void* a) {
                    std::string lower(n);  // names are case-insensitive; OpenSSL keeps one spelling
                    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                    static_cast<std::set<std::string>*>(a)->insert(lower);
                },
                arg);
        },
        &names);
    // OpenSSL's names (aliases included) and bulkcrypt's own ciphers
    for (const char* n : {"aes-128-ecb", "aes-256-cbc", "aes-192-ctr", "aes-256-xts", "aes-256-gcm", "id-aes256-gcm",
                          "chacha20", "chacha20-poly1305", "camellia-256-cbc", "aria-128-gcm", "sm4-ctr", "seed-cbc",
                          "bf-cbc", "cast5-ecb", "des-ede3-cbc", "xchacha20-poly1305", "salsa20", "clefia-128-ctr",
                          "hight-ctr", "misty1-cbc", "present80-ecb"})
        EXPECT_TRUE(names.count(n)) << n << " not offered";
}

// A context keyed once serves message after message given only a new IV (as TLS 1.3 does
// each record), on both paths, with the default provider's results.
TEST(ProviderBasics, ReusesAKeyedContext) {
    for (ProviderEnv* env : {&bcp::default_settings(), &bcp::bulkcrypt_path()}) {
        ASSERT_TRUE(env->loaded()) << env->error();
        EVP_CIPHER* ours = env->ours("AES-256-GCM");
        EVP_CIPHER* theirs = env->theirs("AES-256-GCM");
        ASSERT_TRUE(ours && theirs);
        std::mt19937 rng(3);
        const Bytes key = bcp::random_bytes(32, rng);
        EVP_CIPHER_CTX* a = EVP_CIPHER_CTX_new();
        EVP_CIPHER_CTX* b = EVP_CIPHER_CTX_new();
        ASSERT_EQ(1, EVP_EncryptInit_ex2(a, ours, key.data(), nullptr, nullptr));
        ASSERT_EQ(1, EVP_EncryptInit_ex2(b, theirs, key.data(), nullptr, nullptr));
        for (int record = 0; record < 5; ++record) {
            const Bytes iv = bcp::random_bytes(12, rng), aad = bcp::random_bytes(13, rng);
            const Bytes pt = bcp::random_bytes(100 + record * 1000, rng);
            Bytes out[2], tag[2];
            EVP_CIPHER_CTX* ctxs[2] = {a, b};
            for (int i = 0; i < 2; ++i) {
                int l = 0, f = 0;
                out[i].assign(pt.size(), 0);
                tag[i].assign(16, 0);
                ASSERT_EQ(1, EVP_EncryptInit_ex2(ctxs[i], nullptr, nullptr, iv.data(), nullptr));
                ASSERT_EQ(1, EVP_EncryptUpdate(ctxs[i], nullptr, &l, aad.data(), static_cast<int>(aad.size())));
                ASSERT_EQ(1, EVP_EncryptUpdate(ctxs[i], out[i].data(), &l, pt.data(), static_cast<int>(pt.size())));
                ASSERT_EQ(1, EVP_EncryptFinal_ex(ctxs[i], out[i].data() + l, &f));
                ASSERT_EQ(1, EVP_CIPHER_CTX_ctrl(ctxs[i], EVP_CTRL_AEAD_GET_TAG, 16, tag[i].data()));
            }
            EXPECT_TRUE(out[0] == out[1]) << "record " << record;
            EXPECT_TRUE(tag[0] == tag[1]) << "record " << record;
        }
        EVP_CIPHER_CTX_free(a);
        EVP_CIPHER_CTX_free(b);
        EVP_CIPHER_free(ours);
        EVP_CIPHER_free(theirs);
    }
}

// A keyed context re-initialised with a key that differs in one byte (first, middle, last)
// takes the new key on both paths; with the same key it keeps its state and still agrees.
TEST(ProviderBasics, RekeysWhenAnyKeyByteChanges) {
    for (ProviderEnv* env : {&bcp::default_settings(), &bcp::bulkcrypt_path()}) {
        ASSERT_TRUE(env->loaded()) << env->error();
        for (const char* name : {"AES-192-CTR", "ChaCha20-Poly1305", "BF-ECB"}) {
            EVP_CIPHER* ours = env->ours(name);
            EVP_CIPHER* theirs = env->theirs(name);
            ASSERT_TRUE(ours && theirs) << name;
            // Blowfish with a 13-byte key: a length that is not a whole number of words
            const bool bf = std::string(name) == "BF-ECB";
            const size_t keylen = bf ? 13 : static_cast<size_t>(EVP_CIPHER_get_key_length(ours));
            const size_t ivlen = static_cast<size_t>(EVP_CIPHER_get_iv_length(ours));
            std::mt19937 rng(11);
            Bytes key = bcp::random_bytes(keylen, rng);
            const Bytes iv = bcp::random_bytes(ivlen, rng), pt = bcp::random_bytes(64, rng);
            EVP_CIPHER_CTX* a = EVP_CIPHER_CTX_new();
            ASSERT_EQ(1, EVP_EncryptInit_ex2(a, ours, nullptr, nullptr, nullptr));
            EVP_CIPHER_CTX_set_padding(a, 0);
            if (bf) ASSERT_EQ(1, EVP_CIPHER_CTX_set_key_length(a, static_cast<int>(keylen)));
            const long kSameKey = -1;
            for (long flip : {0L, static_cast<long>(keylen / 2), static_cast<long>(keylen - 1), kSameKey}) {
                if (flip != kSameKey) key[static_cast<size_t>(flip)] ^= 0x80;
                Bytes want(pt.size() + 16), got(pt.size() + 16);
                int l = 0, f = 0;
                EVP_CIPHER_CTX* b = EVP_CIPHER_CTX_new();
                ASSERT_EQ(1, EVP_EncryptInit_ex2(b, theirs, nullptr, nullptr, nullptr));
                if (bf) ASSERT_EQ(1, EVP_CIPHER_CTX_set_key_length(b, static_cast<int>(keylen)));
                ASSERT_EQ(1, EVP_EncryptInit_ex2(b, nullptr, key.data(), ivlen ? iv.data() : nullptr, nullptr));
                EVP_CIPHER_CTX_set_padding(b, 0);
                ASSERT_EQ(1, EVP_EncryptUpdate(b, want.data(), &l, pt.data(), static_cast<int>(pt.size())));
                ASSERT_EQ(1, EVP_EncryptFinal_ex(b, want.data() + l, &f));
                EVP_CIPHER_CTX_free(b);
                ASSERT_EQ(1, EVP_EncryptInit_ex2(a, nullptr, key.data(), ivlen ? iv.data() : nullptr, nullptr));
                ASSERT_EQ(1, EVP_EncryptUpdate(a, got.data(), &l, pt.data(), static_cast<int>(pt.size())));
                ASSERT_EQ(1, EVP_EncryptFinal_ex(a, got.data() + l, &f));
                EXPECT_TRUE(want == got) << name << ", key byte changed: " << flip;
            }
            EVP_CIPHER_CTX_free(a);
            EVP_CIPHER_free(ours);
            EVP_CIPHER_free(theirs);
        }
    }
}

// OpenSSL refuses XTS keys whose two halves are equal when encrypting; so does the provider.
TEST(ProviderBasics, RefusesEqualXtsHalvesWhenEncrypting) {
    ProviderEnv& env = bcp::bulkcrypt_path();
    ASSERT_TRUE(env.loaded()) << env.error();
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        EVP_CIPHER* c = env.ours(name);
        ASSERT_NE(nullptr, c) << name;
        const Bytes key(static_cast<size_t>(EVP_CIPHER_get_key_length(c)), 0x42), iv(16, 1);
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        EXPECT_NE(1, EVP_EncryptInit_ex2(ctx, c, key.data(), iv.data(), nullptr)) << name;
        EXPECT_EQ(1, EVP_DecryptInit_ex2(ctx, c, key.data(), iv.data(), nullptr)) << name;
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(c);
    }
}

// ChaCha20-Poly1305 nonces shorter than 12 bytes are those of OpenSSL 3.2 and later:
// zero-padded at the front (OpenSSL 3.0 and 3.1 refuse them), on both paths.
TEST(ProviderBasics, ShortChaChaPolyNoncesAsOpenSsl) {
    std::mt19937 rng(8);
    for (ProviderEnv* env : {&bcp::default_settings(), &bcp::bulkcrypt_path()}) {
        ASSERT_TRUE(env->loaded()) << env->error();
        EVP_CIPHER* ours = env->ours("ChaCha20-Poly1305");
        EVP_CIPHER* theirs = env->theirs("ChaCha20-Poly1305");
        ASSERT_TRUE(ours && theirs);
        for (size_t ivlen : {size_t(1), size_t(8), size_t(11), size_t(12)}) {
            Message m;
            m.key = bcp::random_bytes(32, rng);
            m.iv = bcp::random_bytes(ivlen, rng);
            m.aad = bcp::random_bytes(20, rng);
            m.in = bcp::random_bytes(1000, rng);
            Message padded = m;
            padded.iv.insert(padded.iv.begin(), 12 - ivlen, 0);
            const bcp::Outcome want = bcp::run_message(theirs, padded, Feed::kWhole, rng);
            const bcp::Outcome got = bcp::run_message(ours, m, Feed::kRandomPieces, rng);
            ASSERT_TRUE(want.ok() && got.ok()) << ivlen;
            EXPECT_TRUE(want.out == got.out) << ivlen;
            EXPECT_TRUE(want.tag == got.tag) << ivlen;
        }
        EVP_CIPHER_free(ours);
        EVP_CIPHER_free(theirs);
    }
}

// Threads share one provider (its devices, counters and OpenSSL's ciphers), each with its
// own cipher contexts, as OpenSSL expects: every message still matches the default provider.
TEST(ProviderBasics, ThreadsShareTheProvider) {
    for (ProviderEnv* env : {&bcp::default_settings(), &bcp::bulkcrypt_path()}) {
        ASSERT_TRUE(env->loaded()) << env->error();
        const uint64_t before = env->counter("bulkcrypt-device-calls") + env->counter("bulkcrypt-fallback-calls");
        std::vector<std::thread> threads;
        std::vector<int> bad(6, 0);
        for (int t = 0; t < 6; ++t) {
            threads.emplace_back([env, t, &bad] {
                std::mt19937 rng(100 + t);
                const char* name = t % 2 ? "SEED-CBC" : "AES-256-GCM";
                EVP_CIPHER* ours = env->ours(name);
                EVP_CIPHER* theirs = env->theirs(name);
                for (int i = 0; i < 12 && ours && theirs; ++i) {
                    Message m;
                    m.key = bcp::random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(theirs)), rng);
                    m.iv = bcp::random_bytes(static_cast<size_t>(EVP_CIPHER_get_iv_length(theirs)), rng);
                    m.in = bcp::random_bytes(i % 3 ? 1 + rng() % 5000 : (size_t(1) << 20) + rng() % 5000, rng);
                    const bcp::Outcome want = bcp::run_message(theirs, m, Feed::kWhole, rng);
                    const bcp::Outcome got = bcp::run_message(ours, m, Feed::kRandomPieces, rng);
                    if (!want.ok() || !got.ok() || want.out != got.out || want.tag != got.tag) ++bad[t];
                }
                if (!ours || !theirs) ++bad[t];
                EVP_CIPHER_free(ours);
                EVP_CIPHER_free(theirs);
            });
        }
        for (auto& th : threads) th.join();
        for (int t = 0; t < 6; ++t) EXPECT_EQ(0, bad[t]) << "thread " << t;
        EXPECT_EQ(before + 6 * 12, env->counter("bulkcrypt-device-calls") + env->counter("bulkcrypt-fallback-calls"));
    }
}

}  // namespace
