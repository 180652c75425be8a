// Camellia's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/camellia/camellia.h"

namespace bc {

extern const BlockCipher kBlockCipher_camellia = {
    "camellia", 16, 32, kCamelliaKsWords, camellia_expand_key, camellia_encrypt_blocks, camellia_decrypt_blocks,
};

}  // namespace bc
