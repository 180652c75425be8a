// The MISTY1 batch core compiled with every dialect intrinsic switched off, so
// test_misty1_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/misty1/misty1_block.h"

namespace misty1_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_misty1_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_misty1_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace misty1_plain
