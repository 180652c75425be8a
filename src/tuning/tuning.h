// Tuning as data: the launch shapes, kernel variants, chunk sizes, pipeline depths and
// thresholds of every backend, as plain structs of numbers chosen per device.
//
// A Tuning entry covers one (device class, cipher family, mode); select_tuning maps what a
// backend knows of its device (DeviceTraits) and an algorithm to the most specific entry of
// the shipped table (defaults.cpp), which ends in fallbacks for unknown devices. Every entry
// says where its numbers came from (provenance: the device, driver, date and the
// bench/results/ folder of the run, or why it is an estimate). Entries that `bulkcrypt tune`
// measured on this machine (tuning/tuned.h: loaded from the cache when a backend opens its
// device) come before the shipped table for their exact device. Context options override
// single fields per context (apply_overrides), and tuning=shipped sets the tuned entries
// aside.
//
// Below the engine and the backends: it includes nothing of them, they read it.
#pragma once

#include <cstddef>
#include <string>

#include "catalog/catalog.h"

namespace bc {
namespace tuning {

enum class DeviceKind { Cpu, Cuda, OpenCl };

// What a backend knows of its device.
struct DeviceTraits {
    DeviceKind kind = DeviceKind::Cpu;
    std::string name;     // as the driver reports it ("NVIDIA H100 80GB HBM3")
    int cc_major = 0;     // CUDA compute capability; 0 elsewhere
    int cc_minor = 0;
    int sms = 0;          // multiprocessors (CUDA) or compute units (OpenCL); 0 when unknown
    bool gpu = true;      // OpenCL: a GPU (false: a CPU or other device)
    bool tuned = true;    // entries tuned on this machine apply (false: the shipped table alone)
};

// One kernel's launch shape. A field a kernel does not use is 0.
struct KernelTuning {
    int threads_per_block;  // CUDA threads per block, OpenCL work-group size
    int blocks_per_sm;      // grid cap: blocks per multiprocessor
    int items_per_thread;   // blocks (16-byte) or groups each thread walks
    int variant;            // which implementation (AES: bitsliced variant; GHASH: table layout)
};

// Host-memory staging: bytes per piece and pieces in flight.
struct PipelineTuning {
    size_t chunk_bytes;   // pipeline pieces (0: the shared pipeline's own default)
    int depth;            // pieces in flight (0: the shared pipeline's own default)
    size_t stage_bytes;   // CUDA: bytes per staging slot of host-memory MACs (GCM's AAD)
};

// Work splitting on the host: the multi-device engine and the CPU backend.
struct EngineTuning {
    size_t chunk_bytes;     // engine: the unit of scheduling
    size_t cpu_threshold;   // engine: jobs under it run whole on the CPU worker
    size_t oneshot_max;     // CPU: AEAD messages up to it take one libcrypto call
    size_t split_min;       // CPU: calls larger than it may be cut over the thread pool
};

// Which devices an entry covers: every field that is set must match.
struct DeviceClass {
    DeviceKind kind;
    const char* name_contains;  // substring of DeviceTraits::name; nullptr: any
    int cc_major;               // -1: any
    int cc_minor;               // -1: any
    int gpu;                    // OpenCL: 1 GPUs, 0 other devices, -1 any
};

struct Tuning {
    DeviceClass device;
    const char* family;    // "aes", "chacha", "salsa", "noop", a block cipher's name, "aes-generic"
                           // (AES through the generic kernels), or "generic"
    const char* mode;      // "ecb", "cbc", "ctr", "xts", "gcm", "stream", "chachapoly", or "*"
    KernelTuning kernel;   // the family's main kernels (CUDA AES: one lane per batch)
    KernelTuning pair;     // CUDA AES: the lane-pair kernels; variant = pair-cc's waves of blocks
    KernelTuning ghash;    // CUDA GCM: the GHASH group kernel; variant = table layout
    PipelineTuning pipeline;
    EngineTuning engine;
    const char* provenance;
};

// The CUDA AES bitsliced variants and GHASH layouts by name, in the order of their numbers
// (the kernels' documentation in backends/cuda/cuda_kernels.h says what each does).
constexpr int kAesVariantCount = 8;
const char* aes_variant_name(int v);    // "plain", "fk", ..., "pair-dec"; "?" out of range
int aes_variant_from_name(const std::string& s);  // -1 when unknown
constexpr int kGhashVariantCount = 3;
const char* ghash_variant_name(int v);  // "uint4", "planes", "tensor"
int ghash_variant_from_name(const std::string& s);
// The generic CUDA kernels' XTS over small units: interleaved items with their tweaks in
// shared memory (0) or staged tiles (1); a (device, cipher, "xts") entry's kernel variant.
constexpr int kXtsLayoutCount = 3;
int xts_layout_from_name(const std::string& s);  // "interleaved", "tiles", "interleaved-smem"
// The OpenCL AES CTR kernels, an ("aes", "ctr") entry's kernel variant on OpenCL devices: one
// work-item a batch of 32 blocks (0, "batch") or lane pairs sharing a batch (1, "pair").
constexpr int kOpenClAesVariantCount = 2;
const char* opencl_aes_variant_name(int v);  // "?" out of range
int opencl_aes_variant_from_name(const std::string& s);  // -1 when unknown

// The shared host pipeline of a CUDA device: what chunk = 0 and depth = 0 mean there.
// The generic CUDA entries of defaults.cpp carry the same numbers.
constexpr size_t kCudaHostPipelineChunk = size_t(8) << 20;
constexpr int kCudaHostPipelineDepth = 4;

// Per-context overrides from bc_context_create's options; 0 / -1: keep the entry's value.
struct Overrides {
    size_t chunk = 0;          // chunk=BYTES: a backend's pipeline pieces and staging slots
    int depth = 0;             // depth=N: host pipeline pieces in flight
    int aes_variant = -1;      // cuda.aes_variant=NAME
    int ghash_variant = -1;    // cuda.ghash=uint4|planes|tensor
    int pair_cc_waves = 0;     // cuda.pair_cc_waves=1..8
    int xts_layout = -1;       // cuda.xts_layout=interleaved|tiles|interleaved-smem (generic small-unit XTS)
    int blocks_per_sm = 0;     // cuda.blocks_per_sm=1..64: the grid cap an SM of the one-lane AES, generic and stream kernels
    int pair_blocks_per_sm = 0;  // cuda.pair_blocks_per_sm=1..64: the grid cap an SM of the AES lane-pair kernels
    int threads = 0;           // cuda.threads=32..1024 (multiples of 32): the stream kernels' threads per block
    int unroll = 0;            // cuda.unroll=1|2|4: the stream kernels' 64-byte blocks a thread an iteration
    int work_group = 0;        // opencl.work_group=1..1024: the OpenCL kernels' work-group size
    int opencl_aes_variant = -1;    // opencl.aes_variant=batch|pair: the OpenCL AES CTR kernel (GCM's too)
    int opencl_aes_work_group = 0;  // opencl.aes_work_group=1..1024: that kernel's work-group size
    int opencl_aes_groups = 0;      // opencl.aes_groups_per_unit=1..64: the pair kernel's resident groups a
                                    // compute unit (grid cap; on NVIDIA also its register cap)
    bool shipped_only = false; // tuning=shipped: the shipped table, not this machine's tuned entries
};
constexpr int kMaxWorkGroup = 1024;
constexpr int kMaxDepth = 32;          // depth= accepts 1..kMaxDepth
constexpr int kMaxPairCcWaves = 8;
constexpr int kMaxBlocksPerSm = 64;

// Parses one context option whose key this layer owns ("depth", "cuda.aes_variant",
// "cuda.ghash", "cuda.pair_cc_waves", "cuda.xts_layout", "cuda.blocks_per_sm",
// "cuda.pair_blocks_per_sm", "cuda.threads", "cuda.unroll", "opencl.work_group",
// "opencl.aes_variant", "opencl.aes_work_group", "opencl.aes_groups_per_unit",
// "tuning" = tuned | shipped) into o. Returns false with *why set for a bad value;
// *known = false (and true returned) for a key that is not a tuning key.
bool parse_option(const std::string& key, const std::string& value, Overrides* o, bool* known, std::string* why);

// The shipped table (defaults.cpp) and its size.
const Tuning* default_table(size_t* count);

// The most specific entry of the shipped table for this device and algorithm: an entry
// naming the device beats a fallback, a named family beats "generic", a named mode beats
// "*". Never fails: the table ends in fallbacks for every device kind.
const Tuning& select_tuning(const DeviceTraits& dev, const Algorithm& alg);
// The same by family and mode name ("aes", "*"), and for work that is not one algorithm's
// (staging, the engine's split: "generic", "*").
const Tuning& select_tuning(const DeviceTraits& dev, const char* family, const char* mode);
const Tuning& select_tuning(const DeviceTraits& dev);

// The entry with the context's overrides applied: an override and a tuned entry holding
// the same number launch the same way (the tuner measures its candidates as overrides).
Tuning apply_overrides(const Tuning& t, const Overrides& o);

// The family and mode names select_tuning matches an algorithm by.
const char* family_of(const Algorithm& alg);
const char* mode_name(Mode m);

}  // namespace tuning
}  // namespace bc
