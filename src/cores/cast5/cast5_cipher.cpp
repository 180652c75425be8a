// CAST5's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/cast5/cast5.h"

namespace bc {

extern const BlockCipher kBlockCipher_cast5 = {
    "cast5", 8, 32, kCast5KsWords, cast5_expand_key, cast5_encrypt_blocks, cast5_decrypt_blocks,
};

}  // namespace bc
