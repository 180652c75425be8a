// The dialect compiled with every intrinsic switched off, so test_dialect.cpp
// can compare the plain-C paths with the intrinsic ones of the same build.
#define BC_DIALECT_PLAIN 1
#include "dialect/bc_dialect.h"

namespace plain {
uint32_t rotl32(uint32_t x, unsigned n) { return bc_rotl32(x, n); }
uint32_t rotr32(uint32_t x, unsigned n) { return bc_rotr32(x, n); }
uint64_t rotl64(uint64_t x, unsigned n) { return bc_rotl64(x, n); }
uint32_t bswap32(uint32_t x) { return bc_bswap32(x); }
uint32_t byte_perm(uint32_t lo, uint32_t hi, uint32_t sel) { return bc_byte_perm(lo, hi, sel); }
int intrinsics() { return BC_DIALECT_INTRINSICS; }
}  // namespace plain
