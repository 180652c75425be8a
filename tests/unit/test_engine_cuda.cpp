// The engine and the host-memory pipeline on CUDA GPUs: the pipeline with NB = 1,
// 2 and the default (pageable, pinned, mixed, in place), NO-OP through it, every
// algorithm through engines of GPUs (one and two) and hybrids byte-identical to
// the CPU backend, device memory handed to its owner, and a GPU worker failing
// mid-job. Every test says "skipped: no CUDA device" where there is none.
#include "test_engine_util.h"

#include <thread>

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_pipeline.h"
#endif

namespace {

using namespace bc_test;

#if defined(BC_HAVE_CUDA)

int gpu_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

#define REQUIRE_GPU()                                                  \
    do {                                                               \
        if (gpu_count() == 0) GTEST_SKIP() << "skipped: no CUDA device"; \
    } while (0)

// Page-locked host memory for the "user buffer already pinned" paths.
struct Pinned {
    uint8_t* p = nullptr;
    explicit Pinned(size_t n) { EXPECT_EQ(cudaSuccess, cudaMallocHost(reinterpret_cast<void**>(&p), n ? n : 1)); }
    ~Pinned() { cudaFreeHost(p); }
};

struct RefCtx {
    bc_context* ctx = nullptr;
    RefCtx() { EXPECT_EQ(BC_OK, bc_context_create("cpu", nullptr, &ctx)) << bc_last_error(); }
    ~RefCtx() { bc_context_destroy(ctx); }
};

const size_t kChunk = 64 * 1024;
const size_t kLens[] = {1, kChunk - 1, kChunk, kChunk + 1, 5 * kChunk + 77, 3 * 1024 * 1024 + 5};

class Pipeline : public ::testing::TestWithParam<int> {};  // NB; 0 = default

TEST_P(Pipeline, NoopMovesEveryByte) {
    REQUIRE_GPU();
    const int nb = GetParam();
    for (size_t len : kLens) {
        SCOPED_TRACE("len=" + std::to_string(len) + " nb=" + std::to_string(nb));
        auto nothing = [](uint8_t*, uint8_t*, size_t, size_t, cudaStream_t, uint8_t*) { return bc::Status::ok(); };
        Bytes in = rnd(len), out(len, 0);
        bc::cuda::PipelineRunInfo info;
        ASSERT_TRUE(bc::cuda::run_host_pipeline(0, in.data(), out.data(), len, kChunk, nb, nothing, &info).is_ok());
        EXPECT_EQ(in, out);
        EXPECT_TRUE(info.in_staged && info.out_staged);
        EXPECT_EQ((len + kChunk - 1) / kChunk, info.chunks);
        Pinned pi(len), po(len);
        std::memcpy(pi.p, in.data(), len);
        ASSERT_TRUE(bc::cuda::run_host_pipeline(0, pi.p, po.p, len, kChunk, nb, nothing, &info).is_ok());
        EXPECT_FALSE(info.in_staged || info.out_staged);
        EXPECT_EQ(0, std::memcmp(po.p, in.data(), len));
        std::fill(out.begin(), out.end(), 0);
        ASSERT_TRUE(bc::cuda::run_host_pipeline(0, pi.p, out.data(), len, kChunk, nb, nothing, &info).is_ok());
        EXPECT_TRUE(!info.in_staged && info.out_staged);
        EXPECT_EQ(in, out);
    }
}

TEST_P(Pipeline, CtrChunksMatchTheCpu) {
    REQUIRE_GPU();
    const int nb = GetParam();
    std::unique_ptr<bc::Backend> be;
    bc::ContextOptions co;
    ASSERT_TRUE(bc::make_cuda_backend(0, co, &be).is_ok());
    auto& cb = static_cast<bc::cuda::CudaBackend&>(*be);
    bc::KeyMaterial km;
    km.alg = bc::find_algorithm("aes-128-ctr");
    Bytes key = rnd(16), iv = rnd(16);
    iv[8] = 0xff;  // carries across the low 64 bits on the way
    km.raw = bc::SecureBytes(key.data(), key.size());
    std::unique_ptr<bc::BackendKey> bk;
    ASSERT_TRUE(cb.prepare_key(km, &bk).is_ok());
    const auto& k = static_cast<const bc::cuda::CudaAesKey&>(*bk);
    RefCtx ref;
    CKey kr(ref.ctx, "aes-128-ctr", key);
    auto ctr = [&](uint8_t* din, uint8_t* dout, size_t off, size_t n, cudaStream_t s, uint8_t*) {
        return cb.aes_on_device(k, bc::Mode::CTR, bc::Dir::Encrypt, iv.data(), off, 0, din, dout, n, s);
    };
    for (size_t len : kLens) {
        for (int variant = 0; variant < 3; ++variant) {  // pageable, pinned, pageable in place
            SCOPED_TRACE("len=" + std::to_string(len) + " nb=" + std::to_string(nb) + " variant=" +
                         std::to_string(variant));
            Bytes pt = rnd(len), want(len), got(len);
            size_t n = 0;
            ASSERT_EQ(BC_OK, bc_encrypt(kr.k, iv.data(), 16, pt.data(), len, want.data(), len, &n, nullptr));
            if (variant == 1) {
                Pinned pi(len), po(len);
                std::memcpy(pi.p, pt.data(), len);
                ASSERT_TRUE(bc::cuda::run_host_pipeline(0, pi.p, po.p, len, kChunk, nb, ctr).is_ok());
                std::memcpy(got.data(), po.p, len);
            } else if (variant == 2) {
                got = pt;
                ASSERT_TRUE(bc::cuda::run_host_pipeline(0, got.data(), got.data(), len, kChunk, nb, ctr).is_ok());
            } else {
                ASSERT_TRUE(bc::cuda::run_host_pipeline(0, pt.data(), got.data(), len, kChunk, nb, ctr).is_ok());
            }
            EXPECT_EQ(want, got);
        }
    }
}

TEST_P(Pipeline, AKernelFailureIsAStatus) {
    REQUIRE_GPU();
    Bytes in = rnd(10 * kChunk), out(in.size());
    auto fail_third = [](uint8_t*, uint8_t*, size_t off, size_t, cudaStream_t, uint8_t*) {
        return off >= 2 * kChunk ? bc::Status(BC_ERR_DEVICE, "test") : bc::Status::ok();
    };
    bc::Status st = bc::cuda::run_host_pipeline(0, in.data(), out.data(), in.size(), kChunk, GetParam(), fail_third);
    EXPECT_EQ(BC_ERR_DEVICE, st.code);
    // The pipeline is usable afterwards.
    auto nothing = [](uint8_t*, uint8_t*, size_t, size_t, cudaStream_t, uint8_t*) { return bc::Status::ok(); };
    ASSERT_TRUE(bc::cuda::run_host_pipeline(0, in.data(), out.data(), in.size(), kChunk, GetParam(), nothing).is_ok());
    EXPECT_EQ(in, out);
}

// The whole CUDA backend on host memory with this NB and 64 KiB pipeline chunks:
// every algorithm and mode byte-identical to the CPU backend.
TEST_P(Pipeline, EveryAlgorithmThroughTheCudaBackend) {
    REQUIRE_GPU();
    struct Restore {
        ~Restore() { bc::cuda::shared_host_pipeline(0).set_defaults(0, 0); }
    } restore;
    bc::cuda::shared_host_pipeline(0).set_defaults(kChunk, GetParam());
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cuda:0", nullptr, &ctx)) << bc_last_error();
    RefCtx ref;
    DiffOptions o;
    o.chunk = kChunk;
    o.extra_sizes = {3 * 1024 * 1024 + 5};
    std::string skipped;
    const size_t n = diff_all(ref.ctx, ctx, o, &skipped);
    EXPECT_GE(n, 20u) << "skipped: " << skipped;
    bc_context_destroy(ctx);
}

INSTANTIATE_TEST_SUITE_P(Depth, Pipeline, ::testing::Values(1, 2, 0),
                         [](const ::testing::TestParamInfo<int>& i) {
                             return i.param ? "nb" + std::to_string(i.param) : std::string("nb_default");
                         });

// Many callers at once (the CLI's segments, threads sharing a context): runs share the
// pool's slots, overlap on the device, and each gets exactly its own bytes and tags;
// when the last run ends no pinned staging holds data.
TEST(EngineCuda, ConcurrentCallersShareThePipeline) {
    REQUIRE_GPU();
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cuda:0", nullptr, &ctx)) << bc_last_error();
    RefCtx ref;
    const int kThreads = 24;  // more than the pool's slots: some runs wait for one
    static_assert(kThreads > bc::cuda::kPipelinePoolSlots, "the test must exhaust the pool");
    for (const char* alg : {"aes-256-gcm", "chacha20-poly1305", "aes-128-ctr"}) {
        SCOPED_TRACE(alg);
        const bool aead = std::string(alg) != "aes-128-ctr";
        const Bytes key = rnd(std::string(alg) == "aes-128-ctr" ? 16 : 32);
        CKey kg(ctx, alg, key), kc(ref.ctx, alg, key);
        ASSERT_TRUE(kg.k && kc.k);
        std::vector<Bytes> pt(kThreads), got(kThreads), want(kThreads), nonce(kThreads);
        for (int t = 0; t < kThreads; ++t) {
            pt[t] = rnd(size_t(1) << 20 | size_t(t) * 4097);  // distinct sizes, several chunks for some
            nonce[t] = rnd(aead ? 12 : 16);
        }
        const Bytes aad = rnd(77);
        std::vector<bc_status> st(kThreads, BC_OK);
        std::vector<std::thread> th;
        auto seal = [&](bc_key* k, int t, Bytes* out) {
            out->assign(pt[t].size() + 16, 0);
            size_t n = 0;
            if (aead)
                return bc_aead_seal(k, nonce[t].data(), nonce[t].size(), aad.data(), aad.size(), pt[t].data(),
                                    pt[t].size(), out->data(), out->size(), &n, 16, nullptr);
            out->resize(pt[t].size());
            return bc_encrypt(k, nonce[t].data(), 16, pt[t].data(), pt[t].size(), out->data(), out->size(), &n,
                              nullptr);
        };
        for (int t = 0; t < kThreads; ++t) th.emplace_back([&, t] { st[t] = seal(kg.k, t, &got[t]); });
        for (auto& x : th) x.join();
        for (int t = 0; t < kThreads; ++t) {
            ASSERT_EQ(BC_OK, st[t]) << "thread " << t;
            ASSERT_EQ(BC_OK, seal(kc.k, t, &want[t]));
            EXPECT_EQ(want[t], got[t]) << "thread " << t;
        }
        EXPECT_EQ(0u, bc::cuda::shared_host_pipeline(0).dirty_bytes());
    }
    bc_context_destroy(ctx);
}

TEST(EngineCuda, NoopThroughTheCudaBackend) {
    REQUIRE_GPU();
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cuda:0", nullptr, &ctx)) << bc_last_error();
    {
        CKey k(ctx, "noop", Bytes());
        for (size_t len : {size_t(1), size_t(100000), size_t(40) << 20}) {
            Bytes in = rnd(len), out(len, 0);
            size_t n = 0;
            ASSERT_EQ(BC_OK, bc_encrypt(k.k, nullptr, 0, in.data(), len, out.data(), len, &n, nullptr)) << bc_last_error();
            EXPECT_EQ(in, out);
        }
    }
    bc_context_destroy(ctx);
}

// Engines made here: optionally the CPU, then GPUs 0..ngpus-1; small chunks, no threshold.
std::unique_ptr<bc::Backend> gpu_engine(bool with_cpu, int ngpus, size_t chunk, int fail_worker = -1) {
    std::vector<std::unique_ptr<bc::Backend>> w;
    bc::EngineOptions eo;
    eo.chunk = chunk;
    eo.cpu_threshold = 0;
    eo.fail_worker = fail_worker;
    eo.fail_after_chunks = 1;
    bc::ContextOptions co;
    if (with_cpu) {
        co.threads = 4;
        std::unique_ptr<bc::Backend> c;
        EXPECT_TRUE(bc::make_cpu_backend(co, &c).is_ok());
        w.push_back(std::move(c));
        eo.worker_devices.push_back(-1);
    }
    co.threads = 0;
    for (int i = 0; i < ngpus; ++i) {
        std::unique_ptr<bc::Backend> g;
        bc::Status st = bc::make_cuda_backend(i, co, &g);
        EXPECT_TRUE(st.is_ok()) << st.detail;
        w.push_back(std::move(g));
        eo.worker_devices.push_back(i);
    }
    eo.device_of = [](const void* p) {
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
            (void)cudaGetLastError();
            return -1;
        }
        return a.type == cudaMemoryTypeDevice ? a.device : -1;
    };
    std::unique_ptr<bc::Backend> e;
    EXPECT_TRUE(bc::make_engine_backend(std::move(w), eo, &e).is_ok());
    return e;
}

