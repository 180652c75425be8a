// The OpenCL backend beyond the Backend interface: what its tests and the
// benchmark reach (the device, its queues, work on data already in a device
// buffer, the kernel time of the last call). make_opencl_backend (backend.h)
// returns an object of this type.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/opencl/cl_util.h"
#include "modes/gcm/ghash.h"
#include "tuning/cache.h"

namespace bc {

// A program part (backends/opencl/opencl_kernels.h) as this device built it.
struct OpenClPart {
    std::string name;          // "aes/ctr", "ghash", "block/camellia/xts-enc"
    bool ok = false;           // false: the build failed (remembered, not retried)
    bool from_cache = false;   // loaded from the binary cache rather than compiled
    double seconds = 0;        // the build or the load
};

class OpenClBackend : public Backend {
public:
    virtual const ocl::DeviceInfo& device() const = 0;
    virtual cl_context cl_ctx() const = 0;
    virtual cl_command_queue cl_queue() const = 0;   // the queue of the device-buffer calls

    // What the tuning cache keys this device's entries by (tuning/cache.h): the sources
    // field hashes every embedded kernel source.
    virtual tuning::DeviceIdentity identity() const = 0;
    // The device as select_tuning sees it (tuned = false under tuning=shipped).
    virtual tuning::DeviceTraits traits() const = 0;

    // The work-group size of the kernels' launches (the tuning entry's, or opencl.work_group=).
    virtual size_t work_group() const = 0;
    // The smallest CL_KERNEL_WORK_GROUP_SIZE among the kernels of the program parts built so
    // far (their registers decide it; a launch over it is cut to a power of two under it); 0
    // before any part is built.
    virtual size_t kernel_work_group_limit() const = 0;

    // The build options (device capabilities as -D defines) of every program.
    virtual std::string build_options() const = 0;
    // Each program part built so far, in the order of first use: a line with how its build
    // went (compiled, cached binary or failed; seconds; the cache file), then a line per
    // kernel (largest work-group, private and local memory).
    virtual std::string build_report() const = 0;
    // The same parts, as data.
    virtual std::vector<OpenClPart> program_parts() const = 0;

    // Raw-mode work on data already in a device buffer: op.len bytes from byte 0
    // of buf, in place (op.in/op.out are ignored). The keystream offset must be a
    // multiple of the cipher's block (16 for AES, 64 for the stream ciphers), and
    // buf must hold op.len rounded up to 64 bytes. Returns the kernels' time from
    // profiling events in *kernel_seconds.
    virtual Status cipher_buffer(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op,
                                 cl_mem buf, double* kernel_seconds) = 0;

    // Kernel seconds (profiling events) and bytes of the last cipher/aead_chunk/mac call.
    virtual double last_kernel_seconds() const = 0;

    // The device GHASH partial (backend.h's definition) of len bytes of host data
    // under H: the kernel that GCM's chunks and MACs use, reachable without a key.
    virtual Status ghash_partial(bc_gf128 h, const uint8_t* data, size_t len, bc_gf128* out) = 0;
    // The device Poly1305 partial (backend.h's definition) under the raw r (clamped inside).
    virtual Status poly1305_partial_device(const uint8_t r[16], const uint8_t* data, size_t len,
                                           uint8_t partial[17]) = 0;
};

// Every OpenCL device of this machine, described in one line each ("opencl:N name (...)").
Status opencl_device_list(std::vector<std::string>* out);

}  // namespace bc
