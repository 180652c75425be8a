// HIGHT (CHES 2006, KISA; 64-bit block, 128-bit key) on the host: key expansion into
// the bitsliced core's layout (hight_block.h) and the constant-time portable block
// functions, which run the dialect batch functions 32 blocks at a time. These are
// bulkcrypt's reference HIGHT: the device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_HIGHT_KS_WORDS of hight_block.h): a 4-word header,
// 8 whitening key bytes and 128 subkey bytes of 8 mask words each.
constexpr size_t kHightKsWords = 4 + 8 * 8 + 8 * 128;

// Expands a 16-byte key (KISA's byte order: MK0 first) into ks (kHightKsWords words,
// the layout documented in hight_block.h); false (and ks untouched) for any other
// length.
bool hight_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole 8-byte blocks (any n, in == out allowed, any alignment), 32 blocks
// a batch; a partial batch is padded with zero blocks and the padding wiped.
void hight_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void hight_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
