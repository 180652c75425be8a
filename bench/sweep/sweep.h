// The parts of the benchmark program sweep (bench/sweep/sweep.cpp has its usage and method):
// the JSON value it writes, its configuration and run state, the timing loops, and the
// pieces each part of a run calls (common.cpp, metadata.cpp, roofs.cpp, latency.cpp,
// throughput.cpp).
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <openssl/crypto.h>
#include <unistd.h>

#include "bulkcrypt/bulkcrypt.h"

#include "../openssl_speed.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

namespace sweep {

using Clock = std::chrono::steady_clock;

// SIGTERM or SIGINT (a timeout, a Ctrl-C): stop measuring, write what was measured (sweep.cpp).
extern volatile std::sig_atomic_t g_stop;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---- a small JSON value, insertion-ordered ------------------------------------------

class Json {
public:
    enum class Type { Null, Bool, Int, Num, Str, Arr, Obj };
    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool b) : t_(Type::Bool), b_(b) {}
    Json(int v) : t_(Type::Int), i_(v) {}
    Json(unsigned v) : t_(Type::Int), i_(v) {}
    Json(long v) : t_(Type::Int), i_(v) {}
    Json(unsigned long v) : t_(Type::Int), i_(static_cast<int64_t>(v)) {}
    Json(long long v) : t_(Type::Int), i_(v) {}
    Json(unsigned long long v) : t_(Type::Int), i_(static_cast<int64_t>(v)) {}
    Json(double v) : t_(Type::Num), d_(v) {}
    Json(const char* s) : t_(s ? Type::Str : Type::Null), s_(s ? s : "") {}
    Json(std::string s) : t_(Type::Str), s_(std::move(s)) {}
    static Json array() { Json j; j.t_ = Type::Arr; return j; }
    static Json object() { Json j; j.t_ = Type::Obj; return j; }
    template <class T>
    static Json array_of(const std::vector<T>& v) {
        Json j = array();
        for (const T& x : v) j.push(Json(x));
        return j;
    }

    Json& operator[](const std::string& key) {
        if (t_ == Type::Null) t_ = Type::Obj;
        for (auto& kv : obj_)
            if (kv.first == key) return kv.second;
        obj_.emplace_back(key, Json());
        return obj_.back().second;
    }
    void push(Json v) {
        if (t_ == Type::Null) t_ = Type::Arr;
        arr_.push_back(std::move(v));
    }
    size_t size() const { return t_ == Type::Arr ? arr_.size() : obj_.size(); }

    void dump(std::string& o, int indent, int depth) const {
        const std::string pad(static_cast<size_t>(indent * (depth + 1)), ' ');
        const std::string end_pad(static_cast<size_t>(indent * depth), ' ');
        switch (t_) {
            case Type::Null: o += "null"; break;
            case Type::Bool: o += b_ ? "true" : "false"; break;
            case Type::Int: o += std::to_string(i_); break;
            case Type::Num: {
                if (!std::isfinite(d_)) { o += "null"; break; }
                char buf[40];
                std::snprintf(buf, sizeof buf, "%.6g", d_);
                o += buf;
                break;
            }
            case Type::Str: quote(o, s_); break;
            case Type::Arr: {
                // Arrays of scalars stay on one line: result files stay readable.
                bool flat = std::all_of(arr_.begin(), arr_.end(), [](const Json& j) { return j.t_ < Type::Arr; });
                o += "[";
                for (size_t i = 0; i < arr_.size(); ++i) {
                    if (i) o += ",";
                    if (!flat && indent) o += "\n" + pad;
                    else if (i) o += " ";
                    arr_[i].dump(o, indent, depth + 1);
                }
                if (!flat && indent && !arr_.empty()) o += "\n" + end_pad;
                o += "]";
                break;
            }
            case Type::Obj: {
                o += "{";
                for (size_t i = 0; i < obj_.size(); ++i) {
                    if (i) o += ",";
                    if (indent) o += "\n" + pad;
                    quote(o, obj_[i].first);
                    o += indent ? ": " : ":";
                    obj_[i].second.dump(o, indent, depth + 1);
                }
                if (indent && !obj_.empty()) o += "\n" + end_pad;
                o += "}";
                break;
            }
        }
    }
    std::string dump(int indent = 1) const {
        std::string o;
        dump(o, indent, 0);
        return o;
    }

private:
    static void quote(std::string& o, const std::string& s) {
        o += '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') { o += '\\'; o += static_cast<char>(c); }
            else if (c == '\n') o += "\\n";
            else if (c == '\t') o += "\\t";
            else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
            else o += static_cast<char>(c);
        }
        o += '"';
    }
    Type t_ = Type::Null;
    bool b_ = false;
    int64_t i_ = 0;
    double d_ = 0;
    std::string s_;
    std::vector<Json> arr_;
    std::vector<std::pair<std::string, Json>> obj_;
};

// ---- small helpers (common.cpp) -------------------------------------------------------

