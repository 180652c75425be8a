// sweep: the benchmark suite's one program. Throughput over payload sizes per
// algorithm and per path, measured through the public C API, beside the roofs
// and `openssl speed` measured in the same run; latency (context, key, first and
// warm call); CPU thread scaling. Writes one JSON file that bench/report.py turns
// into REPORT.md and plots.
//
//   sweep [--mode smoke|standard|full] [--max BYTES] [--algs a,b,...]
//         [--paths cpu1,cpuN,gpu-host,gpu-host-pinned,gpu-dev,gpu-dev-table,opencl]
//         [--opencl-algs a,b|all] [--runs N] [--point-cap SECONDS] [--budget SECONDS]
//         [--openssl-seconds N] [--openssl-sizes 16384|all] [--no-openssl]
//         [--json FILE] [--quiet]
//
// Paths (each a bulkcrypt context; a path that cannot run is reported with why):
//   cpu1             device "cpu", threads=1: one core
//   cpuN             device "cpu", every core
//   gpu-host         device "cuda:0", plain (pageable) host buffers: end to end
//   gpu-host-pinned  device "cuda:0", cudaHostAlloc'd host buffers
//   gpu-dev          device "cuda:0", cudaMalloc'd buffers (BC_MEMORY_DEVICE)
//   gpu-dev-table    the same with aes=table (AES algorithms only)
//   opencl           every OpenCL device found ("opencl:N"), host buffers
//   hybrid           device "hybrid": the engine over the CPU and every GPU, host buffers
//   gpu-all          device "cuda:all" (when there are two GPUs or more), host buffers
// The "noop" algorithm (transfers only) runs on every path but the CPU ones: the
// ceiling of each pipeline.
// Method: one warm-up call, then runs of k calls (k sized so one run lasts the
// mode's batch time); at least --runs runs; the median rate with the min..max
// spread. Host paths are timed with std::chrono::steady_clock around
// synchronous calls; device-memory paths with CUDA events on the call's stream.
// GB = 1e9 bytes. A point whose predicted time exceeds --point-cap is skipped
// (and said so); past --budget seconds, or after SIGTERM/SIGINT, every remaining
// point is skipped and the JSON is still written.
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

#include "openssl_speed.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// SIGTERM or SIGINT (a timeout, a Ctrl-C): stop measuring, write what was measured.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

// ---- small helpers --------------------------------------------------------------------

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

// Runs a shell command; its stdout (stderr discarded unless the command redirects it)
// and exit status. rc -1 when it could not start.
std::string run_command(const std::string& cmd, int* rc = nullptr) {
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) {
        if (rc) *rc = -1;
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    int st = pclose(f);
    if (rc) *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!trim(cur).empty()) v.push_back(trim(cur));
    return v;
}

std::string human_bytes(uint64_t n) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = double(n);
    while (v >= 1024 && u < 4 && std::fmod(v, 1024) == 0) { v /= 1024; ++u; }
    char b[32];
    if (std::floor(v) == v) std::snprintf(b, sizeof b, "%.0f %s", v, unit[u]);
    else std::snprintf(b, sizeof b, "%" PRIu64 " B", n);
    return b;
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Input data is never zeros: xorshift bytes.
void fill_pattern(uint8_t* p, size_t n, uint64_t seed) {
    uint64_t x = seed | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(p + i, &x, 8);
    }
    for (; i < n; ++i) p[i] = static_cast<uint8_t>(x >> (8 * (i % 8)));
}

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

// The algorithms a mode sweeps, in order of importance (a budget cut loses the tail).
// "name:decrypt" measures decryption (CBC's parallel direction).
std::vector<std::string> mode_algorithms(const std::string& mode) {
    if (mode == "smoke") return {"aes-128-ctr", "aes-256-gcm", "chacha20", "salsa20-8"};
    std::vector<std::string> v = {"aes-128-ctr", "aes-256-gcm", "chacha20", "chacha20-poly1305", "salsa20-12",
                                  "aes-128-xts", "aes-128-ecb", "aes-128-cbc:decrypt", "aes-256-ctr",
                                  "aes-128-gcm", "salsa20", "salsa20-8"};
    if (mode == "full") {
        for (const char* a : {"aes-192-ctr", "aes-192-gcm", "aes-256-xts", "aes-256-ecb", "aes-192-ecb",
                              "aes-256-cbc:decrypt", "aes-192-cbc:decrypt", "aes-128-cbc", "xchacha20",
                              "xchacha20-poly1305", "xsalsa20", "salsa20-128", "salsa20-12-128", "salsa20-8-128",
                              "chacha20-djb"})
            v.push_back(a);
    }
    return v;
}

// ---- the studies' grids ---------------------------------------------------------------
// pow2:     16 B .. --max, powers of two (the issue's sweep)
// ocl-lib:  4 KiB .. 4 MiB (the OpenCL library study's 4 kB .. 4 MB)
// embedded: 2^4 .. 2^27 B (the embedded-GPU AES study)
// salsa:    1 B .. 1 GB in decades (the Salsa20 study), stream ciphers only
struct SizePoint {
    uint64_t bytes;
    std::vector<std::string> grids;
};

std::vector<SizePoint> sizes_for(const std::string& alg, const bc_algorithm_info& info, uint64_t max_bytes) {
    std::map<uint64_t, std::vector<std::string>> m;
    for (uint64_t s = 16; s <= max_bytes; s *= 2) m[s].push_back("pow2");
    const bool aes = alg.rfind("aes-", 0) == 0;
    if (aes && (alg.find("-ctr") != std::string::npos || alg.find("-gcm") != std::string::npos ||
                alg.find("-ecb") != std::string::npos))
        for (uint64_t s = 4096; s <= (uint64_t(4) << 20) && s <= max_bytes; s *= 2) m[s].push_back("ocl-lib");
    if (aes && (alg.find("-ecb") != std::string::npos || alg.find("-ctr") != std::string::npos))
        for (uint64_t s = 16; s <= (uint64_t(1) << 27) && s <= max_bytes; s *= 2) m[s].push_back("embedded");
    if (alg.find("salsa") != std::string::npos)
        for (uint64_t s = 1; s <= uint64_t(1000000000) && s <= max_bytes; s *= 10) m[s].push_back("salsa");
    std::vector<SizePoint> v;
    for (auto& kv : m) {
        uint64_t b = kv.first;
        if (info.kind == BC_KIND_BLOCK_MODE || info.kind == BC_KIND_XTS) {
            if (b < 16 || b % 16) continue;  // whole blocks only; the decades are for stream ciphers
        }
        if (info.max_message_size != UINT64_MAX && b > info.max_message_size) continue;
        v.push_back({b, kv.second});
    }
    return v;
}

// Integer operations per payload byte for the ciphers whose count is simple, so a
// GPU figure can be printed beside the integer ceiling (SMs x 64 lanes x clock).
// Counted per 64-byte block: quarter round = 4 add + 4 xor + 4 rotate (one funnel
// shift each); + 16 feed-forward adds + 16 xors with the data. Address arithmetic,
// loads and stores are not counted, so the ceiling is optimistic.
double ops_per_byte(const std::string& alg) {
    auto rounds_ops = [](int rounds) { return (rounds * 4.0 * 12.0 + 32.0) / 64.0; };
    if (alg.rfind("chacha20", 0) == 0 || alg.rfind("xchacha20", 0) == 0) return rounds_ops(20);
    if (alg.rfind("salsa20-12", 0) == 0) return rounds_ops(12);
    if (alg.rfind("salsa20-8", 0) == 0) return rounds_ops(8);
    if (alg.rfind("salsa20", 0) == 0 || alg.rfind("xsalsa20", 0) == 0) return rounds_ops(20);
    return 0;
}

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

