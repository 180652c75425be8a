// The engine over CPU workers: every algorithm and mode byte-identical to the
// CPU backend for sizes that straddle chunk boundaries, with 1, 2 and 3 workers,
// fixed and guided grabs; the CPU threshold; device strings; concurrency; and
// the fault hook (re-queue when the input is intact, a status otherwise, never
// wrong output, never a hang); the arms (split, CPU alone, GPUs alone) and how
// the adaptive policy chooses and probes them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <functional>
#include <condition_variable>
#include <thread>

#include "test_engine_util.h"

namespace {

using namespace bc_test;

std::unique_ptr<bc::Backend> cpu_backend(unsigned threads) {
    bc::ContextOptions co;
    co.threads = threads;
    std::unique_ptr<bc::Backend> b;
    EXPECT_TRUE(bc::make_cpu_backend(co, &b).is_ok());
    return b;
}

// A worker that takes its time (1 ms per call unless told) before doing the real work:
// with it the fault tests know which worker grabs pieces (the fast, faulty one always
// does). It may pass for another kind of worker (name) and run a hook before each call.
class SlowBackend final : public ForwardingBackend {
public:
    explicit SlowBackend(std::unique_ptr<bc::Backend> b, std::chrono::milliseconds nap = std::chrono::milliseconds(1),
                         const char* name = nullptr, std::function<void()> before = {})
        : ForwardingBackend(std::move(b)), nap_(nap), name_(name), before_(std::move(before)) {}
    const char* name() const override { return name_ ? name_ : b_->name(); }
    std::string device_name() const override { return "slow " + b_->device_name(); }
    // A renamed backend plays the part its name gives it ("cpu", or a GPU).
    bool is_cpu() const override { return name_ ? std::string(name_) == "cpu" : b_->is_cpu(); }
    bc::Status cipher(const bc::KeyMaterial& k, const bc::BackendKey& bk, const bc::CipherOp& op) override {
        nap();
        return ForwardingBackend::cipher(k, bk, op);
    }
    bc::Status aead_chunk(const bc::KeyMaterial& k, const bc::BackendKey& bk, bc::AeadChunkOp& op) override {
        nap();
        return ForwardingBackend::aead_chunk(k, bk, op);
    }
    bc::Status mac(const bc::KeyMaterial& k, const bc::BackendKey& bk, bc::MacOp& op) override {
        nap();
        return ForwardingBackend::mac(k, bk, op);
    }

    std::atomic<int> calls{0};

private:
    void nap() {
        calls.fetch_add(1);
        if (before_) before_();
        std::this_thread::sleep_for(nap_);
    }
    std::chrono::milliseconds nap_;
    const char* name_;
    std::function<void()> before_;
};

// slow_except >= 0: every worker but that one is a SlowBackend.
std::unique_ptr<bc::Backend> cpu_engine(size_t workers, const bc::EngineOptions& eo, int slow_except = -1) {
    std::vector<std::unique_ptr<bc::Backend>> w;
    for (size_t i = 0; i < workers; ++i) {
        w.push_back(cpu_backend(2));
        if (slow_except >= 0 && int(i) != slow_except) w.back() = std::make_unique<SlowBackend>(std::move(w.back()));
    }
    std::unique_ptr<bc::Backend> e;
    bc::Status st = bc::make_engine_backend(std::move(w), eo, &e);
    EXPECT_TRUE(st.is_ok()) << st.detail;
    return e;
}

struct RefCtx {
    bc_context* ctx = nullptr;
    RefCtx() { EXPECT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &ctx)) << bc_last_error(); }
    ~RefCtx() { bc_context_destroy(ctx); }
};

// An engine and the CPU reference, each with the same AES-128-CTR key.
struct CtrPair {
    WrappedCtx test;
    RefCtx ref;
    Bytes key = rnd(16), iv = rnd(16);
    CKey kt{test.ctx, "aes-128-ctr", key}, kr{ref.ctx, "aes-128-ctr", key};
    CtrPair(std::vector<std::unique_ptr<bc::Backend>> workers, const bc::EngineOptions& eo)
        : test(engine_of(std::move(workers), eo), "engine") {}
    static std::unique_ptr<bc::Backend> engine_of(std::vector<std::unique_ptr<bc::Backend>> workers,
                                                  const bc::EngineOptions& eo) {
        std::unique_ptr<bc::Backend> e;
        EXPECT_TRUE(bc::make_engine_backend(std::move(workers), eo, &e).is_ok());
        return e;
    }
};

struct Config {
    size_t workers;
    bool guided;
    size_t chunk;
};

class EngineCpu : public ::testing::TestWithParam<Config> {};

