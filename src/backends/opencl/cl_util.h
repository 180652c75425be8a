// OpenCL host plumbing shared by the backend, its tests and its benchmark:
// error names and their statuses, small owning handles, device discovery, and
// program builds with an on-disk binary cache.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace bc {
namespace ocl {

// "CL_OUT_OF_RESOURCES" etc., or "CL error -N".
std::string cl_error_name(cl_int err);

// The status of a failed OpenCL call: out-of-memory errors become
// BC_ERR_OUT_OF_MEMORY, everything else (launch failure, lost device,
// out of resources) BC_ERR_DEVICE. `what` names the call.
Status cl_status(cl_int err, const char* what);

#define BC_CL_TRY(call, what)                                        \
    do {                                                             \
        cl_int bc_cl_err_ = (call);                                  \
        if (bc_cl_err_ != CL_SUCCESS) return ::bc::ocl::cl_status(bc_cl_err_, what); \
    } while (0)

// An owning reference to a cl_* object: released once, movable, not copyable.
template <class T, cl_int (*Release)(T)>
class Handle {
public:
    Handle() = default;
    explicit Handle(T v) : v_(v) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& o) noexcept : v_(std::exchange(o.v_, nullptr)) {}
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) { reset(); v_ = std::exchange(o.v_, nullptr); }
        return *this;
    }
    ~Handle() { reset(); }
    void reset(T v = nullptr) {
        if (v_) Release(v_);
        v_ = v;
    }
    T get() const { return v_; }
    T* out() { reset(); return &v_; }
    explicit operator bool() const { return v_ != nullptr; }

private:
    T v_ = nullptr;
};

using ContextHandle = Handle<cl_context, clReleaseContext>;
using QueueHandle = Handle<cl_command_queue, clReleaseCommandQueue>;
using MemHandle = Handle<cl_mem, clReleaseMemObject>;
using ProgramHandle = Handle<cl_program, clReleaseProgram>;
using KernelHandle = Handle<cl_kernel, clReleaseKernel>;
using EventHandle = Handle<cl_event, clReleaseEvent>;

struct DeviceInfo {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::string platform_name, platform_version;
    std::string name, vendor, version, driver, c_version;
    cl_device_type type = 0;
    cl_uint compute_units = 0;
    cl_uint clock_mhz = 0;
    size_t max_work_group = 0;
    cl_ulong global_mem = 0, max_alloc = 0, local_mem = 0;
    bool little_endian = true;
    bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
    bool is_cpu() const { return (type & CL_DEVICE_TYPE_CPU) != 0; }
    bool is_nvidia() const { return vendor.find("NVIDIA") != std::string::npos; }
    // The AES pair kernel trades words by warp shuffles (inline PTX) on NVIDIA's GPUs, else
    // through local memory (kernels/aes.cl, BC_OCL_PAIR_SHFL).
    bool pair_shuffles() const { return is_gpu() && is_nvidia(); }
    // "NVIDIA H100 80GB HBM3 (NVIDIA CUDA, OpenCL 3.0 CUDA 12.4, driver 550.54)"
    std::string describe() const;
};

// Every device of every platform, numbered 0..N-1 in platform order. An empty
// list with OK means the loader found platforms but no device; no platform at
// all is BC_ERR_NO_DEVICE with the reason.
Status list_devices(std::vector<DeviceInfo>* out);

// One program, built for one device from assembled source with options, through
// the on-disk cache: $BULKCRYPT_CACHE_DIR, else $XDG_CACHE_HOME/bulkcrypt/opencl,
// else ~/.cache/bulkcrypt/opencl; BULKCRYPT_OPENCL_CACHE=0 turns it off. The
// key is a SHA-256 of platform, device, driver, options and source. A build
// failure is BC_ERR_DEVICE with the build log in the detail.
struct BuildResult {
    bool from_cache = false;
    double seconds = 0;
    std::string cache_path;   // empty when the cache is off or unwritable
};
Status build_program(cl_context ctx, const DeviceInfo& dev, const std::string& source,
                     const std::string& options, ProgramHandle* out, BuildResult* info);

// Seconds between an event's CL_PROFILING_COMMAND_START and _END.
double event_seconds(cl_event e);

}  // namespace ocl
}  // namespace bc
