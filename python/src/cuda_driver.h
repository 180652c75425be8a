// The few CUDA driver calls the binding needs around the C API, found at run time
// (libcuda.so.1 through dlopen), so the package imports on machines without a GPU
// and needs no CUDA toolkit to build: where a pointer lives, and ordering one
// stream after another.
#pragma once

#include <cstdint>

#include <nanobind/nanobind.h>

namespace bcpy {

void bind_cuda_driver(nanobind::module_& m);

}  // namespace bcpy
