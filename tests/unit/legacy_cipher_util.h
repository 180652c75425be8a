// OpenSSL's ciphers that only its legacy provider has (Blowfish, CAST5), for the core
// tests: fetched into a library context the test owns (the process's default context
// is left alone), and one-shot ECB with a key of any length the cipher takes.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdint>
#include <vector>

#include "core_test_util.h"

namespace core_test {

class LegacyCipher {
public:
    explicit LegacyCipher(const char* name) {
        ctx_ = OSSL_LIB_CTX_new();
        if (!ctx_) return;
        legacy_ = OSSL_PROVIDER_load(ctx_, "legacy");
        deflt_ = OSSL_PROVIDER_load(ctx_, "default");
        if (legacy_ && deflt_) cipher_ = EVP_CIPHER_fetch(ctx_, name, nullptr);
    }
    ~LegacyCipher() {
        EVP_CIPHER_free(cipher_);
        if (legacy_) OSSL_PROVIDER_unload(legacy_);
        if (deflt_) OSSL_PROVIDER_unload(deflt_);
        OSSL_LIB_CTX_free(ctx_);
    }
    LegacyCipher(const LegacyCipher&) = delete;
    LegacyCipher& operator=(const LegacyCipher&) = delete;
    // nullptr when the legacy provider or the cipher is not there.
    const EVP_CIPHER* get() const { return cipher_; }

private:
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* legacy_ = nullptr;
    OSSL_PROVIDER* deflt_ = nullptr;
    EVP_CIPHER* cipher_ = nullptr;
};

// ECB without padding over len bytes of whole blocks, the key of key_len bytes told to
// OpenSSL first (it reads only its default length otherwise).
inline Bytes evp_ecb_key(const EVP_CIPHER* cipher, bool enc, const uint8_t* key, size_t key_len, const uint8_t* in,
                         size_t len) {
    Bytes out(len + 16);
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int l1 = 0, l2 = 0;
    EXPECT_EQ(1, EVP_CipherInit_ex2(c, cipher, nullptr, nullptr, enc ? 1 : 0, nullptr));
    EXPECT_EQ(1, EVP_CIPHER_CTX_set_key_length(c, static_cast<int>(key_len)));
    EXPECT_EQ(1, EVP_CipherInit_ex2(c, nullptr, key, nullptr, enc ? 1 : 0, nullptr));
    EVP_CIPHER_CTX_set_padding(c, 0);
    if (len) {
        EXPECT_EQ(1, EVP_CipherUpdate(c, out.data(), &l1, in, static_cast<int>(len)));
    }
    EXPECT_EQ(1, EVP_CipherFinal_ex(c, out.data() + l1, &l2));
    EVP_CIPHER_CTX_free(c);
    out.resize(static_cast<size_t>(l1 + l2));
    return out;
}

}  // namespace core_test
