// The AES modes over the portable constant-time core (src/cores/aes): the CPU
// backend's "portable" path and the reference every device backend is tested
// against. Each function processes one contiguous piece with an explicit start
// state, so callers may split work anywhere a mode allows. in == out is allowed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cores/aes/aes.h"

namespace bc {

void aes_ecb_encrypt(const AesKeySchedule& k, const uint8_t* in, uint8_t* out, size_t nblocks);
void aes_ecb_decrypt(const AesKeySchedule& k, const uint8_t* in, uint8_t* out, size_t nblocks);

// chain: the IV on entry, the last ciphertext block on return.
void aes_cbc_encrypt(const AesKeySchedule& k, uint8_t chain[16], const uint8_t* in, uint8_t* out,
                     size_t nblocks);
void aes_cbc_decrypt(const AesKeySchedule& k, uint8_t chain[16], const uint8_t* in, uint8_t* out,
                     size_t nblocks);

// CTR from counter block ctr (128-bit big-endian increment), starting `offset`
// bytes into the keystream. The caller has checked that the counter cannot wrap.
void aes_ctr128(const AesKeySchedule& k, const uint8_t ctr[16], uint64_t offset,
                const uint8_t* in, uint8_t* out, size_t len);
// CTR with GCM's 32-bit increment, from the counter of the first block.
void aes_ctr32(const AesKeySchedule& k, const uint8_t ctr[16], const uint8_t* in, uint8_t* out,
               size_t len);

// XTS (IEEE 1619) of one data unit of len >= 16 bytes, ciphertext stealing for
// a partial last block. k1 encrypts data, k2 the tweak.
void aes_xts_unit(const AesKeySchedule& k1, const AesKeySchedule& k2, bool encrypt,
                  const uint8_t tweak[16], const uint8_t* in, uint8_t* out, size_t len);

// Adds n to a 16-byte little-endian number (XTS data-unit tweaks) or a
// big-endian one (CTR counters), modulo 2^128.
void add_le128(uint8_t v[16], uint64_t n);
void add_be128(uint8_t v[16], uint64_t n);

}  // namespace bc