struct EngineShape {
    bool cpu;
    int gpus;  // 0: every GPU present
};

class EngineGpus : public ::testing::TestWithParam<EngineShape> {};

TEST_P(EngineGpus, EveryAlgorithmMatchesTheCpuBackend) {
    REQUIRE_GPU();
    EngineShape sh = GetParam();
    if (sh.gpus == 0) {  // every GPU present, where that is more than the fixed shapes cover
        if (gpu_count() < 3) GTEST_SKIP() << "skipped: " << gpu_count() << " CUDA device(s), covered by the 1- and 2-GPU shapes";
        sh.gpus = gpu_count();
    }
    if (gpu_count() < sh.gpus) GTEST_SKIP() << "skipped: " << sh.gpus << " CUDA devices needed, " << gpu_count() << " present";
    WrappedCtx test(gpu_engine(sh.cpu, sh.gpus, kChunk), sh.cpu ? "hybrid" : "cuda:all");
    RefCtx ref;
    DiffOptions o;
    o.chunk = kChunk;
    std::string skipped;
    const size_t n = diff_all(ref.ctx, test.ctx, o, &skipped);
    EXPECT_GE(n, 20u) << "skipped: " << skipped;
    // Many pieces, shared by learned rates: 144 chunks on one algorithm of each kind of
    // piece (counter, GCM, XTS units, CBC chains, stream offsets, Poly1305, a 64-bit block).
    // Every algorithm at this size made the test minutes long, in the CPU reference.
    o.extra_sizes = {(size_t(9) << 20) + 33};
    for (const char* alg : {"aes-128-ctr", "aes-256-gcm", "aes-256-xts", "camellia-128-cbc", "chacha20",
                            "chacha20-poly1305", "des-ede3-ctr"}) {
        o.only = alg;
        EXPECT_EQ(1u, diff_all(ref.ctx, test.ctx, o)) << alg;
    }
    bc::EngineStats s;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    for (size_t i = 0; i < s.pieces.size(); ++i) EXPECT_GT(s.pieces[i], 0u) << "worker " << i << " never ran";
}

