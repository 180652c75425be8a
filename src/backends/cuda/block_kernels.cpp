// The launch table of the generic block-cipher kernels: one row per cipher folder
// with a device.inc, each made in its own generated block_kernels_<cipher>.cu
// (block_kernels_impl.cuh), found by the cipher's name.
#include <strings.h>

#include "backends/cuda/block_kernels.h"

namespace bc {
namespace cuda {

#define BC_DEVICE_CIPHER_ID(id) const BlockKernels* block_kernels_row_##id();
#include "bc_cipher_device_ids.inc"
#undef BC_DEVICE_CIPHER_ID

namespace {
const BlockKernels* row(size_t i) {
    static const BlockKernels* const rows[] = {
#define BC_DEVICE_CIPHER_ID(id) block_kernels_row_##id(),
#include "bc_cipher_device_ids.inc"
#undef BC_DEVICE_CIPHER_ID
    };
    return i < sizeof rows / sizeof rows[0] ? rows[i] : nullptr;
}
}  // namespace

const BlockKernels* find_block_kernels(const char* name) {
    if (name == nullptr) return nullptr;
    for (size_t i = 0; const BlockKernels* r = row(i); ++i)
        if (strcasecmp(r->name, name) == 0) return r;
    return nullptr;
}

const BlockKernels* block_kernels_at(size_t i) { return row(i); }

}  // namespace cuda
}  // namespace bc