TEST_P(EngineCpu, EveryAlgorithmMatchesTheCpuBackend) {
    const Config c = GetParam();
    bc::EngineOptions eo;
    eo.chunk = c.chunk;
    eo.cpu_threshold = 0;  // split everything, however small
    eo.guided = c.guided;
    WrappedCtx test(cpu_engine(c.workers, eo), "engine");
    RefCtx ref;
    DiffOptions o;
    o.chunk = c.chunk;
    if (c.guided) o.extra_sizes = {(size_t(1) << 20) + 5};
    std::string skipped;
    const size_t n = diff_all(ref.ctx, test.ctx, o, &skipped);
    EXPECT_GE(n, 20u) << "skipped: " << skipped;
    bc::EngineStats s;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    EXPECT_GT(s.jobs, 0u);
    if (c.workers > 1) {
        size_t busy = 0;
        for (auto p : s.pieces) busy += p > 0;
        EXPECT_GT(busy, 1u) << "only one worker ever ran a piece";
    }
    EXPECT_EQ(0u, s.failures);
}

INSTANTIATE_TEST_SUITE_P(Workers, EngineCpu,
                         ::testing::Values(Config{1, false, 4096}, Config{2, false, 4096}, Config{3, false, 4096},
                                           Config{2, true, 4096}, Config{3, true, 4096}, Config{3, false, 192}),
                         [](const ::testing::TestParamInfo<Config>& i) {
                             return std::to_string(i.param.workers) + "w_" + (i.param.guided ? "guided" : "fixed") +
                                    "_" + std::to_string(i.param.chunk);
                         });

TEST(EngineCpu, SmallJobsStayOnTheFirstCpuWorker) {
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 64 * 1024;
    WrappedCtx test(cpu_engine(3, eo), "engine");
    RefCtx ref;
    DiffOptions o;
    o.only = "aes-128-ctr";
    diff_all(ref.ctx, test.ctx, o);
    bc::EngineStats s;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    EXPECT_GT(s.small_jobs, 0u);
    EXPECT_GT(s.jobs, 0u);  // 17 chunks + 3 bytes is over the threshold
    // Every job under the threshold: nothing reaches the queue.
    bc::engine_reset_stats(test.backend());
    o.chunk = 1024;
    diff_all(ref.ctx, test.ctx, o);
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    EXPECT_EQ(0u, s.jobs);
    for (auto p : s.pieces) EXPECT_EQ(0u, p);
}

TEST(EngineCpu, NoopCopiesThrough) {
    RefCtx ref;
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 0;
    WrappedCtx test(cpu_engine(2, eo), "engine");
    for (bc_context* ctx : {ref.ctx, test.ctx}) {
        CKey k(ctx, "noop", Bytes());
        Bytes in = rnd(100000), out(100000);
        size_t n = 0;
        ASSERT_EQ(BC_OK, bc_encrypt(k.k, nullptr, 0, in.data(), in.size(), out.data(), out.size(), &n, nullptr));
        EXPECT_EQ(in, out);
        ASSERT_EQ(BC_OK, bc_decrypt(k.k, nullptr, 0, out.data(), out.size(), out.data(), out.size(), &n, nullptr));
        EXPECT_EQ(in, out);
    }
}

TEST(EngineCpu, ConcurrentCallersShareTheQueue) {
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 0;
    WrappedCtx test(cpu_engine(3, eo), "engine");
    RefCtx ref;
    Bytes key = rnd(32), iv = rnd(16);
    CKey kt(test.ctx, "aes-256-ctr", key), kr(ref.ctx, "aes-256-ctr", key);
    std::vector<std::future<bool>> fs;
    for (int t = 0; t < 6; ++t) {
        fs.push_back(std::async(std::launch::async, [&, t] {
            bool ok = true;
            for (int r = 0; r < 20; ++r) {
                const size_t len = 4096 * (t + 3) + size_t(r) * 77;
                Bytes pt = rnd(len), a(len), b(len);
                size_t n = 0;
                ok &= bc_encrypt(kt.k, iv.data(), 16, pt.data(), len, a.data(), len, &n, nullptr) == BC_OK;
                ok &= bc_encrypt(kr.k, iv.data(), 16, pt.data(), len, b.data(), len, &n, nullptr) == BC_OK;
                ok &= a == b;
            }
            return ok;
        }));
    }
    for (auto& f : fs) EXPECT_TRUE(f.get());
}

