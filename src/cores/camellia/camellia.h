// Camellia (RFC 3713) on the host: key expansion into the bitsliced core's layout
// (camellia_block.h) and the constant-time portable block functions, which run the
// dialect batch functions 32 blocks at a time. These are bulkcrypt's reference
// Camellia: the device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the largest expanded key (BC_CAMELLIA_KS_WORDS of camellia_block.h):
// a 4-word header and 34 subkeys of 64 mask words.
constexpr size_t kCamelliaKsWords = 4 + 64 * 34;

// Expands a 16-, 24- or 32-byte key into ks (kCamelliaKsWords words, the layout
// documented in camellia_block.h); false (and ks untouched) for any other length.
bool camellia_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void camellia_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void camellia_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
