// The tuner on a CUDA device: a short search stores a checked entry and never a failing
// candidate; a context launches a tuned entry's numbers for its (family, mode) alone, the
// same as the options of those numbers; tuning=shipped sets it aside. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/cuda/cuda_backend.h"
#include "tuner/tuner.h"
#include "tuning/cache.h"
#include "tuning/tuned.h"
#include "tuner_test_util.h"

namespace {

bool have_cuda_device() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return n > 0;
}

#define REQUIRE_CUDA()                                                      \
    do {                                                                    \
        if (!have_cuda_device()) GTEST_SKIP() << "skipped: no CUDA device"; \
    } while (0)

using tuner_test::CacheFile;

bc::cuda::CudaBackend* open(const bc::tuning::Overrides& o, std::unique_ptr<bc::Backend>* be) {
    bc::ContextOptions co;
    co.tuning = o;
    const bc::Status s = bc::make_cuda_backend(0, co, be);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    return s.is_ok() ? dynamic_cast<bc::cuda::CudaBackend*>(be->get()) : nullptr;
}

void expect_same(const bc::cuda::LaunchShape& a, const bc::cuda::LaunchShape& b, const char* what) {
    EXPECT_EQ(a.blocks_per_sm, b.blocks_per_sm) << what;
    EXPECT_EQ(a.pair_blocks_per_sm, b.pair_blocks_per_sm) << what;
    EXPECT_EQ(a.pair_cc_waves, b.pair_cc_waves) << what;
    EXPECT_EQ(a.aes_variant, b.aes_variant) << what;
    EXPECT_EQ(a.ghash_variant, b.ghash_variant) << what;
}

TEST(TunerCuda, ATunedEntryLaunchesForItsModeAloneAsItsOptionsWould) {
    REQUIRE_CUDA();
    CacheFile cache;
    bc::tuning::DeviceIdentity id;
    bc::tuning::DeviceTraits traits;
    ASSERT_TRUE(bc::tuner::identify("cuda:0", &id, &traits).is_ok());
    std::unique_ptr<bc::Backend> shipped_be;
    bc::tuning::Overrides shipped_only;
    shipped_only.shipped_only = true;
    bc::cuda::CudaBackend* shipped = open(shipped_only, &shipped_be);
    ASSERT_NE(nullptr, shipped);

    bc::tuning::TunedEntry ctr;
    ctr.family = "aes";
    ctr.mode = "ctr";
    ctr.kernel = {128, 3, 32, 6};
    ctr.pair = {128, 12, 16, 2};
    ctr.ghash = {512, 1, 24, 1};
    ctr.rate_gbs = 1;
    ctr.date = "2026-11-28";
    bc::tuning::TunedEntry chacha;
    chacha.family = "chacha";
    chacha.mode = "stream";
    chacha.kernel = {512, 4, 4, 0};
    chacha.rate_gbs = 1;
    chacha.date = "2026-11-28";
    std::string error;
    ASSERT_TRUE(bc::tuning::store_entries(cache.path(), id, {ctr, chacha}, &error)) << error;

    std::unique_ptr<bc::Backend> tuned_be;
    bc::cuda::CudaBackend* tuned = open(bc::tuning::Overrides{}, &tuned_be);
    ASSERT_NE(nullptr, tuned);
    const bc::cuda::LaunchShape& t = tuned->shape(bc::Mode::CTR);
    EXPECT_EQ(3, t.blocks_per_sm);
    EXPECT_EQ(12, t.pair_blocks_per_sm);
    EXPECT_EQ(2, t.pair_cc_waves);
    EXPECT_EQ(6, t.aes_variant);
    expect_same(shipped->shape(bc::Mode::ECB), tuned->shape(bc::Mode::ECB), "ECB keeps the shipped entry");
    expect_same(shipped->shape(bc::Mode::GCM), tuned->shape(bc::Mode::GCM), "GCM keeps the shipped entry");
    const bc::Algorithm* c20 = bc::find_algorithm("chacha20");
    const bc::Algorithm* cp = bc::find_algorithm("chacha20-poly1305");
    ASSERT_NE(nullptr, c20);
    ASSERT_NE(nullptr, cp);
    EXPECT_EQ(512, tuned->stream_launch(*c20).threads_per_block);
    EXPECT_EQ(4, tuned->stream_launch(*c20).blocks_per_sm);
    EXPECT_EQ(4, tuned->stream_launch(*c20).unroll);
    EXPECT_EQ(shipped->stream_launch(*cp).threads_per_block, tuned->stream_launch(*cp).threads_per_block);

    // the options of the same numbers launch the same way
    bc::tuning::Overrides o;
    o.blocks_per_sm = 3;
    o.pair_blocks_per_sm = 12;
    o.pair_cc_waves = 2;
    o.aes_variant = 6;
    o.ghash_variant = 1;
    o.shipped_only = true;
    std::unique_ptr<bc::Backend> opt_be;
    bc::cuda::CudaBackend* by_options = open(o, &opt_be);
    ASSERT_NE(nullptr, by_options);
    expect_same(t, by_options->shape(bc::Mode::CTR), "options against the tuned entry");

    // tuning=shipped sets the tuned entries aside
    std::unique_ptr<bc::Backend> again_be;
    bc::cuda::CudaBackend* again = open(shipped_only, &again_be);
    ASSERT_NE(nullptr, again);
    expect_same(shipped->shape(bc::Mode::CTR), again->shape(bc::Mode::CTR), "tuning=shipped");
    EXPECT_EQ(shipped->stream_launch(*c20).unroll, again->stream_launch(*c20).unroll);
}

