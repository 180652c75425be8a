// The engine's figures (issue 5), every one beside the roof that bounds it,
// measured in the same run, data in host memory (plain malloc'd, pageable):
//
//   1. roofs: host memcpy (one thread, all threads); the NO-OP pipeline ceiling per
//      GPU (transfers only) for pageable and pinned buffers, swept over NB, chunk
//      size and staging threads; on pinned buffers, CPU alone, GPU alone, hybrid and
//      the two side by side (what a split of a pinned job can reach);
//   2. AES-128-CTR, AES-256-GCM, ChaCha20-Poly1305: GPU alone (cuda:0) as a fraction
//      of the NO-OP ceiling (the two taking turns call by call); hybrid (once it has tried
//      its arms) as a fraction of CPU alone + GPU alone; every GPU (cuda:all) beside one;
//      the CPU core-seconds per GB the GPU-only path spends (getrusage: user + system
//      time of the whole process);
//      2b. the CPU and the GPU side by side on separate buffers (what a split can reach);
//      2c. every job split, by the engine's scheduling chunk (4, 16, 64 MiB);
//   3. the CPU-alone threshold: the smallest job size from which the hybrid engine
//      (threshold off, job cut in about 8 chunks) beats the CPU alone, and stays ahead;
//   4. a 4 KiB job against OpenSSL EVP on one core (key set up once, the same call
//      shape), nanoseconds per job, layer by layer: the CPU backend and an engine over
//      one CPU worker (the hybrid's small-job path, measurable without a GPU) called
//      directly, then through the C API, then the default context ("auto").
//
//   engine_bench [--json FILE | FILE] [--size BYTES] [--seconds S] [--quick] [--smoke]
//                [--small-only] [--repeat N] [--small-size BYTES]
//
// Markdown on stdout, JSON to FILE. GB = 1e9 bytes. Runs with or without GPUs
// (GPU rows say why they are missing), on one GPU or several (cuda:all).
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "capi/capi_internal.h"
#include "catalog/catalog.h"
#include "engine/engine_backend.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_pipeline.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;

double now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

