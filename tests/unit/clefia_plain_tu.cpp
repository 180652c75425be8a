// The CLEFIA batch core compiled with every dialect intrinsic switched off, so
// test_clefia_core.cpp can compare it with the intrinsic build of the same core.
#define BC_DIALECT_PLAIN 1
#include "cores/clefia/clefia_block.h"

namespace clefia_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w) { bc_clefia_encrypt_batch(ks, w); }
void decrypt_batch(const uint32_t* ks, uint32_t* w) { bc_clefia_decrypt_batch(ks, w); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace clefia_plain
