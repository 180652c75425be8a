// GCM on the CUDA backend's device buffers: the view of a prepared key (AES's own
// kernels or the generic ones), GHASH over device memory (ghash_kernels.cu), and a body
// piece: the CTR kernel with GCM's 32-bit counter, then GHASH over the ciphertext.
#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_backend.h"
#include "modes/gcm/gcm.h"
#include "util/secure.h"

namespace bc {
namespace cuda {

GcmKeyView CudaBackend::gcm_view(const KeyMaterial& key, const BackendKey& bkey) const {
    GcmKeyView g;
    if (key.alg && generic_block(*key.alg)) {
        const auto& k = static_cast<const CudaBlockKey&>(bkey);
        g.h = k.h;
        g.ghash_tables = k.ghash_tables;
        const BlockKernels* kn = k.kernels;
        const uint32_t* d1 = k.d1;
        const LaunchShape sh = k.shape;
        g.shape = sh;
        g.ctr32 = [kn, d1, sh](const uint8_t ctr[16], const uint8_t* in, uint8_t* out, size_t len, cudaStream_t s) {
            return kn->ctr(d1, ctr, 0, 0, true, in, out, len, sh, s);
        };
        return g;
    }
    const auto& k = static_cast<const CudaAesKey&>(bkey);
    g.h = k.h;
    g.ghash_tables = k.ghash_tables;
    const DevAesKey d1 = k.d1;
    const DevAesTables t = tables_;
    const LaunchShape sh = shape(Mode::GCM);
    g.shape = sh;
    const AesImpl im = impl();
    g.ctr32 = [d1, t, sh, im](const uint8_t ctr[16], const uint8_t* in, uint8_t* out, size_t len, cudaStream_t s) {
        return launch_ctr(im, d1, t, ctr, 0, 0, true, in, out, len, sh, s);
    };
    return g;
}

Status CudaBackend::ghash_on_device(const GcmKeyView& k, const uint8_t* data, size_t len, cudaStream_t s,
                                    uint8_t partial[16]) {
    Scratch sc;
    BC_TRY(sc.alloc(ghash_scratch_bytes(len) + 16, s, pool_));
    uint8_t* res = static_cast<uint8_t*>(sc.p) + ghash_scratch_bytes(len);
    BC_CUDA_TRY(launch_ghash(k.ghash_tables, data, len, sc.p, res, k.shape, s), "GHASH kernel launch");
    uint8_t r[16];
    BC_CUDA_TRY(cudaMemcpyAsync(r, res, 16, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (GHASH)");
    BC_CUDA_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (GHASH)");
    // R = sum X_i H^(n-i); the partial of backend.h is R * H^2.
    bc_gf128 v = bc_gf128_mul(bc_gf128_mul(bc_gf128_load(r), k.h), k.h);
    bc_gf128_store(partial, v);
    secure_wipe(r, sizeof r);
    secure_wipe_object(v);
    return Status::ok();
}

Status CudaBackend::gcm_on_device(const GcmKeyView& k, Dir dir, const uint8_t ctr[16], const uint8_t* in,
                                  uint8_t* out, size_t len, cudaStream_t s, uint8_t partial[16]) {
    // The MAC covers the ciphertext: the input when decrypting (hashed before an
    // in-place decryption overwrites it), the output when encrypting.
    if (dir == Dir::Decrypt) BC_TRY(ghash_on_device(k, in, len, s, partial));
    BC_CUDA_TRY(k.ctr32(ctr, in, out, len, s), "GCM CTR kernel launch");
    if (dir == Dir::Encrypt) BC_TRY(ghash_on_device(k, out, len, s, partial));
    return Status::ok();
}

}  // namespace cuda
}  // namespace bc
