// The AEAD constructions of src/modes/aead against OpenSSL: AES-GCM assembled
// from gcm_setup (over the AES descriptor and over an AES schedule), GHASH
// partials and gcm_tag, with nonces of 1, 12, 13 and 64 bytes and AAD/message
// lengths 0..100; ChaCha20-Poly1305 from chachapoly_setup and chachapoly_tag;
// XChaCha20's subkey against HChaCha20 recovered from OpenSSL's raw ChaCha20.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstring>
#include <vector>

#include "catalog/block_cipher.h"
#include "modes/aead/aead.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"

namespace {

using Bytes = std::vector<uint8_t>;

Bytes random_bytes(size_t n) {
    Bytes v(n);
    if (n) RAND_bytes(v.data(), static_cast<int>(n));
    return v;
}

const EVP_CIPHER* gcm_cipher(size_t key_len) {
    return key_len == 16 ? EVP_aes_128_gcm() : key_len == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
}

// OpenSSL's AEAD (AES-GCM or ChaCha20-Poly1305): ciphertext and the 16-byte tag.
void openssl_seal(const EVP_CIPHER* cipher, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                  const Bytes& pt, Bytes* ct, uint8_t tag[16]) {
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int outl = 0;
    ASSERT_EQ(1, EVP_EncryptInit_ex(c, cipher, nullptr, nullptr, nullptr));
    ASSERT_EQ(1, EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce.size()), nullptr));
    ASSERT_EQ(1, EVP_EncryptInit_ex(c, nullptr, nullptr, key.data(), nonce.data()));
    if (!aad.empty()) ASSERT_EQ(1, EVP_EncryptUpdate(c, nullptr, &outl, aad.data(), static_cast<int>(aad.size())));
    ct->assign(pt.size(), 0);
    if (!pt.empty()) ASSERT_EQ(1, EVP_EncryptUpdate(c, ct->data(), &outl, pt.data(), static_cast<int>(pt.size())));
    ASSERT_EQ(1, EVP_EncryptFinal_ex(c, tag, &outl));
    ASSERT_EQ(1, EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag));
    EVP_CIPHER_CTX_free(c);
}

// Raw ChaCha20 from OpenSSL: iv16 = le32 block counter || 12-byte nonce.
void openssl_chacha20(const uint8_t key[32], const uint8_t iv16[16], const uint8_t* in, uint8_t* out, size_t len) {
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int outl = 0;
    ASSERT_EQ(1, EVP_EncryptInit_ex(c, EVP_chacha20(), nullptr, key, iv16));
    if (len) ASSERT_EQ(1, EVP_EncryptUpdate(c, out, &outl, in, static_cast<int>(len)));
    EVP_CIPHER_CTX_free(c);
}

// GCM assembled from the constructions: counter mode from setup.ctr (inc32),
// partials folded with powers of H, then gcm_tag.
void bulkcrypt_gcm(const bc::GcmCipher& cipher, const Bytes& nonce, const Bytes& aad, const Bytes& pt, Bytes* ct,
                   uint8_t tag[16]) {
    bc::GcmMessageSetup s;
    ASSERT_TRUE(bc::gcm_setup(cipher, nonce.data(), nonce.size(), &s));
    ct->assign(pt.size(), 0);
    uint8_t ctr[16], ks[16];
    std::memcpy(ctr, s.ctr, 16);
    for (size_t i = 0; i < pt.size(); i += 16) {
        cipher.encrypt_block(ctr, ks);
        for (size_t j = i; j < pt.size() && j < i + 16; ++j) (*ct)[j] = pt[j] ^ ks[j - i];
        bc::gcm_inc32(ctr, 1);
    }
    bc_gf128 acc = {0, 0};
    acc = bc::ghash_fold(acc, bc::ghash_partial(s.h, aad.data(), aad.size()), (aad.size() + 15) / 16, s.h);
    acc = bc::ghash_fold(acc, bc::ghash_partial(s.h, ct->data(), ct->size()), (ct->size() + 15) / 16, s.h);
    bc::gcm_tag(acc, s.h, s.ek_j0, aad.size(), ct->size(), tag);
}

}  // namespace

