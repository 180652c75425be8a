// The C API's catalogue leaves out the benchmarks' "noop" (output = input): a user who
// picked it would write plaintext and get success. Only benchmark programs, `bulkcrypt
// bench` and tests reach it, through the internal allow_benchmark_algorithms.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"

namespace {

struct Hidden {
    Hidden() { bc::allow_benchmark_algorithms(false); }
    ~Hidden() { bc::allow_benchmark_algorithms(false); }
};

bool listed(const char* name) {
    for (size_t i = 0; const char* n = bc_algorithm_name(i); ++i)
        if (std::strcmp(n, name) == 0) return true;
    return false;
}

TEST(PublicCatalogue, NoopIsNotReachableThroughTheCApi) {
    Hidden h;
    bc_algorithm_info info{};
    EXPECT_EQ(BC_ERR_UNKNOWN_ALGORITHM, bc_algorithm_query("noop", &info));
    EXPECT_EQ(BC_ERR_UNKNOWN_ALGORITHM, bc_algorithm_query("NOOP", &info));
    EXPECT_FALSE(listed("noop"));
    EXPECT_EQ(0u, bc_key_size("noop"));
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=1", &ctx));
    bc_key* k = nullptr;
    EXPECT_EQ(BC_ERR_UNKNOWN_ALGORITHM, bc_key_create(ctx, "noop", nullptr, 0, &k));
    EXPECT_EQ(nullptr, k);
    // the rest of the catalogue is all there, in order, with nothing skipped twice
    size_t shown = 0, internal = 0;
    while (bc_algorithm_name(shown)) ++shown;
    while (bc::algorithm_at(internal)) ++internal;
    EXPECT_EQ(internal - 1, shown);
    EXPECT_TRUE(listed("aes-256-gcm"));
    bc_context_destroy(ctx);
}

TEST(PublicCatalogue, BenchmarksMayAskForIt) {
    Hidden h;
    bc::allow_benchmark_algorithms(true);
    bc_algorithm_info info{};
    EXPECT_EQ(BC_OK, bc_algorithm_query("noop", &info));
    EXPECT_TRUE(listed("noop"));
}

}  // namespace
