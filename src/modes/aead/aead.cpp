#include "modes/aead/aead.h"

#include <cstring>

#include "cores/chacha/chacha.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"
#include "util/secure.h"

namespace bc {

// ---- GCM -------------------------------------------------------------------------

void GcmCipher::encrypt_block(const uint8_t in[16], uint8_t out[16]) const {
    if (aes_) aes_encrypt_blocks(*aes_, in, out, 1);
    else desc_->encrypt(ks_, in, out, 1);
}

bc_gf128 gcm_hash_subkey(const GcmCipher& cipher) {
    uint8_t block[16] = {0};
    cipher.encrypt_block(block, block);
    bc_gf128 h = bc_gf128_load(block);
    secure_wipe(block, sizeof block);
    return h;
}

GcmMessageSetup::~GcmMessageSetup() {
    secure_wipe_object(h);
    secure_wipe(j0, sizeof j0);
    secure_wipe(ek_j0, sizeof ek_j0);
    secure_wipe(ctr, sizeof ctr);
}

bool gcm_setup(const GcmCipher& cipher, const uint8_t* nonce, size_t nonce_len, GcmMessageSetup* out,
               const bc_gf128* known_h) {
    out->h = bc_gf128{0, 0};
    std::memset(out->j0, 0, 16);
    std::memset(out->ek_j0, 0, 16);
    std::memset(out->ctr, 0, 16);
    if (!cipher.usable() || nonce == nullptr || nonce_len == 0) return false;
    out->h = known_h ? *known_h : gcm_hash_subkey(cipher);
    gcm_j0(out->h, nonce, nonce_len, out->j0);
    cipher.encrypt_block(out->j0, out->ek_j0);
    std::memcpy(out->ctr, out->j0, 16);
    gcm_inc32(out->ctr, 1);
    return true;
}

void gcm_j0(bc_gf128 h, const uint8_t* nonce, size_t nonce_len, uint8_t j0[16]) {
    if (nonce_len == 12) {
        std::memcpy(j0, nonce, 12);
        j0[12] = j0[13] = j0[14] = 0;
        j0[15] = 1;
        return;
    }
    bc_gf128 y = {0, 0};
    y = bc_ghash_blocks(y, h, nonce, nonce_len / 16);
    if (nonce_len % 16) {
        uint8_t last[16] = {0};
        std::memcpy(last, nonce + 16 * (nonce_len / 16), nonce_len % 16);
        y = bc_ghash_blocks(y, h, last, 1);
    }
    uint8_t lens[16];
    bc_gf128_store(lens, gcm_length_block(0, nonce_len));
    y = bc_ghash_blocks(y, h, lens, 1);
    bc_gf128_store(j0, y);
    secure_wipe_object(y);
}

bc_gf128 gcm_length_block(uint64_t aad_len, uint64_t ct_len) {
    bc_gf128 l;
    l.hi = aad_len * 8;
    l.lo = ct_len * 8;
    return l;
}

bc_gf128 gcm_finish(bc_gf128 acc, bc_gf128 h, uint64_t aad_len, uint64_t ct_len) {
    return bc_gf128_xor(acc, bc_gf128_mul(gcm_length_block(aad_len, ct_len), h));
}

void gcm_tag(bc_gf128 acc, bc_gf128 h, const uint8_t ek_j0[16], uint64_t aad_len, uint64_t ct_len,
             uint8_t tag[16]) {
    bc_gf128 s = gcm_finish(acc, h, aad_len, ct_len);
    bc_gf128_store(tag, bc_gf128_xor(s, bc_gf128_load(ek_j0)));
    secure_wipe_object(s);
}

// ---- ChaCha20-Poly1305 and XChaCha20-Poly1305 --------------------------------------

void xchacha_subkey(const uint8_t key[32], const uint8_t nonce24[24], uint8_t subkey[32], uint8_t nonce12[12]) {
    bc_hchacha20(key, nonce24, subkey);
    std::memset(nonce12, 0, 4);
    std::memcpy(nonce12 + 4, nonce24 + 16, 8);
}

ChachaPolySetup::~ChachaPolySetup() {
    secure_wipe(mac_key, sizeof mac_key);
    secure_wipe(subkey, sizeof subkey);
    secure_wipe(ctr, sizeof ctr);
}

bool chachapoly_setup(const uint8_t key[32], const uint8_t* nonce, size_t nonce_len, ChachaPolySetup* out) {
    std::memset(out->mac_key, 0, 32);
    std::memset(out->subkey, 0, 32);
    std::memset(out->ctr, 0, 16);
    out->use_subkey = false;
    uint8_t n12[12];
    const uint8_t* k = key;
    if (nonce == nullptr) return false;
    if (nonce_len == 12) {
        std::memcpy(n12, nonce, 12);
    } else if (nonce_len == 24) {
        xchacha_subkey(key, nonce, out->subkey, n12);
        out->use_subkey = true;
        k = out->subkey;
    } else {
        return false;
    }
    // The one-time key is the first half of keystream block 0; the body starts at block 1.
    bc_u32 st[16];
    bc_chacha_set_key(st, k, 32);
    bc_chacha_set_ietf(st, 0, n12);
    uint8_t block0[64];
    bc_chacha_keystream_block(st, BC_CHACHA_LAYOUT_IETF, 20, 0, block0);
    std::memcpy(out->mac_key, block0, 32);
    bc_store_le32(out->ctr, 1);
    std::memcpy(out->ctr + 4, n12, 12);
    secure_wipe(block0, sizeof block0);
    secure_wipe(st, sizeof st);
    secure_wipe(n12, sizeof n12);
    return true;
}

// The older interface of modes/poly1305/poly1305.h, kept for its callers.
void chachapoly_setup(const uint8_t key[32], const uint8_t* nonce, size_t nonce_len, uint8_t subkey_out[32],
                      bool* use_subkey, uint8_t mac_key[32], uint8_t ctr[16]) {
    ChachaPolySetup s;
    chachapoly_setup(key, nonce, nonce_len, &s);
    std::memcpy(subkey_out, s.subkey, 32);
    std::memcpy(mac_key, s.mac_key, 32);
    std::memcpy(ctr, s.ctr, 16);
    *use_subkey = s.use_subkey;
}

void chachapoly_ctr_add(uint8_t ctr[16], uint64_t nblocks) {
    bc_store_le32(ctr, bc_load_le32(ctr) + static_cast<uint32_t>(nblocks));
}

void chachapoly_length_block(uint64_t aad_len, uint64_t ct_len, uint8_t block[16]) {
    bc_store_le64(block, aad_len);
    bc_store_le64(block + 8, ct_len);
}

void chachapoly_tag(const uint8_t acc[17], const uint8_t mac_key[32], uint64_t aad_len, uint64_t ct_len,
                    uint8_t tag[16]) {
    uint8_t lens[16], partial[17], total[17];
    chachapoly_length_block(aad_len, ct_len, lens);
    poly1305_partial(mac_key, lens, 16, partial);
    std::memcpy(total, acc, 17);
    poly1305_combine(total, partial, 1, mac_key);
    poly1305_finish(total, mac_key + 16, tag);
    secure_wipe(partial, sizeof partial);
    secure_wipe(total, sizeof total);
}

}  // namespace bc
