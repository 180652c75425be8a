// Host-callable launchers of the generic block-cipher kernels (block_kernels_impl.cuh,
// one generated unit per cipher): ECB, CTR, CBC decryption and XTS over any block
// cipher of the catalogue, one row per cipher folder (block_kernels.cpp), found by the cipher's
// name (BlockCipher::name). Nothing here names a cipher: a new folder with a
// device.inc gets its row at the next build.
//
// Plain C++: included by the backend's .cpp files, the tests and the benchmark.
// Every launcher only enqueues work on `s` and returns the launch status; the
// caller synchronises and turns errors into bc::Status. ks / ks1 / ks2: the
// cipher's expanded key as its descriptor's expand made it (ks_words words), in
// device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/cuda_kernels.h"  // LaunchShape

namespace bc {
namespace cuda {

struct BlockKernels {
    const char* name;       // the cipher's name in the catalogue ("aes", "camellia")
    unsigned block_bytes;   // 8 or 16
    unsigned batch;         // blocks per item (one call of the device core)
    size_t ks_words;        // words of the expanded key the kernels read

    // ECB over nblocks whole blocks.
    cudaError_t (*ecb)(bool encrypt, const uint32_t* ks, const uint8_t* in, uint8_t* out, uint64_t nblocks,
                       const LaunchShape& sh, cudaStream_t s);

    // CTR: keystream block i (i >= 0) is E(ctr0 + first + i), ctr0 a block_bytes-byte
    // big-endian number added to in full width (the caller refuses a wrap), or with
    // inc32 only in its last 32 bits modulo 2^32 (GCM). Keystream block i covers data
    // bytes [B*i - shift, B*i - shift + B) clipped to [0, len), B = block_bytes.
    cudaError_t (*ctr)(const uint32_t* ks, const uint8_t* ctr0, uint64_t first, unsigned shift, bool inc32,
                       const uint8_t* in, uint8_t* out, uint64_t len, const LaunchShape& sh, cudaStream_t s);

    // CBC decryption of nblocks whole blocks chained from iv (block_bytes bytes). scratch:
    // device memory of cbc_dec_scratch_bytes(nblocks) bytes; it receives each item's
    // chaining block before any item runs, so in == out works.
    size_t (*cbc_dec_scratch_bytes)(uint64_t nblocks);
    cudaError_t (*cbc_decrypt)(const uint32_t* ks, const uint8_t* iv, const uint8_t* in, uint8_t* out,
                               uint64_t nblocks, void* scratch, const LaunchShape& sh, cudaStream_t s);

    // XTS (IEEE 1619) over whole blocks of many data units (nullptr for 8-byte blocks).
    // Unit u (0 <= u < nunits) starts at byte u * unit_bytes (a multiple of 16) with tweak
    // tweak0 + u (128-bit little-endian add); it has full_blocks blocks but the last,
    // which has last_blocks (ciphertext stealing, a partial last block, is the caller's).
    // ks1 encrypts the data, ks2 the tweaks. scratch: xts_scratch_bytes(nunits,
    // full_blocks) bytes of device memory (the encrypted tweaks: key-dependent, the
    // caller wipes it).
    size_t (*xts_scratch_bytes)(uint64_t nunits, uint64_t full_blocks);
    cudaError_t (*xts)(bool encrypt, const uint32_t* ks1, const uint32_t* ks2, const uint8_t tweak0[16],
                       const uint8_t* in, uint8_t* out, uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks,
                       uint64_t last_blocks, void* scratch, const LaunchShape& sh, cudaStream_t s);

    // Registers per thread and local-memory bytes (spills) of the kernel for `what`:
    // "ecb", "ecb-dec", "ctr", "ctr32", "cbc-dec", "xts", "xts-dec" (word-aligned
    // data), or any of them with "-u" appended (unaligned data); "ctr-tiles",
    // "cbc-dec-tiles", "xts-tiles" (the kernels that stage whole tiles of aligned data in
    // shared memory). cudaErrorInvalidValue for an unknown name (or XTS of an 8-byte
    // cipher).
    cudaError_t (*resources)(const char* what, int* regs, int* local_bytes);
};

// The kernels of the cipher named name (case-insensitive), nullptr when none.
const BlockKernels* find_block_kernels(const char* name);
// The i-th row, nullptr past the end.
const BlockKernels* block_kernels_at(size_t i);

}  // namespace cuda
}  // namespace bc
