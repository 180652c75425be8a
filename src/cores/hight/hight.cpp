#include "cores/hight/hight.h"

#include <cstring>

#include "cores/hight/hight_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kHightKsWords == BC_HIGHT_KS_WORDS, "hight.h and hight_block.h disagree");

namespace {

// One byte as 8 mask words, bit b (0 = least significant) in m[b].
void byte_masks(uint8_t v, uint32_t* m) {
    for (int b = 0; b < 8; ++b) m[b] = 0u - ((v >> b) & 1u);
}

}  // namespace

bool hight_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16) return false;
    std::memset(ks, 0, kHightKsWords * sizeof(uint32_t));
    ks[0] = BC_HIGHT_ROUNDS;
    ks[1] = 128;
    // WK0..WK3 = MK12..MK15, WK4..WK7 = MK0..MK3.
    for (int i = 0; i < 4; ++i) {
        byte_masks(key[12 + i], ks + BC_HIGHT_KS_WK + 8 * i);
        byte_masks(key[i], ks + BC_HIGHT_KS_WK + 8 * (4 + i));
    }
    // The constants delta_i: a 7-bit LFSR s_{i+7} = s_{i+3} ^ s_i from s6..s0 =
    // 1011010, delta_i = s_{i+6} .. s_i. Public; only the additions touch the key.
    uint8_t s[128 + 7];
    for (int i = 0; i < 7; ++i) s[i] = (0x5a >> i) & 1;
    for (int i = 0; i < 128; ++i) s[i + 7] = s[i + 3] ^ s[i];
    for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j) {
            for (int h = 0; h < 2; ++h) {  // SK_{16i+j} from MK0..7, SK_{16i+j+8} from MK8..15
                const int n = 16 * i + j + 8 * h;
                uint8_t delta = 0;
                for (int b = 0; b < 7; ++b) delta = static_cast<uint8_t>(delta | (s[n + b] << b));
                uint8_t sk = static_cast<uint8_t>(key[((j - i + 8) & 7) + 8 * h] + delta);
                byte_masks(sk, ks + BC_HIGHT_KS_SK + 8 * n);
                secure_wipe(&sk, sizeof sk);
            }
        }
    }
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<8, BC_HIGHT_BATCH>([ks](bc_u32* w) { bc_hight_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<8, BC_HIGHT_BATCH>([ks](bc_u32* w) { bc_hight_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void hight_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void hight_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
