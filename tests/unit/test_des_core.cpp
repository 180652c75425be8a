// The portable bitsliced DES core (des_block.h through des.h) against OpenSSL's
// DES-ECB (legacy provider), DES-EDE-ECB and DES-EDE3-ECB, and NIST's TDEA vectors.
// The test loads OpenSSL's legacy and default providers into a library context of
// its own (the process's default context is left alone). Expected values come from
// OpenSSL or from the vector files under tests/vectors, never from this source.
#include <gtest/gtest.h>

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
#include "legacy_cipher_util.h"

namespace des_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace des_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

const bc::BlockCipher& core() { return core_test::block_cipher("des"); }

// OpenSSL's ECB of key_len 8 (DES-ECB, legacy provider), 16 (DES-EDE-ECB) or 24
// (DES-EDE3-ECB), from library contexts owned by the test; a null cipher when a
// provider cannot be loaded (the tests against OpenSSL then skip).
const core_test::LegacyCipher& openssl_des(size_t key_len) {
    static const core_test::LegacyCipher des("DES-ECB"), ede("DES-EDE-ECB"), ede3("DES-EDE3-ECB");
    return key_len == 8 ? des : key_len == 16 ? ede : ede3;
}

bool openssl_has_des() { return openssl_des(8).get() && openssl_des(16).get() && openssl_des(24).get(); }

#define REQUIRE_OPENSSL_DES()                                                                         \
    do {                                                                                              \
        if (!openssl_has_des())                                                                       \
            GTEST_SKIP() << "skipped: OpenSSL's DES-ECB (legacy provider) or DES-EDE*-ECB is missing"; \
    } while (0)

Bytes openssl_ecb(bool enc, const uint8_t* key, size_t key_len, const uint8_t* in, size_t len) {
    return core_test::evp_ecb(openssl_des(key_len).get(), enc, key, in, len);
}

std::vector<uint32_t> expand(const uint8_t* key, size_t len) { return core_test::expand(core(), key, len); }

}  // namespace

TEST(DesCore, BadKeyLengthsRefused) {
    core_test::expect_key_lengths(core(), {0, 1, 7, 9, 15, 17, 23, 25, 32, 64}, {8, 16, 24});
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
        ASSERT_NO_FATAL_FAILURE(core_test::check_blocks(core(), ks, pt, want, rng, "key " + std::to_string(key_len)));
        ASSERT_EQ(pt, openssl_ecb(false, key, key_len, want.data(), len)) << "OpenSSL's decryption, key " << key_len;
    }
}

TEST(DesCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against OpenSSL (when it has DES), and
    // the build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, des_plain::intrinsics());
    const core_test::BatchFns batch = {bc_des_encrypt_batch, bc_des_decrypt_batch, des_plain::encrypt_batch,
                                       des_plain::decrypt_batch};
    std::mt19937 rng(4196);
    for (int trial = 0; trial < 6; ++trial) {
        const size_t key_len = 8 * (1 + trial % 3);
        uint8_t key[24], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const Bytes want = openssl_has_des() ? openssl_ecb(true, key, key_len, blocks, sizeof blocks) : Bytes();
        ASSERT_NO_FATAL_FAILURE(core_test::check_batch(batch, expand(key, key_len), blocks, want)) << "key " << key_len;
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
