#include "cuda_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "errors.h"

namespace nb = nanobind;

namespace bcpy {

namespace {

// Driver API types and constants, as cuda.h defines them.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUstream = void*;
using CUevent = void*;
constexpr int kAttrMemoryType = 2;     // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr int kAttrDeviceOrdinal = 9;  // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
constexpr unsigned kEventDisableTiming = 2;

struct Driver {
    bool loaded = false;
    std::string why;
    CUresult (*cuInit)(unsigned) = nullptr;
    CUresult (*cuPointerGetAttribute)(void*, int, uintptr_t) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*cuCtxPushCurrent)(CUcontext) = nullptr;
    CUresult (*cuCtxPopCurrent)(CUcontext*) = nullptr;
    CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*cuEventDestroy)(CUevent) = nullptr;
    CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
    CUresult (*cuMemcpyHtoDAsync)(uintptr_t, const void*, size_t, CUstream) = nullptr;
    CUresult (*cuMemcpyDtoHAsync)(void*, uintptr_t, size_t, CUstream) = nullptr;
    CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
};

template <typename F>
bool find(void* lib, F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
}

const Driver& driver() {
    static Driver d;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            d.why = "no CUDA driver (libcuda.so.1) on this machine";
            return;
        }
        bool ok = find(lib, d.cuInit, "cuInit") && find(lib, d.cuPointerGetAttribute, "cuPointerGetAttribute") &&
                  find(lib, d.cuDeviceGet, "cuDeviceGet") &&
                  find(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
                  find(lib, d.cuCtxPushCurrent, "cuCtxPushCurrent_v2") &&
                  find(lib, d.cuCtxPopCurrent, "cuCtxPopCurrent_v2") && find(lib, d.cuEventCreate, "cuEventCreate") &&
                  find(lib, d.cuEventRecord, "cuEventRecord") && find(lib, d.cuEventDestroy, "cuEventDestroy_v2") &&
                  find(lib, d.cuStreamWaitEvent, "cuStreamWaitEvent") &&
                  find(lib, d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2") &&
                  find(lib, d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") &&
                  find(lib, d.cuStreamSynchronize, "cuStreamSynchronize");
        if (!ok) {
            d.why = "the CUDA driver lacks an entry point the binding needs";
            return;
        }
        if (d.cuInit(0) != 0) {
            d.why = "the CUDA driver failed to initialise (no GPU?)";
            return;
        }
        d.loaded = true;
    });
    return d;
}

const Driver& need_driver() {
    const Driver& d = driver();
    if (!d.loaded) raise_with(BC_ERR_NO_DEVICE, d.why);
    return d;
}

// The primary context of one device, current on this thread for a scope. Each device's
// context is retained once and kept: the library holds it too, for the process's life.
class ScopedContext {
public:
    ScopedContext(const Driver& d, int ordinal) : d_(d) {
        static std::mutex mu;
        static CUcontext retained[64] = {};
        if (ordinal < 0 || ordinal >= 64) return;
        CUcontext ctx = nullptr;
        {
            std::lock_guard<std::mutex> lock(mu);
            ctx = retained[ordinal];
            CUdevice dev = 0;
            if (!ctx && d.cuDeviceGet(&dev, ordinal) == 0 && d.cuDevicePrimaryCtxRetain(&ctx, dev) == 0)
                retained[ordinal] = ctx;
        }
        pushed_ = ctx && d.cuCtxPushCurrent(ctx) == 0;
    }
    ~ScopedContext() {
        CUcontext popped = nullptr;
        if (pushed_) d_.cuCtxPopCurrent(&popped);
    }
    bool ok() const { return pushed_; }

private:
    const Driver& d_;
    bool pushed_ = false;
};

// A copy on a stream. Host to device from pageable memory returns once the driver has
// staged the bytes: the copy itself follows in stream order, so the caller's next work on
// that stream sees it and nothing waits here. Device to pageable host memory returns when
// the bytes have arrived (after the work queued before it on the stream).
template <typename Copy>
bool copy_on_stream(int device, std::string* error, const char* what, Copy copy) {
    const Driver& d = driver();
    if (!d.loaded) {
        *error = d.why;
        return false;
    }
    ScopedContext scope(d, device);
    if (!scope.ok()) {
        *error = "cannot open CUDA device " + std::to_string(device);
        return false;
    }
    const CUresult r = copy(d);
    if (r != 0) *error = std::string(what) + " failed (CUDA error " + std::to_string(r) + ")";
    return r == 0;
}

}  // namespace

bool cuda_copy_to_device(uintptr_t dst, const void* src, size_t n, uintptr_t stream, int device,
                         std::string* error) {
    return copy_on_stream(device, error, "writing the tag to the device", [&](const Driver& d) {
        return d.cuMemcpyHtoDAsync(dst, src, n, reinterpret_cast<CUstream>(stream));
    });
}

bool cuda_copy_to_host(void* dst, uintptr_t src, size_t n, uintptr_t stream, int device, std::string* error) {
    return copy_on_stream(device, error, "reading the tag from the device", [&](const Driver& d) {
        CUresult r = d.cuMemcpyDtoHAsync(dst, src, n, reinterpret_cast<CUstream>(stream));
        return r == 0 ? d.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)) : r;
    });
}

void bind_cuda_driver(nb::module_& m) {
    m.def(
        "_cuda_pointer",
        [](uintptr_t ptr) {
            const Driver& d = driver();
            if (!d.loaded) return nb::make_tuple(0, -1);
            unsigned type = 0;
            int ordinal = -1;
            if (d.cuPointerGetAttribute(&type, kAttrMemoryType, ptr) != 0) return nb::make_tuple(0, -1);
            d.cuPointerGetAttribute(&ordinal, kAttrDeviceOrdinal, ptr);
            return nb::make_tuple(type, ordinal);
        },
        nb::arg("pointer"),
        "(memory type, device ordinal) of a pointer as the CUDA driver knows it: type 1 host, 2 "
        "device, 4 managed; (0, -1) for memory CUDA does not know or without a driver.");
    m.def(
        "_cuda_stream_wait",
        [](uintptr_t waiter, uintptr_t producer, int ordinal) {
            if (waiter == producer) return;
            const Driver& d = need_driver();
            ScopedContext scope(d, ordinal);
            if (!scope.ok()) raise_with(BC_ERR_DEVICE, "cannot open CUDA device " + std::to_string(ordinal));
            CUevent ev = nullptr;
            if (d.cuEventCreate(&ev, kEventDisableTiming) != 0)
                raise_with(BC_ERR_DEVICE, "cuEventCreate failed");
            CUresult r = d.cuEventRecord(ev, reinterpret_cast<CUstream>(producer));
            if (r == 0) r = d.cuStreamWaitEvent(reinterpret_cast<CUstream>(waiter), ev, 0);
            d.cuEventDestroy(ev);
            if (r != 0) raise_with(BC_ERR_DEVICE, "ordering stream after stream failed (CUDA error " + std::to_string(r) + ")");
        },
        nb::arg("waiter"), nb::arg("producer"), nb::arg("device"),
        "Makes stream `waiter` wait for the work queued so far on stream `producer` (device ordinal "
        "`device`), without blocking the host.");
}

}  // namespace bcpy
