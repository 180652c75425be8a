// The tuner on this machine's OpenCL device (PoCL in CI): a short search that stores a
// valid entry and never a failing candidate, and contexts that pick a stored entry up or
// set it aside (tuning=shipped, opencl.work_group=).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/opencl/opencl_backend.h"
#include "tuner/tuner.h"
#include "tuning/cache.h"
#include "tuning/tuned.h"
#include "tuner_test_util.h"

namespace {

using tuner_test::CacheFile;

bc::Status open(const char* options, std::unique_ptr<bc::Backend>* be) {
    bc::ContextOptions o;
    if (std::string(options) == "tuning=shipped") o.tuning.shipped_only = true;
    if (std::string(options) == "opencl.work_group=8") o.tuning.work_group = 8;
    return bc::make_opencl_backend(0, o, be);
}

// The work-group size a backend launches its kernels with.
int local_size(bc::Backend& be) { return static_cast<int>(static_cast<bc::OpenClBackend&>(be).work_group()); }

// A short search of one algorithm on opencl:0 over 1 MiB, stored in cache.
bc::tuner::TuneOptions short_tune(const char* alg, double budget, int runs, const CacheFile& cache) {
    bc::tuner::TuneOptions o;
    o.device = "opencl:0";
    o.algorithms = {alg};
    o.budget_seconds = budget;
    o.bytes = size_t(1) << 20;
    o.runs = runs;
    o.cache_path = cache.path();
    return o;
}

#define REQUIRE_OPENCL_DEVICE(status)                                                       \
    do {                                                                                    \
        if ((status).code == BC_ERR_NO_DEVICE)                                              \
            GTEST_SKIP() << "skipped: no OpenCL device (" << (status).detail << ")";       \
        ASSERT_TRUE((status).is_ok()) << (status).detail;                                    \
    } while (0)

TEST(TunerOpenCl, AContextPicksUpAStoredEntryUnlessToldNotTo) {
    CacheFile cache;
    std::unique_ptr<bc::Backend> be;
    REQUIRE_OPENCL_DEVICE(open("", &be));
    auto& ocl = static_cast<bc::OpenClBackend&>(*be);
    const int shipped = local_size(*be);
    ASSERT_GT(shipped, 0);
    const int tuned = shipped == 16 ? 32 : 16;
    bc::tuning::TunedEntry e;
    e.family = "generic";
    e.mode = "*";
    e.kernel = {tuned, 0, 0, 0};
    e.rate_gbs = 2;
    e.default_gbs = 1;
    e.date = "2026-11-27";
    std::string error;
    ASSERT_TRUE(bc::tuning::store_entries(cache.path(), ocl.identity(), {e}, &error)) << error;

    std::unique_ptr<bc::Backend> picked, shipped_only, overridden;
    ASSERT_TRUE(open("", &picked).is_ok());
    EXPECT_EQ(tuned, local_size(*picked));
    ASSERT_TRUE(open("tuning=shipped", &shipped_only).is_ok());
    EXPECT_EQ(shipped, local_size(*shipped_only));
    ASSERT_TRUE(open("opencl.work_group=8", &overridden).is_ok());
    EXPECT_EQ(8, local_size(*overridden));

    // an entry measured under another kernel build is stale: the shipped entry again
    bc::tuning::DeviceIdentity other = ocl.identity();
    other.sources = "0000000000000000";
    ASSERT_TRUE(bc::tuning::remove_entries(cache.path(), nullptr, &error)) << error;
    ASSERT_TRUE(bc::tuning::store_entries(cache.path(), other, {e}, &error)) << error;
    std::unique_ptr<bc::Backend> stale;
    ASSERT_TRUE(open("", &stale).is_ok());
    EXPECT_EQ(shipped, local_size(*stale));
}

// One short search on ChaCha20 over 1 MiB: every candidate checked against the CPU backend,
// the baseline first; a candidate made to fail its check is never stored, however fast.
TEST(TunerOpenCl, AShortSearchStoresOnlyACheckedEntry) {
    CacheFile cache;
    std::unique_ptr<bc::Backend> probe;
    REQUIRE_OPENCL_DEVICE(open("", &probe));
    const int shipped = local_size(*probe);
    probe.reset();

    bc::tuner::TuneOptions o = short_tune("chacha20", 20, 2, cache);
    // every candidate but the shipped one computes nonsense
    o.corrupt = [shipped](const bc::tuning::Point& p) { return p[0] != shipped; };
    bc::tuner::TuneResult r;
    ASSERT_TRUE(bc::tuner::tune(o, &r).is_ok());
    ASSERT_EQ(1u, r.parts.size()) << "one entry a device on OpenCL";
    const bc::tuning::SearchResult& sr = r.parts[0].search;
    ASSERT_FALSE(sr.trials.empty());
    EXPECT_EQ(shipped, sr.trials.front().point[0]) << "the baseline is measured first";
    EXPECT_TRUE(sr.baseline_m.ok) << sr.baseline_m.error;
    EXPECT_EQ(sr.trials.size() - 1, sr.failed);
    EXPECT_EQ(shipped, r.parts[0].entry.kernel.threads_per_block);
    EXPECT_FALSE(sr.improved());
    ASSERT_TRUE(r.stored) << r.note;
    std::vector<bc::tuning::TunedEntry> cached;
    std::string warning;
    bc::tuning::load_entries(cache.path(), r.identity, &cached, &warning);
    ASSERT_EQ(1u, cached.size()) << warning;
    EXPECT_EQ(shipped, cached[0].kernel.threads_per_block);
    EXPECT_GT(cached[0].rate_gbs, 0);

    // all candidates failing, the baseline too: nothing is stored
    tuner_test::expect_failed_search_stores_nothing(o, 5);
}

// AES-CTR adds a second search, over its own kernel (batch or lane pairs, the group size, the
// pairs' groups a compute unit), stored as an ("aes", "ctr") entry. Every candidate of the
// variant the shipped entry does not use is made to fail its check: that variant is tried,
// and none of its points is stored.
TEST(TunerOpenCl, TheAesKernelSearchTriesBothVariantsAndStoresOnlyCheckedOnes) {
    CacheFile cache;
    std::unique_ptr<bc::Backend> probe;
    REQUIRE_OPENCL_DEVICE(open("", &probe));
    bc::tuning::DeviceTraits traits = static_cast<bc::OpenClBackend&>(*probe).traits();
    traits.tuned = false;
    const int shipped = bc::tuning::select_tuning(traits, "aes", "ctr").kernel.variant;
    probe.reset();

    bc::tuner::TuneOptions o = short_tune("aes-128-ctr", 40, 1, cache);
    o.corrupt = [shipped](const bc::tuning::Point& p) { return p.size() == 3 && p[0] != shipped; };
    bc::tuner::TuneResult r;
    ASSERT_TRUE(bc::tuner::tune(o, &r).is_ok());
    ASSERT_EQ(2u, r.parts.size()) << "the work-group part, then AES's kernel";
    const bc::tuning::SearchResult& sr = r.parts[1].search;
    ASSERT_FALSE(sr.trials.empty());
    EXPECT_EQ(shipped, sr.trials.front().point[0]) << "the shipped variant is the baseline";
    EXPECT_TRUE(sr.baseline_m.ok) << sr.baseline_m.error;
    size_t other = 0;
    for (const bc::tuning::Trial& tr : sr.trials)
        if (tr.point[0] != shipped) {
            ++other;
            EXPECT_FALSE(tr.m.ok) << "a candidate passed a check made to fail";
        }
    EXPECT_GT(other, 0u) << "the other variant was not tried";
    EXPECT_EQ(shipped, r.parts[1].entry.kernel.variant);
    EXPECT_EQ("aes", r.parts[1].entry.family);
    EXPECT_EQ("ctr", r.parts[1].entry.mode);
    ASSERT_TRUE(r.stored) << r.note;
    std::vector<bc::tuning::TunedEntry> cached;
    std::string warning;
    bc::tuning::load_entries(cache.path(), r.identity, &cached, &warning);
    ASSERT_EQ(2u, cached.size()) << warning;
    for (const bc::tuning::TunedEntry& e : cached)
        if (e.family == "aes") EXPECT_EQ(shipped, e.kernel.variant);
}

}  // namespace
