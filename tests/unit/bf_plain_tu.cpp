// The Blowfish batch core compiled with every dialect intrinsic switched off, so
// test_bf_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/bf/bf_block.h"

namespace bf_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_bf_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_bf_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace bf_plain
