// The SM4 batch core compiled with every dialect intrinsic switched off, so
// test_sm4_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/sm4/sm4_block.h"

namespace sm4_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_sm4_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_sm4_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace sm4_plain
