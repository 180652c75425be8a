// The portable bitsliced DES core (des_block.h through des.h) against OpenSSL's
// DES-ECB (legacy provider), DES-EDE-ECB and DES-EDE3-ECB, and NIST's TDEA vectors.
// The test loads OpenSSL's legacy and default providers into a library context of
// its own (the process's default context is left alone). Expected values come from
// OpenSSL or from the vector files under tests/vectors, never from this source.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/des/des.h"
#include "cores/des/des_block.h"

namespace des_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace des_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

// OpenSSL's ECB of the three key sizes, from a library context owned by the test;
// a null cipher when a provider cannot be loaded (the tests against OpenSSL then skip).
class OpenSslDes {
public:
    OpenSslDes() {
        ctx_ = OSSL_LIB_CTX_new();
        if (!ctx_) return;
        legacy_ = OSSL_PROVIDER_load(ctx_, "legacy");
        deflt_ = OSSL_PROVIDER_load(ctx_, "default");
        if (!legacy_ || !deflt_) return;
        ecb_[0] = EVP_CIPHER_fetch(ctx_, "DES-ECB", nullptr);
        ecb_[1] = EVP_CIPHER_fetch(ctx_, "DES-EDE-ECB", nullptr);
        ecb_[2] = EVP_CIPHER_fetch(ctx_, "DES-EDE3-ECB", nullptr);
    }
    ~OpenSslDes() {
        for (EVP_CIPHER* c : ecb_) EVP_CIPHER_free(c);
        if (legacy_) OSSL_PROVIDER_unload(legacy_);
        if (deflt_) OSSL_PROVIDER_unload(deflt_);
        OSSL_LIB_CTX_free(ctx_);
    }
    // key_len 8, 16 or 24
    const EVP_CIPHER* ecb(size_t key_len) const { return ecb_[key_len / 8 - 1]; }
    bool all() const { return ecb_[0] && ecb_[1] && ecb_[2]; }

private:
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* legacy_ = nullptr;
    OSSL_PROVIDER* deflt_ = nullptr;
    EVP_CIPHER* ecb_[3] = {nullptr, nullptr, nullptr};
};

const OpenSslDes& openssl() {
    static const OpenSslDes o;
    return o;
}

#define REQUIRE_OPENSSL_DES()                                                                           \
    do {                                                                                                \
        if (!openssl().all()) GTEST_SKIP() << "skipped: OpenSSL's DES-ECB (legacy provider) or DES-EDE*-ECB is missing"; \
    } while (0)

Bytes openssl_ecb(bool enc, const uint8_t* key, size_t key_len, const uint8_t* in, size_t len) {
    return core_test::evp_ecb(openssl().ecb(key_len), enc, key, in, len);
}

std::vector<uint32_t> expand(const uint8_t* key, size_t len) {
    std::vector<uint32_t> ks(bc::kDesKsWords);
    EXPECT_TRUE(bc::des_expand_key(key, len, ks.data())) << len;
    return ks;
}

}  // namespace

TEST(DesCore, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kDesKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 7u, 9u, 15u, 17u, 23u, 25u, 32u, 64u}) {
        EXPECT_FALSE(bc::des_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len : {8u, 16u, 24u}) EXPECT_TRUE(bc::des_expand_key(key, len, ks.data())) << len;
}

TEST(DesCore, ExpandedKeyLayout) {
    std::mt19937 rng(4603);
    uint8_t key[24];
    for (auto& c : key) c = static_cast<uint8_t>(rng());
    for (size_t len : {8u, 16u, 24u}) {
        const std::vector<uint32_t> ks = expand(key, len);
        const uint32_t passes = len == 8 ? 1 : 3;
        EXPECT_EQ(passes, ks[0]);
        EXPECT_EQ(8 * len, ks[1]);
        EXPECT_EQ(0u, ks[2]);
        EXPECT_EQ(0u, ks[3]);
        for (size_t i = 4; i < ks.size(); ++i) {
            ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
            if (i >= 4 + 48 * 16 * passes) ASSERT_EQ(0u, ks[i]) << "past the last round, word " << i;
        }
    }
    // Two-key TDEA is three-key TDEA with K3 = K1.
    uint8_t k3[24];
    std::memcpy(k3, key, 16);
    std::memcpy(k3 + 16, key, 8);
    std::vector<uint32_t> a = expand(key, 16), b = expand(k3, 24);
    EXPECT_TRUE(std::equal(a.begin() + 2, a.end(), b.begin() + 2));
    // The parity bits (the least significant bit of every key byte) are ignored.
    uint8_t flipped[24];
    for (int i = 0; i < 24; ++i) flipped[i] = static_cast<uint8_t>(key[i] ^ 1);
    for (size_t len : {8u, 16u, 24u}) EXPECT_EQ(expand(key, len), expand(flipped, len)) << len;
}

