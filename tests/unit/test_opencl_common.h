// Shared by the OpenCL backend tests: one backend per test binary (program
// builds are the slow part on PoCL), one more with small pieces so that calls
// cross many piece boundaries, and the skip when this machine has no device.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "backends/opencl/opencl_backend.h"
#include "catalog/catalog.h"

namespace bc {
namespace ocltest {

using Bytes = std::vector<uint8_t>;

// One backend for the whole binary (program builds are the slow part on PoCL),
// plus one with small pieces so that calls cross many piece boundaries.
struct Shared {
    Status status;
    std::unique_ptr<Backend> be, small;
};

inline Shared& shared() {
    static Shared s = [] {
        Shared r;
        ContextOptions opt;
        r.status = make_opencl_backend(0, opt, &r.be);
        if (r.status.is_ok()) {
            ContextOptions small;
            small.chunk = 64 << 10;
            r.status = make_opencl_backend(0, small, &r.small);
        }
        return r;
    }();
    return s;
}

#define REQUIRE_OPENCL()                                                                       \
    do {                                                                                       \
        if (shared().status.code == BC_ERR_NO_DEVICE)                                          \
            GTEST_SKIP() << "skipped: no OpenCL device (" << shared().status.detail << ")";  \
        ASSERT_TRUE(shared().status.is_ok()) << shared().status.detail;                         \
    } while (0)

inline OpenClBackend& ocl_backend() { return static_cast<OpenClBackend&>(*shared().be); }

inline Bytes random_bytes(std::mt19937_64& rng, size_t n) {
    Bytes b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    return b;
}

inline KeyMaterial key_material(const char* alg, const Bytes& raw) {
    KeyMaterial k;
    k.alg = find_algorithm(alg);
    k.raw = SecureBytes(raw.data(), raw.size());
    return k;
}

// Sizes that cover empty, tiny, block edges, and more than one piece of `small`.
inline std::vector<size_t> test_sizes(std::mt19937_64& rng) {
    std::vector<size_t> s = {0, 1, 15, 16, 17, 63, 64, 65, 255, 4096, 65536 + 7, 200000};
    for (int i = 0; i < 6; ++i) s.push_back(rng() % 300000);
    return s;
}

}  // namespace ocltest
}  // namespace bc
