// GCM on the host: the pieces of SP 800-38D that the C API and the backends
// share. GHASH is linear, so a message split into pieces is hashed piece by
// piece and the partial results are folded with powers of H; nothing here
// depends on how (or where) the pieces were processed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "modes/gcm/ghash.h"

namespace bc {

// x^e for a 64-bit exponent (square and multiply; e = 0 gives one).
bc_gf128 gf128_pow(bc_gf128 x, uint64_t e);
// x^-1 = x^(2^128 - 2); x must be non-zero.
bc_gf128 gf128_inverse(bc_gf128 x);

// The per-piece partial of backend.h: H * GHASH_H(data zero-padded to whole blocks).
bc_gf128 ghash_partial(bc_gf128 h, const uint8_t* data, size_t len);

// acc = acc * H^nblocks + partial: appends a piece of nblocks blocks.
bc_gf128 ghash_fold(bc_gf128 acc, bc_gf128 partial, uint64_t nblocks, bc_gf128 h);

// The partials of n pieces in order, each of piece_bytes but the last (total_bytes in all),
// folded into one: two powers of H and a multiply a piece, where ghash_fold a piece takes a
// power a piece (64 pieces of a 16 MiB message: ~0.5 ms on one core).
bc_gf128 ghash_fold_pieces(const bc_gf128* partials, size_t n, size_t piece_bytes, size_t total_bytes, bc_gf128 h);

// Adds n to the low 32 bits of a counter block, big-endian, modulo 2^32 (GCM's inc32).
void gcm_inc32(uint8_t ctr[16], uint64_t n);

}  // namespace bc

// The GCM construction itself (J0, the length block, the tag, H): modes/aead.
#include "modes/aead/aead.h"
