// AES's descriptor for the catalogue (catalog.inc) and the generic modes.
#include <cstring>

#include "catalog/block_cipher.h"
#include "cores/aes/aes.h"
#include "cores/aes/aes_block.h"
#include "util/secure.h"

namespace bc {
namespace {

bool aes_block_expand(const uint8_t* key, size_t len, uint32_t* ks) {
    AesKeySchedule s;
    if (!aes_expand_key(key, len, &s)) return false;
    std::memset(ks, 0, BC_AES_KS_HEADER * sizeof(uint32_t));
    ks[0] = static_cast<uint32_t>(s.rounds);
    std::memcpy(ks + BC_AES_KS_HEADER, s.bs, sizeof(uint32_t) * 128 * (s.rounds + 1));
    aes_wipe(&s);
    return true;
}

// The batch core on the host, 32 blocks at a time; a partial batch is zero-padded.
template <bool Encrypt>
void aes_block_run(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    bc_u32 w[4 * BC_AES_BATCH];
    for (size_t done = 0; done < n;) {
        const size_t m = n - done < BC_AES_BATCH ? n - done : BC_AES_BATCH;
        for (size_t i = 0; i < 4 * BC_AES_BATCH; ++i)
            w[i] = i < 4 * m ? bc_load_le32(in + 16 * done + 4 * i) : 0u;
        if (Encrypt) bc_aes_encrypt_batch(ks, w);
        else bc_aes_decrypt_batch(ks, w);
        for (size_t i = 0; i < 4 * m; ++i) bc_store_le32(out + 16 * done + 4 * i, w[i]);
        done += m;
    }
    secure_wipe(w, sizeof w);
}

}  // namespace

extern const BlockCipher kBlockCipher_aes = {
    "aes", 16, BC_AES_BATCH, BC_AES_KS_WORDS, aes_block_expand, aes_block_run<true>, aes_block_run<false>,
};

}  // namespace bc
