// The OpenCL programs: one per algorithm family, each an embedded root file
// (kernels/*.cl) and the kernels the backend looks up in it.
#pragma once

namespace bc {
namespace ocl {

enum Family { kFamilyAes = 0, kFamilyStream = 1, kFamilyCount = 2 };

inline const char* family_name(Family f) { return f == kFamilyAes ? "aes" : "stream"; }

inline const char* family_root(Family f) {
    return f == kFamilyAes ? "backends/opencl/kernels/aes.cl" : "backends/opencl/kernels/stream.cl";
}

// Null-terminated list of kernel names.
inline const char* const* family_kernels(Family f) {
    static const char* const aes[] = {"bc_ghash_partial",  "bc_aes_ecb_enc",       "bc_aes_ecb_dec",
                                      "bc_aes_ctr",        "bc_aes_cbc_dec",       "bc_aes_cbc_enc",
                                      "bc_aes_xts_tweaks", "bc_aes_xts_enc",       "bc_aes_xts_dec",
                                      "bc_aes_xts_steal_enc", "bc_aes_xts_steal_dec", nullptr};
    static const char* const stream[] = {"bc_chacha20_xor", "bc_chacha12_xor", "bc_chacha8_xor",
                                         "bc_salsa20_xor",  "bc_salsa12_xor",  "bc_salsa8_xor",
                                         "bc_poly1305_partial", nullptr};
    return f == kFamilyAes ? aes : stream;
}

}  // namespace ocl
}  // namespace bc