double process_cpu_seconds() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * double(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

struct Args {
    size_t size = size_t(1) << 30;
    double seconds = 0.5;  // per point; the whole default run fits run_all.sh's 60 s per program
    std::string json = "engine_bench.json";
    bool quick = false;
    bool smoke = false;
    bool small_only = false;  // section 4 alone
    int repeat = 5;           // section 4: rounds, the median is reported
    size_t small_size = 4096; // section 4: bytes per job
};

// ---- JSON, written by hand (flat enough) ------------------------------------------

struct Json {
    std::string s = "{";
    bool first = true;
    void key(const std::string& k) {
        if (!first) s += ",";
        first = false;
        s += "\n  \"" + k + "\": ";
    }
    void num(const std::string& k, double v) {
        key(k);
        char b[64];
        std::snprintf(b, sizeof b, "%.6g", v);
        s += b;
    }
    void str(const std::string& k, const std::string& v) {
        key(k);
        s += "\"";
        for (char c : v) {
            if (c == '"' || c == '\\') s += '\\';
            if (c == '\n') { s += "\\n"; continue; }
            s += c;
        }
        s += "\"";
    }
};

// ---- contexts -----------------------------------------------------------------------

struct Ctx {
    bc_context* ctx = nullptr;
    std::string label, why;
    explicit operator bool() const { return ctx != nullptr; }
    Ctx() = default;
    Ctx(const char* device, const char* label_) : label(label_) {
        if (bc_context_create(device, nullptr, &ctx) != BC_OK) {
            why = bc_last_error();
            ctx = nullptr;
        }
    }
    // An engine built here (for the threshold study).
    Ctx(std::unique_ptr<bc::Backend> b, const char* label_) : label(label_) {
        ctx = new bc_context();
        ctx->device = label_;
        ctx->backend = std::move(b);
    }
    Ctx(Ctx&& o) noexcept : ctx(o.ctx), label(std::move(o.label)), why(std::move(o.why)) { o.ctx = nullptr; }
    ~Ctx() { bc_context_destroy(ctx); }
};

struct Rate {
    bool ok = false;
    double gbps = 0;
    double cpu_s_per_gb = 0;   // process CPU time per GB moved
    std::string why;
};

// One job of `alg` on a context, its key made once, run as often as asked.
struct JobRunner {
    bc_algorithm_info info{};
    bc_key* k = nullptr;
    const uint8_t* in;
    uint8_t* out;
    size_t len;
    std::string why;  // empty: ready
    uint8_t iv[32] = {7}, tag[16] = {};
    JobRunner(bc_context* ctx, const char* alg, const uint8_t* i, uint8_t* o, size_t n) : in(i), out(o), len(n) {
        if (!ctx) {
            why = "no context";
            return;
        }
        if (bc_algorithm_query(alg, &info) != BC_OK) {
            why = bc_last_error();
            return;
        }
        std::vector<uint8_t> key(info.key_size, 0x42);
        if (bc_key_create(ctx, alg, key.data(), key.size(), &k) != BC_OK) why = bc_last_error();
    }
    ~JobRunner() {
        if (k) bc_key_destroy(k);
    }
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;
    // One call; false (why set) on failure.
    bool once() {
        size_t n = 0;
        const bc_status st = info.kind == BC_KIND_AEAD
                                 ? bc_aead_seal_detached(k, iv, info.iv_size, nullptr, 0, in, len, out, tag, 16, nullptr)
                                 : bc_encrypt(k, iv, info.iv_size, in, len, out, len, &n, nullptr);
        if (st != BC_OK) why = bc_last_error();
        return st == BC_OK;
    }
};

// Repeats the job until `seconds` have passed (at least 3 times, after one warm-up).
Rate measure(bc_context* ctx, const char* alg, const uint8_t* in, uint8_t* out, size_t len, double seconds) {
    Rate r;
    JobRunner job(ctx, alg, in, out, len);
    if (!job.why.empty() || !job.once()) {
        r.why = job.why;
        return r;
    }
    const double c0 = process_cpu_seconds(), t0 = now();
    size_t reps = 0;
    double t = t0;
    while (reps < 3 || t - t0 < seconds) {
        if (!job.once()) {
            r.why = job.why;
            return r;
        }
        ++reps;
        t = now();
    }
    const double gb = double(reps) * double(len) / 1e9;
    r.ok = true;
    r.gbps = gb / (t - t0);
    r.cpu_s_per_gb = (process_cpu_seconds() - c0) / gb;
    return r;
}

// The hybrid in its steady state: an untimed run of the same length first, in which it tries
// its arms (EngineOptions::split_policy: CPU alone, GPUs alone, split) and learns their rates,
// then the stats reset and the timed run. A user moving terabytes sees this rate; measured from
// a fresh engine, ~12 one-GiB jobs include the tries (bench/notes/engine-host-memory.md).
Rate measure_settled(bc_context* ctx, const char* alg, const uint8_t* in, uint8_t* out, size_t len, double seconds) {
    const Rate learning = measure(ctx, alg, in, out, len, seconds);
    if (!learning.ok) return learning;
    bc::engine_reset_stats(*ctx->backend);
    return measure(ctx, alg, in, out, len, seconds);
}

// Two jobs on one context and the same buffers taking turns, call by call, until each has
// run `seconds` (at least 3 calls each, after a warm-up each): the pageable bandwidth of the
// H100 host wanders by ~15 % between measurements, so a ratio of two rates (GPU alone
// against the NO-OP ceiling) is taken from calls made under the same conditions.
std::pair<Rate, Rate> measure_turns(bc_context* ctx, const char* alg_a, const char* alg_b, const uint8_t* in,
                                    uint8_t* out, size_t len, double seconds) {
    std::pair<Rate, Rate> r;
    JobRunner a(ctx, alg_a, in, out, len), b(ctx, alg_b, in, out, len);
    if (!a.why.empty() || !a.once()) r.first.why = a.why;
    if (!b.why.empty() || !b.once()) r.second.why = b.why;
    if (!r.first.why.empty() || !r.second.why.empty()) return r;
    double ta = 0, tb = 0, ca = 0, cb = 0;
    size_t reps = 0;
    while (reps < 3 || ta < seconds || tb < seconds) {
        for (int which = 0; which < 2; ++which) {
            JobRunner& j = which ? b : a;
            const double c0 = process_cpu_seconds(), t0 = now();
            if (!j.once()) {
                (which ? r.second : r.first).why = j.why;
                return r;
            }
            (which ? tb : ta) += now() - t0;
            (which ? cb : ca) += process_cpu_seconds() - c0;
        }
        ++reps;
    }
    const double gb = double(reps) * double(len) / 1e9;
    r.first = {true, gb / ta, ca / gb, ""};
    r.second = {true, gb / tb, cb / gb, ""};
    return r;
}

// Parallel memcpy with t threads: the host-memory roof of staging and of the CPU path.
double memcpy_gbps(uint8_t* dst, const uint8_t* src, size_t len, unsigned t, double seconds) {
    auto run = [&] {
        std::vector<std::thread> th;
        const size_t piece = (len + t - 1) / t;
        for (unsigned i = 0; i < t; ++i)
            th.emplace_back([&, i] {
                const size_t at = i * piece;
                if (at < len) std::memcpy(dst + at, src + at, std::min(piece, len - at));
            });
        for (auto& x : th) x.join();
    };
    run();
    const double t0 = now();
    size_t reps = 0;
    while (reps < 3 || now() - t0 < seconds) run(), ++reps;
    return double(reps) * double(len) / 1e9 / (now() - t0);
}

double median(std::vector<double> v) {
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// One way of running a job, timed by small_jobs.
struct Timed {
    const char* label;
    const char* key;  // JSON
    std::function<void()> once;
    std::vector<double> ns;  // one figure per round
};

// One round of section 4: after 1000 warm-up calls each, the rows take turns in
// batches of 100 calls (a few hundred microseconds) until each has run about
// `seconds`; a row's figure is its median batch in ns per call. Turns that short
// put every row under the same load from the rest of a shared machine, and the
// median drops the batches a preemption hit.
void time_round(std::vector<Timed>& rows, double seconds) {
    for (Timed& r : rows)
        for (int i = 0; i < 1000; ++i) r.once();
    std::vector<std::vector<double>> batches(rows.size());
    const double t_end = now() + seconds * double(rows.size());
    while (batches[0].size() < 10 || now() < t_end) {
        for (size_t k = 0; k < rows.size(); ++k) {
            const double t0 = now();
            for (int i = 0; i < 100; ++i) rows[k].once();
            batches[k].push_back((now() - t0) * 1e9 / 100);
        }
    }
    for (size_t k = 0; k < rows.size(); ++k) rows[k].ns.push_back(median(batches[k]));
}

// A job's input and output, each 64-byte aligned: malloc gives 16, and which rows' buffers
// then split cache lines (a 64-byte vector load or store over two lines) is luck that
// moves a row by a few percent on AVX-512 hosts. Every row gets the same alignment.
struct JobBuffers {
    std::vector<uint8_t> in_store, out_store;
    uint8_t *in = nullptr, *out = nullptr;
    explicit JobBuffers(size_t n) : in_store(n + 64, 1), out_store(n + 16 + 64) {
        in = align64(in_store.data());
        out = align64(out_store.data());
    }
    static uint8_t* align64(uint8_t* p) { return p + ((64 - (reinterpret_cast<uintptr_t>(p) & 63)) & 63); }
};

// OpenSSL EVP on this thread, the baseline of section 4: one context keyed once
// (as bulkcrypt's keys are); per job: the IV, one update, final, and for AEADs
// the 16-byte tag. Out of place, the same buffers' shape as the bulkcrypt rows.
struct EvpJob {
    EVP_CIPHER* cipher = nullptr;
    EVP_CIPHER_CTX* ctx = nullptr;
    bool aead = false;
    size_t len = 0;
    uint8_t key[32] = {0x42}, iv[16] = {7}, tag[16] = {};
    JobBuffers buf;
    EvpJob(const char* alg, size_t n) : len(n), buf(n) {
        const char* name = std::strcmp(alg, "aes-128-ctr") == 0   ? "AES-128-CTR"
                           : std::strcmp(alg, "aes-256-gcm") == 0 ? "AES-256-GCM"
                                                                  : "ChaCha20-Poly1305";
        aead = std::strcmp(alg, "aes-128-ctr") != 0;
        cipher = EVP_CIPHER_fetch(nullptr, name, nullptr);
        ctx = EVP_CIPHER_CTX_new();
        EVP_EncryptInit_ex2(ctx, cipher, key, iv, nullptr);
    }
    ~EvpJob() {
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(cipher);
    }
    void once() {
        int l = 0;
        EVP_EncryptInit_ex2(ctx, nullptr, nullptr, iv, nullptr);
        EVP_EncryptUpdate(ctx, buf.out, &l, buf.in, int(len));
        EVP_EncryptFinal_ex(ctx, buf.out + l, &l);
        if (aead) EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    }
};

// One bulkcrypt key and its buffers; once() is one job through the C API,
// backend_once() the same job handed to the context's backend directly (what is
// left once the C API's checks are taken away).
struct BcJob {
    bc_algorithm_info info{};
    bc_key* key = nullptr;
    size_t len = 0;
    uint8_t iv[32] = {7}, tag[16] = {};
    JobBuffers buf;
    BcJob(bc_context* ctx, const char* alg, size_t n) : len(n), buf(n) {
        bc_algorithm_query(alg, &info);
        std::vector<uint8_t> k(info.key_size, 0x42);
        if (bc_key_create(ctx, alg, k.data(), k.size(), &key) != BC_OK) key = nullptr;
    }
    ~BcJob() { bc_key_destroy(key); }
    explicit operator bool() const { return key != nullptr; }
    void once() {
        size_t n = 0;
        const bc_status st =
            info.kind == BC_KIND_AEAD
                ? bc_aead_seal_detached(key, iv, info.iv_size, nullptr, 0, buf.in, len, buf.out, tag, 16, nullptr)
                : bc_encrypt(key, iv, info.iv_size, buf.in, len, buf.out, len, &n, nullptr);
        failures += st != BC_OK;
    }
    void backend_once() {
        bc::Backend& b = *key->ctx->backend;
        if (info.kind == BC_KIND_AEAD) {
            failures += !b.aead_oneshot(key->material, *key->backend_key, bc::Dir::Encrypt, iv, info.iv_size, nullptr,
                                        0, buf.in, buf.out, len, tag, 16, BC_MEMORY_HOST)
                             .is_ok();
            return;
        }
        bc::CipherOp op;
        op.iv = iv;
        op.iv_len = info.iv_size;
        op.in = buf.in;
        op.out = buf.out;
        op.len = len;
        failures += !b.cipher(key->material, *key->backend_key, op).is_ok();
    }
    size_t failures = 0;  // calls that did not succeed (a row with any is not a measurement)
};

std::string gb(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}
std::string pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * v);
    return b;
}
std::string human(size_t n) {
    char b[32];
    if (n >= (size_t(1) << 30) && n % (size_t(1) << 30) == 0) std::snprintf(b, sizeof b, "%zu GiB", n >> 30);
    else if (n >= (size_t(1) << 20)) std::snprintf(b, sizeof b, "%.3g MiB", double(n) / double(1 << 20));
    else std::snprintf(b, sizeof b, "%zu KiB", n >> 10);
    return b;
}

