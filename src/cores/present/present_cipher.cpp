// PRESENT's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/present/present.h"

namespace bc {

extern const BlockCipher kBlockCipher_present = {
    "present", 8, 32, kPresentKsWords, present_expand_key, present_encrypt_blocks, present_decrypt_blocks,
};

}  // namespace bc
