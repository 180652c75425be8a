// DES (FIPS 46-3) and triple DES (NIST SP 800-67, EDE with two or three keys) on the
// host: key expansion into the bitsliced core's layout (des_block.h) and the
// constant-time portable block functions, which run the dialect batch functions 32
// blocks at a time. These are bulkcrypt's reference DES: the device backends are
// tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_DES_KS_WORDS of des_block.h): a 4-word header and 48
// rounds (three passes) of 48 mask words.
constexpr size_t kDesKsWords = 4 + 48 * 48;

// Expands an 8-byte DES key, a 16-byte two-key (K1 || K2, K3 = K1) or a 24-byte
// three-key TDEA key into ks (kDesKsWords words, the layout documented in
// des_block.h). Parity bits are ignored, as OpenSSL does. False (and ks untouched)
// for any other length.
bool des_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole 8-byte blocks (any n, in == out allowed, any alignment), 32 blocks
// a batch; a partial batch is padded with zero blocks and the padding wiped.
void des_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void des_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
