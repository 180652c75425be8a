// The OpenCL programs, in parts: a part is a root file (kernels/*.cl) built under
// one BC_PART_* define, which keeps only that part's kernels. Each part is built
// on the first call that needs one of its kernels and cached on its own, so a
// call compiles only what its mode launches: compiling the cipher cores that the
// kernels inline is what takes the time.
#pragma once

#include <cstring>

namespace bc {
namespace ocl {

struct PartSpec {
    const char* name;        // build_report's name; a block cipher's parts are "block/<cipher>/" + name
    const char* root;        // the file built under the define
    const char* define;      // the guard around the part's kernels in the root (or a file it includes)
    const char* kernels[3];  // null-terminated: two at most
};

inline constexpr char kAesCl[] = "backends/opencl/kernels/aes.cl";
inline constexpr char kStreamCl[] = "backends/opencl/kernels/stream.cl";
inline constexpr char kBlockCl[] = "backends/opencl/kernels/block.cl";

// AES's own kernels (a part per kernel: each is one or two inlined cores), GHASH,
// the stream ciphers and Poly1305. GCM uses aes/ctr and ghash; the generic path's
// GCM uses ghash too. XTS: the tweaks kernel, then the units' kernel, and the
// stealing kernel only for units with a partial last block.
inline constexpr PartSpec kParts[] = {
    {"aes/ctr", kAesCl, "BC_PART_AES_CTR", {"bc_aes_ctr"}},
    {"aes/ctr-pair", kAesCl, "BC_PART_AES_CTR_PAIR", {"bc_aes_ctr_pair"}},
    {"aes/ecb-enc", kAesCl, "BC_PART_AES_ECB_ENC", {"bc_aes_ecb_enc"}},
    {"aes/ecb-dec", kAesCl, "BC_PART_AES_ECB_DEC", {"bc_aes_ecb_dec"}},
    {"aes/cbc-enc", kAesCl, "BC_PART_AES_CBC_ENC", {"bc_aes_cbc_enc"}},
    {"aes/cbc-dec", kAesCl, "BC_PART_AES_CBC_DEC", {"bc_aes_cbc_dec"}},
    {"aes/xts-tweaks", kAesCl, "BC_PART_AES_XTS_TWEAKS", {"bc_aes_xts_tweaks"}},
    {"aes/xts-enc", kAesCl, "BC_PART_AES_XTS_ENC", {"bc_aes_xts_enc"}},
    {"aes/xts-dec", kAesCl, "BC_PART_AES_XTS_DEC", {"bc_aes_xts_dec"}},
    {"aes/xts-steal-enc", kAesCl, "BC_PART_AES_XTS_STEAL_ENC", {"bc_aes_xts_steal_enc"}},
    {"aes/xts-steal-dec", kAesCl, "BC_PART_AES_XTS_STEAL_DEC", {"bc_aes_xts_steal_dec"}},
    {"ghash", "backends/opencl/kernels/ghash.cl", "BC_PART_GHASH", {"bc_ghash_partial"}},
    {"stream/chacha20", kStreamCl, "BC_PART_CHACHA20", {"bc_chacha20_xor"}},
    {"stream/chacha12", kStreamCl, "BC_PART_CHACHA12", {"bc_chacha12_xor"}},
    {"stream/chacha8", kStreamCl, "BC_PART_CHACHA8", {"bc_chacha8_xor"}},
    {"stream/salsa20", kStreamCl, "BC_PART_SALSA20", {"bc_salsa20_xor"}},
    {"stream/salsa12", kStreamCl, "BC_PART_SALSA12", {"bc_salsa12_xor"}},
    {"stream/salsa8", kStreamCl, "BC_PART_SALSA8", {"bc_salsa8_xor"}},
    {"poly1305", "backends/opencl/kernels/poly1305.cl", "BC_PART_POLY1305", {"bc_poly1305_partial"}},
};

// The generic block kernels (block.cl), built per cipher behind its prelude. The
// kernels that run no core ride with the part they serve; XTS (16-byte blocks)
// encrypts its tweak list with ecb-enc's kernel.
inline constexpr PartSpec kBlockParts[] = {
    {"ctr", kBlockCl, "BC_PART_BLK_CTR", {"bc_block_ctr"}},
    {"ecb-enc", kBlockCl, "BC_PART_BLK_ECB_ENC", {"bc_block_ecb_enc"}},
    {"ecb-dec", kBlockCl, "BC_PART_BLK_ECB_DEC", {"bc_block_ecb_dec"}},
    {"cbc-dec", kBlockCl, "BC_PART_BLK_CBC_DEC", {"bc_block_cbc_save", "bc_block_cbc_dec"}},
    {"xts-tweaks", kBlockCl, "BC_PART_BLK_XTS_TWEAKS", {"bc_block_xts_list"}},
    {"xts-enc", kBlockCl, "BC_PART_BLK_XTS_ENC", {"bc_block_xts_enc"}},
    {"xts-dec", kBlockCl, "BC_PART_BLK_XTS_DEC", {"bc_block_xts_dec"}},
};

// The AES pair kernel's limits (kernels/aes.cl, bc_aes_ctr_pair), for the backend and the
// tuner alike: its groups are whole tiles of 32 work-items; local memory holds the round-key
// masks (15 rounds' worth) and, without shuffles, 32 words a work-item for the exchange.
inline constexpr size_t kAesPairTileItems = 32;
inline constexpr size_t kAesPairMaskBytes = 15 * 128 * 4;
inline constexpr size_t kAesPairExchangeBytes = 32 * 4;
inline size_t aes_pair_local_bytes(size_t group, bool shuffles) {
    return kAesPairMaskBytes + (shuffles ? 0 : kAesPairExchangeBytes * group);
}
// The register cap that lets `groups` groups of `group` work-items reside on a compute unit
// of `registers` (__launch_bounds__ by hand), in steps of 8, at most 255; 0 under 64, where
// the state would spill (the grid cap then applies alone).
inline int aes_pair_register_cap(size_t registers, size_t groups, size_t group) {
    const size_t cap = registers / (groups * group) / 8 * 8;
    return cap < 64 ? 0 : static_cast<int>(cap < 255 ? cap : 255);
}

// The part of `parts` that holds `kernel`, or null.
template <size_t N>
const PartSpec* part_of(const PartSpec (&parts)[N], const char* kernel) {
    for (const PartSpec& p : parts)
        for (const char* const* k = p.kernels; *k; ++k)
            if (std::strcmp(*k, kernel) == 0) return &p;
    return nullptr;
}

}  // namespace ocl
}  // namespace bc