Json spread(const std::vector<double>& v) {
    Json j = Json::object();
    j["median"] = median(v);
    j["min"] = v.empty() ? NAN : *std::min_element(v.begin(), v.end());
    j["max"] = v.empty() ? NAN : *std::max_element(v.begin(), v.end());
    j["runs"] = v.size();
    return j;
}

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
std::string cuda_error(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

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

bool make_alg(const std::string& spec, AlgSpec* a, std::string* why) {
    a->spec = spec;
    a->name = spec;
    size_t colon = spec.find(':');
    if (colon != std::string::npos) {
        a->name = spec.substr(0, colon);
        std::string dir = spec.substr(colon + 1);
        if (dir != "decrypt" && dir != "encrypt") {
            *why = "direction must be encrypt or decrypt";
            return false;
        }
        a->decrypt = dir == "decrypt";
    }
    bc_status st = bc_algorithm_query(a->name.c_str(), &a->info);
    if (st != BC_OK) {
        *why = std::string(bc_status_message(st)) + " (" + bc_last_error() + ")";
        return false;
    }
    if (a->decrypt && a->info.kind == BC_KIND_AEAD) {
        *why = "AEAD decryption is not swept (a tag check of random data fails)";
        return false;
    }
    for (size_t i = 0; i < sizeof a->iv; ++i) a->iv[i] = static_cast<uint8_t>(0xa5 ^ (i * 29));
    // Counters start low so no message of the sweep comes near a wrap.
    if (a->name == "chacha20") std::memset(a->iv, 0, 4);
    if (a->name == "chacha20-djb" && a->info.iv_size == 16) std::memset(a->iv, 0, 8);
    if (a->name.find("-ctr") != std::string::npos) std::memset(a->iv + 8, 0, 8);
    return true;
}

bc_status call_alg(const AlgSpec& a, bc_key* k, const uint8_t* in, uint8_t* out, uint64_t n, bc_memory mem,
                   void* stream, uint8_t* tag) {
    bc_params p{};
    p.memory = mem;
    p.stream = stream;
    if (a.info.kind == BC_KIND_AEAD)
        return bc_aead_seal_detached(k, a.iv, a.info.iv_size, nullptr, 0, in, n, out, tag, a.info.tag_size, &p);
    if (a.info.kind == BC_KIND_XTS && n >= 4096 && n % 4096 == 0) p.data_unit_size = 4096;
    size_t len = 0;
    return (a.decrypt ? bc_decrypt : bc_encrypt)(k, a.iv, a.info.iv_size, in, n, out, n, &len, &p);
}

std::string status_text(bc_status st, const std::string& detail) {
    std::string s = bc_status_message(st);
    if (!detail.empty()) s += ": " + detail;
    return s;
}

// ---- metadata ------------------------------------------------------------------------------

Json metadata(Runner& r) {
    Json m = Json::object();
    char date[64];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    m["date"] = date;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    m["host"] = host;
    int rc = 0;
    std::string commit = trim(run_command("git rev-parse HEAD 2>/dev/null", &rc));
    if (rc != 0 || commit.empty()) {
        const char* env = std::getenv("BC_GIT_COMMIT");
        commit = env && *env ? env : "unknown";
    }
    m["git_commit"] = commit;
    if (commit != "unknown") {
        std::string dirty = run_command("git status --porcelain --untracked-files=no 2>/dev/null", &rc);
        m["git_dirty"] = rc == 0 ? Json(!trim(dirty).empty()) : Json();
    }
    m["bulkcrypt_version"] = bc_version();
    std::string cpu = "unknown";
    std::ifstream ci("/proc/cpuinfo");
    for (std::string line; std::getline(ci, line);)
        if (line.rfind("model name", 0) == 0) {
            cpu = trim(line.substr(line.find(':') + 1));
            break;
        }
    m["cpu_model"] = cpu;
    m["cpu_cores"] = r.cores;
    m["openssl_library"] = OpenSSL_version(OPENSSL_VERSION);
    std::string cli = trim(run_command("openssl version 2>/dev/null", &rc));
    m["openssl_cli"] = rc == 0 ? Json(cli) : Json("not found");
    m["mode"] = r.cfg.mode;
    m["max_bytes"] = r.cfg.max_bytes;
    m["unit"] = "GB/s = 1e9 bytes of payload per second";
    m["method"] = "one warm-up call, then runs of k calls (k so that a run lasts batch_s); at least runs_min runs; "
                  "median with min..max; host paths timed with std::chrono::steady_clock around synchronous "
                  "calls, device-memory paths with CUDA events on the call's stream";
    m["runs_min"] = r.cfg.runs;
    m["batch_s"] = r.cfg.batch_s;
    m["min_point_s"] = r.cfg.min_point_s;
    m["point_cap_s"] = r.cfg.point_cap_s;
    m["budget_s"] = r.cfg.budget_s;
    return m;
}

// nvidia-smi, when present: name, driver and clocks as it prints them.
Json nvidia_smi() {
    Json j = Json::object();
    int rc = 0;
    std::string q = run_command(
        "nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
        "pcie.link.gen.current,pcie.link.width.current,power.limit,temperature.gpu --format=csv,noheader 2>/dev/null",
        &rc);
    if (rc != 0 || trim(q).empty()) {
        j["status"] = "not available";
        j["reason"] = "nvidia-smi not found or failed";
        return j;
    }
    std::string first = q.substr(0, q.find('\n'));
    std::vector<std::string> f = split(first, ',');
    const char* keys[] = {"name", "driver", "clocks_sm", "clocks_mem", "clocks_max_sm", "clocks_max_mem",
                          "pcie_gen", "pcie_width", "power_limit", "temperature_c"};
    for (size_t i = 0; i < f.size() && i < 10; ++i) j[keys[i]] = f[i];
    j["raw"] = trim(q);
    return j;
}

// ---- roofs ------------------------------------------------------------------------------------

void add_roof(Runner& r, const std::string& name, const std::vector<double>& gbps, uint64_t bytes,
              const char* timer, const std::string& note) {
    Json j = Json::object();
    j["name"] = name;
    j["bytes"] = bytes;
    j["gbps"] = spread(gbps);
    j["timer"] = timer;
    j["note"] = note;
    r.out["roofs"].push(j);
    r.roofs[name] = median(gbps);
    if (gbps.empty()) return;
    r.log("roof %-22s %9.2f GB/s  (%.2f..%.2f, %s, %s)", name.c_str(), median(gbps),
          *std::min_element(gbps.begin(), gbps.end()), *std::max_element(gbps.begin(), gbps.end()),
          human_bytes(bytes).c_str(), note.c_str());
}

// Copies src to dst with `threads` threads, each its own slice.
void parallel_copy(uint8_t* dst, const uint8_t* src, size_t n, unsigned threads) {
    if (threads <= 1) {
        std::memcpy(dst, src, n);
        return;
    }
    std::vector<std::thread> ts;
    const size_t slice = (n / threads + 63) / 64 * 64;
    for (unsigned i = 0; i < threads; ++i) {
        const size_t off = std::min(n, size_t(i) * slice), len = std::min(slice, n - off);
        if (len == 0) break;
        ts.emplace_back([=] { std::memcpy(dst + off, src + off, len); });
    }
    for (std::thread& t : ts) t.join();
}

std::vector<double> time_host_copy(Runner& r, uint8_t* dst, const uint8_t* src, size_t n, unsigned threads) {
    Measured m = measure_host(r, n, [&] {
        parallel_copy(dst, src, n, threads);
        return BC_OK;
    });
    return m.gbps;
}

void host_roofs(Runner& r) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(r.cfg.roof_bytes, r.buf_bytes));
    add_roof(r, "host-memcpy-1t", time_host_copy(r, r.out_buf.p, r.in.p, n, 1), n, "steady_clock",
             "memcpy, one thread, payload bytes (read + write = 2x)");
    add_roof(r, "host-memcpy-all", time_host_copy(r, r.out_buf.p, r.in.p, n, r.cores), n, "steady_clock",
             "memcpy split over " + std::to_string(r.cores) + " threads");
    // The one-thread copy at every swept size: the roof curve of small messages
    // (in cache, as the benchmark's repeated calls are).
    Json c = Json::object();
    c["name"] = "host-memcpy-1t";
    for (uint64_t s = 16; s <= r.cfg.max_bytes && s <= r.buf_bytes; s *= 2) {
        if (r.over_budget()) break;
        Measured m = measure_host(r, s, [&] {
            std::memcpy(r.out_buf.p, r.in.p, s);
            asm volatile("" ::: "memory");
            return BC_OK;
        });
        r.curves["host-memcpy-1t"][s] = median(m.gbps);
        Json p = Json::object();
        p["bytes"] = s;
        p["gbps"] = median(m.gbps);
        c["points"].push(p);
    }
    r.out["roof_curves"].push(c);
}

