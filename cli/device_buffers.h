// Device memory for `bulkcrypt bench --memory device`: the library takes pointers into
// GPU memory, and the benchmark has to make some. The CLI's only use of the CUDA runtime.
#pragma once

#include <cstddef>
#include <string>

namespace bcli {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    // n bytes on CUDA device `device`, filled from host (n bytes) when host is not NULL.
    // False, with why, when this build has no CUDA or the device cannot give them.
    bool allocate(int device, size_t n, const void* host, std::string* why);
    void* data() const { return p_; }

private:
    void* p_ = nullptr;
};

// Seconds of one device-to-device copy of n bytes from src to dst (median of at least 3
// copies over at least min_seconds): the copy roof of the GPU-memory figures. -1 on error.
double device_copy_seconds(const DeviceBuffer& dst, const DeviceBuffer& src, size_t n, double min_seconds);

}  // namespace bcli