INSTANTIATE_TEST_SUITE_P(Shapes, EngineGpus,
                         ::testing::Values(EngineShape{false, 1}, EngineShape{false, 2}, EngineShape{false, 0},
                                           EngineShape{true, 1}, EngineShape{true, 2}, EngineShape{true, 0}),
                         [](const ::testing::TestParamInfo<EngineShape>& i) {
                             return std::string(i.param.cpu ? "hybrid_" : "gpus_") +
                                    (i.param.gpus ? std::to_string(i.param.gpus) : std::string("all"));
                         });

TEST(EngineCuda, DeviceStringsWithDefaultsMatchTheCpu) {
    REQUIRE_GPU();
    RefCtx ref;
    for (const char* dev : {"hybrid", "cuda:all", "auto"}) {
        bc_context* ctx = nullptr;
        ASSERT_EQ(BC_OK, bc_context_create(dev, nullptr, &ctx)) << bc_last_error();
        DiffOptions o;
        o.chunk = bc::kEngineDefaultChunk;  // sizes around the default chunk, over the default threshold
        o.in_place = false;
        for (const char* alg : {"aes-128-ctr", "aes-256-gcm", "chacha20-poly1305", "aes-256-xts", "noop"}) {
            SCOPED_TRACE(std::string(dev) + " " + alg);
            o.only = alg;
            diff_all(ref.ctx, ctx, o);
        }
        bc_context_destroy(ctx);
    }
}

