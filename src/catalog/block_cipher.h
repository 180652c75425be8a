// What a block cipher folder (src/cores/<cipher>/) tells the rest of bulkcrypt.
//
// The generic modes (src/modes/block/) and every backend work from this
// descriptor alone: the block size, the batch the core likes, the size of the
// expanded key, and the portable host core. The device cores behind it are the
// dialect header the folder names in its device.inc (see docs/adding-a-cipher.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

struct BlockCipher {
    const char* name;          // the cipher's name in the catalogue: "aes", "camellia"
    unsigned block_bytes;      // 8 or 16
    unsigned batch_blocks;     // blocks per call the core prefers (a bitsliced core: 32)
    size_t ks_words;           // 32-bit words of the largest expanded key
    // Expands a key of len bytes into ks (ks_words words: the layout the device
    // cores read, uploaded as is); false, with ks untouched, for a length the
    // cipher does not take.
    bool (*expand)(const uint8_t* key, size_t len, uint32_t* ks);
    // The portable constant-time core over n whole blocks; in == out allowed.
    void (*encrypt)(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
    void (*decrypt)(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n);
};

// The block cipher registered under name ("aes", "camellia"), nullptr when none.
const BlockCipher* find_block_cipher(const char* name);
// The i-th registered block cipher, nullptr past the end.
const BlockCipher* block_cipher_at(size_t i);

}  // namespace bc