// Whole jobs from many callers: while the CPU worker is busy with one caller's job, the
// next job big enough goes to the other worker (a GPU in real life); a small one stays
// on the CPU. Outputs are exact either way.
// A CPU worker whose calls wait at a gate until the test opens it, and a "fake-gpu"
// worker; every job below one 1 MiB chunk stays whole.
struct GatedPair {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    int waiting = 0;
    SlowBackend* cpu_w = nullptr;
    SlowBackend* other_w = nullptr;
    std::unique_ptr<CtrPair> p;
    explicit GatedPair(unsigned cpu_busy_at) {
        auto gate = [this] {
            std::unique_lock<std::mutex> lk(mu);
            ++waiting;
            cv.notify_all();
            cv.wait(lk, [&] { return open; });
        };
        auto cpu = std::make_unique<SlowBackend>(cpu_backend(2), std::chrono::milliseconds(0), "cpu", gate);
        auto other = std::make_unique<SlowBackend>(cpu_backend(2), std::chrono::milliseconds(0), "fake-gpu");
        cpu_w = cpu.get();
        other_w = other.get();
        std::vector<std::unique_ptr<bc::Backend>> w;
        w.push_back(std::move(cpu));
        w.push_back(std::move(other));
        bc::EngineOptions eo;
        eo.chunk = size_t(1) << 20;
        eo.gpu_min_job = 64 * 1024;
        eo.cpu_busy_at = cpu_busy_at;
        p = std::make_unique<CtrPair>(std::move(w), eo);
    }
    // Encrypts len random bytes through the engine and the reference; true if they agree.
    bool check(size_t len) {
        Bytes pt = rnd(len), a(len), b(len);
        size_t n = 0;
        bool ok = bc_encrypt(p->kt.k, p->iv.data(), 16, pt.data(), len, a.data(), len, &n, nullptr) == BC_OK;
        ok = ok && bc_encrypt(p->kr.k, p->iv.data(), 16, pt.data(), len, b.data(), len, &n, nullptr) == BC_OK;
        return ok && a == b;
    }
    bool wait_for_held(int n) {
        std::unique_lock<std::mutex> lk(mu);
        return cv.wait_for(lk, std::chrono::seconds(20), [&] { return waiting == n; });
    }
    void release() {
        {
            std::lock_guard<std::mutex> lk(mu);
            open = true;
        }
        cv.notify_all();
    }
};

TEST(EngineCpu, ABusyCpuSendsWholeJobsToTheOtherWorker) {
    GatedPair g(1);
    ASSERT_NE(nullptr, g.p->test.ctx->backend);
    auto first = std::async(std::launch::async, [&] { return g.check(256 * 1024); });  // the CPU takes it
    ASSERT_TRUE(g.wait_for_held(1));
    EXPECT_TRUE(g.check(256 * 1024));  // CPU busy: the other worker runs it, while the CPU is held
    EXPECT_EQ(1, g.other_w->calls.load());
    auto small = std::async(std::launch::async, [&] { return g.check(4096); });  // too small: waits for the CPU
    EXPECT_TRUE(g.wait_for_held(2));
    g.release();
    EXPECT_TRUE(first.get());
    EXPECT_TRUE(small.get());
    EXPECT_EQ(2, g.cpu_w->calls.load());
    EXPECT_EQ(1, g.other_w->calls.load());
}

// bc_context_cpu_threshold: the engine's threshold where it mixes the CPU with another kind of
// worker (what "auto" is on a GPU host); 0 where jobs have nowhere else to go.
TEST(EngineCpu, ContextReportsItsCpuThreshold) {
    bc::EngineOptions eo;
    eo.cpu_threshold = size_t(123) << 10;
    std::vector<std::unique_ptr<bc::Backend>> w;
    w.push_back(cpu_backend(1));
    w.push_back(std::make_unique<SlowBackend>(cpu_backend(1), std::chrono::milliseconds(0), "fake-gpu"));
    WrappedCtx mixed(CtrPair::engine_of(std::move(w), eo), "engine");
    EXPECT_EQ(size_t(123) << 10, bc_context_cpu_threshold(mixed.ctx));
    WrappedCtx cpus(cpu_engine(2, eo), "engine");  // CPU workers only
    EXPECT_EQ(0u, bc_context_cpu_threshold(cpus.ctx));
    RefCtx plain;  // the CPU backend itself
    EXPECT_EQ(0u, bc_context_cpu_threshold(plain.ctx));
    EXPECT_EQ(0u, bc_context_cpu_threshold(nullptr));
}

// A job under 64 KiB is not counted in flight (two locked read-modify-writes saved on every
// small job): while one is held on the CPU, a larger job still finds the CPU free.
TEST(EngineCpu, JobsUnder64KiBDoNotMakeTheCpuBusy) {
    GatedPair g(1);
    ASSERT_NE(nullptr, g.p->test.ctx->backend);
    auto small = std::async(std::launch::async, [&] { return g.check(4096); });
    ASSERT_TRUE(g.wait_for_held(1));
    auto big = std::async(std::launch::async, [&] { return g.check(256 * 1024); });  // not diverted
    EXPECT_TRUE(g.wait_for_held(2));
    EXPECT_EQ(0, g.other_w->calls.load());
    g.release();
    EXPECT_TRUE(small.get());
    EXPECT_TRUE(big.get());
    EXPECT_EQ(2, g.cpu_w->calls.load());
    EXPECT_EQ(0, g.other_w->calls.load());
}

