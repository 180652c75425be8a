// CAST-128 / CAST5 (RFC 2144) on the host: key expansion into the layout the device
// core reads (cast5_block.h) and the portable block functions, which run the dialect
// batch functions 32 blocks at a time. Table-based by nature: not constant time. These
// are bulkcrypt's reference CAST5: the device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_CAST5_KS_WORDS of cast5_block.h): Km1..16, Kr1..16,
// S1..S4, the round count.
constexpr size_t kCast5KsWords = 32 + 4 * 256 + 1;

// Key lengths (bytes): RFC 2144's 40 to 128 bits; 16 by default. Keys up to 10 bytes
// (80 bits) run 12 rounds, longer ones 16.
constexpr size_t kCast5KeyMin = 5, kCast5KeyMax = 16;

// Expands a key of kCast5KeyMin..kCast5KeyMax bytes into ks (kCast5KsWords words, the
// layout documented in cast5_block.h); false (and ks untouched) for any other length.
bool cast5_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole 8-byte blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void cast5_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void cast5_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