// The hybrid's arms (EngineOptions::split_policy) over its jobs since the last
// engine_reset_stats: into the JSON under prefix k, and as "n of jobs" cells for the
// CPU alone and the GPUs alone ("-" when the engine ran no job).
std::pair<std::string, std::string> arm_counts(const bc::Backend& hb, Json& j, const std::string& k) {
    bc::EngineStats es;
    if (!bc::engine_stats(hb, &es) || !es.jobs) return {"-", "-"};
    j.num(k + "cpu_alone_jobs", double(es.cpu_alone_jobs));
    j.num(k + "gpus_alone_jobs", double(es.gpus_alone_jobs));
    j.num(k + "jobs", double(es.jobs));
    const std::string of = " of " + std::to_string(es.jobs);
    return {std::to_string(es.cpu_alone_jobs) + of, std::to_string(es.gpus_alone_jobs) + of};
}

// Sections 1 to 3: roofs, throughput of a.size-byte jobs, the CPU-alone threshold.
void large_jobs(const Args& a, unsigned hw, int ngpu, Json& j) {
    // Pageable buffers, touched before timing (first-touch faults stay out of the figures).
    std::vector<uint8_t> in(a.size), out(a.size);
    RAND_bytes(in.data(), int(std::min<size_t>(a.size, size_t(1) << 20)));
    for (size_t i = size_t(1) << 20; i < a.size; i += 4096) in[i] = uint8_t(i >> 12);
    std::memset(out.data(), 0, out.size());

    // ---- 1. roofs ----
    const double mc1 = memcpy_gbps(out.data(), in.data(), a.size, 1, a.seconds);
    const double mcn = memcpy_gbps(out.data(), in.data(), a.size, hw, a.seconds);
    j.num("roof_memcpy_1thread_gbps", mc1);
    j.num("roof_memcpy_all_threads_gbps", mcn);
    std::printf("## Roofs\n\n| roof | GB/s |\n| --- | ---: |\n| host memcpy, 1 thread | %s |\n"
                "| host memcpy, %u threads | %s |\n",
                gb(mc1).c_str(), hw, gb(mcn).c_str());

    std::map<std::string, Ctx> ctxs;
    ctxs.emplace("cpu", Ctx("cpu", "cpu"));
    ctxs.emplace("gpu", Ctx("cuda:0", "cuda:0"));
    ctxs.emplace("hybrid", Ctx("hybrid", "hybrid"));
    {  // the hybrid as it was before the choice of arm: every job split
        bc::EngineOptions eo;
        eo.split_policy = bc::EngineOptions::SplitPolicy::Split;
        std::unique_ptr<bc::Backend> b;
        if (ngpu > 0 && bc::make_device_engine(true, bc::ContextOptions(), &b, &eo).is_ok())
            ctxs.emplace("split", Ctx(std::move(b), "hybrid-split"));
        else
            ctxs.emplace("split", Ctx());
    }
    if (ngpu > 1) ctxs.emplace("all", Ctx("cuda:all", "cuda:all"));
    const bool have_gpu = bool(ctxs["gpu"]);
    if (!have_gpu) std::printf("| GPU rows | skipped: %s |\n", ctxs["gpu"].why.c_str());

    // One path's rate while another runs whole jobs of its own on other buffers (sections 1 and
    // 2b): the other starts first and runs 1.6x as long, so it runs through all of the figure.
    auto beside = [&](Ctx& fg, const uint8_t* fin, uint8_t* fout, Ctx& bg, const uint8_t* bin, uint8_t* bout,
                      const char* alg) {
        Rate background;
        std::thread t([&] { background = measure(bg.ctx, alg, bin, bout, a.size, 1.6 * a.seconds); });
        std::this_thread::sleep_for(std::chrono::duration<double>(0.2 * a.seconds));  // key set-up, warm-up
        Rate r = measure(fg.ctx, alg, fin, fout, a.size, a.seconds);
        t.join();
        return background.ok ? r : background;  // a failure on either side shows as the figure's error
    };

    // NO-OP ceilings through the contexts (pageable memory): the same path as the ciphers.
    Rate noop_gpu, noop_all;
    if (have_gpu) {
        noop_gpu = measure(ctxs["gpu"].ctx, "noop", in.data(), out.data(), a.size, a.seconds);
        j.num("noop_cuda0_gbps", noop_gpu.gbps);
        std::printf("| NO-OP through cuda:0 (upload + download, no kernel) | %s |\n", gb(noop_gpu.gbps).c_str());
        if (ngpu > 1) {
            noop_all = measure(ctxs["all"].ctx, "noop", in.data(), out.data(), a.size, a.seconds);
            j.num("noop_cuda_all_gbps", noop_all.gbps);
            std::printf("| NO-OP through cuda:all (%d GPUs) | %s |\n", ngpu, gb(noop_all.gbps).c_str());
        }
    }
#if defined(BC_HAVE_CUDA)
    if (have_gpu) {
        // The pipeline itself: NB x chunk x staging threads, pageable and pinned.
        std::printf("\n### NO-OP pipeline sweep (cuda:0, `run_host_pipeline`)\n\n"
                    "| buffers | NB | chunk | staging threads | GB/s |\n| --- | ---: | ---: | ---: | ---: |\n");
        auto nothing = [](uint8_t*, uint8_t*, size_t, size_t, cudaStream_t, uint8_t*) { return bc::Status::ok(); };
        auto time_pipe = [&](bc::cuda::HostPipeline& p, const uint8_t* src, uint8_t* dst, size_t chunk, int nb) {
            if (!p.run(src, dst, a.size, chunk, nb, nothing).is_ok()) return -1.0;
            const double t0 = now();
            size_t reps = 0;
            while (reps < 3 || now() - t0 < a.seconds) {
                if (!p.run(src, dst, a.size, chunk, nb, nothing).is_ok()) return -1.0;
                ++reps;
            }
            return double(reps) * double(a.size) / 1e9 / (now() - t0);
        };
        double best = 0;
        std::string best_cfg;
        std::vector<unsigned> thread_counts = {1, 2, 4, 8, 16};
        std::vector<int> nbs = {1, 2, 4, 8};
        std::vector<size_t> chunks = {size_t(2) << 20, size_t(8) << 20, size_t(32) << 20};
        if (a.quick) thread_counts = {bc::cuda::default_host_threads()}, nbs = {1, 4}, chunks = {size_t(8) << 20};
        for (unsigned t : thread_counts) {
            bc::cuda::HostPipeline p(0, t);
            for (int nb : nbs)
                for (size_t ch : chunks) {
                    if (t != bc::cuda::default_host_threads() && (nb != 4 || ch != (size_t(8) << 20))) continue;
                    const double r = time_pipe(p, in.data(), out.data(), ch, nb);
                    std::printf("| pageable | %d | %s | %u | %s |\n", nb, human(ch).c_str(), t, gb(r).c_str());
                    j.num("pipe_pageable_nb" + std::to_string(nb) + "_chunk" + std::to_string(ch >> 20) + "m_t" +
                              std::to_string(t) + "_gbps",
                          r);
                    if (r > best) best = r, best_cfg = "NB " + std::to_string(nb) + ", " + human(ch) + ", " +
                                                       std::to_string(t) + " threads";
                }
        }
        // Pinned user buffers: no staging, the PCIe roof.
        uint8_t *pin_in = nullptr, *pin_out = nullptr, *pin_in2 = nullptr, *pin_out2 = nullptr;
        if (cudaMallocHost(reinterpret_cast<void**>(&pin_in), a.size) == cudaSuccess &&
            cudaMallocHost(reinterpret_cast<void**>(&pin_out), a.size) == cudaSuccess) {
            std::memcpy(pin_in, in.data(), a.size);
            // a second pinned pair for the side-by-side rows (without it those rows say so)
            if (cudaMallocHost(reinterpret_cast<void**>(&pin_in2), a.size) != cudaSuccess ||
                cudaMallocHost(reinterpret_cast<void**>(&pin_out2), a.size) != cudaSuccess) {
                (void)cudaGetLastError();
                if (pin_in2) cudaFreeHost(pin_in2);
                pin_in2 = nullptr;
            } else {
                std::memcpy(pin_in2, in.data(), a.size);
            }
            bc::cuda::HostPipeline p(0);
            for (int nb : {1, 2, 4, 8}) {
                const double r = time_pipe(p, pin_in, pin_out, size_t(8) << 20, nb);
                std::printf("| pinned | %d | 8 MiB | - | %s |\n", nb, gb(r).c_str());
                j.num("pipe_pinned_nb" + std::to_string(nb) + "_gbps", r);
            }
            // Pinned figures through the backend (NO-OP, then AES-128-CTR): what registered buffers get.
            Rate pr = measure(ctxs["gpu"].ctx, "noop", pin_in, pin_out, a.size, a.seconds);
            Rate pc = measure(ctxs["gpu"].ctx, "aes-128-ctr", pin_in, pin_out, a.size, a.seconds);
            std::printf("| pinned, through cuda:0: NO-OP / AES-128-CTR | default | default | - | %s / %s |\n",
                        gb(pr.gbps).c_str(), gb(pc.gbps).c_str());
            j.num("noop_cuda0_pinned_gbps", pr.gbps);
            j.num("ctr_cuda0_pinned_gbps", pc.gbps);
            // The hybrid on pinned buffers: the GPU costs one DMA pass of host memory per
            // byte instead of three (bench/notes/engine-host-memory.md).
            for (const char* alg : {"aes-128-ctr", "aes-256-gcm"}) {
                Rate c = measure(ctxs["cpu"].ctx, alg, pin_in, pin_out, a.size, a.seconds);
                Rate g = measure(ctxs["gpu"].ctx, alg, pin_in, pin_out, a.size, a.seconds);
                Rate h = measure_settled(ctxs["hybrid"].ctx, alg, pin_in, pin_out, a.size, a.seconds);
                std::printf("| pinned, %s: CPU alone / cuda:0 / hybrid (hybrid / sum) | default | default | - | "
                            "%s / %s / %s (%s) |\n",
                            alg, gb(c.gbps).c_str(), gb(g.gbps).c_str(), gb(h.gbps).c_str(),
                            pct(h.gbps / (c.gbps + g.gbps)).c_str());
                const std::string k = std::string(alg) + "_pinned_";
                j.num(k + "cpu_gbps", c.gbps);
                j.num(k + "gpu_gbps", g.gbps);
                j.num(k + "hybrid_gbps", h.gbps);
                arm_counts(*ctxs["hybrid"].ctx->backend, j, k + "hybrid_");  // JSON only: the row keeps its shape
                // What any split of a pinned job can reach here: each path on its own pinned
                // buffers while the other runs (as section 2b does for pageable ones).
                if (!pin_in2) {
                    std::printf("| pinned, %s: side by side | - | - | - | skipped: no second pinned pair of %s |\n",
                                alg, human(a.size).c_str());
                    continue;
                }
                const Rate cb = beside(ctxs["cpu"], pin_in, pin_out, ctxs["gpu"], pin_in2, pin_out2, alg);
                const Rate gb2 = beside(ctxs["gpu"], pin_in2, pin_out2, ctxs["cpu"], pin_in, pin_out, alg);
                const double frac = (cb.gbps + gb2.gbps) / (c.gbps + g.gbps);
                std::printf("| pinned, %s: CPU beside cuda:0 / cuda:0 beside CPU (side by side / sum) | default | "
                            "default | - | %s / %s (%s) |\n",
                            alg, cb.ok ? gb(cb.gbps).c_str() : cb.why.c_str(),
                            gb2.ok ? gb(gb2.gbps).c_str() : gb2.why.c_str(), pct(frac).c_str());
                j.num(k + "cpu_beside_gpu_gbps", cb.ok ? cb.gbps : -1);
                j.num(k + "gpu_beside_cpu_gbps", gb2.ok ? gb2.gbps : -1);
                j.num(k + "side_by_side_fraction_of_sum", cb.ok && gb2.ok ? frac : -1);
            }
        }
        if (pin_in) cudaFreeHost(pin_in);
        if (pin_out) cudaFreeHost(pin_out);
        if (pin_in2) cudaFreeHost(pin_in2);
        if (pin_out2) cudaFreeHost(pin_out2);
        // The backend's own path (pageable), AES-128-CTR and NO-OP, against NB.
        for (int nb : {1, 2, 4, 8}) {
            bc::cuda::shared_host_pipeline(0).set_defaults(0, nb);
            Rate rn = measure(ctxs["gpu"].ctx, "noop", in.data(), out.data(), a.size, a.seconds);
            Rate rc = measure(ctxs["gpu"].ctx, "aes-128-ctr", in.data(), out.data(), a.size, a.seconds);
            std::printf("| pageable, through cuda:0: NO-OP / AES-128-CTR | %d | default | default | %s / %s |\n", nb,
                        gb(rn.gbps).c_str(), gb(rc.gbps).c_str());
            j.num("backend_nb" + std::to_string(nb) + "_noop_gbps", rn.gbps);
            j.num("backend_nb" + std::to_string(nb) + "_ctr_gbps", rc.gbps);
        }
        bc::cuda::shared_host_pipeline(0).set_defaults(0, 0);
        std::printf("\nbest pageable configuration: %s (%s GB/s); defaults: NB %d, %s, %u threads\n", best_cfg.c_str(),
                    gb(best).c_str(), bc::cuda::kPipelineDefaultDepth, human(bc::cuda::kPipelineDefaultChunk).c_str(),
                    bc::cuda::default_host_threads());
        j.str("pipe_best_pageable", best_cfg);
    }
#endif

    // ---- 2. the three algorithms ----
    const char* algs[] = {"aes-128-ctr", "aes-256-gcm", "chacha20-poly1305"};
    std::printf("\n## Throughput (%s jobs, pageable host memory)\n\n"
                "| algorithm | CPU alone | GPU alone | GPU / NO-OP | hybrid | hybrid / (CPU + GPU) | "
                "hybrid jobs on the CPU alone | hybrid jobs on the GPUs alone | hybrid, every job split | cuda:all | "
                "GPU path CPU core-s/GB |\n"
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                human(a.size).c_str());
    std::map<std::string, std::pair<double, double>> alone_rates;  // CPU alone, GPU alone: section 2b
    for (const char* alg : algs) {
        const std::string k = alg;
        Rate cpu = measure(ctxs["cpu"].ctx, alg, in.data(), out.data(), a.size, a.seconds);
        Rate gpu, hyb, split, all, noop_again;
        std::pair<std::string, std::string> alone = {"-", "-"};  // hybrid jobs on the CPU alone, on the GPUs alone
        if (have_gpu) {
            std::tie(gpu, noop_again) =
                measure_turns(ctxs["gpu"].ctx, alg, "noop", in.data(), out.data(), a.size, a.seconds);
            bc::Backend& hb = *ctxs["hybrid"].ctx->backend;
            hyb = measure_settled(ctxs["hybrid"].ctx, alg, in.data(), out.data(), a.size, a.seconds);
            alone = arm_counts(hb, j, k + "_hybrid_");
            split = measure_settled(ctxs["split"].ctx, alg, in.data(), out.data(), a.size, a.seconds);
            if (ngpu > 1) all = measure(ctxs["all"].ctx, alg, in.data(), out.data(), a.size, a.seconds);
        }
        // the NO-OP of the same turns (section 1's figure when those failed)
        const double ceiling = noop_again.ok ? noop_again.gbps : noop_gpu.gbps;
        alone_rates[k] = {cpu.gbps, gpu.gbps};
        j.num(k + "_cpu_gbps", cpu.gbps);
        if (have_gpu) {
            j.num(k + "_gpu_gbps", gpu.gbps);
            j.num(k + "_noop_ceiling_gbps", ceiling);
            j.num(k + "_gpu_fraction_of_noop", gpu.gbps / ceiling);
            j.num(k + "_hybrid_gbps", hyb.gbps);
            j.num(k + "_hybrid_fraction_of_sum", hyb.gbps / (cpu.gbps + gpu.gbps));
            j.num(k + "_hybrid_split_gbps", split.gbps);
            j.num(k + "_gpu_cpu_core_seconds_per_gb", gpu.cpu_s_per_gb);
            if (ngpu > 1) j.num(k + "_cuda_all_gbps", all.gbps);
            if (!gpu.ok) j.str(k + "_gpu_error", gpu.why);
            if (!hyb.ok) j.str(k + "_hybrid_error", hyb.why);
        }
        std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", alg,
                    cpu.ok ? gb(cpu.gbps).c_str() : cpu.why.c_str(),
                    have_gpu ? (gpu.ok ? gb(gpu.gbps).c_str() : gpu.why.c_str()) : "-",
                    have_gpu ? pct(gpu.gbps / ceiling).c_str() : "-",
                    have_gpu ? (hyb.ok ? gb(hyb.gbps).c_str() : hyb.why.c_str()) : "-",
                    have_gpu ? pct(hyb.gbps / (cpu.gbps + gpu.gbps)).c_str() : "-", alone.first.c_str(),
                    alone.second.c_str(),
                    have_gpu ? (split.ok ? gb(split.gbps).c_str() : split.why.c_str()) : "-",
                    ngpu > 1 ? gb(all.gbps).c_str() : "-", have_gpu ? gb(gpu.cpu_s_per_gb).c_str() : "-");
    }
    std::printf("\nTargets: GPU alone >= 90%% of NO-OP; hybrid >= 85%% of CPU + GPU (else see the memcpy roof: "
                "staging and the CPU path share host memory). The hybrid is timed after an untimed run of the "
                "same length in which it tries its arms; its job counts are those of the timed run.\n");

    // ---- 2b. the CPU and the GPU side by side ----
    // The most any split of one job can reach on this host: each path runs whole jobs on its
    // own buffers while the other runs too. Each figure is taken while the other path runs
    // through all of it (the other starts first and runs 1.6x as long), once per side.
    if (have_gpu) {
        std::printf("\n### CPU and GPU side by side (%s jobs each, separate pageable buffers)\n\n"
                    "What limits the hybrid: if the two paths running at once sum to less than 85 %% of their "
                    "rates alone, the host's cores or memory do, not the engine's scheduling.\n\n"
                    "| algorithm | CPU alone | GPU alone | CPU while the GPU runs | GPU while the CPU runs | "
                    "side by side / (CPU + GPU) |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
                    human(a.size).c_str());
        std::vector<uint8_t> in2(in), out2(a.size, 0);
        for (const char* alg : algs) {
            const std::string k = alg;
            const Rate c = beside(ctxs["cpu"], in.data(), out.data(), ctxs["gpu"], in2.data(), out2.data(), alg);
            const Rate g = beside(ctxs["gpu"], in2.data(), out2.data(), ctxs["cpu"], in.data(), out.data(), alg);
            const auto [ca, ga] = alone_rates[k];
            const double frac = (c.gbps + g.gbps) / (ca + ga);
            std::printf("| %s | %s | %s | %s | %s | %s |\n", alg, gb(ca).c_str(), gb(ga).c_str(),
                        c.ok ? gb(c.gbps).c_str() : c.why.c_str(), g.ok ? gb(g.gbps).c_str() : g.why.c_str(),
                        pct(frac).c_str());
            j.num(k + "_cpu_beside_gpu_gbps", c.ok ? c.gbps : -1);
            j.num(k + "_gpu_beside_cpu_gbps", g.ok ? g.gbps : -1);
            j.num(k + "_side_by_side_fraction_of_sum", c.ok && g.ok ? frac : -1);
        }
    }

    // ---- 2c. the forced split by scheduling chunk ----
    // Side by side beats every split on the H100 host (ChaCha20-Poly1305: 18.5 against 15.4
    // GB/s, bench/notes/engine-host-memory.md). Suspect: the guided grabs shrink to single chunks near a job's end,
    // and each GPU piece pays its pipeline's fill and drain. Larger chunks make fewer, larger
    // pieces: if the split gains with them, the pieces are the cause.
    if (have_gpu && !a.quick) {
        const size_t chunks[] = {size_t(4) << 20, size_t(16) << 20, size_t(64) << 20};
        std::printf("\n### Every job split, by the engine's scheduling chunk (%s jobs, pageable, settled)\n\n"
                    "| algorithm | 4 MiB | 16 MiB | 64 MiB |\n| --- | ---: | ---: | ---: |\n",
                    human(a.size).c_str());
        for (const char* alg : algs) {
            std::string row = std::string("| ") + alg;
            for (size_t c : chunks) {
                bc::EngineOptions eo;
                eo.split_policy = bc::EngineOptions::SplitPolicy::Split;
                eo.chunk = c;
                std::unique_ptr<bc::Backend> b;
                Rate r;
                if (bc::make_device_engine(true, bc::ContextOptions(), &b, &eo).is_ok()) {
                    Ctx sc(std::move(b), "split-chunk");
                    r = measure_settled(sc.ctx, alg, in.data(), out.data(), a.size, a.seconds);
                } else {
                    r.why = "no engine";
                }
                row += " | " + (r.ok ? gb(r.gbps) : r.why);
                j.num(std::string(alg) + "_split_chunk_" + std::to_string(c >> 20) + "mib_gbps", r.ok ? r.gbps : -1);
            }
            std::printf("%s |\n", row.c_str());
        }
    }

    // ---- 3. the CPU-alone threshold ----
    std::printf("\n## CPU-alone threshold (hybrid with the threshold off, jobs cut in ~8 chunks)\n\n");
    if (!have_gpu) {
        std::printf("skipped: no CUDA device (the threshold is where the GPU starts to help)\n");
        j.str("threshold", "skipped: no CUDA device");
    } else {
        std::printf("| algorithm | size | CPU GB/s | hybrid GB/s |\n| --- | ---: | ---: | ---: |\n");
        size_t overall = 0;
        for (const char* alg : algs) {
            size_t cross = 0;
            for (size_t s = size_t(64) << 10; s <= std::min<size_t>(a.size, size_t(256) << 20); s *= 2) {
                bc::EngineOptions eo;
                eo.cpu_threshold = 0;
                eo.chunk = std::max<size_t>(s / 8 / 64 * 64, 64);
                std::unique_ptr<bc::Backend> e;
                bc::ContextOptions co;
                if (!bc::make_device_engine(true, co, &e, &eo).is_ok()) break;
                Ctx h(std::move(e), "hybrid-t0");
                const double sec = std::max(0.05, a.seconds / 4);
                Rate c = measure(ctxs["cpu"].ctx, alg, in.data(), out.data(), s, sec);
                Rate hy = measure(h.ctx, alg, in.data(), out.data(), s, sec);
                std::printf("| %s | %s | %s | %s |\n", alg, human(s).c_str(), gb(c.gbps).c_str(), gb(hy.gbps).c_str());
                if (hy.gbps > c.gbps * 1.05) {
                    if (!cross) cross = s;
                } else {
                    cross = 0;  // must stay ahead from there on
                }
            }
            std::printf("| %s | **crossover** | %s | |\n", alg, cross ? human(cross).c_str() : "none measured");
            j.num(std::string(alg) + "_threshold_bytes", double(cross));
            if (cross) overall = overall ? std::min(overall, cross) : cross;
        }
        std::printf("\nmeasured threshold (smallest crossover): %s; compiled-in default: %s\n",
                    overall ? human(overall).c_str() : "none", human(bc::kEngineDefaultCpuThreshold).c_str());
        j.num("threshold_bytes", double(overall));
    }
    j.num("threshold_default_bytes", double(bc::kEngineDefaultCpuThreshold));
}