// Device pointers on every GPU, not only the first: each call runs on the GPU that owns
// its buffers (a raw cipher and both AEAD families; sealed there and opened there).
TEST(EngineCuda, DeviceMemoryGoesToItsOwner) {
    REQUIRE_GPU();
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cuda:all", nullptr, &ctx)) << bc_last_error();
    RefCtx ref;
    const Bytes pt = rnd(3 * 1024 * 1024 + 48), aad = rnd(29);
    for (const char* alg : {"aes-128-ctr", "aes-256-gcm", "chacha20-poly1305"}) {
        bc_algorithm_info info{};
        ASSERT_EQ(BC_OK, bc_algorithm_query(alg, &info));
        const bool aead = info.kind == BC_KIND_AEAD;
        const Bytes key = rnd(info.key_size), iv = rnd(info.iv_size);
        CKey kt(ctx, alg, key), kr(ref.ctx, alg, key);
        Bytes want(pt.size()), want_tag(16), got(pt.size()), tag(16), back(pt.size());
        size_t n = 0;
        if (aead)
            ASSERT_EQ(BC_OK, bc_aead_seal_detached(kr.k, iv.data(), iv.size(), aad.data(), aad.size(), pt.data(),
                                                   pt.size(), want.data(), want_tag.data(), 16, nullptr));
        else
            ASSERT_EQ(BC_OK, bc_encrypt(kr.k, iv.data(), iv.size(), pt.data(), pt.size(), want.data(), want.size(),
                                        &n, nullptr));
        for (int d = 0; d < gpu_count(); ++d) {
            SCOPED_TRACE(std::string(alg) + " on cuda:" + std::to_string(d));
            ASSERT_EQ(cudaSuccess, cudaSetDevice(d));
            uint8_t *din = nullptr, *dout = nullptr;
            ASSERT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&din), pt.size()));
            ASSERT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&dout), pt.size()));
            ASSERT_EQ(cudaSuccess, cudaMemcpy(din, pt.data(), pt.size(), cudaMemcpyHostToDevice));
            bc_params p = {};
            p.memory = BC_MEMORY_DEVICE;
            if (aead) {
                EXPECT_EQ(BC_OK, bc_aead_seal_detached(kt.k, iv.data(), iv.size(), aad.data(), aad.size(), din,
                                                       pt.size(), dout, tag.data(), 16, &p))
                    << bc_last_error();
                EXPECT_EQ(want_tag, tag);
            } else {
                EXPECT_EQ(BC_OK, bc_encrypt(kt.k, iv.data(), iv.size(), din, pt.size(), dout, pt.size(), &n, &p))
                    << bc_last_error();
            }
            ASSERT_EQ(cudaSuccess, cudaMemcpy(got.data(), dout, pt.size(), cudaMemcpyDeviceToHost));
            EXPECT_EQ(want, got);
            if (aead) {  // and back, on the same GPU, into the input's buffer
                EXPECT_EQ(BC_OK, bc_aead_open_detached(kt.k, iv.data(), iv.size(), aad.data(), aad.size(), dout,
                                                       pt.size(), tag.data(), 16, din, &p))
                    << bc_last_error();
                ASSERT_EQ(cudaSuccess, cudaMemcpy(back.data(), din, pt.size(), cudaMemcpyDeviceToHost));
                EXPECT_EQ(pt, back);
            }
            cudaFree(din);
            cudaFree(dout);
        }
    }
    bc_context_destroy(ctx);
}

