// The DES batch core compiled with every dialect intrinsic switched off, so
// test_des_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/des/des_block.h"

namespace des_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_des_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_des_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace des_plain