TEST(AeadConstructions, GcmAgainstOpenSsl) {
    const bc::BlockCipher* aes = bc::find_block_cipher("aes");
    ASSERT_NE(aes, nullptr);
    const size_t key_lens[3] = {16, 24, 32};
    size_t cases = 0;
    for (size_t nonce_len : {1u, 12u, 13u, 64u}) {
        for (size_t aad_len = 0; aad_len <= 100; ++aad_len) {
            for (size_t msg_len = 0; msg_len <= 100; ++msg_len) {
                // Every (AAD, message) pair with the 12-byte nonce; every AAD and every
                // message length, in a sparser grid, with the others.
                if (nonce_len != 12 && (aad_len * 7 + msg_len) % 13 != 0) continue;
                const size_t key_len = key_lens[(aad_len + msg_len) % 3];
                Bytes key = random_bytes(key_len), nonce = random_bytes(nonce_len), aad = random_bytes(aad_len),
                      pt = random_bytes(msg_len);
                Bytes want_ct, got_ct;
                uint8_t want_tag[16], got_tag[16];
                openssl_seal(gcm_cipher(key_len), key, nonce, aad, pt, &want_ct, want_tag);
                if ((aad_len + msg_len) % 2 == 0) {
                    std::vector<uint32_t> ks(aes->ks_words);
                    ASSERT_TRUE(aes->expand(key.data(), key.size(), ks.data()));
                    bulkcrypt_gcm(bc::GcmCipher(*aes, ks.data()), nonce, aad, pt, &got_ct, got_tag);
                } else {
                    bc::AesKeySchedule sched;
                    ASSERT_TRUE(bc::aes_expand_key(key.data(), key.size(), &sched));
                    bulkcrypt_gcm(bc::GcmCipher(sched), nonce, aad, pt, &got_ct, got_tag);
                }
                ASSERT_EQ(want_ct, got_ct) << "nonce " << nonce_len << " aad " << aad_len << " msg " << msg_len;
                ASSERT_EQ(0, std::memcmp(want_tag, got_tag, 16))
                    << "nonce " << nonce_len << " aad " << aad_len << " msg " << msg_len;
                ++cases;
            }
        }
    }
    EXPECT_GT(cases, 10000u);
}

TEST(AeadConstructions, GcmHashSubkeyAndSetup) {
    const bc::BlockCipher* aes = bc::find_block_cipher("aes");
    ASSERT_NE(aes, nullptr);
    Bytes key = random_bytes(32);
    std::vector<uint32_t> ks(aes->ks_words);
    ASSERT_TRUE(aes->expand(key.data(), key.size(), ks.data()));
    bc::AesKeySchedule sched;
    ASSERT_TRUE(bc::aes_expand_key(key.data(), key.size(), &sched));
    // H = E_K(0^128), the same through the descriptor and the schedule.
    uint8_t zero[16] = {0}, h_bytes[16];
    aes->encrypt(ks.data(), zero, h_bytes, 1);
    const bc_gf128 h1 = bc::gcm_hash_subkey(bc::GcmCipher(*aes, ks.data()));
    const bc_gf128 h2 = bc::gcm_hash_subkey(bc::GcmCipher(sched));
    const bc_gf128 want = bc_gf128_load(h_bytes);
    EXPECT_TRUE(h1.hi == want.hi && h1.lo == want.lo);
    EXPECT_TRUE(h2.hi == want.hi && h2.lo == want.lo);
    // 12-byte nonce: J0 = nonce || 0^31 || 1, counter = J0 + 1; a known H is taken as given.
    Bytes nonce = random_bytes(12);
    bc::GcmMessageSetup s;
    ASSERT_TRUE(bc::gcm_setup(bc::GcmCipher(sched), nonce.data(), 12, &s, &h1));
    EXPECT_EQ(0, std::memcmp(s.j0, nonce.data(), 12));
    EXPECT_EQ(1, s.j0[15]);
    EXPECT_EQ(2, s.ctr[15]);
    uint8_t ek[16];
    aes->encrypt(ks.data(), s.j0, ek, 1);
    EXPECT_EQ(0, std::memcmp(ek, s.ek_j0, 16));
    // Refusals: an empty nonce, a cipher whose block is not 16 bytes.
    EXPECT_FALSE(bc::gcm_setup(bc::GcmCipher(sched), nonce.data(), 0, &s));
    bc::BlockCipher narrow = *aes;
    narrow.block_bytes = 8;
    EXPECT_FALSE(bc::gcm_setup(bc::GcmCipher(narrow, ks.data()), nonce.data(), 12, &s));
    // The length block: bit lengths, AAD in the high half.
    const bc_gf128 l = bc::gcm_length_block(3, 5);
    EXPECT_EQ(24u, l.hi);
    EXPECT_EQ(40u, l.lo);
}

