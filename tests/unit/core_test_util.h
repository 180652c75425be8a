// Helpers shared by the block-cipher core tests (test_<cipher>_core.cpp).
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace core_test {

using Bytes = std::vector<uint8_t>;

// One pass of OpenSSL's cipher (an ECB, no padding) over len bytes of whole blocks.
inline Bytes evp_ecb(const EVP_CIPHER* cipher, bool enc, const uint8_t* key, const uint8_t* in, size_t len) {
    Bytes out(len + 16);
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int l1 = 0, l2 = 0;
    EXPECT_EQ(1, EVP_CipherInit_ex2(c, cipher, key, nullptr, enc ? 1 : 0, nullptr));
    EVP_CIPHER_CTX_set_padding(c, 0);
    if (len) {
        EXPECT_EQ(1, EVP_CipherUpdate(c, out.data(), &l1, in, static_cast<int>(len)));
    }
    EXPECT_EQ(1, EVP_CipherFinal_ex(c, out.data() + l1, &l2));
    EVP_CIPHER_CTX_free(c);
    out.resize(static_cast<size_t>(l1 + l2));
    return out;
}

inline Bytes from_hex(const std::string& h) {
    Bytes b;
    for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
    return b;
}

// tests/vectors of this source tree.
inline std::string vector_dir() {
    std::string f = __FILE__;
    return f.substr(0, f.rfind("/unit/")) + "/vectors";
}

}  // namespace core_test
