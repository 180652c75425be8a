// CLEFIA's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/clefia/clefia.h"

namespace bc {

extern const BlockCipher kBlockCipher_clefia = {
    "clefia", 16, 32, kClefiaKsWords, clefia_expand_key, clefia_encrypt_blocks, clefia_decrypt_blocks,
};

}  // namespace bc
