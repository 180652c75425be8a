// SM4 (GB/T 32907-2016) on the host: key expansion into the bitsliced core's layout
// (sm4_block.h) and the constant-time portable block functions, which run the dialect
// batch functions 32 blocks at a time. These are bulkcrypt's reference SM4: the
// device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_SM4_KS_WORDS of sm4_block.h): 32 round keys of 32
// mask words.
constexpr size_t kSm4KsWords = 32 * 32;

// Expands a 16-byte key into ks (kSm4KsWords words, the layout documented in
// sm4_block.h); false (and ks untouched) for any other length.
bool sm4_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void sm4_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void sm4_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
