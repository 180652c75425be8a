// The HIGHT batch core compiled with every dialect intrinsic switched off, so
// test_hight_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/hight/hight_block.h"

namespace hight_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_hight_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_hight_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace hight_plain
