// PRESENT (CHES 2007; 64-bit block, 80- or 128-bit key) on the host: key expansion into
// the bitsliced core's layout (present_block.h) and the constant-time portable block
// functions, which run the dialect batch functions 32 blocks at a time. These are
// bulkcrypt's reference PRESENT: the device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_PRESENT_KS_WORDS of present_block.h): a 4-word header
// and 32 round keys of 64 mask words.
constexpr size_t kPresentKsWords = 4 + 64 * 32;

// Expands a 10-byte (PRESENT-80) or 16-byte (PRESENT-128) key, byte 0 the most
// significant, into ks (kPresentKsWords words, the layout documented in
// present_block.h); false (and ks untouched) for any other length.
bool present_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole 8-byte blocks (any n, in == out allowed, any alignment), 32 blocks
// a batch; a partial batch is padded with zero blocks and the padding wiped.
void present_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void present_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