// Every candidate but the baseline made to compute nonsense: the baseline is stored, each of
// the others is a failure; with the baseline failing too, nothing is stored.
TEST(TunerCuda, AShortSearchStoresOnlyACheckedEntry) {
    REQUIRE_CUDA();
    CacheFile cache;
    bc::tuner::TuneOptions o;
    o.device = "cuda:0";
    o.algorithms = {"chacha20", "aes-128-ctr"};
    o.budget_seconds = 16;
    o.bytes = size_t(4) << 20;
    o.runs = 2;
    o.cache_path = cache.path();
    // the shipped points, as the tuner's baselines: ChaCha20 (threads, grid cap, unroll), AES
    // (variant, grid cap, pair grid cap, pair-cc waves)
    bc::tuning::DeviceIdentity id;
    bc::tuning::DeviceTraits traits;
    ASSERT_TRUE(bc::tuner::identify("cuda:0", &id, &traits).is_ok());
    traits.tuned = false;
    const bc::tuning::Tuning& c = bc::tuning::select_tuning(traits, *bc::find_algorithm("chacha20"));
    const bc::tuning::Tuning& a = bc::tuning::select_tuning(traits, *bc::find_algorithm("aes-128-ctr"));
    const bc::tuning::Point c20{c.kernel.threads_per_block, c.kernel.blocks_per_sm, c.kernel.items_per_thread};
    const bc::tuning::Point aes{a.kernel.variant, a.kernel.blocks_per_sm, a.pair.blocks_per_sm, a.pair.variant};
    o.corrupt = [c20, aes](const bc::tuning::Point& p) { return p != c20 && p != aes; };
    bc::tuner::TuneResult r;
    const bc::Status s = bc::tuner::tune(o, &r);
    ASSERT_TRUE(s.is_ok()) << s.detail;
    ASSERT_EQ(2u, r.parts.size());
    for (const bc::tuner::TunedPart& p : r.parts) {
        ASSERT_FALSE(p.search.trials.empty()) << p.what;
        EXPECT_TRUE(p.search.baseline_m.ok) << p.what << ": " << p.search.baseline_m.error;
        EXPECT_EQ(p.search.trials.size() - 1, p.search.failed) << p.what;
        EXPECT_FALSE(p.search.improved()) << p.what;
    }
    // 1,024-thread blocks at 32 an SM are past four waves of what any SM holds: pruned unrun
    EXPECT_GT(r.parts[0].search.pruned, 0u);
    EXPECT_EQ(c20[0], r.parts[0].entry.kernel.threads_per_block);
    EXPECT_EQ(c20[2], r.parts[0].entry.kernel.items_per_thread);
    EXPECT_EQ(aes[0], r.parts[1].entry.kernel.variant);
    ASSERT_TRUE(r.stored) << r.note;
    std::vector<bc::tuning::TunedEntry> cached;
    std::string warning;
    bc::tuning::load_entries(cache.path(), r.identity, &cached, &warning);
    ASSERT_EQ(2u, cached.size()) << warning;
    EXPECT_EQ("chacha", cached[0].family);
    EXPECT_EQ("stream", cached[0].mode);
    EXPECT_EQ("aes", cached[1].family);
    EXPECT_EQ("ctr", cached[1].mode);
    EXPECT_GT(cached[1].rate_gbs, 0);

    o.algorithms = {"chacha20"};
    tuner_test::expect_failed_search_stores_nothing(o, 3);
}

}  // namespace
