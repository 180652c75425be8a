// SM4's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/sm4/sm4.h"

namespace bc {

extern const BlockCipher kBlockCipher_sm4 = {
    "sm4", 16, 32, kSm4KsWords, sm4_expand_key, sm4_encrypt_blocks, sm4_decrypt_blocks,
};

}  // namespace bc
