// The CUDA device's identity for the tuning cache (tuning/cache.h): tuned entries hold only
// for the device, driver, runtime and kernel build that measured them.
#include <cuda_runtime_api.h>

#include <fstream>
#include <sstream>
#include <string>

#include "backends/cuda/cuda_backend.h"
#include "cuda_sources_hash.h"  // generated: the hash of the kernel sources and CUDA flags

namespace bc {
namespace cuda {

namespace {

// CUDA's version numbers as "13.0" (1000 x major + 10 x minor).
std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The kernel module's version ("580.159.04") from /proc/driver/nvidia/version: the first
// dotted number after "Module" on its first line, which reads "... Kernel Module  580.159.04
// <date>" or "... Open Kernel Module for x86_64  580.159.04  Release Build ..."; "" where
// there is no such file.
std::string module_version() {
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line, word;
    if (!std::getline(f, line)) return "";
    std::istringstream words(line);
    bool after_module = false;
    while (words >> word) {
        if (word == "Module") after_module = true;
        const bool dotted = word.find('.') != std::string::npos && word.find_first_not_of("0123456789.") == std::string::npos;
        if (after_module && dotted) return word;
    }
    return "";
}

}  // namespace

tuning::DeviceIdentity CudaBackend::identity() const {
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    tuning::DeviceIdentity id;
    id.kind = "cuda";
    id.name = traits_.name;
    // the CUDA version the driver serves, and the exact driver where the system says it
    const std::string module = module_version();
    id.driver = cuda_version(driver) + (module.empty() ? "" : " (" + module + ")");
    id.runtime = cuda_version(runtime);
    id.arch = std::to_string(traits_.cc_major) + "." + std::to_string(traits_.cc_minor);
    id.bulkcrypt = bc_version();
    id.sources = BC_CUDA_SOURCES_HASH;
    return id;
}

}  // namespace cuda
}  // namespace bc
