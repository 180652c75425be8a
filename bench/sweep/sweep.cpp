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
#include "sweep.h"

#include "catalog/catalog.h"

namespace sweep {

// SIGTERM or SIGINT (a timeout, a Ctrl-C): stop measuring, write what was measured.
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

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

}  // namespace sweep

using namespace sweep;

int main(int argc, char** argv) {
    bc::allow_benchmark_algorithms(true);  // "noop": the transfer-only baseline
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
