// HIGHT's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/hight/hight.h"

namespace bc {

extern const BlockCipher kBlockCipher_hight = {
    "hight", 8, 32, kHightKsWords, hight_expand_key, hight_encrypt_blocks, hight_decrypt_blocks,
};

}  // namespace bc
