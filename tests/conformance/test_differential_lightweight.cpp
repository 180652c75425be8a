// Differential tests of the 64-bit lightweight block ciphers PRESENT (80- and 128-bit
// keys) and HIGHT through the block-mode helpers of block_differential.h. OpenSSL has
// neither, so the reference is ECB, CBC (PKCS#7 or none) and CTR (the whole 8-byte block
// one big-endian counter) composed over bulkcrypt's portable cores (present.h, hight.h),
// which the vector suite checks against the designers' and KISA's vectors. The oracle
// shares only the block function with what it checks: none of the generic modes, no
// engine, no device code. Random keys, IVs and lengths (8-byte block edges and random
// ones up to 70000 bytes), CTR at random offsets, counter carries and the top of the
// 64-bit counter; the runner puts each case through every backend in place, apart,
// misaligned and streaming.
#include "block_differential.h"

namespace conf {
namespace {

class DiffLightweight : public DifferentialTest {};

const char* const kCiphers[] = {"present", "hight"};

TEST_F(DiffLightweight, EcbOracleBlockByBlock) {
    Rng rng(differential_seed() ^ 31);
    for (const char* cipher : kCiphers) portable_core_block_by_block(cipher, rng);
}

TEST_F(DiffLightweight, EcbCbcCtr) {
    Rng rng(differential_seed() ^ 32);
    for (const char* cipher : kCiphers) {
        const EcbFn core = portable_ecb(cipher);
        block_ecb_cbc(cipher, rng, false, core);
        block_ctr(cipher, rng, false, core);
        block_ctr_at_random_offsets(cipher, rng, core);
    }
}

TEST_F(DiffLightweight, CtrCounterEdges) {
    Rng rng(differential_seed() ^ 33);
    for (const char* cipher : kCiphers)
        for (const bc::Algorithm* row : rows_of(cipher, bc::Mode::CTR))
            ctr_counter_edges(row->name, row->key_size, rng, portable_ecb(cipher));
}

}  // namespace
}  // namespace conf
