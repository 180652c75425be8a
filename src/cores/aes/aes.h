// AES (FIPS-197) on the host: key expansion and the constant-time portable
// block functions. These are bulkcrypt's reference AES: every device backend
// is tested against them. The blocks go through the bitsliced core
// (aes_bitsliced.h) 32 at a time, so no address or branch depends on the key or
// the data; a partial batch is padded with zero blocks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bc {

struct AesKeySchedule {
    int rounds = 0;          // 10, 12 or 14
    uint32_t enc[60];        // FIPS-197 schedule words w[i], big-endian byte order
    uint32_t dec[60];        // equivalent inverse cipher (InvMixColumns on rounds 1..Nr-1),
                             // in decryption order: dec[4r..4r+3] is the key of round r
    uint32_t bs[15 * 128];   // bitsliced round-key masks (aes_bitsliced.h layout)
};

// key_len 16, 24 or 32; false (and *out zeroed) otherwise.
bool aes_expand_key(const uint8_t* key, size_t key_len, AesKeySchedule* out);

// ECB over nblocks whole blocks; in == out allowed; any alignment.
void aes_encrypt_blocks(const AesKeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks);
void aes_decrypt_blocks(const AesKeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks);

// Wipes the whole schedule (bc::secure_wipe).
void aes_wipe(AesKeySchedule* ks);

// The S-box and its inverse as 256-byte tables, computed from the field
// arithmetic (for the table variant and for tests; not used by the constant-time path).
const uint8_t* aes_sbox_table();
const uint8_t* aes_inv_sbox_table();

// The tables of the table variant (aes_table.h), one copy each:
// te[256], td[256] as documented there, isb[64] the inverse S-box packed 4 bytes a word.
void aes_table_words(uint32_t te[256], uint32_t td[256], uint32_t isb[64]);

}  // namespace bc