#if defined(BC_HAVE_CUDA)
// Device copy, PCIe each way and both at once (pinned, two streams), pageable
// each way; flat at roof_bytes plus a curve over sizes for D2D and for the
// pinned round trip (H2D then D2H, one stream: what a synchronous,
// non-overlapped end-to-end call cannot beat).
void cuda_roofs(Runner& r) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(r.cfg.roof_bytes, r.buf_bytes));
    cudaStream_t s1 = static_cast<cudaStream_t>(r.stream), s2 = nullptr;
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    auto events_copy = [&](uint64_t bytes_per_op, const std::function<void()>& enqueue, bool two_streams) {
        cudaEvent_t e0, e1, e2;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventCreate(&e2);
        auto timed = [&](uint64_t k) {
            cudaEventRecord(e0, s1);
            if (two_streams) cudaStreamWaitEvent(s2, e0, 0);
            for (uint64_t i = 0; i < k; ++i) enqueue();
            if (two_streams) {
                cudaEventRecord(e2, s2);
                cudaStreamWaitEvent(s1, e2, 0);
            }
            cudaEventRecord(e1, s1);
            cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            return std::max(double(ms) * 1e-3, 1e-9);
        };
        timed(1);
        double one = timed(1);
        uint64_t k = static_cast<uint64_t>(std::clamp(r.cfg.batch_s / one, 1.0, 65536.0));
        std::vector<double> v;
        auto t_runs = Clock::now();
        while (v.size() < size_t(r.cfg.runs) || (seconds_since(t_runs) < r.cfg.min_point_s && v.size() < 1000))
            v.push_back(double(bytes_per_op) * double(k) / timed(k) / 1e9);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        cudaEventDestroy(e2);
        return v;
    };
    uint8_t *di = r.dev_in, *dout = r.dev_out, *hi = r.pin_in, *ho = r.pin_out;
    add_roof(r, "cuda-d2d", events_copy(n, [&] { cudaMemcpyAsync(dout, di, n, cudaMemcpyDeviceToDevice, s1); }, false),
             n, "cuda-events", "cudaMemcpyAsync device to device, payload bytes (read + write = 2x)");
    add_roof(r, "pcie-h2d-pinned", events_copy(n, [&] { cudaMemcpyAsync(di, hi, n, cudaMemcpyHostToDevice, s1); }, false),
             n, "cuda-events", "cudaMemcpyAsync from cudaHostAlloc memory");
    add_roof(r, "pcie-d2h-pinned", events_copy(n, [&] { cudaMemcpyAsync(ho, dout, n, cudaMemcpyDeviceToHost, s1); }, false),
             n, "cuda-events", "cudaMemcpyAsync to cudaHostAlloc memory");
    add_roof(r, "pcie-bidir-pinned",
             events_copy(2 * n,
                         [&] {
                             cudaMemcpyAsync(di, hi, n, cudaMemcpyHostToDevice, s1);
                             cudaMemcpyAsync(ho, dout, n, cudaMemcpyDeviceToHost, s2);
                         },
                         true),
             n, "cuda-events", "H2D on one stream and D2H on another at once; bytes of both directions");
    {
        Measured m = measure_host(r, n, [&] {
            return cudaMemcpy(di, r.in.p, n, cudaMemcpyHostToDevice) == cudaSuccess ? BC_OK : BC_ERR_DEVICE;
        });
        add_roof(r, "pcie-h2d-pageable", m.gbps, n, "steady_clock", "cudaMemcpy from malloc'd memory");
        m = measure_host(r, n, [&] {
            return cudaMemcpy(r.out_buf.p, dout, n, cudaMemcpyDeviceToHost) == cudaSuccess ? BC_OK : BC_ERR_DEVICE;
        });
        add_roof(r, "pcie-d2h-pageable", m.gbps, n, "steady_clock", "cudaMemcpy to malloc'd memory");
    }
    // What an overlapped pipeline on pinned memory can reach: every byte goes up and
    // comes back, so the payload rate is bounded by each direction and by half of
    // both at once.
    double pipe = std::min({r.roofs["pcie-h2d-pinned"], r.roofs["pcie-d2h-pinned"], r.roofs["pcie-bidir-pinned"] / 2});
    r.roofs["pcie-end-to-end"] = pipe;
    {
        Json j = Json::object();
        j["name"] = "pcie-end-to-end";
        j["gbps"] = Json::object();
        j["gbps"]["median"] = pipe;
        j["timer"] = "derived";
        j["note"] = "min(H2D, D2H, both-at-once / 2), pinned: the payload roof of host-memory GPU paths";
        r.out["roofs"].push(j);
        r.log("roof %-22s %9.2f GB/s  (derived: min(H2D, D2H, bidir/2))", "pcie-end-to-end", pipe);
    }
    Json cd = Json::object(), cr = Json::object();
    cd["name"] = "cuda-d2d";
    cr["name"] = "pcie-roundtrip-pinned";
    for (uint64_t s = 16; s <= r.cfg.max_bytes && s <= r.buf_bytes; s *= 2) {
        if (r.over_budget()) break;
        const size_t sz = static_cast<size_t>(s);
        double d = median(events_copy(s, [&] { cudaMemcpyAsync(dout, di, sz, cudaMemcpyDeviceToDevice, s1); }, false));
        double t = median(events_copy(s,
                                      [&] {
                                          cudaMemcpyAsync(di, hi, sz, cudaMemcpyHostToDevice, s1);
                                          cudaMemcpyAsync(ho, di, sz, cudaMemcpyDeviceToHost, s1);
                                      },
                                      false));
        r.curves["cuda-d2d"][s] = d;
        r.curves["pcie-roundtrip-pinned"][s] = t;
        Json p = Json::object();
        p["bytes"] = s;
        p["gbps"] = d;
        cd["points"].push(p);
        Json q = Json::object();
        q["bytes"] = s;
        q["gbps"] = t;
        cr["points"].push(q);
    }
    r.out["roof_curves"].push(cd);
    r.out["roof_curves"].push(cr);
    cudaStreamDestroy(s2);
}