TEST(EngineCpu, TheCpuTakesWholeJobsUntilCpuBusyAtAreInFlight) {
    GatedPair g(2);
    ASSERT_NE(nullptr, g.p->test.ctx->backend);
    auto first = std::async(std::launch::async, [&] { return g.check(256 * 1024); });
    ASSERT_TRUE(g.wait_for_held(1));
    auto second = std::async(std::launch::async, [&] { return g.check(256 * 1024); });  // one in flight: still the CPU
    ASSERT_TRUE(g.wait_for_held(2));
    EXPECT_EQ(0, g.other_w->calls.load());
    EXPECT_TRUE(g.check(256 * 1024));  // two in flight: the CPU counts as busy
    EXPECT_EQ(1, g.other_w->calls.load());
    g.release();
    EXPECT_TRUE(first.get());
    EXPECT_TRUE(second.get());
    EXPECT_EQ(2, g.cpu_w->calls.load());
}

// Grabs follow the rates the engine learned: once it has seen a worker that is ~100x
// slower, that worker no longer holds up the tail of a job (it takes at most a chunk).
TEST(EngineCpu, ASlowWorkerStopsTakingPiecesOnceItsRateIsKnown) {
    std::vector<std::unique_ptr<bc::Backend>> w;
    w.push_back(cpu_backend(2));
    auto slow = std::make_unique<SlowBackend>(cpu_backend(1), std::chrono::milliseconds(200));
    SlowBackend* slow_w = slow.get();
    w.push_back(std::move(slow));
    bc::EngineOptions eo;
    eo.chunk = 256 * 1024;
    eo.cpu_threshold = 0;
    CtrPair p(std::move(w), eo);
    ASSERT_NE(nullptr, p.test.ctx->backend);
    WrappedCtx& test = p.test;
    Bytes& iv = p.iv;
    CKey &kt = p.kt, &kr = p.kr;
    const size_t len = size_t(8) << 20;
    Bytes pt = rnd(len), a(len), b(len);
    size_t n = 0;
    ASSERT_EQ(BC_OK, bc_encrypt(kr.k, iv.data(), 16, pt.data(), len, b.data(), len, &n, nullptr));
    // Until the slow worker has run a piece (its thread may wake after the fast one took
    // everything on a loaded machine), jobs have equal shares; then its rate is known.
    for (int tries = 0; tries < 10 && slow_w->calls.load() == 0; ++tries) {
        ASSERT_EQ(BC_OK, bc_encrypt(kt.k, iv.data(), 16, pt.data(), len, a.data(), len, &n, nullptr));
        EXPECT_EQ(a, b);
    }
    ASSERT_GE(slow_w->calls.load(), 1) << "the slow worker never got a piece while rates were unknown";
    bc::EngineStats s1;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s1));
    bc::engine_reset_stats(test.backend());
    std::fill(a.begin(), a.end(), 0);
    ASSERT_EQ(BC_OK, bc_encrypt(kt.k, iv.data(), 16, pt.data(), len, a.data(), len, &n, nullptr));
    EXPECT_EQ(a, b);
    bc::EngineStats s2;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s2));
    EXPECT_LE(s2.bytes[1], eo.chunk) << "the slow worker still took " << s2.bytes[1] << " bytes";
    EXPECT_LT(s2.bytes[1], s1.bytes[1]);
}

// ---- the arms: split, CPU alone, GPUs alone (EngineOptions::split_policy) ------------

// A CPU worker and a worker of another kind ("fake-gpu"), each napping per call, with
// one-chunk grabs (guided off); runs `jobs` AES-128-CTR jobs of `chunks` chunks, each checked
// against the CPU backend. Returns the engine's counters, each worker's calls and the arm
// of every job in order ('s' split, 'c' CPU alone, 'g' GPUs alone). Every job must end
// within a minute (a hang aborts the test binary).
struct SplitRun {
    bc::EngineStats stats;
    int cpu_calls = 0, other_calls = 0;
    std::string arms;
};
SplitRun run_split_jobs(std::chrono::milliseconds cpu_nap, std::chrono::milliseconds other_nap, bc::EngineOptions eo,
                        int jobs, const std::function<void(int)>& before_job = {}, size_t chunks = 16) {
    std::vector<std::unique_ptr<bc::Backend>> w;
    auto cpu = std::make_unique<SlowBackend>(cpu_backend(2), cpu_nap, "cpu");
    auto other = std::make_unique<SlowBackend>(cpu_backend(1), other_nap, "fake-gpu");
    SlowBackend* cpu_w = cpu.get();
    SlowBackend* other_w = other.get();
    w.push_back(std::move(cpu));
    w.push_back(std::move(other));
    eo.chunk = 64 * 1024;
    eo.cpu_threshold = 0;
    eo.guided = false;
    CtrPair p(std::move(w), eo);
    const size_t len = chunks * eo.chunk;
    Bytes pt = rnd(len), a(len), b(len);
    size_t n = 0;
    EXPECT_EQ(BC_OK, bc_encrypt(p.kr.k, p.iv.data(), 16, pt.data(), len, b.data(), len, &n, nullptr));
    SplitRun r;
    bc::EngineStats before;
    for (int i = 0; i < jobs; ++i) {
        if (before_job) before_job(i);
        std::fill(a.begin(), a.end(), 0);
        auto job = std::async(std::launch::async, [&] {
            return bc_encrypt(p.kt.k, p.iv.data(), 16, pt.data(), len, a.data(), len, &n, nullptr);
        });
        if (job.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            ADD_FAILURE() << "job " << i << " hung";
            std::abort();  // a hang cannot be unwound; end the test binary loudly
        }
        EXPECT_EQ(BC_OK, job.get()) << bc_last_error();
        EXPECT_EQ(a, b) << "job " << i;
        EXPECT_TRUE(bc::engine_stats(p.test.backend(), &r.stats));
        r.arms += r.stats.cpu_alone_jobs > before.cpu_alone_jobs     ? 'c'
                  : r.stats.gpus_alone_jobs > before.gpus_alone_jobs ? 'g'
                                                                     : 's';
        before = r.stats;
    }
    r.cpu_calls = cpu_w->calls.load();
    r.other_calls = other_w->calls.load();
    return r;
}

