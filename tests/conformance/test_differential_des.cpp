// Differential tests of DES and TDEA (des-*, des-ede-*, des-ede3-*: 8-, 16- and 24-byte
// keys) through the block-mode helpers of block_differential.h: random keys, IVs and
// data at the lengths that break 64-bit block implementations (around one block, a
// 32-block batch, 255 blocks and nine batches; random lengths up to 70000; one 4 MiB + 3
// message outside --quick), each case run by the runner on every backend (one shot in
// place and apart, misaligned, streaming in random pieces). ECB and CBC are checked
// against OpenSSL's DES-* (its legacy provider, in the suite's own library context) and
// DES-EDE-* / DES-EDE3-* (its default provider). OpenSSL has no CTR over a 64-bit block,
// so CTR's reference is composed from OpenSSL's ECB of the same cipher (the whole 8-byte
// block one big-endian counter; Diff.CtrOracleFromEcbMatchesOpenSslAesCtr and
// DiffBfCast5.CtrOracleMatchesPerBlockCounters check that composition). Counter edges:
// carries, the last counters below 2^64 and the refusal past them, keystream offsets.
#include "block_differential.h"

namespace conf {
namespace {

class DiffDes : public DifferentialTest {};

// The big message: TDEA-CBC with padding, the largest key.
TEST_F(DiffDes, EcbCbc) {
    Rng rng(differential_seed() ^ 42);
    block_ecb_cbc("des", rng, true);
}

TEST_F(DiffDes, Ctr) {
    Rng rng(differential_seed() ^ 43);
    block_ctr("des", rng, false);
}

TEST_F(DiffDes, CtrCounterEdges) {
    Rng rng(differential_seed() ^ 44);
    for (const bc::Algorithm* row : rows_of("des", bc::Mode::CTR)) ctr_counter_edges(row->name, row->key_size, rng);
}

}  // namespace
}  // namespace conf