// The GPU's 32-bit integer rate: multiprocessors x 64 INT32 lanes x SM clock.
void cuda_int_roof(Runner& r, Json& gpu) {
    int sms = 0, khz = 0, major = 0, minor = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    gpu["multiprocessors"] = sms;
    gpu["sm_clock_max_mhz"] = khz / 1000.0;
    gpu["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
    double ops = double(sms) * 64.0 * double(khz) * 1e3;
    r.roofs["gpu-int32-ops"] = ops;
    Json j = Json::object();
    j["name"] = "gpu-int32-ops";
    j["ops_per_s"] = ops;
    j["timer"] = "derived";
    j["note"] = "multiprocessors x 64 INT32 lanes x maximum SM clock (attribute); a ceiling, not measured";
    r.out["roofs"].push(j);
    r.log("roof %-22s %9.2f T int32 ops/s (%d SMs x 64 x %.0f MHz)", "gpu-int32-ops", ops / 1e12, sms, khz / 1e3);
}
#endif

// ---- latency -------------------------------------------------------------------------------

std::vector<std::string> latency(Runner& r, std::vector<std::string> devices) {
    const std::vector<std::string> algs = {"aes-128-ctr", "aes-256-gcm", "chacha20"};
    std::vector<std::string> opencl;
    devices.push_back("opencl:0");
    for (size_t di = 0; di < devices.size(); ++di) {
        const std::string dev = devices[di];
        const bool is_opencl = dev.rfind("opencl:", 0) == 0;
        Json d = Json::object();
        d["device"] = dev;
        bc_context* c = nullptr;
        auto t0 = Clock::now();
        bc_status st = bc_context_create(dev.c_str(), nullptr, &c);
        double first = seconds_since(t0);
        if (is_opencl) {
            if (st != BC_OK) {
                if (opencl.empty()) {
                    r.out["meta"]["opencl"] = status_text(st, bc_last_error());
                    r.log("opencl: none (%s)", status_text(st, bc_last_error()).c_str());
                }
                break;  // the end of the OpenCL devices
            }
            opencl.push_back(dev);
            r.out["meta"]["opencl_devices"].push(std::string(bc_context_device_name(c)));
            if (opencl.size() < 16) devices.push_back("opencl:" + std::to_string(opencl.size()));
        }
        if (r.over_budget()) {
            bc_context_destroy(c);
            continue;
        }
        if (st != BC_OK) {
            d["status"] = "skipped";
            d["reason"] = status_text(st, bc_last_error());
            r.out["latency"].push(d);
            r.log("latency %s: skipped (%s)", dev.c_str(), status_text(st, bc_last_error()).c_str());
            continue;
        }
        bc_context_destroy(c);
        t0 = Clock::now();
        st = bc_context_create(dev.c_str(), nullptr, &c);
        double second = seconds_since(t0);
        if (st != BC_OK) {
            d["status"] = "skipped";
            d["reason"] = "second context: " + status_text(st, bc_last_error());
            r.out["latency"].push(d);
            continue;
        }
        d["status"] = "ok";
        d["device_name"] = bc_context_device_name(c);
        d["context_create_first_s"] = first;
        d["context_create_second_s"] = second;
        r.log("latency %s (%s): context %.3f ms first, %.3f ms second", dev.c_str(), bc_context_device_name(c),
              first * 1e3, second * 1e3);
        for (const std::string& name : algs) {
            AlgSpec a;
            std::string why;
            if (!make_alg(name, &a, &why)) continue;
            Json e = Json::object();
            e["algorithm"] = name;
            if (is_opencl && !r.opencl_runs(name)) {
                e["status"] = "skipped";
                e["reason"] = "not in --opencl-algs (the mode keeps run-time kernel compilation short)";
                d["algorithms"].push(e);
                continue;
            }
            std::vector<uint8_t> key(a.info.key_size);
            fill_pattern(key.data(), key.size(), 7);
            bc_key* k = nullptr;
            t0 = Clock::now();
            st = bc_key_create(c, name.c_str(), key.data(), key.size(), &k);
            double key_first = seconds_since(t0);
            if (st != BC_OK) {
                e["status"] = "skipped";
                e["reason"] = status_text(st, bc_last_error());
                d["algorithms"].push(e);
                continue;
            }
            std::vector<double> key_times;
            for (int i = 0; i < 5; ++i) {
                bc_key* k2 = nullptr;
                t0 = Clock::now();
                if (bc_key_create(c, name.c_str(), key.data(), key.size(), &k2) != BC_OK) break;
                key_times.push_back(seconds_since(t0));
                bc_key_destroy(k2);
            }
            e["key_create_first_s"] = key_first;
            e["key_create_s"] = spread(key_times);
            // The smallest job: 16 bytes (one block), host memory. First call (kernel
            // load, compile or cache read happen here), then warm calls.
            uint8_t tag[16];
            const uint64_t sizes[] = {16, uint64_t(1) << 20};
            for (uint64_t n : sizes) {
                if (n > r.buf_bytes) continue;
                Json s = Json::object();
                s["bytes"] = n;
                t0 = Clock::now();
                st = call_alg(a, k, r.in.p, r.out_buf.p, n, BC_MEMORY_HOST, nullptr, tag);
                double fc = seconds_since(t0);
                if (st != BC_OK) {
                    s["status"] = "failed";
                    s["reason"] = status_text(st, bc_last_error());
                    e["calls"].push(s);
                    continue;
                }
                std::vector<double> warm;
                auto tw = Clock::now();
                while (warm.size() < 20 || (seconds_since(tw) < 0.05 && warm.size() < 10000)) {
                    t0 = Clock::now();
                    if (call_alg(a, k, r.in.p, r.out_buf.p, n, BC_MEMORY_HOST, nullptr, tag) != BC_OK) break;
                    warm.push_back(seconds_since(t0));
                }
                s["first_call_s"] = fc;
                s["warm_call_s"] = spread(warm);
                e["calls"].push(s);
                r.log("latency %s %s %s: first call %.3f ms, warm %.3f ms (median of %zu)", dev.c_str(), name.c_str(),
                      human_bytes(n).c_str(), fc * 1e3, median(warm) * 1e3, warm.size());
            }
            bc_key_destroy(k);
            d["algorithms"].push(e);
        }
        bc_context_destroy(c);
        r.out["latency"].push(d);
    }
    return opencl;
}

// ---- openssl speed ------------------------------------------------------------------------------

// `openssl speed -elapsed -mr [-multi P] -seconds S [-bytes B] -evp ALG`. -elapsed
// divides by wall time, as every other figure here is (without it OpenSSL divides by
// user CPU time, which some virtual machines under-report).
void openssl_speed(Runner& r, const std::string& alg, unsigned procs) {
    Json j = Json::object();
    j["algorithm"] = alg;
    j["processes"] = procs;
    std::string cmd = "openssl speed -elapsed -mr -seconds " + std::to_string(r.cfg.openssl_seconds);
    if (procs > 1) cmd += " -multi " + std::to_string(procs);
    if (!r.cfg.openssl_all_sizes) cmd += " -bytes 16384";
    cmd += " -evp " + alg;
    j["command"] = cmd;
    int rc = 0;
    std::string out = run_command(cmd + " 2>&1", &rc);
    std::vector<uint64_t> sizes;
    std::vector<double> rates;
    if (rc != 0 || !bench::parse_openssl_speed_mr(out, &sizes, &rates)) {
        j["status"] = "skipped";
        std::string tail = trim(out);
        if (tail.size() > 300) tail = tail.substr(tail.size() - 300);
        j["reason"] = "openssl speed gave no figure (exit " + std::to_string(rc) + "): " + tail;
        r.log("openssl speed %s x%u: no figure", alg.c_str(), procs);
    } else {
        j["status"] = "ok";
        for (size_t i = 0; i < sizes.size(); ++i) {
            Json p = Json::object();
            p["bytes"] = sizes[i];
            p["gbps"] = rates[i];
            j["points"].push(p);
        }
        r.log("openssl speed %s x%u: %.2f GB/s at %s", alg.c_str(), procs, rates.back(),
              human_bytes(sizes.back()).c_str());
    }
    r.out["openssl"].push(j);
}

// ---- the sweep --------------------------------------------------------------------------------

void sweep_alg(Runner& r, std::vector<Path>& paths, const std::string& spec) {
    AlgSpec a;
    std::string why;
    if (!make_alg(spec, &a, &why)) {
        Json s = Json::object();
        s["algorithm"] = spec;
        s["status"] = "skipped";
        s["reason"] = why;
        r.out["results"].push(s);
        r.log("%s: skipped (%s)", spec.c_str(), why.c_str());
        return;
    }
    const std::vector<SizePoint> sizes = sizes_for(a.name, a.info, std::min<uint64_t>(r.cfg.max_bytes, r.buf_bytes));
    std::vector<uint8_t> key(a.info.key_size);
    fill_pattern(key.data(), key.size(), 0x1234);
    if (a.info.kind == BC_KIND_XTS)  // two independent halves (OpenSSL refuses equal ones)
        fill_pattern(key.data() + key.size() / 2, key.size() / 2, 0x9876);

    // The reference output: one core of the CPU backend, at the verification size.
    uint64_t vbytes = 0;
    for (const SizePoint& sp : sizes)
        if (sp.bytes <= (uint64_t(1) << 20)) vbytes = sp.bytes;
    std::vector<uint8_t> ref(vbytes), got(vbytes);
    uint8_t ref_tag[16] = {}, got_tag[16] = {};
    bool have_ref = false;
    {
        bc_context* c = nullptr;
        bc_key* k = nullptr;
        if (vbytes && bc_context_create("cpu", "threads=1", &c) == BC_OK &&
            bc_key_create(c, a.name.c_str(), key.data(), key.size(), &k) == BC_OK)
            have_ref = call_alg(a, k, r.in.p, ref.data(), vbytes, BC_MEMORY_HOST, nullptr, ref_tag) == BC_OK;
        bc_key_destroy(k);
        bc_context_destroy(c);
    }

    for (Path& p : paths) {
        if (p.status != "ok") continue;
        Json base = Json::object();
        base["path"] = p.name;
        base["algorithm"] = a.spec;
        if (p.aes_only && a.name.rfind("aes-", 0) != 0) continue;
        if (p.backend == "opencl" && !r.opencl_runs(a.spec)) {
            Json s = base;
            s["status"] = "skipped";
            s["reason"] = "not in --opencl-algs (the mode keeps run-time kernel compilation short)";
            r.out["results"].push(s);
            continue;
        }
        if (r.over_budget()) {
            Json s = base;
            s["status"] = "skipped";
            s["reason"] = "over the run's budget (--budget)";
            r.out["results"].push(s);
            continue;
        }
        bc_key* k = nullptr;
        bc_status st = bc_key_create(p.ctx, a.name.c_str(), key.data(), key.size(), &k);
        if (st != BC_OK) {
            Json s = base;
            s["status"] = "skipped";
            s["reason"] = "key: " + status_text(st, bc_last_error());
            r.out["results"].push(s);
            r.log("%-15s %-20s skipped: %s", p.name.c_str(), a.spec.c_str(), status_text(st, bc_last_error()).c_str());
            continue;
        }
        uint8_t *in = r.in.p, *out = r.out_buf.p;
        if (p.pinned) { in = r.pin_in; out = r.pin_out; }
        if (p.memory == BC_MEMORY_DEVICE) { in = r.dev_in; out = r.dev_out; }
        void* stream = p.memory == BC_MEMORY_DEVICE ? r.stream : nullptr;
        uint8_t tag[16];

        // Verification against the CPU reference (cpu1 is the reference), before any timing.
        if (have_ref && p.name != "cpu1") {
            Json v = Json::object();
            v["path"] = p.name;
            v["algorithm"] = a.spec;
            v["bytes"] = vbytes;
            bool copied = true;
#if defined(BC_HAVE_CUDA)
            if (p.pinned || p.memory == BC_MEMORY_DEVICE) {
                if (p.memory == BC_MEMORY_DEVICE)
                    copied = cudaMemcpy(r.dev_in, r.in.p, vbytes, cudaMemcpyHostToDevice) == cudaSuccess;
                else
                    std::memcpy(r.pin_in, r.in.p, vbytes);
            }
#endif
            st = call_alg(a, k, in, out, vbytes, p.memory, stream, got_tag);
            if (st == BC_OK && copied) {
#if defined(BC_HAVE_CUDA)
                if (p.memory == BC_MEMORY_DEVICE) {
                    cudaStreamSynchronize(static_cast<cudaStream_t>(r.stream));
                    copied = cudaMemcpy(got.data(), r.dev_out, vbytes, cudaMemcpyDeviceToHost) == cudaSuccess;
                } else
#endif
                    std::memcpy(got.data(), out, vbytes);
                bool same = copied && got == ref &&
                            (a.info.kind != BC_KIND_AEAD || std::memcmp(got_tag, ref_tag, a.info.tag_size) == 0);
                v["matches_cpu"] = same;
                if (!same) r.log("%-15s %-20s OUTPUT DIFFERS from the CPU backend at %s", p.name.c_str(),
                                 a.spec.c_str(), human_bytes(vbytes).c_str());
            } else {
                v["matches_cpu"] = Json();
                v["reason"] = copied ? status_text(st, bc_last_error()) : "copy to or from the device failed";
            }
            r.out["verification"].push(v);
        }

        double last_rate = 0;  // GB/s at the previous size: predicts the next point's time
        std::string stop_reason;
        for (const SizePoint& sp : sizes) {
            Json j = base;
            j["bytes"] = sp.bytes;
            j["grids"] = Json::array_of(sp.grids);
            if (!stop_reason.empty() || r.over_budget()) {
                j["status"] = "skipped";
                j["reason"] = !stop_reason.empty() ? stop_reason : "over the run's budget (--budget)";
                r.out["results"].push(j);
                continue;
            }
            if (last_rate > 0) {
                double predicted = (r.cfg.runs + 2.0) * double(sp.bytes) / (last_rate * 1e9);
                if (predicted > r.cfg.point_cap_s) {
                    char b[160];
                    std::snprintf(b, sizeof b, "predicted %.1f s, over the per-point cap of %.1f s (--point-cap)",
                                  predicted, r.cfg.point_cap_s);
                    j["status"] = "skipped";
                    j["reason"] = b;
                    r.out["results"].push(j);
                    continue;
                }
            }
            auto call = [&] { return call_alg(a, k, in, out, sp.bytes, p.memory, stream, tag); };
            Measured m;
#if defined(BC_HAVE_CUDA)
            if (p.memory == BC_MEMORY_DEVICE) m = measure_events(r, sp.bytes, static_cast<cudaStream_t>(stream), call);
            else
#endif
                m = measure_host(r, sp.bytes, call);
            if (!m.ok) {
                j["status"] = "failed";
                j["reason"] = status_text(m.st, m.error);
                r.out["results"].push(j);
                r.log("%-15s %-20s %10s: %s", p.name.c_str(), a.spec.c_str(), human_bytes(sp.bytes).c_str(),
                      status_text(m.st, m.error).c_str());
                // A refusal repeats at every size: say it once per size, do not retry.
                stop_reason = "not run: " + status_text(m.st, m.error);
                continue;
            }
            const double med = median(m.gbps);
            last_rate = med;
            j["status"] = "ok";
            j["gbps"] = spread(m.gbps);
            j["seconds_per_call"] = double(sp.bytes) / (med * 1e9);
            j["calls_per_run"] = m.calls_per_run;
            j["timer"] = p.timer();
            if (!m.host_gbps.empty()) {
                const double hm = median(m.host_gbps);
                j["host_clock_gbps"] = hm;
                // Events faster than the host clock by more than launch overhead explains:
                // the work was not ordered on the stream the events were recorded on.
                if (med > 1.5 * hm && sp.bytes >= (uint64_t(1) << 20)) {
                    j["warning"] = "CUDA events report a rate 1.5x above the host clock: the call's work may "
                                   "not be ordered on bc_params.stream, so the event figure is doubtful";
                    r.log("%-15s %-20s %10s: WARNING events %.1f GB/s but host clock %.1f GB/s", p.name.c_str(),
                          a.spec.c_str(), human_bytes(sp.bytes).c_str(), med, hm);
                }
            }
            const std::string& roof = p.roof;
            double roof_g = r.roofs.count(roof) ? r.roofs.at(roof) : NAN;
            j["roof"] = roof;
            j["roof_gbps"] = roof_g;
            j["fraction_of_roof"] = std::isfinite(roof_g) && roof_g > 0 ? med / roof_g : NAN;
            // The roof curve at this size, where one was measured.
            std::string curve = roof == "host-memcpy-1t" || roof == "host-memcpy-all" ? "host-memcpy-1t"
                                : roof == "cuda-d2d"                                  ? "cuda-d2d"
                                : roof == "pcie-end-to-end"                           ? "pcie-roundtrip-pinned"
                                                                                      : "";
            if (!curve.empty() && r.curves.count(curve) && r.curves[curve].count(sp.bytes)) {
                j["roof_curve"] = curve;
                j["roof_curve_gbps"] = r.curves[curve][sp.bytes];
            }
            double opb = ops_per_byte(a.name);
            if (p.backend == "cuda" && opb > 0 && r.roofs.count("gpu-int32-ops")) {
                j["int_ops_per_byte"] = opb;
                j["int_roof_gbps"] = r.roofs["gpu-int32-ops"] / opb / 1e9;
            }
            r.out["results"].push(j);
            r.log("%-15s %-20s %10s: %9.4g GB/s (%.4g..%.4g, %zu runs x %" PRIu64 ") | %s %.2f GB/s: %.1f%%",
                  p.name.c_str(), a.spec.c_str(), human_bytes(sp.bytes).c_str(), med,
                  *std::min_element(m.gbps.begin(), m.gbps.end()), *std::max_element(m.gbps.begin(), m.gbps.end()),
                  m.gbps.size(), m.calls_per_run, roof.c_str(), roof_g, 100.0 * med / roof_g);
        }
        bc_key_destroy(k);
    }
}

// CPU backend threads 1, 2, 4, ... all cores at one size.
void cpu_scaling(Runner& r, const std::vector<std::string>& algs) {
    const uint64_t n = std::min<uint64_t>(r.cfg.scaling_bytes, r.buf_bytes);
    std::vector<unsigned> counts;
    for (unsigned t = 1; t < r.cores; t *= 2) counts.push_back(t);
    counts.push_back(r.cores);
    for (const std::string& spec : algs) {
        AlgSpec a;
        std::string why;
        if (!make_alg(spec, &a, &why)) continue;
        Json j = Json::object();
        j["algorithm"] = spec;
        j["bytes"] = n;
        std::vector<uint8_t> key(a.info.key_size);
        fill_pattern(key.data(), key.size(), 0x1234);
        for (unsigned t : counts) {
            if (r.over_budget()) break;
            bc_context* c = nullptr;
            bc_key* k = nullptr;
            std::string opts = "threads=" + std::to_string(t);
            Json p = Json::object();
            p["threads"] = t;
            if (bc_context_create("cpu", opts.c_str(), &c) != BC_OK ||
                bc_key_create(c, a.name.c_str(), key.data(), key.size(), &k) != BC_OK) {
                p["status"] = "failed";
                p["reason"] = bc_last_error();
            } else {
                uint8_t tag[16];
                Measured m = measure_host(r, n, [&] { return call_alg(a, k, r.in.p, r.out_buf.p, n, BC_MEMORY_HOST, nullptr, tag); });
                if (m.ok) {
                    p["status"] = "ok";
                    p["gbps"] = spread(m.gbps);
                    r.log("scaling cpu %-18s threads=%-3u %s: %.2f GB/s", spec.c_str(), t, human_bytes(n).c_str(),
                          median(m.gbps));
                } else {
                    p["status"] = "failed";
                    p["reason"] = status_text(m.st, m.error);
                }
            }
            bc_key_destroy(k);
            bc_context_destroy(c);
            j["points"].push(p);
        }
        r.out["scaling"]["cpu_threads"].push(j);
    }
}

// ---- main ----------------------------------------------------------------------------------------

uint64_t parse_bytes(const std::string& s) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string u = end ? end : "";
    for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double m = 1;
    if (u == "k" || u == "kib") m = 1024.0;
    else if (u == "m" || u == "mib") m = 1024.0 * 1024;
    else if (u == "g" || u == "gib") m = 1024.0 * 1024 * 1024;
    else if (u == "kb") m = 1e3;
    else if (u == "mb") m = 1e6;
    else if (u == "gb") m = 1e9;
    else if (!u.empty()) return 0;
    return static_cast<uint64_t>(v * m);
}

