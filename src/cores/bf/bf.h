// Blowfish (Schneier, FSE 1993) on the host: key expansion into the layout the device
// core reads (bf_block.h) and the portable block functions, which run the dialect batch
// functions 32 blocks at a time. Table-based by nature (key-dependent S-boxes): not
// constant time. These are bulkcrypt's reference Blowfish: the device backends are
// tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_BF_KS_WORDS of bf_block.h): P1..P18, padding to word
// 32, the four S-boxes.
constexpr size_t kBfKsWords = 32 + 4 * 256;

// Key lengths the catalogue offers (bytes): Blowfish's 32 to 448 bits; 16 by default.
constexpr size_t kBfKeyMin = 4, kBfKeyMax = 56;

// Expands a key of kBfKeyMin..kBfKeyMax bytes into ks (kBfKsWords words, the layout
// documented in bf_block.h); false (and ks untouched) for any other length.
bool bf_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole 8-byte blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void bf_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void bf_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
