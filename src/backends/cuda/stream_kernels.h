// The stream-cipher family on CUDA: host entry points for the kernels in
// stream_kernels.cu (Salsa20/8/12/20, XSalsa20, ChaCha20 both layouts,
// XChaCha20, ChaCha20-Poly1305 pieces, Poly1305 partials). The CUDA backend
// class calls these for Mode::Stream and Mode::ChaChaPoly. They run on the
// calling thread's current CUDA device.
//
// Memory: BC_MEMORY_DEVICE buffers are used in place and the work is ordered on
// op.stream (a cudaStream_t, or null); host buffers are staged through
// temporary device memory (synchronous; the engine's pipeline is the fast way).
#pragma once

#include "backends/backend.h"
#include "backends/cuda/stream_prep.h"
#include "cores/chacha/stream_state.h"

namespace bc {

// Mode::Stream. Asynchronous on op.stream for device memory (no host sync).
Status cuda_stream_cipher(const KeyMaterial& key, const CipherOp& op, const StreamLaunch& lp = StreamLaunch());

// One ChaCha20-Poly1305 body piece (backend.h, AeadChunkOp): keystream XOR and
// the Poly1305 partial of the ciphertext, computed on the GPU. Synchronizes
// op.stream to return op.partial.
Status cuda_chachapoly_chunk(const KeyMaterial& key, AeadChunkOp& op, const StreamLaunch& lp = StreamLaunch());

// The Poly1305 partial of op.data (device or host memory) with r = op.mac_key[0..15].
Status cuda_poly1305_mac(MacOp& op, const StreamLaunch& lp = StreamLaunch());

// Lower level, device memory only, no synchronization: the benchmark and the
// backend's pipelines call these. stream is a cudaStream_t.
Status cuda_stream_xor_device(const StreamState& st, uint64_t offset, const uint8_t* in, uint8_t* out,
                              size_t len, void* stream, const StreamLaunch& lp);
// partial_dev: 17 bytes of device memory receiving the partial; scratch_dev: 40
// bytes (five u64) of device memory. mode: bcs::POLY_ENCRYPT / _DECRYPT / _MAC_ONLY.
Status cuda_chachapoly_device(const uint8_t key32[32], const uint8_t ctr[16], const uint8_t r[16], int mode,
                              const uint8_t* in, uint8_t* out, size_t len, uint8_t* partial_dev,
                              unsigned long long* scratch_dev, void* stream, const StreamLaunch& lp);

// Resident blocks an SM of the kernel that a launch of `threads` threads a block and `unroll`
// runs for alg (aligned buffers; ChaCha20-Poly1305's kernel for Mode::ChaChaPoly), from the
// compiled kernel's registers and the current device's limits: 0 when no block fits.
// The tuner prunes its launch shapes by it.
Status cuda_stream_occupancy(const Algorithm& alg, int threads, int unroll, int* blocks_per_sm);

}  // namespace bc
