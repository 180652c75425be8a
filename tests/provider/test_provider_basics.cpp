// The OpenSSL provider (provider/): loaded into a library context of the test's own, its
// ciphers fetched by name with provider=bulkcrypt and checked against the default
// provider's through EVP, in random update sizes, both directions; AEAD tags, a changed
// tag refused; the threshold's two paths (OpenSSL's own cipher under it, bulkcrypt's
// context above) seen in the provider's counters; a cipher OpenSSL lacks (CLEFIA) under
// bulkcrypt's name.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<unsigned char>;
constexpr size_t kThreshold = size_t(64) << 10;  // the provider's default (provider/provider.h)

struct Loaded {
    OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* deflt = nullptr;
    OSSL_PROVIDER* bulk = nullptr;
    Loaded() {
        OSSL_PROVIDER_set_default_search_path(libctx, BC_PROVIDER_DIR);
        deflt = OSSL_PROVIDER_load(libctx, "default");
        bulk = OSSL_PROVIDER_load(libctx, "bulkcrypt");
    }
    ~Loaded() {
        if (bulk) OSSL_PROVIDER_unload(bulk);
        if (deflt) OSSL_PROVIDER_unload(deflt);
        OSSL_LIB_CTX_free(libctx);
    }
    uint64_t counter(const char* name) const {
        uint64_t v = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};
        EXPECT_EQ(1, OSSL_PROVIDER_get_params(bulk, p)) << name;
        return v;
    }
};

Loaded& loaded() {
    static Loaded l;
    return l;
}

Bytes random_bytes(size_t n, std::mt19937& rng) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<unsigned char>(rng());
    return b;
}

// One message through EVP in random update sizes (AAD first for AEADs; XTS, whose update
// is a whole data unit, in one), the first piece at least 64 KiB when the message is, so
// that it decides the provider's path; the tag out (encryption) or in (decryption).
// Returns false when EVP refuses the message.
bool run(EVP_CIPHER* cipher, bool enc, const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& in,
         Bytes* out, Bytes* tag, std::mt19937& rng) {
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    const bool aead = EVP_CIPHER_get_flags(cipher) & EVP_CIPH_FLAG_AEAD_CIPHER;
    bool ok = EVP_CipherInit_ex2(c, cipher, nullptr, nullptr, enc ? 1 : 0, nullptr) == 1;
    if (ok && aead && iv.size() != static_cast<size_t>(EVP_CIPHER_get_iv_length(cipher)))
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(iv.size()), nullptr) > 0;
    ok = ok && EVP_CipherInit_ex2(c, nullptr, key.data(), iv.empty() ? nullptr : iv.data(), enc ? 1 : 0, nullptr) == 1;
    int l = 0;
    if (ok && aead && !aad.empty()) ok = EVP_CipherUpdate(c, nullptr, &l, aad.data(), static_cast<int>(aad.size())) == 1;
    out->assign(in.size() + 32, 0);
    size_t pos = 0, written = 0;
    const bool xts = EVP_CIPHER_get_mode(cipher) == EVP_CIPH_XTS_MODE;
    while (ok && pos < in.size()) {
        size_t piece = 1 + rng() % 70000;
        if (pos == 0 && in.size() >= kThreshold) piece = kThreshold + rng() % (in.size() - kThreshold + 1);
        piece = xts ? in.size() : std::min(in.size() - pos, piece);
        ok = EVP_CipherUpdate(c, out->data() + written, &l, in.data() + pos, static_cast<int>(piece)) == 1;
        pos += piece;
        written += static_cast<size_t>(l);
    }
    if (ok && aead && !enc) ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag->size()), tag->data()) > 0;
    if (ok) ok = EVP_CipherFinal_ex(c, out->data() + written, &l) == 1;
    if (ok) written += static_cast<size_t>(l);
    if (ok && aead && enc) {
        tag->assign(16, 0);
        ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag->data()) > 0;
    }
    out->resize(written);
    EVP_CIPHER_CTX_free(c);
    return ok;
}

TEST(Provider, LoadsAndNamesItself) {
    Loaded& l = loaded();
    ASSERT_NE(nullptr, l.bulk) << "bulkcrypt.so not found under " << BC_PROVIDER_DIR;
    const char* name = nullptr;
    const char* device = nullptr;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0), OSSL_PARAM_utf8_ptr("bulkcrypt-device", &device, 0),
                      OSSL_PARAM_END};
    ASSERT_EQ(1, OSSL_PROVIDER_get_params(l.bulk, p));
    EXPECT_STREQ("bulkcrypt", name);
    ASSERT_NE(nullptr, device);
    EXPECT_GT(std::strlen(device), 0u);
}

