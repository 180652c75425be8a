// MISTY1's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/misty1/misty1.h"

namespace bc {

extern const BlockCipher kBlockCipher_misty1 = {
    "misty1", 8, 32, kMisty1KsWords, misty1_expand_key, misty1_encrypt_blocks, misty1_decrypt_blocks,
};

}  // namespace bc