int usage() {
    std::fprintf(stderr,
                 "usage: sweep [--mode smoke|standard|full] [--max BYTES] [--algs a,b:decrypt,...]\n"
                 "             [--paths cpu1,cpuN,gpu-host,gpu-host-pinned,gpu-dev,gpu-dev-table,opencl]\n"
                 "             [--opencl-algs a,b|all] [--runs N] [--point-cap S] [--budget S]\n"
                 "             [--openssl-seconds N] [--openssl-sizes 16384|all]"
                 " [--no-openssl] [--json FILE] [--quiet]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Runner r;
    Config& c = r.cfg;
    // The mode first: it sets the defaults the other flags override.
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--mode") c.mode = argv[i + 1];
    if (c.mode == "smoke") {
        c.max_bytes = 64 << 10;
        c.runs = 5;
        c.batch_s = 0.0005;
        c.min_point_s = 0;
        c.point_cap_s = 0.5;
        c.budget_s = 75;
        c.roof_bytes = 16 << 20;
        c.scaling_bytes = 1 << 20;
        c.opencl_algs = {"chacha20", "salsa20-8"};
    } else if (c.mode == "full") {
        c.max_bytes = uint64_t(4) << 30;
        c.runs = 11;
        c.batch_s = 0.01;
        c.min_point_s = 0.2;
        c.point_cap_s = 8;
        c.budget_s = 3 * 3600;
        c.openssl_seconds = 3;
        c.openssl_all_sizes = true;
        c.roof_bytes = uint64_t(1) << 30;
        c.scaling_bytes = uint64_t(256) << 20;
    } else if (c.mode != "standard") {
        std::fprintf(stderr, "sweep: unknown mode '%s'\n", c.mode.c_str());
        return usage();
    }
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "sweep: %s needs a value\n", s.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (s == "--mode") next();
        else if (s == "--max") { c.max_bytes = parse_bytes(next()); if (c.max_bytes < 16) return usage(); }
        else if (s == "--algs") c.algs = split(next(), ',');
        else if (s == "--paths") c.paths = split(next(), ',');
        else if (s == "--opencl-algs") { std::string v = next(); c.opencl_algs = v == "all" ? std::vector<std::string>{} : split(v, ','); }
        else if (s == "--runs") c.runs = std::max(1, std::atoi(next().c_str()));
        else if (s == "--point-cap") c.point_cap_s = std::atof(next().c_str());
        else if (s == "--budget") c.budget_s = std::atof(next().c_str());
        else if (s == "--openssl-seconds") c.openssl_seconds = std::max(1, std::atoi(next().c_str()));
        else if (s == "--openssl-sizes") c.openssl_all_sizes = next() == "all";
        else if (s == "--no-openssl") c.openssl = false;
        else if (s == "--json") c.json = next();
        else if (s == "--quiet") c.quiet = true;
        else return usage();
    }
    if (c.algs.empty()) c.algs = mode_algorithms(c.mode);
    if (!c.json.empty() && !std::ofstream(c.json)) {  // fail now, not after the whole sweep
        std::fprintf(stderr, "sweep: cannot write %s\n", c.json.c_str());
        return 2;
    }
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGINT, on_stop_signal);

    r.out["schema"] = "bulkcrypt-sweep/1";
    r.out["tool"] = "sweep";
    r.out["meta"] = metadata(r);
    r.log("sweep: mode %s, sizes up to %s, %zu algorithms, %u cores, budget %.0f s", c.mode.c_str(),
          human_bytes(c.max_bytes).c_str(), c.algs.size(), r.cores, c.budget_s);

    // Host buffers for the largest size (input never zeros; output touched once).
    r.buf_bytes = static_cast<size_t>(std::max<uint64_t>(c.max_bytes, std::max(c.roof_bytes, c.scaling_bytes)));
    if (!r.in.alloc(r.buf_bytes) || !r.out_buf.alloc(r.buf_bytes)) {
        std::fprintf(stderr, "sweep: cannot allocate 2 x %s of host memory\n", human_bytes(r.buf_bytes).c_str());
        return 1;
    }
    fill_pattern(r.in.p, r.buf_bytes, 0x5eed);
    std::memset(r.out_buf.p, 0x11, r.buf_bytes);

    auto want = [&](const std::string& name) {
        return c.paths.empty() || std::find(c.paths.begin(), c.paths.end(), name) != c.paths.end();
    };

    // Which devices exist: OpenCL ones are found by trying opencl:0, 1, ... through the API.
    std::vector<std::string> devices = {"cpu"};
