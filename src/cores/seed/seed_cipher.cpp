// SEED's descriptor for the catalogue (catalog.inc) and the generic modes.
#include "catalog/block_cipher.h"
#include "cores/seed/seed.h"

namespace bc {

extern const BlockCipher kBlockCipher_seed = {
    "seed", 16, 32, kSeedKsWords, seed_expand_key, seed_encrypt_blocks, seed_decrypt_blocks,
};

// The table form, for measurement only (no catalogue row): see seed_table_block.h.
extern const BlockCipher kBlockCipher_seed_table = {
    "seed_table", 16, kSeedTableBatch, kSeedTableKsWords, seed_table_expand_key, seed_table_encrypt_blocks,
    seed_table_decrypt_blocks,
};

}  // namespace bc
