// The CUDA AES launchers' variant selection: the test and benchmark hooks, the launch shape
// of a tuning entry, and aes_kernel_resources over every mode's kernels.
#include "backends/cuda/aes_device.cuh"

#include <atomic>

namespace bc {
namespace cuda {

namespace {
std::atomic<int> g_bs_variant{-1};  // -1: the launch shape's
std::atomic<bool> g_pair_cc_always{false};
std::atomic<bool> g_cbc_reload{false};

// The hook's variant, else the launch shape's (the tuning entry's or the context's).
int variant_of(const LaunchShape& sh) {
    const int v = g_bs_variant.load();
    if (v >= 0) return v;
    return sh.aes_variant >= 0 && sh.aes_variant < kAesBsVariants ? sh.aes_variant : kAesBsDefaultVariant;
}
}  // namespace

DevAesKey aes_internal::with_variant(const DevAesKey& k, const LaunchShape& sh) {
    DevAesKey c = k;
    c.bs_variant = variant_of(sh);
    return c;
}

// pair-cc's grid in waves of kPairResidentPerSm blocks per SM, each warp taking its tiles in a
// row; the tuning entry says how many waves (H100: one, src/tuning/defaults.cpp).
int aes_internal::pair_cc_waves(const LaunchShape& sh) {
    return sh.pair_cc_waves >= 1 && sh.pair_cc_waves <= tuning::kMaxPairCcWaves ? sh.pair_cc_waves : 1;
}

bool aes_internal::pair_cc_always() { return g_pair_cc_always.load(); }
bool aes_internal::cbc_reload_chain() { return g_cbc_reload.load(); }

void set_pair_cc_always(bool on) { g_pair_cc_always.store(on); }
void set_cbc_reload_chain(bool on) { g_cbc_reload.store(on); }
void set_aes_bs_variant(int v) { g_bs_variant.store(v >= 0 && v < kAesBsVariants ? v : -1); }
int aes_bs_variant() { return variant_of(LaunchShape()); }
const char* aes_bs_variant_name(int v) { return tuning::aes_variant_name(v); }

LaunchShape launch_shape(const tuning::Tuning& aes, int sms) {
    LaunchShape sh;
    sh.sms = sms > 0 ? sms : 1;
    if (aes.kernel.blocks_per_sm > 0) sh.blocks_per_sm = aes.kernel.blocks_per_sm;
    if (aes.pair.blocks_per_sm > 0) sh.pair_blocks_per_sm = aes.pair.blocks_per_sm;
    if (aes.pair.variant > 0) sh.pair_cc_waves = aes.pair.variant;
    sh.aes_variant = aes.kernel.variant;
    sh.ghash_variant = aes.ghash.variant;
    return sh;
}

cudaError_t aes_kernel_resources(const char* what, AesImpl impl, int* regs, int* local_bytes) {
    const bool tab = impl == AesImpl::Table;
    const std::string w = what ? what : "";
    const void* f = nullptr;
    for (auto mode : {aes_internal::ecb_kernel, aes_internal::ctr_kernel, aes_internal::cbc_kernel,
                      aes_internal::xts_kernel})
        if (!f) f = mode(w, tab);
    if (!f) return cudaErrorInvalidValue;
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, f);
    if (e != cudaSuccess) return e;
    if (regs) *regs = a.numRegs;
    if (local_bytes) *local_bytes = (int)a.localSizeBytes;
    return cudaSuccess;
}

}  // namespace cuda
}  // namespace bc
