// The CAST5 batch core compiled with every dialect intrinsic switched off, so
// test_cast5_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/cast5/cast5_block.h"

namespace cast5_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_cast5_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_cast5_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace cast5_plain