std::string trim(std::string s);
// Runs a shell command; its stdout (stderr discarded unless the command redirects it)
// and exit status. rc -1 when it could not start.
std::string run_command(const std::string& cmd, int* rc = nullptr);
std::vector<std::string> split(const std::string& s, char sep);
std::string human_bytes(uint64_t n);
double median(std::vector<double> v);
// Input data is never zeros: xorshift bytes.
void fill_pattern(uint8_t* p, size_t n, uint64_t seed);

// Host buffers, page-aligned, freed with free().
struct HostBuf {
    uint8_t* p = nullptr;
    size_t n = 0;
    HostBuf() = default;
    HostBuf(const HostBuf&) = delete;
    HostBuf& operator=(const HostBuf&) = delete;
    ~HostBuf() { std::free(p); }
    bool alloc(size_t bytes) {
        std::free(p);
        n = bytes;
        p = static_cast<uint8_t*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
        return p != nullptr;
    }
};

// ---- configuration --------------------------------------------------------------------

struct Config {
    std::string mode = "standard";
    uint64_t max_bytes = uint64_t(1) << 30;
    std::vector<std::string> algs;       // empty: the mode's list
    std::vector<std::string> paths;      // empty: every path
    std::vector<std::string> opencl_algs;  // empty: every algorithm on OpenCL paths too
    int runs = 7;
    double batch_s = 0.002;              // one run lasts about this long
    double min_point_s = 0.03;           // and a point at least this long in all
    double point_cap_s = 1.0;
    double budget_s = 420;
    int openssl_seconds = 1;
    bool openssl_all_sizes = false;
    bool openssl = true;
    uint64_t roof_bytes = uint64_t(256) << 20;
    uint64_t scaling_bytes = uint64_t(64) << 20;
    std::string json;
    bool quiet = false;
};

std::vector<std::string> mode_algorithms(const std::string& mode);

// ---- the studies' grids ---------------------------------------------------------------
// pow2:     16 B .. --max, powers of two (the sweep)
// ocl-lib:  4 KiB .. 4 MiB (the OpenCL library study's 4 kB .. 4 MB)
// embedded: 2^4 .. 2^27 B (the embedded-GPU AES study)
// salsa:    1 B .. 1 GB in decades (the Salsa20 study), stream ciphers only
struct SizePoint {
    uint64_t bytes;
    std::vector<std::string> grids;
};

std::vector<SizePoint> sizes_for(const std::string& alg, const bc_algorithm_info& info, uint64_t max_bytes);
// Integer operations per payload byte of the ciphers whose count is simple (0 for the others).
double ops_per_byte(const std::string& alg);

// ---- the state of a run ---------------------------------------------------------------

struct Runner;

struct Path {
    std::string name, device, options, roof;
    bc_memory memory = BC_MEMORY_HOST;
    bool pinned = false;
    bool aes_only = false;
    bc_context* ctx = nullptr;
    std::string device_name, backend;
    std::string status = "ok", reason;
    const char* timer() const { return memory == BC_MEMORY_DEVICE ? "cuda-events" : "steady_clock"; }
};

struct Measured {
    bool ok = false;
    bc_status st = BC_OK;
    std::string error;
    std::vector<double> gbps;     // one per run
    std::vector<double> host_gbps;  // device paths: the same runs on the host clock (a cross-check)
    uint64_t calls_per_run = 0;
    double seconds = 0;           // wall time spent on the point
};

struct Runner {
    Config cfg;
    Clock::time_point start = Clock::now();
    Json out = Json::object();
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::map<std::string, double> roofs;           // flat roofs, GB/s
    std::map<std::string, std::map<uint64_t, double>> curves;  // roof curves per size
    bool cuda_ok = false;
    std::string cuda_reason;
    int cuda_devices = 0;

    HostBuf in, out_buf, ref_out;   // pageable, max size
    uint8_t* pin_in = nullptr;
    uint8_t* pin_out = nullptr;
    uint8_t* dev_in = nullptr;
    uint8_t* dev_out = nullptr;
    void* stream = nullptr;         // cudaStream_t for device-memory calls
    size_t buf_bytes = 0;

    bool over_budget() const { return g_stop || seconds_since(start) > cfg.budget_s; }
    bool opencl_runs(const std::string& spec) const {
        return cfg.opencl_algs.empty() ||
               std::find(cfg.opencl_algs.begin(), cfg.opencl_algs.end(), spec) != cfg.opencl_algs.end();
    }

    void log(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
        if (cfg.quiet) return;
        va_list ap;
        va_start(ap, fmt);
        std::printf("[%6.1fs] ", seconds_since(start));
        std::vprintf(fmt, ap);
        std::printf("\n");
        std::fflush(stdout);
        va_end(ap);
    }
};

// min, median and max of v.
Json spread(const std::vector<double>& v);

// ---- timing loops ---------------------------------------------------------------------

