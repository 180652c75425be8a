// The tuner on a CUDA device: one entry an algorithm's (family, mode), each searched on its
// own, every candidate a context of its own with the shipped table alone beneath it
// (tuning=shipped) and the candidate's numbers as context options, which launch exactly as
// a tuned entry of the same numbers would (tuning.h, apply_overrides). Timed on data already
// in device memory by CUDA events around the backend's call; checked first on that same
// call's whole output (and MAC partial) against the CPU backend.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "backends/backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/stream_kernels.h"
#include "engine/engine_backend.h"
#include "catalog/catalog.h"
#include "tuner/tuner.h"
#include "tuning/tuned.h"

namespace bc {
namespace tuner {

namespace {

// What a candidate's output is checked against: the CPU backend on the same input.
struct Workload {
    const Algorithm* alg = nullptr;
    bool aead = false;
    KeyMaterial key;
    std::vector<uint8_t> iv, mac_key, sample, want;
    uint8_t want_partial[32] = {};
    size_t partial_bytes = 0;  // GCM 16, ChaCha20-Poly1305 17
};

// Device buffers freed on scope exit.
struct DeviceBuffer {
    uint8_t* p = nullptr;
    ~DeviceBuffer() {
        if (p) (void)cudaFree(p);
    }
};

struct Events {
    cudaEvent_t a = nullptr, b = nullptr;
    cudaStream_t s = nullptr;
    ~Events() {
        if (a) (void)cudaEventDestroy(a);
        if (b) (void)cudaEventDestroy(b);
        if (s) (void)cudaStreamDestroy(s);
    }
};

Status cuda_try(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Status::ok();
    (void)cudaGetLastError();
    return Status(BC_ERR_DEVICE, std::string(what) + ": " + cudaGetErrorString(e));
}

// Random key, IV and data, and the CPU backend's output on them.
Status prepare(const std::string& name, size_t bytes, Backend& cpu, std::mt19937_64& rng, Workload* w) {
    w->alg = find_algorithm(name.c_str());
    if (!w->alg) return Status(BC_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '" + name + "'");
    const Mode m = w->alg->mode;
    w->aead = m == Mode::GCM || m == Mode::ChaChaPoly;
    if (m == Mode::CBC) return Status(BC_ERR_NOT_SUPPORTED, name + ": CBC encryption runs on the host; tune CTR or XTS");
    auto fill = [&](std::vector<uint8_t>& v, size_t n) {
        v.resize(n);
        for (auto& b : v) b = static_cast<uint8_t>(rng());
    };
    std::vector<uint8_t> key;
    fill(key, w->alg->key_size);
    w->key.alg = w->alg;
    w->key.raw = SecureBytes(key.data(), key.size());
    fill(w->iv, std::max<size_t>(w->alg->iv_size, 16));
    // no counter wrap: CTR's low counter bytes, GCM's 32-bit counter block word
    if (m == Mode::CTR) std::memset(w->iv.data() + w->alg->iv_size - 4, 0, 4);
    if (m == Mode::GCM) std::memset(w->iv.data() + 12, 0, 4);
    if (m == Mode::ChaChaPoly) std::memset(w->iv.data(), 0, 4);                    // block counter 0
    fill(w->mac_key, 32);
    fill(w->sample, bytes);
    w->want.assign(bytes, 0);
    w->partial_bytes = m == Mode::GCM ? 16 : 17;
    std::unique_ptr<BackendKey> bk;
    BC_TRY(cpu.prepare_key(w->key, &bk));
    if (w->aead) {
        AeadChunkOp op;
        std::memcpy(op.ctr, w->iv.data(), 16);
        op.mac_key = w->mac_key.data();
        op.in = w->sample.data();
        op.out = w->want.data();
        op.len = bytes;
        BC_TRY(cpu.aead_chunk(w->key, *bk, op));
        std::memcpy(w->want_partial, op.partial, sizeof op.partial);
        return Status::ok();
    }
    CipherOp op;
    op.iv = w->iv.data();
    op.iv_len = w->alg->iv_size;
    op.in = w->sample.data();
    op.out = w->want.data();
    op.len = bytes;
    if (m == Mode::XTS) op.data_unit = 4096;
    return cpu.cipher(w->key, *bk, op);
}

// One call of the algorithm on device buffers, timed by events on ev.s; partial: the MAC's.
Status run_once(Backend& be, const BackendKey& bk, const Workload& w, const uint8_t* in, uint8_t* out, size_t bytes,
                Events& ev, double* seconds, uint8_t partial[32]) {
    BC_TRY(cuda_try(cudaEventRecord(ev.a, ev.s), "cudaEventRecord"));
    if (w.aead) {
        AeadChunkOp op;
        std::memcpy(op.ctr, w.iv.data(), 16);
        op.mac_key = w.mac_key.data();
        op.in = in;
        op.out = out;
        op.len = bytes;
        op.memory = BC_MEMORY_DEVICE;
        op.stream = ev.s;
        BC_TRY(be.aead_chunk(w.key, bk, op));
        std::memcpy(partial, op.partial, sizeof op.partial);
    } else {
        CipherOp op;
        op.iv = w.iv.data();
        op.iv_len = w.alg->iv_size;
        op.in = in;
        op.out = out;
        op.len = bytes;
        op.memory = BC_MEMORY_DEVICE;
        op.stream = ev.s;
        if (w.alg->mode == Mode::XTS) op.data_unit = 4096;
        BC_TRY(be.cipher(w.key, bk, op));
    }
    BC_TRY(cuda_try(cudaEventRecord(ev.b, ev.s), "cudaEventRecord"));
    BC_TRY(cuda_try(cudaEventSynchronize(ev.b), "cudaEventSynchronize"));
    float ms = 0;
    BC_TRY(cuda_try(cudaEventElapsedTime(&ms, ev.a, ev.b), "cudaEventElapsedTime"));
    *seconds = ms / 1e3;
    return Status::ok();
}

// What the knobs of one algorithm are and how a point becomes context options.
struct Plan {
    tuning::SearchSpace space;
    tuning::Point baseline;
    std::function<void(const tuning::Point&, ContextOptions*)> apply;
    std::function<void(const tuning::Point&, tuning::TunedEntry*)> store;
};

std::vector<int64_t> with(std::vector<int64_t> v, int64_t x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    std::sort(v.begin(), v.end());
    return v;
}

// Resident 128-thread blocks an SM of a kernel using `regs` registers a thread: registers are
// allocated to warps in units of 256, and an SM holds 64 Ki of them and 16 such blocks.
int resident_by_registers(int regs, const cudaDeviceProp& p) {
    if (regs <= 0) return 0;
    const int warp_regs = (regs * 32 + 255) / 256 * 256;
    const int by_regs = p.regsPerMultiprocessor / (warp_regs * 4);
    return std::min({by_regs, p.maxThreadsPerMultiProcessor / 128, p.maxBlocksPerMultiProcessor});
}

// AES: the bitsliced variant, the one-lane and lane-pair grid caps, pair-cc's waves, GHASH's
// layout (GCM). A cap over four waves of the resident blocks its kernel's registers allow
// is pruned: those grids loop the same tiles over more blocks than ever run at once.
Status aes_plan(const Algorithm& alg, const tuning::Tuning& shipped, const cudaDeviceProp& p, Plan* plan) {
    const Mode m = alg.mode;
    const char* one = m == Mode::GCM ? "ctr32" : m == Mode::ECB ? "ecb" : m == Mode::XTS ? "xts" : "ctr";
    const std::string pair = std::string(one) + "-pair";
    int regs1 = 0, regs2 = 0, local = 0;
    BC_TRY(cuda_try(cuda::aes_kernel_resources(one, cuda::AesImpl::Bitsliced, &regs1, &local), "aes_kernel_resources"));
    BC_TRY(cuda_try(cuda::aes_kernel_resources(pair.c_str(), cuda::AesImpl::Bitsliced, &regs2, &local),
                    "aes_kernel_resources"));
    const int res1 = resident_by_registers(regs1, p), res2 = resident_by_registers(regs2, p);
    const bool gcm = m == Mode::GCM;
    plan->space.knobs = {
        {"variant", {0, 1, 2, 3, 4, 5, 6, 7}},
        {"blocks_per_sm", with({1, 2, 3, 4, 6, 8, 12, 16, 24, 32}, shipped.kernel.blocks_per_sm)},
        {"pair_blocks_per_sm", with({4, 6, 8, 12, 16, 24, 32}, shipped.pair.blocks_per_sm)},
        {"pair_cc_waves", with({1, 2, 4, 8}, std::max(1, shipped.pair.variant))},
    };
    plan->baseline = {shipped.kernel.variant, shipped.kernel.blocks_per_sm, shipped.pair.blocks_per_sm,
                      std::max(1, shipped.pair.variant)};
    if (gcm) {
        // the tensor layout needs the one-bit MMA of sm_80 and later
        plan->space.knobs.push_back({"ghash", p.major >= 8 ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0, 1}});
        plan->baseline.push_back(shipped.ghash.variant);
    }
    plan->space.allowed = [res1, res2](const tuning::Point& x, std::string* why) {
        if (x[1] > 4 * res1) {
            *why = "one-lane grid cap over four waves of " + std::to_string(res1) + " resident blocks";
            return false;
        }
        if (x[2] > 4 * res2) {
            *why = "lane-pair grid cap over four waves of " + std::to_string(res2) + " resident blocks";
            return false;
        }
        return true;
    };
    plan->apply = [gcm](const tuning::Point& x, ContextOptions* c) {
        tuning::Overrides* o = &c->tuning;
        o->aes_variant = static_cast<int>(x[0]);
        o->blocks_per_sm = static_cast<int>(x[1]);
        o->pair_blocks_per_sm = static_cast<int>(x[2]);
        o->pair_cc_waves = static_cast<int>(x[3]);
        if (gcm) o->ghash_variant = static_cast<int>(x[4]);
    };
    plan->store = [gcm](const tuning::Point& x, tuning::TunedEntry* e) {
        e->kernel.variant = static_cast<int>(x[0]);
        e->kernel.blocks_per_sm = static_cast<int>(x[1]);
        e->pair.blocks_per_sm = static_cast<int>(x[2]);
        e->pair.variant = static_cast<int>(x[3]);
        if (gcm) e->ghash.variant = static_cast<int>(x[4]);
    };
    return Status::ok();
}

// The stream kernels: threads a block, grid cap an SM, 64-byte blocks a thread an iteration
// (ChaCha20-Poly1305's kernel takes 1 or 2). Pruned where no block of that size fits the
// compiled kernel's registers, and past four waves of the blocks that do.
Status stream_plan(const Algorithm& alg, const tuning::Tuning& shipped, Plan* plan) {
    const bool poly = alg.mode == Mode::ChaChaPoly;
    plan->space.knobs = {
        {"threads", with({64, 128, 256, 512, 1024}, shipped.kernel.threads_per_block)},
        {"blocks_per_sm", with({1, 2, 4, 8, 16, 32}, shipped.kernel.blocks_per_sm)},
        {"unroll", poly ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{1, 2, 4}},
    };
    plan->baseline = {shipped.kernel.threads_per_block, shipped.kernel.blocks_per_sm,
                      poly ? std::min(2, shipped.kernel.items_per_thread) : shipped.kernel.items_per_thread};
    const Algorithm* a = &alg;
    plan->space.allowed = [a](const tuning::Point& x, std::string* why) {
        int resident = 0;
        const Status s = cuda_stream_occupancy(*a, static_cast<int>(x[0]), static_cast<int>(x[2]), &resident);
        if (!s.is_ok() || resident == 0) {
            *why = s.is_ok() ? "no block of this size fits the kernel's registers" : s.detail;
            return false;
        }
        if (x[1] > 4 * resident) {
            *why = "grid cap over four waves of " + std::to_string(resident) + " resident blocks";
            return false;
        }
        return true;
    };
    plan->apply = [](const tuning::Point& x, ContextOptions* c) {
        tuning::Overrides* o = &c->tuning;
        o->threads = static_cast<int>(x[0]);
        o->blocks_per_sm = static_cast<int>(x[1]);
        o->unroll = static_cast<int>(x[2]);
    };
    plan->store = [](const tuning::Point& x, tuning::TunedEntry* e) {
        e->kernel.threads_per_block = static_cast<int>(x[0]);
        e->kernel.blocks_per_sm = static_cast<int>(x[1]);
        e->kernel.items_per_thread = static_cast<int>(x[2]);
    };
    return Status::ok();
}

// A generic block cipher: the grid cap of its kernels (ciphers with tables run one wave at
// most whatever the cap, so caps past it measure alike and the baseline keeps its place).
void block_plan(const tuning::Tuning& shipped, Plan* plan) {
    plan->space.knobs = {{"blocks_per_sm", with({1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32}, shipped.kernel.blocks_per_sm)}};
    plan->baseline = {shipped.kernel.blocks_per_sm};
    plan->apply = [](const tuning::Point& x, ContextOptions* c) { c->tuning.blocks_per_sm = static_cast<int>(x[0]); };
    plan->store = [](const tuning::Point& x, tuning::TunedEntry* e) { e->kernel.blocks_per_sm = static_cast<int>(x[0]); };
}

Status open_cuda(int index, const ContextOptions& o, std::unique_ptr<Backend>* be, cuda::CudaBackend** c) {
    ContextOptions co = o;
    co.tuning.shipped_only = true;
    BC_TRY(make_cuda_backend(index, co, be));
    *c = dynamic_cast<cuda::CudaBackend*>(be->get());
    return *c ? Status::ok() : Status(BC_ERR_INTERNAL, "the CUDA backend is not a CudaBackend");
}

// One algorithm's search, stored in part.
Status tune_one(int index, const std::string& name, const TuneOptions& opt, double budget, Backend& cpu,
                const cudaDeviceProp& prop, const tuning::DeviceTraits& shipped_traits, std::mt19937_64& rng,
                TunedPart* part) {
    const auto start = std::chrono::steady_clock::now();
    const size_t bytes = std::max<size_t>(opt.bytes / 4096 * 4096, 4096);
    Workload w;
    BC_TRY(prepare(name, bytes, cpu, rng, &w));
    const Algorithm& alg = *w.alg;
    const bool stream = alg.mode == Mode::Stream || alg.mode == Mode::ChaChaPoly;
    const bool aes = alg.cipher == Cipher::AES;
    if (stream && alg.cipher != Cipher::ChaCha20 && alg.cipher != Cipher::XChaCha20 && alg.cipher != Cipher::Salsa20 &&
        alg.cipher != Cipher::XSalsa20)
        return Status(BC_ERR_NOT_SUPPORTED, name + ": no CUDA kernels to tune");
    const tuning::Tuning& shipped = tuning::select_tuning(shipped_traits, alg);
    Plan plan;
    if (aes) BC_TRY(aes_plan(alg, shipped, prop, &plan));
    else if (stream) BC_TRY(stream_plan(alg, shipped, &plan));
    else block_plan(shipped, &plan);

    DeviceBuffer din, dout;
    BC_TRY(cuda_try(cudaSetDevice(index), "cudaSetDevice"));
    BC_TRY(cuda_try(cudaMalloc(reinterpret_cast<void**>(&din.p), bytes), "cudaMalloc"));
    BC_TRY(cuda_try(cudaMalloc(reinterpret_cast<void**>(&dout.p), bytes), "cudaMalloc"));
    BC_TRY(cuda_try(cudaMemcpy(din.p, w.sample.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy"));
    Events ev;
    BC_TRY(cuda_try(cudaStreamCreateWithFlags(&ev.s, cudaStreamNonBlocking), "cudaStreamCreate"));
    BC_TRY(cuda_try(cudaEventCreate(&ev.a), "cudaEventCreate"));
    BC_TRY(cuda_try(cudaEventCreate(&ev.b), "cudaEventCreate"));
    std::vector<uint8_t> got(bytes);

    auto candidate = [&](const tuning::Point& x) {
        tuning::Measurement m;
        ContextOptions o;
        plan.apply(x, &o);
        std::unique_ptr<Backend> be;
        cuda::CudaBackend* c = nullptr;
        std::unique_ptr<BackendKey> bk;
        Status s = open_cuda(index, o, &be, &c);
        if (s.is_ok()) s = be->prepare_key(w.key, &bk);
        // the check: the whole timed call's output (and MAC partial) against the CPU backend
        uint8_t partial[32] = {};
        double secs = 0;
        if (s.is_ok()) s = cuda_try(cudaMemsetAsync(dout.p, 0, bytes, ev.s), "cudaMemsetAsync");
        if (s.is_ok()) s = run_once(*be, *bk, w, din.p, dout.p, bytes, ev, &secs, partial);
        if (s.is_ok()) s = cuda_try(cudaMemcpy(got.data(), dout.p, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
        if (s.is_ok() && opt.corrupt && opt.corrupt(x)) got[bytes / 2] ^= 1;
        std::string line = tuning::describe(plan.space, x) + ":";
        if (!s.is_ok()) {
            m.error = s.detail.empty() ? bc_status_message(s.code) : s.detail;
        } else if (got != w.want || (w.aead && std::memcmp(partial, w.want_partial, w.partial_bytes) != 0)) {
            m.error = name + ": output differs from the CPU backend";
        } else {
            m = timed_rate(bytes, opt, [&](double* t) {
                uint8_t pt[32];
                return run_once(*be, *bk, w, din.p, dout.p, bytes, ev, t, pt);
            });
        }
        report(opt, name + " " + line, m);
        return m;
    };

    part->what = name + ", " + std::to_string(bytes >> 20) + " MiB in device memory";
    part->space = plan.space;
    tuning::SearchOptions so;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    so.budget_seconds = std::max(0.001, budget - spent);
    part->search = tuning::search(plan.space, plan.baseline, candidate, so);
    const std::string confirmed = confirm(&part->search, candidate, std::max(3, opt.runs), so.min_gain);
    if (!confirmed.empty() && opt.progress) opt.progress(name + " " + confirmed);

    tuning::TunedEntry& e = part->entry;
    e.family = tuning::family_of(alg);
    e.mode = tuning::mode_name(alg.mode);
    e.kernel = shipped.kernel;
    e.pair = shipped.pair;
    e.ghash = shipped.ghash;
    if (!part->search.best.empty()) plan.store(part->search.best, &e);
    finish_entry(shipped, *part, spent, &e);
    return Status::ok();
}

// The host-memory pipeline of the device (its "generic", "*" entry): piece size and pieces
// in flight, measured as a user meets them, AES-128-CTR from pageable memory to pageable
// memory, by the wall clock; the whole output checked against the CPU backend first.
Status tune_pipeline(int index, const TuneOptions& opt, double budget, Backend& cpu,
                     const tuning::DeviceTraits& shipped_traits, std::mt19937_64& rng, TunedPart* part) {
    const auto start = std::chrono::steady_clock::now();
    constexpr int64_t MiB = 1 << 20;
    const size_t bytes = std::max<size_t>(opt.bytes * 4, size_t(256) << 20) / 4096 * 4096;
    Workload w;
    BC_TRY(prepare("aes-128-ctr", bytes, cpu, rng, &w));
    const tuning::Tuning& shipped = tuning::select_tuning(shipped_traits, "generic", "*");
    const int64_t chunk0 = static_cast<int64_t>(shipped.pipeline.chunk_bytes ? shipped.pipeline.chunk_bytes
                                                                              : tuning::kCudaHostPipelineChunk);
    const int64_t depth0 = shipped.pipeline.depth ? shipped.pipeline.depth : tuning::kCudaHostPipelineDepth;
    tuning::SearchSpace& space = part->space;
    space.knobs = {{"chunk_bytes", with({1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB}, chunk0)},
                   {"depth", with({2, 3, 4, 6, 8, 12}, depth0)}};
    const int64_t job = static_cast<int64_t>(bytes);
    space.allowed = [job](const tuning::Point& x, std::string* why) {
        // the pipeline shrinks pieces that would leave fewer than two rounds of the depth in
        // a job, so such points run as smaller ones
        if (x[0] * x[1] * 2 <= job) return true;
        *why = "more in flight than half the job";
        return false;
    };
    std::vector<uint8_t> got(bytes);
    auto candidate = [&](const tuning::Point& x) {
        tuning::Measurement m;
        ContextOptions o;
        o.chunk = static_cast<size_t>(x[0]);
        o.tuning.depth = static_cast<int>(x[1]);
        std::unique_ptr<Backend> be;
        cuda::CudaBackend* c = nullptr;
        std::unique_ptr<BackendKey> bk;
        Status s = open_cuda(index, o, &be, &c);
        if (s.is_ok()) s = be->prepare_key(w.key, &bk);
        CipherOp op;
        op.iv = w.iv.data();
        op.iv_len = w.alg->iv_size;
        op.in = w.sample.data();
        op.out = got.data();
        op.len = bytes;
        std::fill(got.begin(), got.end(), 0);
        if (s.is_ok()) s = be->cipher(w.key, *bk, op);
        if (s.is_ok() && opt.corrupt && opt.corrupt(x)) got[bytes / 2] ^= 1;
        if (!s.is_ok()) {
            m.error = s.detail.empty() ? bc_status_message(s.code) : s.detail;
        } else if (got != w.want) {
            m.error = "pipeline: output differs from the CPU backend";
        } else {
            m = timed_rate(bytes, opt, [&](double* t) {
                const auto t0 = std::chrono::steady_clock::now();
                const Status st = be->cipher(w.key, *bk, op);
                *t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                return st;
            });
        }
        report(opt, "pipeline " + tuning::describe(space, x) + ":", m);
        return m;
    };
    part->what = "host pipeline: aes-128-ctr, " + std::to_string(bytes >> 20) + " MiB pageable to pageable";
    tuning::SearchOptions so;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    so.budget_seconds = std::max(0.001, budget - spent);
    part->search = tuning::search(space, {chunk0, depth0}, candidate, so);
    const std::string confirmed = confirm(&part->search, candidate, std::max(3, opt.runs), so.min_gain);
    if (!confirmed.empty() && opt.progress) opt.progress("pipeline " + confirmed);
    tuning::TunedEntry& e = part->entry;
    e.family = "generic";
    e.mode = "*";
    e.kernel = shipped.kernel;
    e.pair = shipped.pair;
    e.ghash = shipped.ghash;
    finish_entry(shipped, *part, spent, &e);
    if (!part->search.best.empty()) {
        e.pipeline.chunk_bytes = static_cast<size_t>(part->search.best[0]);
        e.pipeline.depth = static_cast<int>(part->search.best[1]);
    }
    return Status::ok();
}

// The device's ("generic", "*") entry in the cache, if any.
bool cached_generic(const TuneOptions& opt, const tuning::DeviceIdentity& id, tuning::TunedEntry* out) {
    std::vector<tuning::TunedEntry> cached;
    std::string warning;
    tuning::load_entries(opt.cache_path.empty() ? tuning::default_cache_path() : opt.cache_path, id, &cached, &warning);
    for (const tuning::TunedEntry& e : cached)
        if (e.family == "generic" && e.mode == "*") {
            *out = e;
            return true;
        }
    return false;
}

// The engine's CPU threshold beside this GPU, in the device's ("generic", "*") entry: on top of
// the pipeline part of this tune where it ran, else of the entry the cache holds.
Status tune_engine(const TuneOptions& opt, double budget, Backend& cpu, const tuning::DeviceTraits& shipped_traits,
                   TuneResult* out) {
    TunedPart* part = &out->parts.back();
    const tuning::TunedEntry* start = nullptr;
    for (const TunedPart& p : out->parts)
        if (&p != part && p.entry.family == "generic" && !p.search.best.empty()) start = &p.entry;
    tuning::TunedEntry cached;
    if (!start && cached_generic(opt, out->identity, &cached)) start = &cached;
    const tuning::TunedEntry base = start ? *start : tuning::TunedEntry{};
    auto maker = [](size_t threshold, size_t chunk, std::unique_ptr<Backend>* be) {
        EngineOptions eo;
        eo.cpu_threshold = threshold;
        eo.chunk = chunk;
        return make_device_engine(true, ContextOptions{}, be, &eo);
    };
    return tune_engine_threshold(opt, budget, cpu, maker, tuning::select_tuning(shipped_traits, "generic", "*"),
                                 start ? &base : nullptr, part);
}

}  // namespace

Status identify_cuda(int index, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits) {
    std::unique_ptr<Backend> be;
    cuda::CudaBackend* c = nullptr;
    BC_TRY(open_cuda(index, ContextOptions{}, &be, &c));
    *id = c->identity();
    *traits = c->traits();
    traits->tuned = true;
    return Status::ok();
}

Status tune_cuda(int index, const TuneOptions& opt, TuneResult* out) {
    const auto start = std::chrono::steady_clock::now();
    tuning::DeviceTraits shipped_traits;
    BC_TRY(identify_cuda(index, &out->identity, &shipped_traits));
    shipped_traits.tuned = false;
    cudaDeviceProp prop;
    BC_TRY(cuda_try(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties"));
    std::unique_ptr<Backend> cpu;
    BC_TRY(make_cpu_backend(ContextOptions{}, &cpu));
    std::mt19937_64 rng(0x6375);
    // The main algorithms, each its own entry, the host-memory pipeline ("pipeline") and the
    // engine's CPU threshold beside this GPU ("engine").
    const std::vector<std::string> algs = opt.algorithms.empty()
                                              ? std::vector<std::string>{"aes-128-ctr", "aes-256-gcm", "chacha20",
                                                                         "chacha20-poly1305", "pipeline", "engine"}
                                              : opt.algorithms;
    for (size_t i = 0; i < algs.size(); ++i) {
        // the budget left, shared evenly by the algorithms left
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double budget = (opt.budget_seconds - spent) / static_cast<double>(algs.size() - i);
        if (budget <= 0) break;
        out->parts.emplace_back();
        if (algs[i] == "pipeline") BC_TRY(tune_pipeline(index, opt, budget, *cpu, shipped_traits, rng, &out->parts.back()));
        else if (algs[i] == "engine") BC_TRY(tune_engine(opt, budget, *cpu, shipped_traits, out));
        else BC_TRY(tune_one(index, algs[i], opt, budget, *cpu, prop, shipped_traits, rng, &out->parts.back()));
    }
    // A pipeline entry stored without an engine part keeps the threshold an earlier tune measured.
    tuning::TunedEntry cached;
    if (std::find(algs.begin(), algs.end(), "engine") == algs.end() && cached_generic(opt, out->identity, &cached))
        for (TunedPart& p : out->parts)
            if (p.entry.family == "generic" && p.entry.mode == "*") p.entry.engine = cached.engine;
    return Status::ok();
}

}  // namespace tuner
}  // namespace bc
