// The OpenCL backend as an engine worker: the CPU backend and an OpenCL device (whatever
// type opencl:0 is; device selection would never admit a CPU device such as PoCL, so the
// engine is built here by hand) split each call, and every output equals the CPU
// backend's: raw modes with their start states (CTR counters of 16- and 8-byte blocks,
// CBC chaining values, XTS tweaks, stream offsets) and AEAD partials folded across workers.
#include <gtest/gtest.h>

#include "test_engine_util.h"

namespace {

using namespace bc_test;

struct OpenClEngine {
    bc::Status status;
    std::unique_ptr<WrappedCtx> ctx;
    const bc::Backend* worker = nullptr;  // the OpenCL worker, owned by the engine
};

OpenClEngine& opencl_engine() {
    static OpenClEngine e = [] {
        OpenClEngine r;
        bc::ContextOptions co;
        co.threads = 2;
        std::vector<std::unique_ptr<bc::Backend>> w(2);
        r.status = bc::make_cpu_backend(co, &w[0]);
        if (r.status) r.status = bc::make_opencl_backend(0, bc::ContextOptions(), &w[1]);
        if (!r.status) return r;
        r.worker = w[1].get();
        bc::EngineOptions eo;
        eo.chunk = 4096;
        eo.cpu_threshold = 0;   // every job of two chunks or more is cut
        eo.guided = false;      // one chunk a grab: both workers take pieces of every job
        eo.split_policy = bc::EngineOptions::SplitPolicy::Split;
        eo.name = "cpu+opencl";
        std::unique_ptr<bc::Backend> engine;
        r.status = bc::make_engine_backend(std::move(w), eo, &engine);
        if (r.status) r.ctx = std::make_unique<WrappedCtx>(std::move(engine), "cpu+opencl");
        return r;
    }();
    return e;
}

class OpenClEngineWorker : public ::testing::TestWithParam<const char*> {};

TEST_P(OpenClEngineWorker, SplitCallsMatchTheCpuBackend) {
    OpenClEngine& e = opencl_engine();
    if (e.status.code == BC_ERR_NO_DEVICE) GTEST_SKIP() << "no OpenCL device: " << e.status.detail;
    ASSERT_TRUE(e.status.is_ok()) << e.status.detail;
    const bc::Algorithm* a = bc::find_algorithm(GetParam());
    ASSERT_NE(nullptr, a);
    ASSERT_TRUE(e.worker->supports(*a)) << GetParam() << " is not on the OpenCL backend";
    bc::engine_reset_stats(e.ctx->backend());

    bc_context* ref = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &ref));
    DiffOptions o;
    o.only = GetParam();
    o.extra_sizes = {40000, 100000 + 48, (size_t(1) << 20) + 16};
    // Which worker grabs which piece is the scheduler's: on a loaded 2-core machine one
    // worker can take a whole round. Every round is checked; a few rounds give both a turn.
    bc::EngineStats s;
    for (int round = 0; round < 5; ++round) {
        EXPECT_EQ(1u, diff_all(ref, e.ctx->ctx, o));
        ASSERT_TRUE(bc::engine_stats(e.ctx->backend(), &s));
        if (s.bytes[0] > 0 && s.bytes[1] > 0) break;
    }
    bc_context_destroy(ref);
    EXPECT_GT(s.jobs, 0u);
    EXPECT_GT(s.bytes[0], 0u) << "the CPU worker ran no piece";
    EXPECT_GT(s.bytes[1], 0u) << "the OpenCL worker ran no piece";
}

INSTANTIATE_TEST_SUITE_P(Algorithms, OpenClEngineWorker,
                         ::testing::Values("aes-128-ctr", "aes-128-cbc", "aes-256-xts", "aes-256-gcm", "chacha20",
                                           "chacha20-poly1305", "camellia-128-ctr", "bf-ctr"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                             std::string n = i.param;
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

}  // namespace
