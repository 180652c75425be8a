// ARIA's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/aria/aria.h"

namespace bc {

extern const BlockCipher kBlockCipher_aria = {
    "aria", 16, 32, kAriaKsWords, aria_expand_key, aria_encrypt_blocks, aria_decrypt_blocks,
};

}  // namespace bc
