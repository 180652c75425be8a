// Blowfish's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/bf/bf.h"

namespace bc {

extern const BlockCipher kBlockCipher_bf = {
    "bf", 8, 32, kBfKsWords, bf_expand_key, bf_encrypt_blocks, bf_decrypt_blocks,
};

}  // namespace bc