// Every cipher both providers have gives the default provider's bytes and tags, and opens
// its own output; small messages take OpenSSL's path, large ones bulkcrypt's.
TEST(Provider, MatchesTheDefaultProviderOnBothPaths) {
    Loaded& l = loaded();
    ASSERT_NE(nullptr, l.bulk);
    std::mt19937 rng(24);
    const uint64_t dev0 = l.counter("bulkcrypt-device-calls"), fb0 = l.counter("bulkcrypt-fallback-calls");
    int small = 0, large = 0;
    for (const char* name : {"AES-128-ECB", "AES-256-CBC", "AES-128-CTR", "AES-256-XTS", "AES-256-GCM", "AES-128-GCM",
                             "ChaCha20", "ChaCha20-Poly1305", "CAMELLIA-128-CBC", "ARIA-128-GCM", "SM4-CTR"}) {
        EVP_CIPHER* ours = EVP_CIPHER_fetch(l.libctx, name, "provider=bulkcrypt");
        EVP_CIPHER* theirs = EVP_CIPHER_fetch(l.libctx, name, "provider=default");
        ASSERT_NE(nullptr, ours) << name;
        ASSERT_NE(nullptr, theirs) << name;
        const bool aead = EVP_CIPHER_get_flags(theirs) & EVP_CIPH_FLAG_AEAD_CIPHER;
        const bool xts = EVP_CIPHER_get_mode(theirs) == EVP_CIPH_XTS_MODE;
        EXPECT_EQ(EVP_CIPHER_get_key_length(theirs), EVP_CIPHER_get_key_length(ours)) << name;
        EXPECT_EQ(EVP_CIPHER_get_iv_length(theirs), EVP_CIPHER_get_iv_length(ours)) << name;
        EXPECT_EQ(EVP_CIPHER_get_block_size(theirs), EVP_CIPHER_get_block_size(ours)) << name;
        EXPECT_EQ(EVP_CIPHER_get_mode(theirs), EVP_CIPHER_get_mode(ours)) << name;
        for (size_t len : {size_t(17), size_t(1000), size_t(1) << 20, (size_t(3) << 20) + 5}) {
            Bytes key = random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(theirs)), rng);
            if (xts) std::memset(key.data() + key.size() / 2, 0x5a, 1);  // the two halves differ
            const Bytes iv = random_bytes(static_cast<size_t>(EVP_CIPHER_get_iv_length(theirs)), rng);
            const Bytes aad = aead ? random_bytes(1 + rng() % 40, rng) : Bytes();
            const Bytes pt = random_bytes(len, rng);
            Bytes want, got, back, want_tag, got_tag;
            ASSERT_TRUE(run(theirs, true, key, iv, aad, pt, &want, &want_tag, rng)) << name << " default";
            ASSERT_TRUE(run(ours, true, key, iv, aad, pt, &got, &got_tag, rng)) << name << " bulkcrypt " << len;
            EXPECT_TRUE(want == got) << name << " len " << len;
            EXPECT_TRUE(want_tag == got_tag) << name << " tag, len " << len;
            Bytes tag = want_tag;
            ASSERT_TRUE(run(ours, false, key, iv, aad, want, &back, &tag, rng)) << name << " open " << len;
            EXPECT_TRUE(pt == back) << name << " len " << len;
            if (aead) {
                tag[3] ^= 4;
                EXPECT_FALSE(run(ours, false, key, iv, aad, want, &back, &tag, rng)) << name << " changed tag accepted";
            }
            (len < kThreshold ? small : large) += aead ? 3 : 2;
        }
        EVP_CIPHER_free(ours);
        EVP_CIPHER_free(theirs);
    }
    EXPECT_EQ(static_cast<uint64_t>(small), l.counter("bulkcrypt-fallback-calls") - fb0);
    EXPECT_EQ(static_cast<uint64_t>(large), l.counter("bulkcrypt-device-calls") - dev0);
}

// A catalogue cipher OpenSSL lacks: under bulkcrypt's name, round trip on both paths.
TEST(Provider, OffersCiphersOpenSslLacks) {
    Loaded& l = loaded();
    ASSERT_NE(nullptr, l.bulk);
    EVP_CIPHER* c = EVP_CIPHER_fetch(l.libctx, "clefia-128-ctr", "provider=bulkcrypt");
    ASSERT_NE(nullptr, c);
    std::mt19937 rng(5);
    for (size_t len : {size_t(100), size_t(1) << 20}) {
        const Bytes key = random_bytes(16, rng), iv = random_bytes(16, rng), pt = random_bytes(len, rng);
        Bytes ct, back, tag;
        ASSERT_TRUE(run(c, true, key, iv, {}, pt, &ct, &tag, rng));
        ASSERT_TRUE(run(c, false, key, iv, {}, ct, &back, &tag, rng));
        EXPECT_TRUE(pt == back);
        EXPECT_FALSE(pt == ct);
    }
    EVP_CIPHER_free(c);
}

}  // namespace
