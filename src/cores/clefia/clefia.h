// CLEFIA (RFC 6114) on the host: key expansion into the bitsliced core's layout
// (clefia_block.h) and the constant-time portable block functions, which run the
// dialect batch functions 32 blocks at a time. These are bulkcrypt's reference
// CLEFIA (OpenSSL has none): the device backends and the generic modes are tested
// against them, and they against RFC 6114's vectors.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

// Words of the largest expanded key (BC_CLEFIA_KS_WORDS of clefia_block.h): a 4-word
// header and 56 key words (4 whitening, 52 round keys) of 32 mask words.
constexpr size_t kClefiaKsWords = 4 + 32 * 56;

// Expands a 16-, 24- or 32-byte key into ks (kClefiaKsWords words, the layout
// documented in clefia_block.h); false (and ks untouched) for any other length.
bool clefia_expand_key(const uint8_t* key, size_t len, uint32_t* ks);

// ECB over n whole blocks (any n, in == out allowed, any alignment), 32 blocks a
// batch; a partial batch is padded with zero blocks and the padding wiped.
void clefia_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
void clefia_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);

}  // namespace bc