// Times `call` (k calls per run) with a host clock; `sync` runs after each batch
// (for CUDA: a device synchronisation), inside the timed region.
template <class Call>
Measured measure_host(Runner& r, uint64_t bytes, Call&& call, const std::function<void()>& sync = {}) {
    Measured m;
    auto t_point = Clock::now();
    auto fail = [&](bc_status st) {
        m.st = st;
        m.error = bc_last_error();
        m.seconds = seconds_since(t_point);
        return m;
    };
    bc_status st = call();  // warm-up
    if (sync) sync();
    if (st != BC_OK) return fail(st);
    auto t0 = Clock::now();
    if ((st = call()) != BC_OK) return fail(st);
    if (sync) sync();
    double one = std::max(seconds_since(t0), 1e-8);
    uint64_t k = static_cast<uint64_t>(std::clamp(r.cfg.batch_s / one, 1.0, 65536.0));
    m.calls_per_run = k;
    auto t_runs = Clock::now();
    while (m.gbps.size() < size_t(r.cfg.runs) || (seconds_since(t_runs) < r.cfg.min_point_s && m.gbps.size() < 1000)) {
        auto t = Clock::now();
        for (uint64_t i = 0; i < k; ++i)
            if ((st = call()) != BC_OK) return fail(st);
        if (sync) sync();
        m.gbps.push_back(double(bytes) * double(k) / std::max(seconds_since(t), 1e-9) / 1e9);
    }
    m.ok = true;
    m.seconds = seconds_since(t_point);
    return m;
}

#if defined(BC_HAVE_CUDA)
inline std::string cuda_error(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

// Times `call` with CUDA events recorded on `s` around each run of k calls.
template <class Call>
Measured measure_events(Runner& r, uint64_t bytes, cudaStream_t s, Call&& call) {
    Measured m;
    auto t_point = Clock::now();
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    auto done = [&]() {
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        m.seconds = seconds_since(t_point);
        return m;
    };
    auto fail = [&](bc_status st) {
        m.st = st;
        m.error = bc_last_error();
        return done();
    };
    double host_secs = 0;
    auto timed = [&](uint64_t k, double* secs) -> bc_status {
        // The host clock spans the same calls up to a full device synchronisation: if
        // a backend ran the work on another stream without ordering it on `s`, the
        // events would miss it and the two clocks would disagree.
        auto h0 = Clock::now();
        cudaEventRecord(e0, s);
        for (uint64_t i = 0; i < k; ++i) {
            bc_status st = call();
            if (st != BC_OK) return st;
        }
        cudaEventRecord(e1, s);
        cudaError_t ce = cudaEventSynchronize(e1);
        if (ce == cudaSuccess) ce = cudaDeviceSynchronize();
        host_secs = std::max(seconds_since(h0), 1e-9);
        float ms = 0;
        if (ce == cudaSuccess) ce = cudaEventElapsedTime(&ms, e0, e1);
        if (ce != cudaSuccess) {
            m.error = cuda_error(ce);
            return BC_ERR_DEVICE;
        }
        *secs = std::max(double(ms) * 1e-3, 1e-9);
        return BC_OK;
    };
    double one = 0;
    bc_status st = timed(1, &one);  // warm-up
    if (st != BC_OK) return fail(st);
    if ((st = timed(1, &one)) != BC_OK) return fail(st);
    uint64_t k = static_cast<uint64_t>(std::clamp(r.cfg.batch_s / one, 1.0, 65536.0));
    m.calls_per_run = k;
    auto t_runs = Clock::now();
    while (m.gbps.size() < size_t(r.cfg.runs) || (seconds_since(t_runs) < r.cfg.min_point_s && m.gbps.size() < 1000)) {
        double secs = 0;
        if ((st = timed(k, &secs)) != BC_OK) return fail(st);
        m.gbps.push_back(double(bytes) * double(k) / secs / 1e9);
        m.host_gbps.push_back(double(bytes) * double(k) / host_secs / 1e9);
    }
    m.ok = true;
    return done();
}
#endif

// ---- one call of an algorithm -----------------------------------------------------------

struct AlgSpec {
    std::string spec, name;
    bool decrypt = false;
    bc_algorithm_info info{};
    uint8_t iv[32] = {};
};

bool make_alg(const std::string& spec, AlgSpec* a, std::string* why);
bc_status call_alg(const AlgSpec& a, bc_key* k, const uint8_t* in, uint8_t* out, uint64_t n, bc_memory mem,
                   void* stream, uint8_t* tag);
std::string status_text(bc_status st, const std::string& detail);

// ---- the parts of a run ---------------------------------------------------------------

// metadata.cpp: the machine, the build and the library; nvidia-smi's view of the GPU.
Json metadata(Runner& r);
Json nvidia_smi();
// roofs.cpp: host and device copy rates and the GPU's integer rate (r.roofs, r.curves, r.out).
void host_roofs(Runner& r);
#if defined(BC_HAVE_CUDA)
void cuda_roofs(Runner& r);
void cuda_int_roof(Runner& r, Json& gpu);
#endif
// latency.cpp: context, key, first and warm call per device; the OpenCL devices found.
std::vector<std::string> latency(Runner& r, std::vector<std::string> devices);
// throughput.cpp: openssl speed, the sweep of one algorithm over sizes and paths, CPU scaling.
void openssl_speed(Runner& r, const std::string& alg, unsigned procs);
void sweep_alg(Runner& r, std::vector<Path>& paths, const std::string& spec);
void cpu_scaling(Runner& r, const std::vector<std::string>& algs);

}  // namespace sweep