TEST(EngineSplit, JobsStayOnTheCpuWhenTheOtherArmsAreSlower) {
    // Split, a job waits 100 ms for the other worker's one chunk; on the CPU alone it takes
    // ~48 ms; on the other worker alone 1.6 s. The split is tried, then the CPU alone; the
    // GPUs alone are not: in the split job their one chunk ran at ~1/30 of the CPU alone's
    // rate, under half, so their arm starts from it. Then the CPU alone runs: the next probes are
    // far off (the split's credit grows by ~0.5^2 a job, the GPUs' by ~0.03^2, and a probe
    // needs explore_every = 8).
    SplitRun r = run_split_jobs(std::chrono::milliseconds(3), std::chrono::milliseconds(100), {}, 8);
    EXPECT_EQ(8u, r.stats.jobs);
    EXPECT_EQ("sccccccc", r.arms);
    EXPECT_EQ(7u, r.stats.cpu_alone_jobs);
    EXPECT_EQ(0u, r.stats.gpus_alone_jobs);
    EXPECT_LE(r.other_calls, 1) << "the slow worker ran pieces outside job 0";
}

TEST(EngineSplit, JobsSplitWhenEachKindAloneIsSlower) {
    // Both workers nap 10 ms a chunk: split, a job takes ~80 ms; either kind alone ~160 ms,
    // so the split wins by far more than kSplitMargin. After the three tries every job
    // splits (the single arms' credits grow by ~0.5^2 a job: no probe before job 34).
    SplitRun r = run_split_jobs(std::chrono::milliseconds(10), std::chrono::milliseconds(10), {}, 8);
    EXPECT_EQ(8u, r.stats.jobs);
    EXPECT_EQ("scgsssss", r.arms);
    EXPECT_EQ(1u, r.stats.cpu_alone_jobs);
    EXPECT_EQ(1u, r.stats.gpus_alone_jobs);
}

TEST(EngineSplit, PinnedJobsAreMeasuredApart) {
    // As JobsStayOnTheCpuWhenTheOtherArmsAreSlower for jobs 0-3 (split, then the CPU);
    // job 4 is "pinned" (host_pinned says so): a class of its own, not yet measured, so split.
    std::atomic<bool> pinned{false};
    bc::EngineOptions eo;
    eo.host_pinned = [&](const void*) { return pinned.load(); };
    SplitRun r = run_split_jobs(std::chrono::milliseconds(3), std::chrono::milliseconds(100), eo, 5,
                                [&](int i) { pinned = i == 4; });
    EXPECT_EQ("scccs", r.arms) << "the pinned job 4 must start its class's tries";
    EXPECT_EQ(3u, r.stats.cpu_alone_jobs);
    EXPECT_LE(r.other_calls, 2) << "only job 0 and the pinned job 4 split";
}