#if defined(BC_HAVE_CUDA)
    {
        cudaError_t e = cudaGetDeviceCount(&r.cuda_devices);
        if (e != cudaSuccess || r.cuda_devices == 0) {
            r.cuda_reason = e != cudaSuccess ? "no usable CUDA device (" + cuda_error(e) + ")" : "no CUDA device";
            r.cuda_devices = 0;
        } else {
            r.cuda_ok = true;
        }
        // cudaGetDeviceCount leaves the primary context alone, so the latency
        // phase below still sees the real first context creation.
    }
#else
    r.cuda_reason = "built without CUDA (BC_WITH_CUDA=OFF or no nvcc): no GPU path";
#endif
    if (r.cuda_ok) {
        devices.push_back("cuda:0");
        devices.push_back("hybrid");
    }
    // 1. Latency first, while nothing is warm. It also finds the OpenCL devices
    // (opencl:0, 1, ... until one is refused).
    std::vector<std::string> opencl_devices = latency(r, devices);

    // 2. Paths: contexts kept for the whole sweep.
    std::vector<Path> paths;
    auto add_path = [&](Path p) {
        if (!want(p.name.substr(0, p.name.find('@')))) return;
        paths.push_back(std::move(p));
    };
    {
        Path p;
        p.name = "cpu1"; p.device = "cpu"; p.options = "threads=1"; p.roof = "host-memcpy-1t";
        add_path(p);
        p.name = "cpuN"; p.options = "threads=" + std::to_string(r.cores); p.roof = "host-memcpy-all";
        add_path(p);
        if (c.mode == "full") {
            p.name = "cpuN-portable"; p.options += ",cpu.impl=portable";
            add_path(p);
        }
        Path g;
        g.device = "cuda:0";
        g.name = "gpu-host"; g.roof = "pcie-end-to-end";
        add_path(g);
        g.name = "gpu-host-pinned"; g.pinned = true;
        add_path(g);
        g.name = "gpu-dev"; g.pinned = false; g.memory = BC_MEMORY_DEVICE; g.roof = "cuda-d2d";
        add_path(g);
        g.name = "gpu-dev-table"; g.options = "aes=table"; g.aes_only = true;
        add_path(g);
        for (size_t i = 0; i < opencl_devices.size(); ++i) {
            Path o;
            o.device = opencl_devices[i];
            o.name = opencl_devices.size() == 1 ? "opencl" : "opencl@" + std::to_string(i);
            add_path(o);
        }
        if (opencl_devices.empty() && want("opencl")) {
            Path o;
            o.name = "opencl";
            o.device = "opencl:0";
            add_path(o);
        }
        Path h;
        h.name = "hybrid"; h.device = "hybrid"; h.roof = "host-memcpy-all";
        add_path(h);
        if (r.cuda_devices >= 2) {
            Path m;
            m.name = "gpu-all"; m.device = "cuda:all"; m.roof = "pcie-end-to-end";
            add_path(m);
        }
    }
    for (Path& p : paths) {
        if ((p.device.rfind("cuda", 0) == 0 || p.device == "hybrid") && !r.cuda_ok) {
            p.status = "skipped";
            p.reason = r.cuda_reason;
            continue;
        }
        bc_status st = bc_context_create(p.device.c_str(), p.options.empty() ? nullptr : p.options.c_str(), &p.ctx);
        if (st != BC_OK) {
            p.status = "skipped";
            p.reason = status_text(st, bc_last_error());
            p.ctx = nullptr;
            continue;
        }
        p.device_name = bc_context_device_name(p.ctx);
        p.backend = bc_context_backend(p.ctx);
        if (p.backend == "opencl") {
            // A GPU behind OpenCL is bounded by PCIe; a CPU device by host memory.
            bool gpu = p.device_name.find("NVIDIA") != std::string::npos || p.device_name.find("GPU") != std::string::npos;
            p.roof = gpu && r.cuda_ok ? "pcie-end-to-end" : "host-memcpy-all";
        }
    }

