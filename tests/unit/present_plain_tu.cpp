// The PRESENT batch core compiled with every dialect intrinsic switched off, so
// test_present_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/present/present_block.h"

namespace present_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_present_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_present_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace present_plain