TEST(EngineSplit, FastGpusRunAloneAndSlowArmsAreProbedAsTheirRatesSay) {
    // The pinned-memory case: the non-CPU worker does a job alone in ~32 ms (2 ms a chunk);
    // the CPU naps 80 ms a chunk, so a split job waits ~80 ms for the CPU's one chunk (q ~0.4)
    // and the CPU alone takes ~1.3 s (q ~0.025). After the tries the GPUs run alone; with
    // explore_every 2 the split (credit q^2 ~0.16 a job) is probed about every 12 jobs, the
    // CPU alone (~0.0006 a job) never in this test. Bounds with margins for a loaded machine:
    // a non-best arm's credit grows by less than 1 a job, so at most 37 / 2 split probes in
    // the 37 jobs after the tries, and at least one unless a split job took 4x a GPU-alone
    // job (it takes 2.5x); a CPU-alone probe would need q^2 above 2 / 37, q above 0.23.
    bc::EngineOptions eo;
    eo.explore_every = 2;
    const int jobs = 40;
    SplitRun r = run_split_jobs(std::chrono::milliseconds(80), std::chrono::milliseconds(2), eo, jobs);
    ASSERT_EQ(size_t(jobs), r.arms.size());
    EXPECT_EQ("scg", r.arms.substr(0, 3));
    const auto count = [&](char arm) { return int(std::count(r.arms.begin() + 3, r.arms.end(), arm)); };
    EXPECT_EQ(0, count('c')) << r.arms;
    EXPECT_GE(count('s'), 1) << "the split was never probed again: " << r.arms;
    EXPECT_LE(count('s'), (jobs - 3) / 2) << r.arms;
    EXPECT_GE(count('g'), jobs - 3 - (jobs - 3) / 2) << r.arms;
    EXPECT_EQ(uint64_t(1 + count('g')), r.stats.gpus_alone_jobs);
    EXPECT_EQ(1u, r.stats.cpu_alone_jobs);
    // The CPU ran its try and at most a few chunks of each split job, nothing of the GPUs' jobs.
    EXPECT_LE(r.cpu_calls, 16 + 2 * (1 + count('s'))) << r.arms;
}

TEST(EngineSplit, ASlowGpuIsProbedRarely) {
    // The pageable-memory case, jobs of 4 chunks: the CPU does a job alone in ~20 ms (5 ms
    // a chunk); the other worker naps 20 ms a chunk, ~80 ms a job alone (q = 0.25), and a
    // split job waits ~20 ms for its one chunk (q ~1, but short of the 10 % margin). After the
    // split job the GPUs' chunk runs at ~1/4 of the CPU alone's rate, under half, so their
    // arm is not tried but starts from it (q ~0.25); the CPU runs alone; with explore_every 2 the
    // GPUs' credit grows by q^2 ~0.06 a job: a probe about every 32 jobs, 3 in the 98 jobs
    // after the tries (a fixed 1-in-2 probe would run them 49 times), and the split is
    // probed about every other job. Bounds
    // with margins for a loaded machine: at least one GPU probe (unless a GPU-alone job took
    // 7x a CPU-alone one: 4x unloaded), at most 6 (unless it took under 2.9x), and fewer
    // than the split's.
    const int jobs = 100;
    bc::EngineOptions eo;
    eo.explore_every = 2;
    SplitRun r = run_split_jobs(std::chrono::milliseconds(5), std::chrono::milliseconds(20), eo, jobs, {}, 4);
    ASSERT_EQ(size_t(jobs), r.arms.size());
    EXPECT_EQ("sc", r.arms.substr(0, 2));
    const auto count = [&](char arm) { return int(std::count(r.arms.begin() + 2, r.arms.end(), arm)); };
    EXPECT_GE(count('g'), 1) << r.arms;
    EXPECT_LE(count('g'), 6) << r.arms;
    EXPECT_LT(count('g'), count('s')) << "the slower arm must be probed less often: " << r.arms;
    EXPECT_GE(count('c') + count('s'), jobs - 2 - 6) << r.arms;
}

TEST(EngineSplit, FixedGpusAloneRunsEveryPieceOnTheOtherWorkers) {
    // SplitPolicy::GpusAlone over a CPU worker and a "fake-gpu": every algorithm matches the
    // CPU backend, and the CPU worker runs no piece of any split job (jobs kept whole,
    // of one chunk or less, run on the calling thread and count no piece).
    std::vector<std::unique_ptr<bc::Backend>> w;
    w.push_back(cpu_backend(2));
    w.push_back(std::make_unique<SlowBackend>(cpu_backend(1), std::chrono::milliseconds(0), "fake-gpu"));
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 0;
    eo.split_policy = bc::EngineOptions::SplitPolicy::GpusAlone;
    WrappedCtx test(CtrPair::engine_of(std::move(w), eo), "engine");
    ASSERT_NE(nullptr, test.ctx->backend);
    RefCtx ref;
    DiffOptions o;
    o.chunk = eo.chunk;
    std::string skipped;
    EXPECT_GE(diff_all(ref.ctx, test.ctx, o, &skipped), 20u) << "skipped: " << skipped;
    bc::EngineStats s;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    EXPECT_GT(s.jobs, 0u);
    EXPECT_EQ(s.jobs, s.gpus_alone_jobs);
    EXPECT_EQ(0u, s.cpu_alone_jobs);
    EXPECT_EQ(0u, s.pieces[0]) << "the CPU worker ran pieces of GPUs-alone jobs";
    EXPECT_GT(s.pieces[1], 0u);
    EXPECT_EQ(0u, s.failures);
}