#if defined(BC_HAVE_CUDA)
    // Pinned and device buffers when a CUDA path runs (and for the PCIe roofs).
    if (r.cuda_ok) {
        cudaStream_t s = nullptr;
        cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaHostAlloc(reinterpret_cast<void**>(&r.pin_in), r.buf_bytes, cudaHostAllocDefault);
        if (e == cudaSuccess) e = cudaHostAlloc(reinterpret_cast<void**>(&r.pin_out), r.buf_bytes, cudaHostAllocDefault);
        if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&r.dev_in), r.buf_bytes);
        if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&r.dev_out), r.buf_bytes);
        if (e == cudaSuccess) {
            std::memcpy(r.pin_in, r.in.p, r.buf_bytes);
            std::memset(r.pin_out, 0x11, r.buf_bytes);
            e = cudaMemcpy(r.dev_in, r.in.p, r.buf_bytes, cudaMemcpyHostToDevice);
        }
        if (e == cudaSuccess) e = cudaMemset(r.dev_out, 0x11, r.buf_bytes);
        r.stream = s;
        if (e != cudaSuccess) {
            r.cuda_ok = false;
            r.cuda_reason = "CUDA buffers of " + human_bytes(r.buf_bytes) + ": " + cuda_error(e);
            for (Path& p : paths)
                if (p.backend == "cuda") {
                    p.status = "skipped";
                    p.reason = r.cuda_reason;
                }
        }
    }
