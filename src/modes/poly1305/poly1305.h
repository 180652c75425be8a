// Poly1305 (RFC 8439 section 2.5) on the host, split so that a message can be
// processed in pieces anywhere: each piece yields a partial sum with powers of
// r, and the partials are folded with r^nblocks. Constant time: 44-bit limbs in
// 64-bit words, 64x64->128 multiplies, no branch or index on secret data.
//
// Definitions (backend.h, AeadChunkOp):
//   the data is zero-padded to whole 16-byte blocks m_1..m_n, and every block
//   gets the 2^128 bit (the RFC 8439 AEAD pads, so this is its Poly1305);
//   partial = sum m_i * r^(n-i+1) mod p, p = 2^130 - 5, fully reduced, stored as
//   17 little-endian bytes.
// r is always passed raw (16 bytes, the first half of the one-time key) and
// clamped inside.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

void poly1305_partial(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t partial[17]);
// acc = acc * r^nblocks + partial mod p (fully reduced).
void poly1305_combine(uint8_t acc[17], const uint8_t partial[17], uint64_t nblocks,
                      const uint8_t r[16]);
// tag = (acc + s) mod 2^128.
void poly1305_finish(const uint8_t acc[17], const uint8_t s[16], uint8_t tag[16]);

// ChaCha20-Poly1305 per-message setup (RFC 8439 2.8; XChaCha20-Poly1305 per
// draft-irtf-cfrg-xchacha). nonce_len 12: the key itself is used, *use_subkey =
// false. nonce_len 24: subkey = HChaCha20(key, nonce[0:16]), nonce' = 0^4 ||
// nonce[16:24], *use_subkey = true. mac_key = the first 32 bytes of keystream
// block 0; ctr = state words 12..15 (le32 counter = 1, then nonce'). Any other
// nonce_len zeroes every output (the C API refuses it before calling). Defined
// with the other AEAD constructions in modes/aead (chachapoly_setup there).
void chachapoly_setup(const uint8_t key[32], const uint8_t* nonce, size_t nonce_len,
                      uint8_t subkey_out[32], bool* use_subkey, uint8_t mac_key[32],
                      uint8_t ctr[16]);

// A field element mod 2^130 - 5 in radix 2^44 (limbs 44, 44, 42 bits when
// carried). Exposed for the backends' parallel paths and for tests.
struct Poly1305Elem {
    uint64_t l[3];
};

// Incremental partial: feed whole 16-byte blocks with blocks(), and at most one
// final short piece with tail(); read the result with value().
class Poly1305Partial {
public:
    explicit Poly1305Partial(const uint8_t r[16]);
    ~Poly1305Partial();
    Poly1305Partial(const Poly1305Partial&) = delete;
    Poly1305Partial& operator=(const Poly1305Partial&) = delete;

    // nblocks whole 16-byte blocks.
    void blocks(const uint8_t* data, size_t nblocks);
    // Any length: whole blocks, then the rest zero-padded as one more block.
    void update_padded(const uint8_t* data, size_t len);
    uint64_t block_count() const { return count_; }
    // Fully reduced partial, 17 bytes little-endian.
    void value(uint8_t partial[17]) const;

private:
    Poly1305Elem h_, r_, r2_, r3_, r4_;
    uint64_t count_ = 0;
};

// Field helpers (all constant time in their element arguments).
Poly1305Elem poly1305_load_r(const uint8_t r[16]);          // clamped
Poly1305Elem poly1305_load17(const uint8_t in[17]);         // any 17-byte value, reduced mod 2^130 range
void poly1305_store17(const Poly1305Elem& x, uint8_t out[17]);  // fully reduced
Poly1305Elem poly1305_mul(const Poly1305Elem& a, const Poly1305Elem& b);
Poly1305Elem poly1305_add(const Poly1305Elem& a, const Poly1305Elem& b);
// x^e (e public); e = 0 gives 1.
Poly1305Elem poly1305_pow(const Poly1305Elem& x, uint64_t e);

}  // namespace bc
