// The library defines weak stubs of the optional backend factories
// (src/capi/api_objects.cpp) for builds without CUDA or OpenCL. A program
// linked against the static bulkcrypt_internal gets the stubs unless something
// pulls the real backend's object file in (see bench/NOTES.md, "weak backend
// links"). This file references one function that only each real backend
// object defines, so the suite runs on every backend the build has. Remove it
// when the library links its backends whole.
#include <string>
#include <vector>

#include "util/status.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime_api.h>
namespace bc {
namespace cuda {
Status cuda_status(cudaError_t e, const char* what);
}  // namespace cuda
}  // namespace bc
#endif

#if defined(BC_HAVE_OPENCL)
namespace bc {
Status opencl_device_list(std::vector<std::string>* out);
}  // namespace bc
#endif

namespace conf {

// Kept in volatile storage so the references survive optimisation.
volatile const void* g_backend_objects[] = {
#if defined(BC_HAVE_CUDA)
    reinterpret_cast<const void*>(&bc::cuda::cuda_status),
#endif
#if defined(BC_HAVE_OPENCL)
    reinterpret_cast<const void*>(&bc::opencl_device_list),
#endif
    nullptr,
};

}  // namespace conf
