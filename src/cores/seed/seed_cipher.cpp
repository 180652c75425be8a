// SEED's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/seed/seed.h"

namespace bc {

extern const BlockCipher kBlockCipher_seed = {
    "seed", 16, 32, kSeedKsWords, seed_expand_key, seed_encrypt_blocks, seed_decrypt_blocks,
};

}  // namespace bc