TEST(EngineSplit, ACpuAloneJobWhoseCpuFailsFinishesOnTheOthers) {
    // The CPU worker fails its third chunk of every job; the other worker, kept out of
    // the job until then, runs the failed piece and the rest. No hang, right output.
    bc::EngineOptions eo;
    eo.split_policy = bc::EngineOptions::SplitPolicy::CpuAlone;
    eo.fail_worker = 0;
    eo.fail_after_chunks = 2;
    SplitRun r = run_split_jobs(std::chrono::milliseconds(0), std::chrono::milliseconds(0), eo, 3);
    EXPECT_EQ(3u, r.stats.cpu_alone_jobs);
    EXPECT_GE(r.stats.requeued, 3u);
    EXPECT_GE(r.other_calls, 3);
}

TEST(EngineSplit, AGpusAloneJobWhoseGpuFailsFinishesOnTheCpu) {
    // The mirror: the only non-CPU worker fails its third chunk of every GPUs-alone job
    // (or its first: the CPU then runs everything); the CPU worker, kept out of the job
    // until then, runs the failed piece and the rest. No hang, right output (run_split_jobs
    // checks every job against the reference).
    for (size_t after : {size_t(2), size_t(0)}) {
        SCOPED_TRACE("fail_after_chunks " + std::to_string(after));
        bc::EngineOptions eo;
        eo.split_policy = bc::EngineOptions::SplitPolicy::GpusAlone;
        eo.fail_worker = 1;
        eo.fail_after_chunks = after;
        SplitRun r = run_split_jobs(std::chrono::milliseconds(0), std::chrono::milliseconds(0), eo, 3);
        EXPECT_EQ("ggg", r.arms);
        EXPECT_EQ(3u, r.stats.failures);
        EXPECT_GE(r.stats.requeued, 3u);
        EXPECT_GE(r.stats.pieces[0], 3u) << "the CPU worker did not finish the jobs";
        EXPECT_EQ(r.stats.bytes[0] + r.stats.bytes[1], 3 * 16 * 64 * 1024u);
        EXPECT_EQ(r.stats.bytes[1], 3 * after * 64 * 1024u) << "alone in the job, the GPU ran chunks 0 to after - 1";
    }
}

// ---- faults -------------------------------------------------------------------------

struct Outcome {
    bc_status status;
    bool matches;
    bool zeroed;
};

Outcome run_faulty(size_t workers, int fail_worker, size_t after, const char* alg, bool in_place, bc::EngineStats* st) {
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 0;
    eo.guided = false;
    eo.fail_worker = fail_worker;
    eo.fail_after_chunks = after;
    WrappedCtx test(cpu_engine(workers, eo, fail_worker), "engine");
    RefCtx ref;
    const bc::Algorithm* a = bc::find_algorithm(alg);
    Bytes key = rnd(a->key_size), iv = rnd(a->iv_size), pt = rnd(4096 * 40 + 48);
    CKey kt(test.ctx, alg, key), kr(ref.ctx, alg, key);
    Bytes want(pt.size() + 16), got(pt.size() + 16, 0);
    size_t nw = 0, ng = 0;
    Outcome o{};
    // The job must end (correct or failed) in bounded time: run it on a thread and wait.
    auto fut = std::async(std::launch::async, [&] {
        const uint8_t* src = pt.data();
        if (in_place) {
            std::memcpy(got.data(), pt.data(), pt.size());
            src = got.data();
        }
        if (a->kind == BC_KIND_AEAD) {
            EXPECT_EQ(BC_OK, bc_aead_seal(kr.k, iv.data(), iv.size(), nullptr, 0, pt.data(), pt.size(), want.data(),
                                          want.size(), &nw, 0, nullptr));
            return bc_aead_seal(kt.k, iv.data(), iv.size(), nullptr, 0, src, pt.size(), got.data(), got.size(), &ng,
                                0, nullptr);
        }
        // CBC encryption is serial (one piece, never split): its decryption is the split direction.
        auto crypt = a->mode == bc::Mode::CBC ? bc_decrypt : bc_encrypt;
        EXPECT_EQ(BC_OK, crypt(kr.k, iv.data(), iv.size(), pt.data(), pt.size(), want.data(), want.size(), &nw,
                               nullptr));
        return crypt(kt.k, iv.data(), iv.size(), src, pt.size(), got.data(), got.size(), &ng, nullptr);
    });
    if (fut.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
        ADD_FAILURE() << "the engine hung after an injected fault";
        std::abort();  // a hang cannot be unwound; end the test binary loudly
    }
    o.status = fut.get();
    o.matches = o.status == BC_OK && nw == ng && std::memcmp(want.data(), got.data(), nw) == 0;
    o.zeroed = true;
    for (size_t i = 0; i < pt.size(); ++i) o.zeroed &= got[i] == 0;
    bc::engine_stats(test.backend(), st);
    return o;
}

