// MISTY1 (RFC 2994) on the host: key expansion into the bitsliced core's layout
// (misty1_block.h) and the constant-time portable block functions, which run the
// dialect batch functions 32 blocks at a time. These are bulkcrypt's reference
// MISTY1 (OpenSSL has none): the device backends and the generic modes are tested
// against them, and they against RFC 2994's and Botan's vectors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_MISTY1_KS_WORDS of misty1_block.h): 10 FL subkeys of
// 32 mask words and 8 FO subkeys of 112.
constexpr size_t kMisty1KsWords = 32 * 10 + 112 * 8;

// Expands a 16-byte key into ks (kMisty1KsWords words, the layout documented in
// misty1_block.h); false (and ks untouched) for any other length.
bool misty1_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole 8-byte blocks (any n, in == out allowed, any alignment), 32 blocks
// a batch; a partial batch is padded with zero blocks and the padding wiped.
void misty1_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void misty1_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
