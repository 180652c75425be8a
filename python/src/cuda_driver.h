// The few CUDA driver calls the binding needs around the C API, found at run time
// (libcuda.so.1 through dlopen), so the package imports on machines without a GPU
// and needs no CUDA toolkit to build: where a pointer lives, and ordering one
// stream after another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nanobind/nanobind.h>

namespace bcpy {

void bind_cuda_driver(nanobind::module_& m);

// Small copies between host and device memory of GPU `device` in the order of `stream`
// (the AEAD tags of device-memory calls: the C API keeps them on the host). To the
// device: queued on the stream, the host bytes free to reuse on return. To the host:
// arrived on return. False with *error set on failure. Call without the GIL.
bool cuda_copy_to_device(uintptr_t dst, const void* src, size_t n, uintptr_t stream, int device,
                         std::string* error);
bool cuda_copy_to_host(void* dst, uintptr_t src, size_t n, uintptr_t stream, int device, std::string* error);

}  // namespace bcpy
