#include "device_buffers.h"

#include <algorithm>
#include <chrono>
#include <vector>

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace bcli {

#if defined(BC_HAVE_CUDA)

DeviceBuffer::~DeviceBuffer() {
    if (p_) (void)cudaFree(p_);
}

bool DeviceBuffer::allocate(int device, size_t n, const void* host, std::string* why) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        *why = "no CUDA device";
        return false;
    }
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaMalloc(&p_, n ? n : 1);
    if (e == cudaSuccess && host) e = cudaMemcpy(p_, host, n, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        *why = std::string("CUDA device ") + std::to_string(device) + ": " + cudaGetErrorString(e);
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

double device_copy_seconds(const DeviceBuffer& dst, const DeviceBuffer& src, size_t n, double min_seconds) {
    using Clock = std::chrono::steady_clock;
    auto copy = [&] {
        // device-to-device copies return before they finish: wait for each
        return cudaMemcpy(dst.data(), src.data(), n, cudaMemcpyDeviceToDevice) == cudaSuccess &&
               cudaDeviceSynchronize() == cudaSuccess;
    };
    if (!copy()) return -1;
    std::vector<double> runs;
    const auto start = Clock::now();
    while (runs.size() < 3 || std::chrono::duration<double>(Clock::now() - start).count() < min_seconds) {
        const auto t0 = Clock::now();
        if (!copy()) return -1;
        runs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(runs.begin(), runs.end());
    return runs[runs.size() / 2];
}

#else

DeviceBuffer::~DeviceBuffer() = default;

bool DeviceBuffer::allocate(int, size_t, const void*, std::string* why) {
    *why = "this build of bulkcrypt has no CUDA backend";
    return false;
}

double device_copy_seconds(const DeviceBuffer&, const DeviceBuffer&, size_t, double) { return -1; }

#endif

}  // namespace bcli