TEST(DesCore, MatchesOpenSslRandomKeysAndLengths) {
    REQUIRE_OPENSSL_DES();
    std::mt19937 rng(20261201);
    for (int trial = 0; trial < 45; ++trial) {
        const size_t key_len = 8 * (1 + trial % 3);
        uint8_t key[24];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        const int t = trial / 3;
        const size_t n = t == 0 ? 0 : t == 1 ? 32 : t == 2 ? 33 : t == 3 ? 1 : t == 4 ? 31 : rng() % 101;
        const size_t len = 8 * n;
        Bytes pt(len);
        for (auto& c : pt) c = static_cast<uint8_t>(rng());
        const Bytes want = openssl_ecb(true, key, key_len, pt.data(), len);
        ASSERT_EQ(len, want.size());

        // out of place, both buffers misaligned by different offsets
        const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
        Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
        std::memcpy(inbuf.data() + oi, pt.data(), len);
        bc::des_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
        ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "key " << key_len << " blocks " << n;
        for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
        for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

        // decryption against OpenSSL's, out of place
        const Bytes want_pt = openssl_ecb(false, key, key_len, want.data(), len);
        Bytes dec(len + 3);
        bc::des_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
        ASSERT_EQ(0, std::memcmp(want_pt.data(), dec.data() + 3, len));
        ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

        // in place, misaligned: encrypt then decrypt
        Bytes buf(len + 5);
        std::memcpy(buf.data() + 5, pt.data(), len);
        bc::des_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
        bc::des_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
    }
}

TEST(DesCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against OpenSSL (when it has DES), and
    // the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, des_plain::intrinsics());
    std::mt19937 rng(4196);
    for (int trial = 0; trial < 6; ++trial) {
        const size_t key_len = 8 * (1 + trial % 3);
        uint8_t key[24], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        uint32_t w[64], p[64];
        for (int i = 0; i < 64; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_des_encrypt_batch(ks.data(), w);
        des_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        if (openssl().all()) {
            const Bytes want = openssl_ecb(true, key, key_len, blocks, sizeof blocks);
            for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        }
        bc_des_decrypt_batch(ks.data(), w);
        des_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}

// NIST's TDEA ECB files through pyca's copies (KEYs = K1 = K2 = K3, or KEY1..KEY3;
// PLAINTEXT, CIPHERTEXT of one or more blocks; [ENCRYPT] and [DECRYPT] sections).
// subtab exercises every S-box entry, permop P, invperm IP^-1; MMT2 and MMT3 are two-
// and three-key TDEA over several blocks.
TEST(DesCore, NistTdeaVectors) {
    struct File {
        const char* name;
        int records;
    };
    for (const File& file : {File{"TECBsubtab.rsp", 38}, File{"TECBpermop.rsp", 64}, File{"TECBinvperm.rsp", 128},
                             File{"TECBMMT2.rsp", 20}, File{"TECBMMT3.rsp", 20}}) {
        const std::string path = vector_dir() + "/pyca-cryptography/ciphers/3DES/ECB/" + file.name;
        std::ifstream f(path);
        if (!f) GTEST_SKIP() << "skipped: " << path << " not found";
        std::string line;
        Bytes key, pt, ct;
        bool have_pt = false, have_ct = false;
        int records = 0;
        auto run = [&]() {
            ASSERT_EQ(24u, key.size());
            ASSERT_EQ(pt.size(), ct.size());
            ASSERT_EQ(0u, pt.size() % 8);
            const size_t n = pt.size() / 8;
            const std::vector<uint32_t> ks = expand(key.data(), 24);
            Bytes got(pt.size());
            bc::des_encrypt_blocks(ks.data(), pt.data(), got.data(), n);
            ASSERT_EQ(ct, got) << file.name << " record " << records;
            bc::des_decrypt_blocks(ks.data(), ct.data(), got.data(), n);
            ASSERT_EQ(pt, got) << file.name << " record " << records;
            if (std::equal(key.begin(), key.begin() + 8, key.begin() + 16)) {  // K3 = K1: two-key TDEA too
                const std::vector<uint32_t> ks2 = expand(key.data(), 16);
                bc::des_encrypt_blocks(ks2.data(), pt.data(), got.data(), n);
                ASSERT_EQ(ct, got) << file.name << " record " << records << " (16-byte key)";
            }
            if (std::equal(key.begin(), key.begin() + 8, key.begin() + 8) &&
                std::equal(key.begin(), key.begin() + 8, key.begin() + 16)) {  // K1 = K2 = K3: single DES
                const std::vector<uint32_t> ks1 = expand(key.data(), 8);
                bc::des_encrypt_blocks(ks1.data(), pt.data(), got.data(), n);
                ASSERT_EQ(ct, got) << file.name << " record " << records << " (8-byte key)";
            }
            ++records;
        };
        while (std::getline(f, line)) {
            while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
            const size_t eq = line.find(" = ");
            if (line.empty() || line[0] == '#' || line[0] == '[' || eq == std::string::npos) continue;
            const std::string name = line.substr(0, eq), value = line.substr(eq + 3);
            if (name == "COUNT") {
                key.clear();
                have_pt = have_ct = false;
            } else if (name == "KEYs") {
                const Bytes k = from_hex(value);
                key = k;
                key.insert(key.end(), k.begin(), k.end());
                key.insert(key.end(), k.begin(), k.end());
            } else if (name == "KEY1" || name == "KEY2" || name == "KEY3") {
                const Bytes k = from_hex(value);
                key.insert(key.end(), k.begin(), k.end());
            } else if (name == "PLAINTEXT") {
                pt = from_hex(value);
                have_pt = true;
            } else if (name == "CIPHERTEXT") {
                ct = from_hex(value);
                have_ct = true;
            }
            if (have_pt && have_ct) {
                run();
                if (HasFatalFailure()) return;
                have_pt = have_ct = false;
            }
        }
        EXPECT_EQ(file.records, records) << file.name;
    }
}
