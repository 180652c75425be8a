// The portable cores on the host: a cipher's dialect batch function (BATCH blocks in
// place, block k in words w[BW*k ..], each word four bytes read little-endian) run
// over n blocks, BATCH at a time, the last batch padded with zeros. Any alignment;
// in == out allowed. Every folder's <cipher>_encrypt_blocks / _decrypt_blocks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dialect/bc_dialect.h"
#include "util/secure.h"

namespace bc {

template <unsigned Block, unsigned Batch, class BatchFn>
void run_host_batches(BatchFn batch, const uint8_t* in, uint8_t* out, size_t n) {
    constexpr unsigned BW = Block / 4;
    bc_u32 w[BW * Batch];
    while (n > 0) {
        const size_t m = n < Batch ? n : Batch;
        for (size_t j = 0; j < Batch; ++j)
            for (size_t k = 0; k < BW; ++k) w[BW * j + k] = j < m ? bc_load_le32(in + Block * j + 4 * k) : 0u;
        batch(w);
        for (size_t j = 0; j < m; ++j)
            for (size_t k = 0; k < BW; ++k) bc_store_le32(out + Block * j + 4 * k, w[BW * j + k]);
        in += Block * m;
        out += Block * m;
        n -= m;
    }
    secure_wipe(w, sizeof w);
}

}  // namespace bc