class EngineFault : public ::testing::TestWithParam<const char*> {};

// Which worker grabs what depends on thread timing: runs again (a bounded number of
// times) until the faulty worker did get a piece, so the fault really happened.
Outcome run_until_fault(size_t workers, int fail_worker, size_t after, const char* alg, bool in_place,
                        bc::EngineStats* s) {
    Outcome o{};
    for (int attempt = 0; attempt < 50; ++attempt) {
        *s = bc::EngineStats();
        o = run_faulty(workers, fail_worker, after, alg, in_place, s);
        if (s->failures > 0) return o;
    }
    ADD_FAILURE() << "the faulty worker never got a piece in 50 jobs";
    return o;
}

TEST_P(EngineFault, OutOfPlaceFailureIsRequeuedAndOutputIsRight) {
    bc::EngineStats s;
    Outcome o = run_until_fault(3, 1, 2, GetParam(), false, &s);
    EXPECT_EQ(BC_OK, o.status) << bc_last_error();
    EXPECT_TRUE(o.matches) << "wrong output after a re-queued piece";
    EXPECT_GE(s.failures, 1u);
    EXPECT_GE(s.requeued, 1u);
}

TEST_P(EngineFault, InPlaceFailureReturnsTheStatusAndWipes) {
    bc::EngineStats s;
    Outcome o = run_until_fault(3, 2, 1, GetParam(), true, &s);
    EXPECT_EQ(BC_ERR_DEVICE, o.status);
    EXPECT_TRUE(o.zeroed) << "a failed job must leave no output behind";
    EXPECT_EQ(0u, s.requeued);
}

TEST_P(EngineFault, LastWorkerFailingEndsTheJob) {
    bc::EngineStats s;
    Outcome o = run_until_fault(1, 0, 3, GetParam(), false, &s);
    EXPECT_EQ(BC_ERR_DEVICE, o.status);
    EXPECT_TRUE(o.zeroed);
}

INSTANTIATE_TEST_SUITE_P(Algs, EngineFault,
                         ::testing::Values("aes-128-ctr", "aes-256-cbc", "aes-256-gcm", "chacha20-poly1305",
                                           "xchacha20"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                             std::string s = i.param;
                             for (char& ch : s)
                                 if (ch == '-') ch = '_';
                             return s;
                         });

TEST(EngineFault, FaultyWorkerStaysInForTheNextJob) {
    // A worker taken out of one job is asked again next time (transient faults heal);
    // with the hook it fails again and the job is re-queued again.
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 0;
    eo.guided = false;
    eo.fail_worker = 0;
    eo.fail_after_chunks = 0;
    WrappedCtx test(cpu_engine(2, eo, 0), "engine");
    RefCtx ref;
    Bytes key = rnd(16), iv = rnd(16), pt = rnd(4096 * 16);
    CKey kt(test.ctx, "aes-128-ctr", key), kr(ref.ctx, "aes-128-ctr", key);
    for (int r = 0; r < 5; ++r) {
        Bytes a(pt.size()), b(pt.size());
        size_t n = 0;
        ASSERT_EQ(BC_OK, bc_encrypt(kt.k, iv.data(), 16, pt.data(), pt.size(), a.data(), a.size(), &n, nullptr));
        ASSERT_EQ(BC_OK, bc_encrypt(kr.k, iv.data(), 16, pt.data(), pt.size(), b.data(), b.size(), &n, nullptr));
        EXPECT_EQ(a, b);
    }
    bc::EngineStats s;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    EXPECT_GE(s.requeued, 4u);  // the fast worker 0 fails a piece in (nearly) every job; the slow one redoes it
}

// ---- device strings --------------------------------------------------------------

TEST(EngineDevices, StringsResolve) {
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("auto", nullptr, &ctx)) << bc_last_error();
    const std::string backend = bc_context_backend(ctx);
    EXPECT_TRUE(backend == "cpu" || backend == "hybrid") << backend;
    bc_context_destroy(ctx);
    for (const char* dev : {"hybrid", "cuda:all"}) {
        ctx = nullptr;
        const bc_status st = bc_context_create(dev, nullptr, &ctx);
        // no GPU: auto fell back to the CPU; cuda:all also needs a CUDA one (hybrid takes OpenCL GPUs)
        if (backend == "cpu" || (std::string(dev) == "cuda:all" && bc::engine_gpu_count() == 0)) {
            EXPECT_EQ(BC_ERR_NO_DEVICE, st) << dev;
        } else {
            ASSERT_EQ(BC_OK, st) << dev << ": " << bc_last_error();
            EXPECT_STREQ(dev, bc_context_backend(ctx));
        }
        bc_context_destroy(ctx);
    }
    EXPECT_EQ(BC_ERR_BAD_DEVICE, bc_context_create("cuda:any", nullptr, &ctx));
}

}  // namespace