TEST(AeadConstructions, ChaChaPolyAgainstOpenSsl) {
    const EVP_CIPHER* cp = EVP_chacha20_poly1305();
    ASSERT_NE(cp, nullptr);
    for (size_t nonce_len : {12u, 24u}) {
        for (size_t aad_len = 0; aad_len <= 100; ++aad_len) {
            for (size_t msg_len = 0; msg_len <= 100; ++msg_len) {
                if (nonce_len == 24 && (aad_len * 7 + msg_len) % 5 != 0) continue;
                Bytes key = random_bytes(32), nonce = random_bytes(nonce_len), aad = random_bytes(aad_len),
                      pt = random_bytes(msg_len);
                bc::ChachaPolySetup s;
                ASSERT_TRUE(bc::chachapoly_setup(key.data(), nonce.data(), nonce.size(), &s));
                ASSERT_EQ(nonce_len == 24, s.use_subkey);
                // XChaCha20-Poly1305 is ChaCha20-Poly1305 under the subkey with nonce 0^4 || nonce[16:24].
                Bytes inner_key = key, inner_nonce = nonce;
                if (nonce_len == 24) {
                    inner_key.assign(s.subkey, s.subkey + 32);
                    inner_nonce.assign(12, 0);
                    std::memcpy(inner_nonce.data() + 4, nonce.data() + 16, 8);
                }
                Bytes want_ct;
                uint8_t want_tag[16];
                openssl_seal(cp, inner_key, inner_nonce, aad, pt, &want_ct, want_tag);
                // The body: raw ChaCha20 from the counter state of the set-up.
                Bytes ct(msg_len);
                openssl_chacha20(s.use_subkey ? s.subkey : key.data(), s.ctr, pt.data(), ct.data(), msg_len);
                ASSERT_EQ(want_ct, ct) << "nonce " << nonce_len << " aad " << aad_len << " msg " << msg_len;
                uint8_t acc[17] = {0}, part[17], tag[16];
                bc::poly1305_partial(s.mac_key, aad.data(), aad.size(), part);
                bc::poly1305_combine(acc, part, (aad.size() + 15) / 16, s.mac_key);
                bc::poly1305_partial(s.mac_key, ct.data(), ct.size(), part);
                bc::poly1305_combine(acc, part, (ct.size() + 15) / 16, s.mac_key);
                bc::chachapoly_tag(acc, s.mac_key, aad.size(), ct.size(), tag);
                ASSERT_EQ(0, std::memcmp(want_tag, tag, 16))
                    << "nonce " << nonce_len << " aad " << aad_len << " msg " << msg_len;
            }
        }
    }
}

TEST(AeadConstructions, ChaChaPolyRefusesOtherNonces) {
    Bytes key = random_bytes(32), nonce = random_bytes(64);
    for (size_t n : {0u, 1u, 13u, 64u}) {
        bc::ChachaPolySetup s;
        EXPECT_FALSE(bc::chachapoly_setup(key.data(), nonce.data(), n, &s)) << n;
        const uint8_t zeros[32] = {0};
        EXPECT_EQ(0, std::memcmp(s.mac_key, zeros, 32));
    }
    EXPECT_EQ(0u, bc::chachapoly_pad_len(0));
    EXPECT_EQ(15u, bc::chachapoly_pad_len(1));
    EXPECT_EQ(0u, bc::chachapoly_pad_len(32));
    uint8_t blk[16];
    bc::chachapoly_length_block(0x0102, 0x0304, blk);
    EXPECT_EQ(0x02, blk[0]);
    EXPECT_EQ(0x01, blk[1]);
    EXPECT_EQ(0x04, blk[8]);
    EXPECT_EQ(0x03, blk[9]);
    uint8_t ctr[16] = {0xff, 0xff, 0xff, 0xff, 9};
    bc::chachapoly_ctr_add(ctr, 2);  // wraps modulo 2^32, the nonce untouched
    EXPECT_EQ(1, ctr[0]);
    EXPECT_EQ(0, ctr[3]);
    EXPECT_EQ(9, ctr[4]);
}

// HChaCha20 is the ChaCha20 block function without the final addition, keeping
// words 0..3 and 12..15: recover it from OpenSSL's keystream by subtracting the
// input words (the constants, and the 16 nonce bytes placed as counter || nonce).
TEST(AeadConstructions, XChaChaSubkeyAgainstOpenSslBlockFunction) {
    for (int t = 0; t < 32; ++t) {
        Bytes key = random_bytes(32), nonce = random_bytes(24);
        uint8_t zeros[64] = {0}, ks[64];
        openssl_chacha20(key.data(), nonce.data(), zeros, ks, 64);
        static const uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
        uint8_t want[32];
        for (int i = 0; i < 4; ++i) {
            uint32_t w = bc_load_le32(ks + 4 * i) - sigma[i];
            bc_store_le32(want + 4 * i, w);
            uint32_t v = bc_load_le32(ks + 48 + 4 * i) - bc_load_le32(nonce.data() + 4 * i);
            bc_store_le32(want + 16 + 4 * i, v);
        }
        uint8_t sub[32], n12[12];
        bc::xchacha_subkey(key.data(), nonce.data(), sub, n12);
        EXPECT_EQ(0, std::memcmp(want, sub, 32));
        EXPECT_EQ(0, n12[0] | n12[1] | n12[2] | n12[3]);
        EXPECT_EQ(0, std::memcmp(n12 + 4, nonce.data() + 16, 8));
    }
}