// One GPU failing mid-job (the engine's fault hook scribbles over its piece, then fails):
// the other workers finish the job, byte-identical to the CPU backend. With the CPU and
// one GPU; where there are two GPUs or more, also every GPU without the CPU (the first
// GPU fails, the others finish) and every GPU with the CPU (the second GPU fails).
TEST(EngineCuda, GpuWorkerFailingMidJob) {
    REQUIRE_GPU();
    struct Shape {
        bool cpu;
        int gpus;
        int failing;  // worker index: the CPU, when there, is worker 0
    };
    std::vector<Shape> shapes = {{true, 1, 1}};
    if (gpu_count() >= 2) shapes.push_back({false, gpu_count(), 0}), shapes.push_back({true, gpu_count(), 2});
    RefCtx ref;
    for (const Shape& sh : shapes) {
        for (const char* alg : {"aes-128-ctr", "aes-256-gcm", "chacha20-poly1305"}) {
            SCOPED_TRACE(std::string(alg) + (sh.cpu ? " cpu + " : " ") + std::to_string(sh.gpus) +
                         " GPU(s), worker " + std::to_string(sh.failing) + " failing");
            WrappedCtx test(gpu_engine(sh.cpu, sh.gpus, kChunk, sh.failing), sh.cpu ? "hybrid" : "cuda:all");
            const bc::Algorithm* a = bc::find_algorithm(alg);
            Bytes key = rnd(a->key_size), iv = rnd(a->iv_size), pt = rnd(64 * kChunk + 5);
            CKey kt(test.ctx, alg, key), kr(ref.ctx, alg, key);
            Bytes want(pt.size() + 16), got(pt.size() + 16);
            size_t nw = 0, ng = 0;
            if (a->kind == BC_KIND_AEAD) {
                ASSERT_EQ(BC_OK, bc_aead_seal(kr.k, iv.data(), iv.size(), nullptr, 0, pt.data(), pt.size(),
                                              want.data(), want.size(), &nw, 0, nullptr));
                ASSERT_EQ(BC_OK, bc_aead_seal(kt.k, iv.data(), iv.size(), nullptr, 0, pt.data(), pt.size(),
                                              got.data(), got.size(), &ng, 0, nullptr))
                    << bc_last_error();
            } else {
                ASSERT_EQ(BC_OK, bc_encrypt(kr.k, iv.data(), 16, pt.data(), pt.size(), want.data(), want.size(), &nw,
                                            nullptr));
                ASSERT_EQ(BC_OK, bc_encrypt(kt.k, iv.data(), 16, pt.data(), pt.size(), got.data(), got.size(), &ng,
                                            nullptr))
                    << bc_last_error();
            }
            EXPECT_EQ(want, got);
            bc::EngineStats s;
            ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
            EXPECT_GE(s.failures, 1u) << "the failing worker never failed";
            EXPECT_GE(s.requeued, 1u) << "no failed piece went to another worker";
        }
    }
}

#else  // no CUDA in this build

TEST(EngineCuda, Skipped) { GTEST_SKIP() << "skipped: no CUDA device (this build has no CUDA backend)"; }

#endif

}  // namespace