#endif

    // 3. Roofs.
    host_roofs(r);
    Json gpu = Json::object();
#if defined(BC_HAVE_CUDA)
    if (r.cuda_ok) {
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, 0);
        gpu["name"] = prop.name;
        int drv = 0, rt = 0;
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        gpu["cuda_driver_api"] = drv;
        gpu["cuda_runtime"] = rt;
        gpu["memory_bytes"] = static_cast<uint64_t>(prop.totalGlobalMem);
        gpu["devices"] = r.cuda_devices;
        cuda_int_roof(r, gpu);
        cuda_roofs(r);
    } else {
        gpu["status"] = "skipped";
        gpu["reason"] = r.cuda_reason;
    }
#else
    gpu["status"] = "skipped";
    gpu["reason"] = r.cuda_reason;
#endif
    gpu["nvidia_smi"] = nvidia_smi();
    r.out["meta"]["gpu"] = gpu;

    for (Path& p : paths) {
        Json j = Json::object();
        j["name"] = p.name;
        j["device"] = p.device;
        j["options"] = p.options;
        j["memory"] = p.memory == BC_MEMORY_DEVICE ? "device" : (p.pinned ? "host-pinned" : "host-pageable");
        j["timer"] = p.timer();
        j["roof"] = p.roof;
        j["status"] = p.status;
        if (p.status == "ok") {
            j["device_name"] = p.device_name;
            j["backend"] = p.backend;
        } else {
            j["reason"] = p.reason;
            r.log("path %-15s skipped: %s", p.name.c_str(), p.reason.c_str());
        }
        r.out["paths"].push(j);
    }
    if (std::none_of(paths.begin(), paths.end(), [](const Path& p) { return p.backend == "opencl"; })) {
        // OpenCL buffers are host memory only through the C API: no device-memory path.
        r.log("path opencl: no OpenCL device");
    }
    {
        Json s = Json::object();
        s["name"] = "opencl-device-memory";
        s["status"] = "skipped";
        s["reason"] = "the OpenCL backend takes host memory only (BC_MEMORY_DEVICE is CUDA's)";
        r.out["paths"].push(s);
    }

    // 4. openssl speed, one process and one per core, same algorithms.
    if (c.openssl) {
        for (const std::string& spec : c.algs) {
            std::string name = spec.substr(0, spec.find(':'));
            if (spec.find(":decrypt") != std::string::npos) continue;  // speed measures encryption
            if (name.find("salsa") != std::string::npos || name == "chacha20-djb" || name.rfind("xchacha", 0) == 0) {
                Json j = Json::object();
                j["algorithm"] = name;
                j["status"] = "skipped";
                j["reason"] = "OpenSSL has no " + name;
                r.out["openssl"].push(j);
                continue;
            }
            if (r.over_budget()) break;
            openssl_speed(r, name, 1);
            openssl_speed(r, name, r.cores);
        }
    } else {
        r.out["openssl"] = Json::array();
    }

    // 5. NO-OP pipeline (transfers only), when the catalogue has it.
    {
        bc_algorithm_info ni{};
        if (bc_algorithm_query("noop", &ni) == BC_OK) {
            c.algs.insert(c.algs.begin(), "noop");
        } else {
            Json s = Json::object();
            s["algorithm"] = "noop";
            s["status"] = "skipped";
            s["reason"] = "the catalogue has no 'noop' algorithm (the NO-OP pipeline of issue 5)";
            r.out["results"].push(s);
        }
    }

    // 6. Scaling.
    cpu_scaling(r, c.mode == "smoke" ? std::vector<std::string>{"aes-128-ctr"}
                                     : std::vector<std::string>{"aes-128-ctr", "aes-256-gcm", "chacha20"});
    {
        Json g = Json::object();
        g["status"] = "not available";
        g["reason"] = "the CUDA backend has no option to limit the multiprocessors it uses "
                      "(context options: threads, cpu.impl, aes, chunk)";
        r.out["scaling"]["gpu_multiprocessors"] = g;
        Json m = Json::object();
        m["cuda_devices"] = r.cuda_devices;
        if (r.cuda_devices >= 2) {
            m["status"] = "measured";
            m["reason"] = "path gpu-all (cuda:all, every GPU through the engine) beside gpu-host (cuda:0)";
        } else {
            m["status"] = "not available";
            m["reason"] = r.cuda_devices == 1 ? "one GPU on this machine (cuda:all would run every GPU)"
                                              : "no GPU on this machine";
        }
        r.out["scaling"]["multi_gpu"] = m;
    }

    // 7. The sweep, most important algorithms first.
    for (const std::string& spec : c.algs) {
        if (spec == "noop") {
            std::vector<Path> pipes;  // copies sharing the contexts; destroyed through `paths`
            for (Path& p : paths)
                if (p.device != "cpu" && p.status == "ok") pipes.push_back(p);
            sweep_alg(r, pipes, spec);
            continue;
        }
        sweep_alg(r, paths, spec);
    }

    r.out["meta"]["elapsed_s"] = seconds_since(r.start);
    r.out["meta"]["budget_exhausted"] = r.over_budget();
    r.out["meta"]["stopped_by_signal"] = g_stop != 0;
    for (Path& p : paths) bc_context_destroy(p.ctx);
#if defined(BC_HAVE_CUDA)
    if (r.pin_in) cudaFreeHost(r.pin_in);
    if (r.pin_out) cudaFreeHost(r.pin_out);
    if (r.dev_in) cudaFree(r.dev_in);
    if (r.dev_out) cudaFree(r.dev_out);
    if (r.stream) cudaStreamDestroy(static_cast<cudaStream_t>(r.stream));
#endif
    const std::string text = r.out.dump(1) + "\n";
    if (!c.json.empty()) {
        std::ofstream f(c.json);
        f << text;
        if (!f) {
            std::fprintf(stderr, "sweep: cannot write %s\n", c.json.c_str());
            return 1;
        }
        r.log("wrote %s", c.json.c_str());
    } else {
        std::fputs(text.c_str(), stdout);
    }
    return 0;
}
