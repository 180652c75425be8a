// The AEAD constructions in one place: what turns a key and a nonce into the
// per-message state, and the folded MAC into a tag. The C API, the backends and
// the tests call these; the bulk work (keystream, GHASH and Poly1305 partials)
// happens elsewhere and is folded with modes/gcm (ghash_fold) and
// modes/poly1305 (poly1305_combine).
//
// GCM (NIST SP 800-38D) is written over any 16-byte block cipher: a catalogue
// descriptor with its expanded key, or an AES schedule (the AES fast paths keep
// their own form). ChaCha20-Poly1305 follows RFC 8439 section 2.8 and
// XChaCha20-Poly1305 draft-irtf-cfrg-xchacha (HChaCha20 subkey).
#pragma once

#include <cstddef>
#include <cstdint>

#include "catalog/block_cipher.h"
#include "cores/aes/aes.h"
#include "modes/gcm/ghash.h"

namespace bc {

// ---- GCM -------------------------------------------------------------------------

// A 16-byte block cipher under one key, for the few blocks GCM's set-up encrypts
// on the host (H, E_K(J0)). Borrows the key; does not own or wipe it.
class GcmCipher {
public:
    // A catalogue cipher and its expanded key (desc.ks_words words from desc.expand).
    GcmCipher(const BlockCipher& desc, const uint32_t* ks) : desc_(&desc), ks_(ks) {}
    // AES through its schedule.
    explicit GcmCipher(const AesKeySchedule& aes) : aes_(&aes) {}
    // False for a cipher whose block is not 16 bytes (GCM is undefined there).
    bool usable() const { return aes_ != nullptr || (desc_ != nullptr && desc_->block_bytes == 16); }
    void encrypt_block(const uint8_t in[16], uint8_t out[16]) const;

private:
    const BlockCipher* desc_ = nullptr;
    const uint32_t* ks_ = nullptr;
    const AesKeySchedule* aes_ = nullptr;
};

// The hash subkey H = E_K(0^128): the one place every backend and the C API get it.
bc_gf128 gcm_hash_subkey(const GcmCipher& cipher);

// Everything one GCM message needs before its body: wiped when destroyed.
struct GcmMessageSetup {
    bc_gf128 h{0, 0};        // hash subkey
    uint8_t j0[16] = {};     // pre-counter block
    uint8_t ek_j0[16] = {};  // E_K(J0), the tag mask
    uint8_t ctr[16] = {};    // inc32(J0): the counter block of the first body block
    ~GcmMessageSetup();
};

// H (unless known_h is given: keys cache it), J0 from a nonce of any non-zero
// length, E_K(J0) and the first counter block. False (and *out zeroed) for an
// unusable cipher or an empty nonce.
bool gcm_setup(const GcmCipher& cipher, const uint8_t* nonce, size_t nonce_len, GcmMessageSetup* out,
               const bc_gf128* known_h = nullptr);

// J0 of SP 800-38D: nonce || 0^31 || 1 for 12 bytes, else
// GHASH_H(nonce || 0-pad || [0]_64 || [8*len(nonce)]_64).
void gcm_j0(bc_gf128 h, const uint8_t* nonce, size_t nonce_len, uint8_t j0[16]);

// The length block [8*aad_len]_64 || [8*ct_len]_64.
bc_gf128 gcm_length_block(uint64_t aad_len, uint64_t ct_len);

// S = acc + L*H, where acc holds the folded partials (backend.h) of the padded
// AAD then the padded ciphertext: GHASH_H(A || C || L).
bc_gf128 gcm_finish(bc_gf128 acc, bc_gf128 h, uint64_t aad_len, uint64_t ct_len);

// The full 16-byte tag E_K(J0) ^ S (callers truncate).
void gcm_tag(bc_gf128 acc, bc_gf128 h, const uint8_t ek_j0[16], uint64_t aad_len, uint64_t ct_len,
             uint8_t tag[16]);

// ---- ChaCha20-Poly1305 and XChaCha20-Poly1305 --------------------------------------

// XChaCha20's per-message key: subkey = HChaCha20(key, nonce[0:16]) and the
// 12-byte nonce 0^4 || nonce[16:24] the message then runs ChaCha20 with.
void xchacha_subkey(const uint8_t key[32], const uint8_t nonce24[24], uint8_t subkey[32], uint8_t nonce12[12]);

// Everything one ChaCha20-Poly1305 message needs before its body: wiped when destroyed.
struct ChachaPolySetup {
    uint8_t mac_key[32] = {};  // the one-time Poly1305 key r || s (keystream block 0)
    uint8_t subkey[32] = {};   // XChaCha20: the HChaCha20 subkey
    bool use_subkey = false;   // true for a 24-byte nonce
    uint8_t ctr[16] = {};      // state words 12..15 of body block 0: le32 counter 1, then the nonce
    ~ChachaPolySetup();
};

// 12-byte nonce: ChaCha20-Poly1305; 24 bytes: XChaCha20-Poly1305. False (and
// *out zeroed) for any other length.
bool chachapoly_setup(const uint8_t key[32], const uint8_t* nonce, size_t nonce_len, ChachaPolySetup* out);

// Moves a body counter state (ctr above) on by nblocks 64-byte blocks: the
// 32-bit little-endian block counter in its first word, modulo 2^32.
void chachapoly_ctr_add(uint8_t ctr[16], uint64_t nblocks);

// Zero bytes that pad a section of len bytes to a 16-byte boundary.
inline size_t chachapoly_pad_len(uint64_t len) { return static_cast<size_t>((16 - len % 16) % 16); }

// The length block le64(aad_len) || le64(ct_len).
void chachapoly_length_block(uint64_t aad_len, uint64_t ct_len, uint8_t block[16]);

// The tag from acc, the folded Poly1305 partials (backend.h) of the padded AAD
// then the padded ciphertext: folds the length block in and adds s.
void chachapoly_tag(const uint8_t acc[17], const uint8_t mac_key[32], uint64_t aad_len, uint64_t ct_len,
                    uint8_t tag[16]);

}  // namespace bc
