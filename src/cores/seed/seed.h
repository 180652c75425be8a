// SEED (RFC 4269) on the host: key expansion into the bitsliced core's layout
// (seed_block.h) and the constant-time portable block functions, which run the
// dialect batch functions 32 blocks at a time. These are bulkcrypt's reference
// SEED: the device backends are tested against them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the expanded key (BC_SEED_KS_WORDS of seed_block.h): a 4-word header and
// 16 round keys of 64 mask words.
constexpr size_t kSeedKsWords = 4 + 64 * 16;

// Expands a 16-byte key into ks (kSeedKsWords words, the layout documented in
// seed_block.h); false (and ks untouched) for any other length.
bool seed_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void seed_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void seed_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

// The table form (seed_table_block.h; not constant time, measured against the
// bitsliced core, in no catalogue row): 32 round-key words, then SS0..SS3.
constexpr size_t kSeedTableKsWords = 32 + 1024;
constexpr unsigned kSeedTableBatch = 4;
bool seed_table_expand_key(const uint8_t* key, size_t len, uint32_t* ks);
void seed_table_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void seed_table_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
