// Host-side preparation of the stream-family kernel arguments (no CUDA types):
// launch shapes and the Poly1305 powers of r the kernels use. Shared by the
// CUDA wrappers and by the host-side simulation in the unit tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cuda/stream_device.h"
#include "modes/poly1305/poly1305.h"
#include "util/secure.h"

namespace bc {

// Launch parameters of the stream kernels; the autotuner may set them per
// (device, algorithm). unroll: 64-byte blocks per thread per grid-stride
// iteration (1, 2 or 4); the grid is min(blocks needed, blocks_per_sm * SMs).
struct StreamLaunch {
    int threads_per_block = 256;
    int blocks_per_sm = 8;
    int unroll = 2;
    // The backend's scratch pool (a cudaMemPool_t), kept mapped between calls; null: the
    // device's default pool, which unmaps freed memory at every synchronization.
    void* scratch_pool = nullptr;
};

inline uint64_t stream_grid_blocks(uint64_t total_blocks, const StreamLaunch& lp, int sm_count) {
    uint64_t per = uint64_t(lp.threads_per_block) * uint64_t(lp.unroll);
    uint64_t need = (total_blocks + per - 1) / per;
    uint64_t cap = uint64_t(std::max(1, lp.blocks_per_sm)) * uint64_t(std::max(1, sm_count));
    return std::max<uint64_t>(1, std::min(need, cap));
}

inline void stream_elem_to_p26(const Poly1305Elem& e, bcs::P26* p) {
    uint8_t b[17];
    poly1305_store17(e, b);
    bc_u32 limbs[5];
    bcs::p26_from_bytes(b, limbs);
    bcs::p26_make(limbs, p);
    secure_wipe(b, sizeof(b));
    secure_wipe(limbs, sizeof(limbs));
}

// Fills the Poly1305 part of PolyArgs for r (raw, clamped here) and a launch of
// gdim blocks of bdim threads with the given unroll.
inline void stream_prep_poly(const uint8_t r_raw[16], uint64_t bdim, uint64_t gdim, int unroll, bcs::PolyArgs* a) {
    Poly1305Elem r = poly1305_load_r(r_raw);
    Poly1305Elem p = r;
    for (int k = 0; k < 4; ++k) {
        stream_elem_to_p26(p, &a->rp[k]);
        p = poly1305_mul(p, r);
    }
    uint64_t stride = gdim * bdim * uint64_t(unroll);
    stream_elem_to_p26(poly1305_pow(r, 4 * bdim), &a->gap_in);
    stream_elem_to_p26(poly1305_pow(r, 4 * (stride - uint64_t(unroll - 1) * bdim)), &a->gap_iter);
    Poly1305Elem sq = r;
    for (int i = 0; i < bcs::kPow2Entries; ++i) {
        bcs::P26 t;
        stream_elem_to_p26(sq, &t);
        std::memcpy(a->pow2[i], t.r, sizeof(t.r));
        sq = poly1305_mul(sq, sq);
    }
    secure_wipe(&r, sizeof(r));
    secure_wipe(&p, sizeof(p));
    secure_wipe(&sq, sizeof(sq));
}

}  // namespace bc
