// The shipped tuning table: one entry per measured configuration, then the fallbacks for
// devices nobody has measured. select_tuning (tuning.cpp) picks the most specific match.
//
// Each provenance names the device, driver, date and the bench/results/ folder whose run
// gave the numbers (the matching bench/notes/ document has the predictions and reasons);
// a number that is an estimate says so. The unit tests check that every folder named here
// exists. Fields an entry's backend does not read are 0.
//
// Shapes fixed at compile time (the CUDA kernels' 128 threads per block, which their
// __launch_bounds__, shared-memory tiles and register budgets are built around; the GHASH
// kernel's 512 threads and 24 windows, which its host-built tables follow) are recorded
// for the reader and the tuner, and are not read at run time.
#include "tuning/tuning.h"

namespace bc {
namespace tuning {

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

constexpr DeviceClass kH100{DeviceKind::Cuda, "H100", 9, 0, -1};
constexpr DeviceClass kAnyCuda{DeviceKind::Cuda, nullptr, -1, -1, -1};
constexpr DeviceClass kOpenClGpu{DeviceKind::OpenCl, nullptr, -1, -1, 1};
constexpr DeviceClass kOpenClOther{DeviceKind::OpenCl, nullptr, -1, -1, 0};
constexpr DeviceClass kHost{DeviceKind::Cpu, nullptr, -1, -1, -1};

// CUDA AES. kernel: the one-lane bitsliced kernels (128 threads, grid capped at 8 blocks per
// SM, a warp tile of 1024 blocks = 32 per thread) and the bitsliced variant; pair: the
// lane-pair kernels (16 blocks per SM, 512-block tiles = 16 per thread) and pair-cc's waves of
// resident blocks; ghash: the group kernel (one block per SM at most) and its table layout.
constexpr KernelTuning kAesKernel{128, 8, 32, 7 /* pair-dec */};
constexpr KernelTuning kAesPair{128, 16, 16, 1 /* wave */};
// GHASH: the tensor variant (16 warps x 48 tiles a group) where the one-bit MMA exists; the
// lookup kernel (512 threads, 24 windows, planes) on older devices, chosen at launch.
constexpr KernelTuning kGhash{512, 1, 24, 2 /* tensor */};
// The generic block-cipher and stream kernels: 128 threads, grid capped at 8 blocks per SM.
constexpr KernelTuning kCudaGeneric{128, 8, 0, 0};
// XTS over small units: interleaved items with their tweaks in shared memory (kernel
// variant 0) by default; staged tiles (1) lost on the H100 once the interleaved kernel
// stopped holding its addresses across the core and ARIA's was held to three blocks an SM
// (bench/results/2026-11-27-64-bit-ciphers-xts-layouts, run3 and run4). Interleaved items
// whose blocks pass through shared memory (2) win where the core's code is large (CLEFIA,
// Camellia), by a (device, cipher, "xts") entry; cuda.xts_layout= overrides any of them.
constexpr KernelTuning kCudaGenericXtsSmem{128, 8, 0, 2};
// The stream kernels (Salsa, ChaCha, their Poly1305): 256 threads a block, grid capped at 8
// blocks an SM, two 64-byte blocks a thread an iteration (kernel items_per_thread).
constexpr KernelTuning kCudaStream{256, 8, 2, 0};
constexpr KernelTuning kNone{0, 0, 0, 0};
// Host memory through a CUDA device: the shared pipeline's pieces and depth (read from the
// device's "generic" entry), and the staging slots of host-memory MACs.
constexpr PipelineTuning kCudaPipe{kCudaHostPipelineChunk, kCudaHostPipelineDepth, 64 * MiB};
constexpr EngineTuning kNoEngine{0, 0, 0, 0};

const Tuning kTable[] = {
    // ---- measured: H100
    {kH100, "aes", "*", kAesKernel, kAesPair, kGhash, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04. Variant pair-dec: 2026-11-25, "
     "bench/results/2026-11-25-aes-lane-pair-decryption (run1-pairdec: CBC decryption 411.6 GB/s "
     "against pair-cc's 382.2, ECB decryption 419.7 against 400.7). Lane pairs at 16 blocks per SM: "
     "2026-11-22, bench/results/2026-11-22-aes-sbox-pairs-engine-arms (run9-pair). pair-cc in one "
     "wave: 2026-11-23, bench/results/2026-11-23-aes-counter-cache-ghash (run3-unguarded-tiles: "
     "AES-128-CTR 446.9 GB/s at one wave, 421.1 at four). GHASH on the tensor cores: 2026-11-27, "
     "bench/results/2026-11-27-ghash-tensor (run3-h100: AES-256-GCM 260.6 GB/s against 238.8 with the "
     "planes lookups, SM4-GCM 318-322 against 285-287). Pipeline: as the generic H100 entry."},
    {kH100, "generic", "*", kCudaGeneric, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, PCIe Gen5 x16, 2026-11-23, "
     "bench/results/2026-11-23-scratch-pool-hybrid (run1-bb01600: the NO-OP sweep found depth 4 "
     "and 8 MiB pieces best, 1 GiB pageable jobs at 92-99 % of the NO-OP rate). The grid cap of "
     "8 blocks per SM and the 64 MiB MAC staging are estimates carried from the AES kernels."},

    // ChaCha: bulkcrypt tune's winners, fewer and larger blocks than the kernels' default
    {kH100, "chacha", "stream", {512, 2, 1, 0}, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, bulkcrypt tune 2026-11-28, bench/results/2026-11-28-cuda-tune "
     "(run1 and run2: 512 threads, 2 blocks an SM, unroll 1 won both searches, 1,216.8 and 1,242.9 GB/s "
     "against 1,135.7 and 1,123.1 for 256/8/2; the C API on 1 GiB in device memory, in turns: 1,197.3 and "
     "1,186.3 against 968.5 and 957.6)."},
    {kH100, "chacha", "chachapoly", {1024, 1, 2, 0}, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, bulkcrypt tune 2026-11-28, bench/results/2026-11-28-cuda-tune "
     "(1,024 threads, one block an SM won both searches, unroll 2 in run1 (790.0 against 754.4 GB/s) and 1 "
     "in run2 (735.6 against 713.7), within the noise of each other; the C API on 1 GiB in device memory, "
     "in turns: 1,037.0 and 1,052.3 against 1,003.7 and 1,018.4)."},
    {kH100, "chacha", "*", kCudaStream, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, 2026-11-22, bench/results/2026-11-22-h100-suite "
     "(GPU_TESTS.md: ChaCha20 1,303.2 GB/s against a device copy of 1,442.6, ChaCha20-Poly1305 "
     "931.4). The stream kernels' shape since they were written; its modes have entries above."},
    {kH100, "salsa", "*", kCudaStream, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, 2026-11-22, bench/results/2026-11-22-h100-suite "
     "(GPU_TESTS.md). The stream kernels' shape since they were written, not swept."},

    // XTS layouts measured per cipher, where the default (interleaved) loses
    {kH100, "clefia", "xts", kCudaGenericXtsSmem, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, 2026-11-27, bench/results/2026-11-27-table-ciphers-grids "
     "(run1: clefia-128-xts, 4 KiB units, 341.6/330.3 GB/s with the blocks through shared memory "
     "against 293.8/314.0 interleaved, 93-95 % of its CTR; clefia-256-xts 258.5/259.7 against "
     "226.9/238.8)."},
    {kH100, "camellia", "xts", kCudaGenericXtsSmem, kNone, kNone, kCudaPipe, kNoEngine,
     "H100 SXM 80 GB HBM3, driver 580.159.04, 2026-11-27, bench/results/2026-11-27-table-ciphers-grids "
     "(run1: camellia-128-xts, 4 KiB units, 269.3/270.8 GB/s with the blocks through shared memory "
     "against 235.8/229.5 interleaved)."},

    // ---- fallbacks: CUDA devices nobody has measured
    {kAnyCuda, "aes", "*", kAesKernel, kAesPair, kGhash, kCudaPipe, kNoEngine,
     "fallback for unmeasured CUDA devices: the H100's numbers "
     "(bench/results/2026-11-25-aes-lane-pair-decryption), unverified elsewhere."},
    {kAnyCuda, "chacha", "*", kCudaStream, kNone, kNone, kCudaPipe, kNoEngine,
     "fallback for unmeasured CUDA devices: the H100's numbers "
     "(bench/results/2026-11-22-h100-suite), unverified elsewhere."},
    {kAnyCuda, "salsa", "*", kCudaStream, kNone, kNone, kCudaPipe, kNoEngine,
     "fallback for unmeasured CUDA devices: the H100's numbers "
     "(bench/results/2026-11-22-h100-suite), unverified elsewhere."},
    {kAnyCuda, "generic", "*", kCudaGeneric, kNone, kNone, kCudaPipe, kNoEngine,
     "fallback for unmeasured CUDA devices: the H100's numbers "
     "(bench/results/2026-11-23-scratch-pool-hybrid), unverified elsewhere."},

    // ---- OpenCL: AES's counter kernel (GCM's too) as lane pairs where they were measured faster
    {DeviceClass{DeviceKind::OpenCl, "NVIDIA H200", -1, -1, 1}, "aes", "ctr", {128, 0, 0, 1 /* pair */}, kNone, kNone,
     {16 * MiB, 0, 0}, kNoEngine,
     "NVIDIA H200, driver 580.159.04, NVIDIA OpenCL 3.0 CUDA 13.0.98, 2026-11-28, "
     "bench/results/2026-11-28-opencl-pair: lane pairs, 128 work-items a group, no grid cap: AES-128-CTR "
     "361.2 GB/s against 234.9-235.4 for one work-item a batch at 256 (opencl_bench, 1 GiB in device "
     "memory, two turns); bulkcrypt tune 350.5 against 232.0, the best of 26 points."},

    // ---- OpenCL: work-group size and piece size (three buffers in flight, fixed by the backend)
    {kOpenClGpu, "generic", "*", {256, 0, 0, 0}, kNone, kNone, {16 * MiB, 0, 0}, kNoEngine,
     "estimate, not swept: 256 work-items a group, 16 MiB pieces. Run without faults (conformance, "
     "7,219 cases) on NVIDIA OpenCL 3.0 on the H100, driver 580.159.04, 2026-11-22, "
     "bench/results/2026-11-22-h100-suite (GPU_TESTS.md)."},
    {kOpenClOther, "generic", "*", {64, 0, 0, 0}, kNone, kNone, {16 * MiB, 0, 0}, kNoEngine,
     "estimate, not swept: 64 work-items a group on CPU devices, 16 MiB pieces. Run without faults "
     "(conformance, 7,219 cases) on PoCL 5.0 on the H100 machine's Xeon, 2026-11-22, "
     "bench/results/2026-11-22-h100-suite (GPU_TESTS.md)."},

    // ---- the host: the engine's split and the CPU backend (the last entry: the fallback of
    // last resort, see tuning.cpp)
    {kHost, "generic", "*", kNone, kNone, kNone, {0, 0, 0}, {4 * MiB, 4 * MiB, 1 * MiB, 64 * KiB},
     "H100 machine's 16-core Xeon host, driver 580.159.04. Engine chunk 4 MiB and CPU threshold "
     "4 MiB: 2026-11-25, bench/results/2026-11-25-aes-inverse-round (run2-ncu-engine: every job "
     "split at 4 / 16 / 64 MiB chunks, AES-128-CTR 33.95 / 35.86 / 36.36 GB/s, none beating the CPU "
     "alone; run9-final-xtsdec-edges: the measured crossover keeps 4 MiB). CPU one-shot AEAD up to "
     "1 MiB and pool splitting above 64 KiB: estimates, exercised by the file-encryption runs of "
     "2026-11-22, bench/results/2026-11-22-aes-cle-engine-policy (run4-pool-share, run6-final)."},
};

}  // namespace

const Tuning* default_table(size_t* count) {
    *count = sizeof(kTable) / sizeof(kTable[0]);
    return kTable;
}

}  // namespace tuning
}  // namespace bc
