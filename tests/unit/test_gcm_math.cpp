// GCM's algebra on the host: GHASH partials, folding with powers of H, J0, the
// inverse of H, against OpenSSL's AES-GCM as the oracle.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "modes/gcm/gcm.h"

namespace {

std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    if (n) RAND_bytes(v.data(), static_cast<int>(n));
    return v;
}

void aes_ecb_block(const std::vector<uint8_t>& key, const uint8_t in[16], uint8_t out[16]) {
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    const EVP_CIPHER* cipher = key.size() == 16 ? EVP_aes_128_ecb() : key.size() == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
    int outl = 0;
    ASSERT_EQ(1, EVP_EncryptInit_ex(c, cipher, nullptr, key.data(), nullptr));
    EVP_CIPHER_CTX_set_padding(c, 0);
    ASSERT_EQ(1, EVP_EncryptUpdate(c, out, &outl, in, 16));
    EVP_CIPHER_CTX_free(c);
}

// OpenSSL's AES-GCM tag and ciphertext.
void openssl_gcm(const std::vector<uint8_t>& key, const std::vector<uint8_t>& iv, const std::vector<uint8_t>& aad,
                 const std::vector<uint8_t>& pt, std::vector<uint8_t>* ct, uint8_t tag[16]) {
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    const EVP_CIPHER* cipher = key.size() == 16 ? EVP_aes_128_gcm() : key.size() == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
    int outl = 0;
    ASSERT_EQ(1, EVP_EncryptInit_ex(c, cipher, nullptr, nullptr, nullptr));
    ASSERT_EQ(1, EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(iv.size()), nullptr));
    ASSERT_EQ(1, EVP_EncryptInit_ex(c, nullptr, nullptr, key.data(), iv.data()));
    if (!aad.empty()) ASSERT_EQ(1, EVP_EncryptUpdate(c, nullptr, &outl, aad.data(), static_cast<int>(aad.size())));
    ct->resize(pt.size());
    if (!pt.empty()) ASSERT_EQ(1, EVP_EncryptUpdate(c, ct->data(), &outl, pt.data(), static_cast<int>(pt.size())));
    ASSERT_EQ(1, EVP_EncryptFinal_ex(c, tag, &outl));
    ASSERT_EQ(1, EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag));
    EVP_CIPHER_CTX_free(c);
}

bool eq(bc_gf128 a, bc_gf128 b) { return a.hi == b.hi && a.lo == b.lo; }

}  // namespace

TEST(GcmMath, InverseAndPowers) {
    for (int i = 0; i < 5; ++i) {
        auto b = random_bytes(16);
        bc_gf128 x = bc_gf128_load(b.data());
        EXPECT_TRUE(eq(bc_gf128_mul(x, bc::gf128_inverse(x)), bc_gf128_one()));
        EXPECT_TRUE(eq(bc::gf128_pow(x, 0), bc_gf128_one()));
        EXPECT_TRUE(eq(bc::gf128_pow(x, 5), bc_gf128_mul(x, bc_gf128_mul(bc_gf128_mul(x, x), bc_gf128_mul(x, x)))));
    }
}

// The tag from partials folded over a random split equals OpenSSL's, for any
// IV length, AAD and message length.
TEST(GcmMath, FoldedPartialsGiveOpenSslTag) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
        auto key = random_bytes(16 + 8 * (trial % 3));
        size_t iv_len = trial % 4 == 0 ? 1 + rng() % 40 : 12;
        auto iv = random_bytes(iv_len), aad = random_bytes(rng() % 70), pt = random_bytes(rng() % 300);
        std::vector<uint8_t> ct;
        uint8_t want[16];
        openssl_gcm(key, iv, aad, pt, &ct, want);

        uint8_t zero[16] = {0}, hb[16], j0[16], mask[16];
        aes_ecb_block(key, zero, hb);
        bc_gf128 h = bc_gf128_load(hb);
        bc::gcm_j0(h, iv.data(), iv.size(), j0);
        aes_ecb_block(key, j0, mask);

        bc_gf128 acc = bc::ghash_partial(h, aad.data(), aad.size());
        // Split the ciphertext at a random block boundary into two pieces.
        size_t cut = ct.empty() ? 0 : 16 * (rng() % (ct.size() / 16 + 1));
        acc = bc::ghash_fold(acc, bc::ghash_partial(h, ct.data(), cut), cut / 16, h);
        size_t rest = ct.size() - cut;
        acc = bc::ghash_fold(acc, bc::ghash_partial(h, ct.data() + cut, rest), (rest + 15) / 16, h);
        bc_gf128 s = bc::gcm_finish(acc, h, aad.size(), ct.size());
        uint8_t got[16];
        bc_gf128_store(got, bc_gf128_xor(s, bc_gf128_load(mask)));
        EXPECT_EQ(0, memcmp(got, want, 16)) << "trial " << trial << " iv_len " << iv_len;
    }
}

// Pieces of one size and a shorter last one, folded with one power of H for all but the
// last, give the GHASH of the whole message (and so OpenSSL's tag, by the test above).
TEST(GcmMath, FoldedEqualPiecesGiveTheWholeGhash) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 40; ++trial) {
        const auto hb = random_bytes(16);
        const bc_gf128 h = bc_gf128_load(hb.data());
        const size_t piece = 16 * (1 + rng() % 20);
        const size_t len = rng() % (piece * 7) + (trial % 5 == 0 ? 0 : 1);
        const auto data = random_bytes(len);
        const size_t n = len == 0 ? 0 : (len + piece - 1) / piece;
        std::vector<bc_gf128> partials(n);
        for (size_t i = 0; i < n; ++i) partials[i] = bc::ghash_partial(h, data.data() + i * piece, std::min(piece, len - i * piece));
        const bc_gf128 got = bc::ghash_fold_pieces(partials.data(), n, piece, len, h);
        const bc_gf128 want = bc::ghash_partial(h, data.data(), len);
        EXPECT_TRUE(got.hi == want.hi && got.lo == want.lo) << "trial " << trial << " piece " << piece << " len " << len;
    }
}

TEST(GcmMath, Inc32WrapsInTheLowWordOnly) {
    uint8_t c[16];
    memset(c, 0xab, 12);
    c[12] = c[13] = c[14] = c[15] = 0xff;
    bc::gcm_inc32(c, 2);
    EXPECT_EQ(c[11], 0xab);
    EXPECT_EQ(bc_load_be32(c + 12), 1u);
}