// Section 4: a 4 KiB job (a.small_size) on one core, layer by layer, against
// OpenSSL EVP: the median of a.repeat rounds (time_round: the layers take turns
// in short batches). The engine over one CPU worker is the path "auto" takes on
// a GPU host for a small job (the hybrid engine sends it to its CPU worker on
// the calling thread), so it is measured on any machine.
void small_jobs(const Args& a, unsigned hw, Json& j) {
    const size_t len = a.small_size;
    const int rounds = a.smoke ? 1 : std::max(1, a.repeat);
    const double sec = a.smoke ? 0.02 : std::max(0.05, a.seconds / 2);
    const std::string tag = len == 4096 ? "_4k_" : "_" + std::to_string(len) + "b_";  // JSON keys
    std::printf("\n## %zu-byte job on one core, layer by layer, against OpenSSL EVP\n\n"
                "OpenSSL: one context keyed once; per job the IV, one update, final (and the tag). "
                "Each round, the rows take turns in batches of 100 jobs for %.2f s per row and keep their "
                "median batch; the table gives the median of %d rounds.\n\n",
                len, sec, rounds);
    Ctx autoc("auto", "auto");
    Ctx cpuc("cpu", "cpu");
    // The hybrid engine's CPU worker, without the GPUs (make_device_engine gives it every core).
    bc::ContextOptions co;
    co.threads = hw;
    std::unique_ptr<bc::Backend> cpu_worker, engine;
    bc::EngineOptions eo;
    eo.name = "engine(cpu)";
    std::vector<std::unique_ptr<bc::Backend>> workers;
    if (bc::make_cpu_backend(co, &cpu_worker).is_ok()) workers.push_back(std::move(cpu_worker));
    if (workers.empty() || !bc::make_engine_backend(std::move(workers), eo, &engine).is_ok()) engine.reset();
    Ctx enginec = engine ? Ctx(std::move(engine), "engine(cpu)") : Ctx();
    j.str("auto_backend", autoc ? bc_context_backend(autoc.ctx) : autoc.why);

    // The timing thread stays on one core for the section (set after the contexts exist, so
    // their pools keep every core): a migration between two rows' turns would time them on
    // cores of different clocks and caches (the H100 host's OpenSSL row moved 622-982 ns
    // between runs). The section's header names the core.
    cpu_set_t all, one;
    const bool pinned = pthread_getaffinity_np(pthread_self(), sizeof all, &all) == 0 && sched_getcpu() >= 0 &&
                        [&] {
                            CPU_ZERO(&one);
                            CPU_SET(sched_getcpu(), &one);
                            return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
                        }();
    std::printf("timing thread %s\n\n", pinned ? ("pinned to CPU " + std::to_string(sched_getcpu())).c_str()
                                                 : "not pinned (affinity unavailable)");
    j.num("small_jobs_pinned", pinned ? 1 : 0);
    std::printf("| algorithm | layer | ns/job | / OpenSSL |\n| --- | --- | ---: | ---: |\n");
    const char* algs[] = {"aes-128-ctr", "aes-256-gcm", "chacha20-poly1305"};
    bool failed_any = false;
    for (const char* alg : algs) {
        EvpJob evp(alg, len);
        BcJob cpu(cpuc.ctx, alg, len), eng(enginec.ctx, alg, len), aut(autoc.ctx, alg, len);
        std::vector<Timed> rows;
        rows.push_back({"OpenSSL EVP (baseline)", "openssl", [&] { evp.once(); }, {}});
        if (cpu) rows.push_back({"cpu backend, called directly", "cpu_backend", [&] { cpu.backend_once(); }, {}});
        if (eng) rows.push_back({"engine(cpu), called directly", "engine_backend", [&] { eng.backend_once(); }, {}});
        if (cpu) rows.push_back({"C API, \"cpu\"", "capi_cpu", [&] { cpu.once(); }, {}});
        if (eng) rows.push_back({"C API, engine over one CPU worker", "capi_engine", [&] { eng.once(); }, {}});
        if (aut) rows.push_back({"C API, \"auto\"", "bulkcrypt", [&] { aut.once(); }, {}});
        for (int r = 0; r < rounds; ++r) time_round(rows, sec);
        const double base = median(rows[0].ns);
        const size_t failed = cpu.failures + eng.failures + aut.failures;
        failed_any = failed_any || failed;
        for (Timed& row : rows) {
            const double m = failed ? -1 : median(row.ns);
            std::printf("| %s | %s | %.0f | %.2f |\n", alg, row.label, m, m / base);
            j.num(std::string(alg) + tag + row.key + "_ns", m);
        }
    }
    if (pinned) (void)pthread_setaffinity_np(pthread_self(), sizeof all, &all);
    if (failed_any) std::printf("\nSome calls FAILED: the rows of that algorithm read -1.\n");
    std::printf("\nauto = %s. Target: bulkcrypt / OpenSSL <= 1.10 through \"auto\" (on a GPU host: the engine).\n",
                autoc ? bc_context_backend(autoc.ctx) : autoc.why.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    bc::allow_benchmark_algorithms(true);  // "noop": the transfer-only baseline
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        auto next = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "engine_bench: %s needs a value\n", s.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (s == "--json") a.json = next();
        else if (s == "--size") a.size = std::strtoull(next(), nullptr, 10);
        else if (s == "--seconds") a.seconds = std::atof(next());
        else if (s == "--quick") a.quick = true;
        else if (s == "--smoke") a.quick = a.smoke = true;
        else if (s == "--small-only") a.small_only = true;
        else if (s == "--repeat") a.repeat = std::atoi(next());
        else if (s == "--small-size") a.small_size = std::strtoull(next(), nullptr, 10);
        else if (s == "-h" || s == "--help") {
            std::printf("engine_bench [--json FILE | FILE] [--size BYTES] [--seconds S] [--quick] [--smoke]\n"
                        "             [--small-only] [--repeat N] [--small-size BYTES]\n"
                        "  --quick: 64 MiB jobs, 0.2 s per point; --smoke: 16 MiB, 0.05 s (bench/run_all.sh --smoke)\n"
                        "  --small-only: section 4 alone (4 KiB jobs layer by layer); --repeat N: its rounds (5);\n"
                        "  --small-size BYTES: its job size (4096; a tiny job shows each layer's fixed cost)\n");
            return 0;
        } else if (!s.empty() && s[0] != '-') a.json = s;
        else {
            std::fprintf(stderr, "engine_bench: unknown argument %s\n", s.c_str());
            return 2;
        }
    }
    if (a.quick) {
        a.size = std::min<size_t>(a.size, size_t(64) << 20);
        a.seconds = std::min(a.seconds, 0.2);
    }
    if (a.smoke) {
        a.size = std::min<size_t>(a.size, size_t(16) << 20);
        a.seconds = std::min(a.seconds, 0.05);
    }
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const int ngpu = bc::engine_gpu_count();
    Json j;
    j.str("bench", "engine_bench");
    j.num("size_bytes", double(a.size));
    j.num("seconds_per_point", a.seconds);
    j.num("host_threads", hw);
    j.num("gpus", ngpu);

    std::printf("# engine_bench\n\n%u host threads, %d CUDA GPU(s), jobs of %s in pageable host memory, "
                "%.2f s per point. GB = 1e9 bytes.\n\n",
                hw, ngpu, human(a.size).c_str(), a.seconds);

    // ---- 1 to 3. jobs of a.size bytes ----
    if (!a.small_only) large_jobs(a, hw, ngpu, j);

    // ---- 4. 4 KiB jobs ----
    small_jobs(a, hw, j);

    j.s += "\n}\n";
    if (FILE* f = std::fopen(a.json.c_str(), "w")) {
        std::fputs(j.s.c_str(), f);
        std::fclose(f);
        std::printf("\nJSON: %s\n", a.json.c_str());
    } else {
        std::fprintf(stderr, "engine_bench: cannot write %s\n", a.json.c_str());
        return 1;
    }
    return 0;
}
