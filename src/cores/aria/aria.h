// ARIA (RFC 5794) on the host: key expansion into the bitsliced core's layout
// (aria_block.h) and the constant-time portable block functions, which run the
// dialect batch functions 32 blocks at a time. These are bulkcrypt's reference
// ARIA: the device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_ARIA_KS_WORDS of aria_block.h): a 4-word header,
// then 17 encryption and 17 decryption round keys of 128 mask words.
constexpr size_t kAriaKsWords = 4 + 2 * 128 * 17;

// Expands a 16-, 24- or 32-byte key into ks (kAriaKsWords words, the layout
// documented in aria_block.h); false (and ks untouched) for any other length.
bool aria_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void aria_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void aria_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
