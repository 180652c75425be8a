// XTS references over several data units, for the tests of the GPU kernels: unit u of a
// message takes tweak T0 + u (a little-endian 128-bit sum), as a bc_params data unit size
// asks of the backends.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backends/backend.h"
#include "modes/block/host_modes.h"

// Calls unit_fn(tweak, offset, length) for each data unit of len bytes (unit bytes a unit;
// 0: the whole message is one unit), in order; stops and returns false when one call does.
template <class F>
bool for_each_xts_unit(size_t len, size_t unit, const uint8_t t0[16], F&& unit_fn) {
    const size_t step = unit ? unit : len;
    for (size_t off = 0, u = 0; off < len; off += step, ++u) {
        uint8_t t[16];
        std::memcpy(t, t0, 16);
        bc::add_le128(t, u);
        if (!unit_fn(t, off, std::min(step, len - off))) return false;
    }
    return true;
}

// An XTS encryption over data units of unit bytes (0: one unit) from tweak t0 (16 bytes).
inline bc::CipherOp xts_op(const uint8_t* t0, size_t unit) {
    bc::CipherOp op;
    op.iv = t0;
    op.iv_len = 16;
    op.data_unit = unit;
    op.dir = bc::Dir::Encrypt;
    return op;
}
