// DES's descriptor for the catalogue (catalog.inc) and the generic modes: one
// descriptor for DES and both TDEA key sizes, told apart by the key's length.
#include "catalog/block_cipher.h"
#include "cores/des/des.h"

namespace bc {

extern const BlockCipher kBlockCipher_des = {
    "des", 8, 32, kDesKsWords, des_expand_key, des_encrypt_blocks, des_decrypt_blocks,
};

}  // namespace bc
