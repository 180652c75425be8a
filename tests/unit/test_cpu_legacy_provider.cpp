// The CPU backend's libcrypto path for ciphers OpenSSL 3 keeps in its legacy provider
// (SEED): they are fetched from a library context bulkcrypt owns, the process's default
// context is left as it was, and a key of such a row is served by libcrypto when the
// provider loads, by the portable core when it does not. Each test says which path ran.
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "backends/cpu/cpu_block.h"
#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"

namespace {

using Bytes = std::vector<uint8_t>;

bool default_context_has(const char* name) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
    EVP_CIPHER_free(c);
    ERR_clear_error();
    return c != nullptr;
}

// Whether a fresh library context can load the legacy provider at all.
bool legacy_provider_loadable() {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* p = ctx ? OSSL_PROVIDER_load(ctx, "legacy") : nullptr;
    const bool ok = p != nullptr;
    if (p) OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

const char* source_name(bc::EvpBlockCiphers::Source s) {
    return s == bc::EvpBlockCiphers::Source::Legacy    ? "libcrypto (bulkcrypt's legacy context)"
           : s == bc::EvpBlockCiphers::Source::Default ? "libcrypto (default context)"
                                                       : "bulkcrypt's portable core";
}

}  // namespace

TEST(CpuLegacyProvider, SeedRowsFetchedFromAnOwnContext) {
    const bool before = default_context_has("SEED-ECB");
    bc::EvpBlockCiphers evp;
    evp.load();
    EXPECT_EQ(before, default_context_has("SEED-ECB")) << "the default library context changed";
    const bool loadable = legacy_provider_loadable();
    for (const char* name : {"seed-ecb", "seed-cbc", "seed-ctr", "seed-128-xts"}) {
        const bc::Algorithm* a = bc::find_algorithm(name);
        ASSERT_NE(nullptr, a) << name;
        const auto src = evp.source(a);
        std::printf("[ info ] %s on the CPU: %s\n", name, source_name(src));
        if (a->openssl_name == nullptr) {  // OpenSSL has no SEED-CTR nor SEED-XTS
            EXPECT_EQ(nullptr, evp.find(a)) << name;
            continue;
        }
        if (before) {
            EXPECT_EQ(bc::EvpBlockCiphers::Source::Default, src) << name;
        } else if (loadable) {
            EXPECT_EQ(bc::EvpBlockCiphers::Source::Legacy, src) << name;
            EXPECT_TRUE(evp.legacy_loaded());
        } else {
            EXPECT_EQ(bc::EvpBlockCiphers::Source::None, src) << name << ": falls back to the portable core";
        }
        EXPECT_EQ(src != bc::EvpBlockCiphers::Source::None, evp.find(a) != nullptr) << name;
    }
}

TEST(CpuLegacyProvider, AesStaysOnTheDefaultContext) {
    bc::EvpBlockCiphers evp;
    evp.load();
    // Camellia's rows are in the default provider: never fetched from the legacy context.
    const bc::Algorithm* a = bc::find_algorithm("camellia-128-cbc");
    ASSERT_NE(nullptr, a);
    EXPECT_EQ(bc::EvpBlockCiphers::Source::Default, evp.source(a));
}

// The libcrypto path and the portable path (cpu.impl=portable) of every SEED row give
// the same bytes through the public API.
TEST(CpuLegacyProvider, SeedLibcryptoAndPortableAgree) {
    bc_context *lib = nullptr, *port = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", nullptr, &lib)) << bc_last_error();
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "cpu.impl=portable", &port)) << bc_last_error();
    std::mt19937 rng(4269);
    auto rnd = [&rng](size_t n) {
        Bytes b(n);
        for (auto& c : b) c = static_cast<uint8_t>(rng());
        return b;
    };
    for (const char* name : {"seed-ecb", "seed-cbc", "seed-ctr", "seed-128-xts"}) {
        const bool xts = std::string(name).find("xts") != std::string::npos;
        const Bytes key = rnd(xts ? 32 : 16), iv = rnd(16);
        const bool has_iv = std::string(name) != "seed-ecb";
        for (size_t len : {size_t(16), size_t(16 * 33), size_t(16 * 4099)}) {
            const Bytes pt = rnd(len);
            Bytes a(len), b(len);
            size_t na = 0, nb = 0;
            bc_key *ka = nullptr, *kb = nullptr;
            ASSERT_EQ(BC_OK, bc_key_create(lib, name, key.data(), key.size(), &ka)) << name << ": " << bc_last_error();
            ASSERT_EQ(BC_OK, bc_key_create(port, name, key.data(), key.size(), &kb)) << name << ": " << bc_last_error();
            EXPECT_EQ(BC_OK, bc_encrypt(ka, has_iv ? iv.data() : nullptr, has_iv ? 16 : 0, pt.data(), len, a.data(),
                                        a.size(), &na, nullptr))
                << name << ": " << bc_last_error();
            EXPECT_EQ(BC_OK, bc_encrypt(kb, has_iv ? iv.data() : nullptr, has_iv ? 16 : 0, pt.data(), len, b.data(),
                                        b.size(), &nb, nullptr))
                << name << ": " << bc_last_error();
            EXPECT_EQ(a, b) << name << " len " << len;
            EXPECT_NE(a, pt) << name;
            bc_key_destroy(ka);
            bc_key_destroy(kb);
        }
    }
    bc_context_destroy(lib);
    bc_context_destroy(port);
}
