// The ARIA batch core compiled with every dialect intrinsic switched off, so
// test_aria_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/aria/aria_block.h"

namespace aria_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_aria_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_aria_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace aria_plain
