#include "modes/gcm/gcm.h"

#include <cstring>

#include "util/secure.h"

namespace bc {

bc_gf128 gf128_pow(bc_gf128 x, uint64_t e) {
    bc_gf128 r = bc_gf128_one();
    // The exponent is a public block count, so branching on its bits is safe.
    while (e != 0) {
        if (e & 1u) r = bc_gf128_mul(r, x);
        x = bc_gf128_mul(x, x);
        e >>= 1;
    }
    return r;
}

bc_gf128 gf128_inverse(bc_gf128 x) {
    // 2^128 - 2 = sum of 2^i for i = 1..127: multiply the 127 successive squares.
    bc_gf128 r = bc_gf128_one();
    bc_gf128 sq = x;
    for (int i = 1; i < 128; ++i) {
        sq = bc_gf128_mul(sq, sq);
        r = bc_gf128_mul(r, sq);
    }
    return r;
}

bc_gf128 ghash_partial(bc_gf128 h, const uint8_t* data, size_t len) {
    bc_gf128 y = {0, 0};
    size_t full = len / 16;
    y = bc_ghash_blocks(y, h, data, full);
    if (len % 16) {
        uint8_t last[16] = {0};
        std::memcpy(last, data + 16 * full, len % 16);
        y = bc_ghash_blocks(y, h, last, 1);
        secure_wipe(last, sizeof last);
    }
    // y = GHASH_H(X) = sum X_i H^(n-i+1); the partial of backend.h is one more H.
    return bc_gf128_mul(y, h);
}

bc_gf128 ghash_fold(bc_gf128 acc, bc_gf128 partial, uint64_t nblocks, bc_gf128 h) {
    return bc_gf128_xor(bc_gf128_mul(acc, gf128_pow(h, nblocks)), partial);
}

bc_gf128 ghash_fold_pieces(const bc_gf128* partials, size_t n, size_t piece_bytes, size_t total_bytes, bc_gf128 h) {
    bc_gf128 acc = {0, 0};
    if (n == 0) return acc;
    bc_gf128 hp = gf128_pow(h, (piece_bytes + 15) / 16);
    for (size_t i = 0; i + 1 < n; ++i) acc = bc_gf128_xor(bc_gf128_mul(acc, hp), partials[i]);
    const size_t last = total_bytes - (n - 1) * piece_bytes;
    acc = ghash_fold(acc, partials[n - 1], (last + 15) / 16, h);
    secure_wipe_object(hp);
    return acc;
}

void gcm_inc32(uint8_t ctr[16], uint64_t n) {
    uint32_t c = bc_load_be32(ctr + 12);
    c += static_cast<uint32_t>(n);
    bc_store_be32(ctr + 12, c);
}

}  // namespace bc
