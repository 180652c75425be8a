// Differential tests of MISTY1 (misty1-ecb, misty1-cbc, misty1-ctr) through the
// block-mode helpers of block_differential.h: random keys, IVs and data at the lengths
// that matter for a 64-bit block cipher whose core takes 32 blocks a batch, random
// lengths and keystream offsets, the 64-bit counter's edges, run through the runner on
// every backend (one shot in place and apart, misaligned, streaming in random pieces).
//
// OpenSSL has no MISTY1, so the expected output is ECB, CBC and CTR composed over
// bulkcrypt's portable MISTY1 core (misty1.h): CBC chained one block a call, CTR's
// counter blocks and ECB through one call. The core is checked against RFC 2994's and
// Botan's vectors (botan/.../block/misty.vec in the vector suite and
// tests/unit/test_misty1_core.cpp), and its many-block calls against its one-block
// calls below, so the oracle shares no code with bulkcrypt's modes.
#include "block_differential.h"

namespace conf {
namespace {

class DiffMisty1 : public DifferentialTest {};

TEST_F(DiffMisty1, PortableCoreBlockByBlock) {
    Rng rng(differential_seed() ^ 0x3151);
    portable_core_block_by_block("misty1", rng);
}

TEST_F(DiffMisty1, EcbCbc) {
    Rng rng(differential_seed() ^ 0x3152);
    block_ecb_cbc("misty1", rng, true, portable_ecb("misty1"));
}

TEST_F(DiffMisty1, Ctr) {
    Rng rng(differential_seed() ^ 0x3153);
    const EcbFn misty1 = portable_ecb("misty1");
    block_ctr("misty1", rng, false, misty1);
    block_ctr_at_random_offsets("misty1", rng, misty1);
}

TEST_F(DiffMisty1, CtrCounterEdges) {
    Rng rng(differential_seed() ^ 0x3154);
    ctr_counter_edges("misty1-ctr", 16, rng, portable_ecb("misty1"));
}

}  // namespace
}  // namespace conf
