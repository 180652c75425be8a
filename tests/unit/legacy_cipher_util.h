// OpenSSL's ciphers that only its legacy provider has (Blowfish, CAST5, single DES), for
// the core tests: fetched into a library context the test owns (the process's default
// context is left alone), one-shot ECB with a key of any length the cipher takes, and
// the checks the cores of variable key length (Blowfish, CAST5) share against it.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_block.h"
#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"
#include "core_test_util.h"

namespace core_test {

class LegacyCipher {
public:
    explicit LegacyCipher(const char* name) : name_(name) {
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
    const char* name() const { return name_; }
    // ECB without padding over len bytes of whole blocks, under the whole key.
    Bytes ecb(bool enc, const Bytes& key, const uint8_t* in, size_t len) const {
        return evp_ecb(cipher_, enc, key.data(), in, len, key.size());
    }

private:
    const char* name_;
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* legacy_ = nullptr;
    OSSL_PROVIDER* deflt_ = nullptr;
    EVP_CIPHER* cipher_ = nullptr;
};

// Skips the calling test when OpenSSL's legacy provider or the cipher is missing.
#define REQUIRE_LEGACY_CIPHER(cipher)                                                                       \
    do {                                                                                                    \
        if (!(cipher).get())                                                                                \
            GTEST_SKIP() << "skipped: OpenSSL's legacy provider (" << (cipher).name() << ") is not available"; \
    } while (0)

// Every key length from key_min to key_max against OpenSSL: the first five lengths over
// 0, 1, 31, 32 and 33 blocks (a batch's edges), the others over random counts up to 100;
// both directions, misaligned, in place and out of place.
inline void every_key_length_against_openssl(const bc::BlockCipher& c, const LegacyCipher& ossl, size_t key_min,
                                             size_t key_max) {
    static const size_t kFirstBlocks[] = {0, 1, 31, 32, 33};
    std::mt19937 g(20261125);
    for (size_t klen = key_min; klen <= key_max; ++klen) {
        const Bytes key = rnd(g, klen);
        const std::vector<uint32_t> ks = expand(c, key.data(), key.size());
        const size_t n = klen - key_min < 5 ? kFirstBlocks[klen - key_min] : g() % 101;
        const Bytes pt = rnd(g, c.block_bytes * n);
        const Bytes want = ossl.ecb(true, key, pt.data(), pt.size());
        ASSERT_NO_FATAL_FAILURE(check_blocks(c, ks, pt, want, g, "key " + std::to_string(klen)));
        ASSERT_EQ(pt, ossl.ecb(false, key, want.data(), want.size())) << "OpenSSL's decryption, key " << klen;
    }
}

// Many random keys of random lengths in [key_min, key_max], four blocks each, against
// OpenSSL: the key schedule starts from, and reads, every entry of the cipher's tables.
inline void many_random_keys_against_openssl(const bc::BlockCipher& c, const LegacyCipher& ossl, size_t key_min,
                                             size_t key_max, unsigned seed, int trials) {
    std::mt19937 g(seed);
    for (int t = 0; t < trials; ++t) {
        const Bytes key = rnd(g, key_min + g() % (key_max - key_min + 1)), pt = rnd(g, c.block_bytes * 4);
        const std::vector<uint32_t> ks = expand(c, key.data(), key.size());
        Bytes got(pt.size());
        c.encrypt(ks.data(), pt.data(), got.data(), 4);
        ASSERT_EQ(ossl.ecb(true, key, pt.data(), pt.size()), got) << "key of " << key.size() << " bytes, trial " << t;
    }
}

// The CPU backend serves <cipher>-ecb and <cipher>-cbc from libcrypto (the legacy
// provider) and must hand it keys of every length, not only OpenSSL's default 16 bytes:
// its output matches the portable path's (cpu.impl=portable) and OpenSSL's own at the
// lengths in key_lens. OpenSSL has no <cipher>-ctr.
inline void cpu_libcrypto_takes_every_key_length(const std::string& cipher, const LegacyCipher& ossl,
                                                 const std::vector<size_t>& key_lens) {
    const std::string ecb = cipher + "-ecb", cbc = cipher + "-cbc", ctr = cipher + "-ctr";
    bc::EvpBlockCiphers evp;
    evp.load();
    for (const std::string& name : {ecb, cbc})
        EXPECT_EQ(bc::EvpBlockCiphers::Source::Legacy, evp.source(bc::find_algorithm(name.c_str())))
            << name << " is not served by libcrypto's legacy provider";
    EXPECT_EQ(nullptr, evp.find(bc::find_algorithm(ctr.c_str()))) << "OpenSSL has no " << ctr;

    bc_context *lib = nullptr, *port = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &lib)) << bc_last_error();
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2,cpu.impl=portable", &port)) << bc_last_error();
    std::mt19937 g(32);
    for (size_t klen : key_lens) {
        const Bytes key = rnd(g, klen), iv = rnd(g, 8), pt = rnd(g, 8 * 1000);
        const Bytes want_ecb = ossl.ecb(true, key, pt.data(), pt.size());
        for (const std::string& name : {ecb, cbc}) {
            const bool is_cbc = name == cbc;
            Bytes a(pt.size()), b(pt.size());
            size_t na = 0, nb = 0;
            bc_key *ka = nullptr, *kb = nullptr;
            ASSERT_EQ(BC_OK, bc_key_create(lib, name.c_str(), key.data(), klen, &ka)) << bc_last_error();
            ASSERT_EQ(BC_OK, bc_key_create(port, name.c_str(), key.data(), klen, &kb)) << bc_last_error();
            ASSERT_EQ(BC_OK, bc_encrypt(ka, is_cbc ? iv.data() : nullptr, is_cbc ? 8 : 0, pt.data(), pt.size(),
                                        a.data(), a.size(), &na, nullptr))
                << bc_last_error();
            ASSERT_EQ(BC_OK, bc_encrypt(kb, is_cbc ? iv.data() : nullptr, is_cbc ? 8 : 0, pt.data(), pt.size(),
                                        b.data(), b.size(), &nb, nullptr))
                << bc_last_error();
            EXPECT_EQ(a, b) << name << " key of " << klen << " bytes: libcrypto and portable differ";
            if (!is_cbc) EXPECT_EQ(want_ecb, a) << "key of " << klen << " bytes";
            bc_key_destroy(ka);
            bc_key_destroy(kb);
        }
    }
    bc_context_destroy(lib);
    bc_context_destroy(port);
}

}  // namespace core_test
