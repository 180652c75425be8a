// Several GPUs (the engine's cuda:all and hybrid), every figure beside the roof that
// bounds it, measured in the same run:
//
//   1. roofs: host memory (memcpy on every core, and on one); the copy engines alone
//      (cudaMemcpyAsync both ways at once from pinned memory: GPU 0, then every GPU);
//      each GPU's NO-OP pipeline alone (cuda:K, transfers only) from pinned and from
//      pageable host memory, and all of them at once (noop through cuda:all);
//      1b. pageable NO-OP on every GPU at once through pipelines of 4, 8, 16 staging
//      threads each (the CPU copies a pageable job needs twice per byte);
//   2. data in GPU memory, each GPU its own buffers: every GPU alone (one caller), then
//      one caller per GPU at once through one cuda:all context, against the sum of the
//      GPUs alone (N times one GPU);
//   3. data in host memory, pinned and pageable, one call on the whole buffer through
//      cuda:all and hybrid, against the smaller of the GPUs' NO-OP pipelines summed
//      and the host memory roof (the faster of the cores' copy and the copy engines').
//
//   multi_gpu_bench [--json FILE] [--size BYTES] [--device-size BYTES] [--seconds S]
//                   [--algs A,B,...]
//
// Markdown on stdout, JSON to FILE. GB = 1e9 bytes. Each point: calls for S seconds
// (at least three), the median call's rate. Without a GPU it says so and exits 0.
// CUDA_VISIBLE_DEVICES picks the GPUs (how the device script measures 1, 2, 4, ...).
#include <cstdio>

#if !defined(BC_HAVE_CUDA)
int main() {
    std::printf("skipped: built without CUDA\n");
    return 0;
}
#else
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/cuda_pipeline.h"
#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "multi_gpu_bench: %s\n", what.c_str());
    std::exit(2);
}

struct Args {
    std::string json = "multi_gpu_bench.json";
    size_t size = size_t(2) << 30;         // host-memory jobs
    size_t device_size = size_t(1) << 30;  // each GPU's buffer
    double seconds = 1.0;
    std::vector<std::string> algs = {"aes-128-ctr", "aes-256-gcm", "chacha20-poly1305"};
};

// One table row and one JSON object.
struct Row {
    std::string section, what, device, alg, memory;
    double gbps = 0, roof_gbps = 0;
    std::string roof, note;
};
std::vector<Row> g_rows;

void report(const Row& r) {
    g_rows.push_back(r);
    std::printf("| %s | %s | %s | %s | %.1f |", r.what.c_str(), r.device.c_str(), r.alg.c_str(), r.memory.c_str(),
                r.gbps);
    if (r.roof_gbps > 0)
        std::printf(" %.1f (%s) | %.1f %% |", r.roof_gbps, r.roof.c_str(), 100.0 * r.gbps / r.roof_gbps);
    else
        std::printf(" | |");
    std::printf(" %s |\n", r.note.c_str());
    std::fflush(stdout);
}

void header(const char* title) {
    std::printf("\n### %s\n\n| what | device | algorithm | memory | GB/s | roof | of roof | note |\n"
                "| --- | --- | --- | --- | ---: | --- | ---: | --- |\n",
                title);
}

std::string json_text(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o + "\"";
}

void write_json(const std::string& path, const std::vector<std::string>& gpus, unsigned cores, const Args& a) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write " + path);
    std::fprintf(f, "{\n  \"gpus\": [");
    for (size_t i = 0; i < gpus.size(); ++i) std::fprintf(f, "%s%s", i ? ", " : "", json_text(gpus[i]).c_str());
    std::fprintf(f, "],\n  \"cores\": %u,\n  \"size\": %zu,\n  \"device_size\": %zu,\n  \"seconds\": %g,\n  \"rows\": [",
                 cores, a.size, a.device_size, a.seconds);
    for (size_t i = 0; i < g_rows.size(); ++i) {
        const Row& r = g_rows[i];
        std::fprintf(f,
                     "%s\n    {\"section\": %s, \"what\": %s, \"device\": %s, \"alg\": %s, \"memory\": %s, "
                     "\"gbps\": %.3f, \"roof_gbps\": %.3f, \"roof\": %s, \"note\": %s}",
                     i ? "," : "", json_text(r.section).c_str(), json_text(r.what).c_str(), json_text(r.device).c_str(),
                     json_text(r.alg).c_str(), json_text(r.memory).c_str(), r.gbps, r.roof_gbps,
                     json_text(r.roof).c_str(), json_text(r.note).c_str());
    }
    std::fprintf(f, "\n  ]\n}\n");
    std::fclose(f);
}

// The median call's rate over `seconds` (at least three calls), after one warm-up call.
double median_rate(const std::function<void()>& call, size_t bytes, double seconds, int warmups = 1) {
    for (int i = 0; i < warmups; ++i) call();
    std::vector<double> rates;
    const auto start = Clock::now();
    while (rates.size() < 3 || seconds_since(start) < seconds) {
        const auto t0 = Clock::now();
        call();
        rates.push_back(double(bytes) / seconds_since(t0) / 1e9);
    }
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
}

// Host memory's roof for a transform that reads n bytes and writes n: memcpy of the
// same size over `threads` threads, each its own slice.
double memcpy_rate(uint8_t* dst, const uint8_t* src, size_t n, unsigned threads, double seconds) {
    auto call = [&] {
        std::vector<std::thread> th;
        const size_t slice = (n / threads + 63) / 64 * 64;
        for (unsigned t = 0; t < threads; ++t) {
            const size_t off = std::min(n, size_t(t) * slice), len = std::min(slice, n - off);
            th.emplace_back([=] { std::memcpy(dst + off, src + off, len); });
        }
        for (auto& x : th) x.join();
    };
    return median_rate(call, n, seconds);
}

struct Context {
    bc_context* ctx = nullptr;
    explicit Context(const std::string& device) {
        if (bc_context_create(device.c_str(), nullptr, &ctx) != BC_OK) die(device + ": " + bc_last_error());
    }
    ~Context() { bc_context_destroy(ctx); }
};

// A key of `alg` on a context, and one call of it on (in, out, n): AEADs sealed (device
// memory: the detached form, the tag on the host), others encrypted.
struct Job {
    bc_key* key = nullptr;
    bc_algorithm_info info{};
    std::vector<uint8_t> iv;
    Job(bc_context* ctx, const std::string& alg) {
        if (bc_algorithm_query(alg.c_str(), &info) != BC_OK) die(alg + ": " + bc_last_error());
        std::vector<uint8_t> k(info.key_size);
        for (size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(i * 37 + 1);
        iv.assign(info.iv_size, 0x24);
        if (bc_key_create(ctx, alg.c_str(), k.data(), k.size(), &key) != BC_OK) die(alg + ": " + bc_last_error());
    }
    ~Job() { bc_key_destroy(key); }
    void run(const uint8_t* in, uint8_t* out, size_t n, bc_memory memory) const {
        bc_params p{};
        p.memory = memory;
        size_t written = 0;
        uint8_t tag[16];
        bc_status st;
        if (info.kind == BC_KIND_AEAD)
            st = bc_aead_seal_detached(key, iv.data(), iv.size(), nullptr, 0, in, n, out, tag, info.tag_size, &p);
        else
            st = bc_encrypt(key, iv.data(), iv.size(), in, n, out, n, &written, &p);
        if (st != BC_OK) die(std::string(info.name) + ": " + bc_status_message(st) + ": " + bc_last_error());
    }
};

struct DeviceBuffers {
    int device = 0;
    uint8_t *in = nullptr, *out = nullptr;
    DeviceBuffers(const DeviceBuffers&) = delete;
    DeviceBuffers& operator=(const DeviceBuffers&) = delete;
    DeviceBuffers(int d, size_t n) : device(d) {
        cudaSetDevice(d);
        if (cudaMalloc(reinterpret_cast<void**>(&in), n) != cudaSuccess ||
            cudaMalloc(reinterpret_cast<void**>(&out), n) != cudaSuccess)
            die("cudaMalloc of " + std::to_string(n) + " bytes on GPU " + std::to_string(d) + " failed");
        cudaMemset(in, 0x5a, n);
        cudaDeviceSynchronize();
    }
    ~DeviceBuffers() {
        cudaSetDevice(device);
        cudaFree(in);
        cudaFree(out);
    }
};

// One caller per GPU at once, each on its own buffers, for `seconds`: the bytes all of
// them moved over the time from the common start to the last one's end.
double concurrent_rate(const Job& job, std::deque<DeviceBuffers>& bufs, size_t n, double seconds) {
    for (auto& b : bufs) job.run(b.in, b.out, n, BC_MEMORY_DEVICE);  // warm-up on every GPU
    std::atomic<bool> go{false};
    std::vector<size_t> calls(bufs.size(), 0);
    std::vector<double> ends(bufs.size(), 0);
    std::vector<std::thread> th;
    Clock::time_point start;
    for (size_t i = 0; i < bufs.size(); ++i)
        th.emplace_back([&, i] {
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            do {
                job.run(bufs[i].in, bufs[i].out, n, BC_MEMORY_DEVICE);
                ++calls[i];
            } while (seconds_since(start) < seconds);
            ends[i] = seconds_since(start);
        });
    start = Clock::now();
    go.store(true, std::memory_order_release);
    for (auto& x : th) x.join();
    size_t total = 0;
    for (size_t c : calls) total += c;
    return double(total) * double(n) / *std::max_element(ends.begin(), ends.end()) / 1e9;
}

// The copy engines alone, no pipeline: each GPU of `gpus` takes an equal share of n
// bytes, copying it from pinned host memory into its buffer on one stream while, on a
// second, as many bytes come back from its other buffer into pinned host memory, in
// pieces of 64 MiB. The host memory and the links as the DMA engines see them.
struct CopyEngines {
    std::deque<DeviceBuffers>& bufs;
    std::vector<cudaStream_t> up, down;  // per GPU
    explicit CopyEngines(std::deque<DeviceBuffers>& b) : bufs(b) {
        for (auto& x : bufs) {
            cudaSetDevice(x.device);
            cudaStream_t u, d;
            cudaStreamCreateWithFlags(&u, cudaStreamNonBlocking);
            cudaStreamCreateWithFlags(&d, cudaStreamNonBlocking);
            up.push_back(u);
            down.push_back(d);
        }
    }
    ~CopyEngines() {
        for (size_t i = 0; i < up.size(); ++i) {
            cudaSetDevice(bufs[i].device);
            cudaStreamDestroy(up[i]);
            cudaStreamDestroy(down[i]);
        }
    }
    void run(const std::vector<int>& gpus, const uint8_t* hin, uint8_t* hout, size_t n, size_t device_size) {
        const size_t piece = size_t(64) << 20;
        const size_t share = (n / gpus.size() + 4095) / 4096 * 4096;
        for (size_t g = 0; g < gpus.size(); ++g) {
            const int d = gpus[g];
            cudaSetDevice(d);
            const size_t first = std::min(n, g * share), end = std::min(n, first + share);
            for (size_t off = first; off < end; off += piece) {
                const size_t len = std::min(piece, end - off), at = (off - first) % (device_size - piece + 1);
                if (cudaMemcpyAsync(bufs[d].in + at, hin + off, len, cudaMemcpyHostToDevice, up[d]) != cudaSuccess ||
                    cudaMemcpyAsync(hout + off, bufs[d].out + at, len, cudaMemcpyDeviceToHost, down[d]) != cudaSuccess)
                    die("cudaMemcpyAsync failed");
            }
        }
        for (int d : gpus) {
            cudaSetDevice(d);
            if (cudaStreamSynchronize(up[d]) != cudaSuccess || cudaStreamSynchronize(down[d]) != cudaSuccess)
                die("a copy failed");
        }
    }
};

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) die("missing value after " + s);
            return argv[++i];
        };
        if (s == "--json") a.json = next();
        else if (s == "--size") a.size = std::strtoull(next().c_str(), nullptr, 10);
        else if (s == "--device-size") a.device_size = std::strtoull(next().c_str(), nullptr, 10);
        else if (s == "--seconds") a.seconds = std::atof(next().c_str());
        else if (s == "--algs") {
            a.algs.clear();
            std::string v = next();
            for (size_t p = 0; p <= v.size();) {
                size_t q = v.find(',', p);
                if (q == std::string::npos) q = v.size();
                if (q > p) a.algs.push_back(v.substr(p, q - p));
                p = q + 1;
            }
        } else {
            die("usage: multi_gpu_bench [--json FILE] [--size BYTES] [--device-size BYTES] [--seconds S] "
                "[--algs A,B,...]");
        }
    }
    bc::allow_benchmark_algorithms(true);  // "noop": the transfer-only baseline
    int ngpu = 0;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
        std::printf("skipped: no CUDA device\n");
        return 0;
    }
    std::vector<std::string> names;
    for (int d = 0; d < ngpu; ++d) {
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, d);
        char bus[32];
        std::snprintf(bus, sizeof bus, "%04x:%02x:%02x", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
        names.push_back(std::string(prop.name) + " (" + bus + ")");
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("# Several GPUs: %d GPU(s), %u cores, host jobs %zu bytes, GPU buffers %zu bytes each\n\n", ngpu,
                cores, a.size, a.device_size);
    for (int d = 0; d < ngpu; ++d) std::printf("- GPU %d: %s\n", d, names[d].c_str());

    Context all("cuda:all"), hybrid("hybrid");
    std::vector<std::unique_ptr<Context>> one;
    for (int d = 0; d < ngpu; ++d) one.push_back(std::make_unique<Context>("cuda:" + std::to_string(d)));

    // Host buffers: pageable (touched, so first-touch faults are not timed) and pinned.
    const size_t n = a.size;
    std::vector<uint8_t> pageable_in(n, 0x5a), pageable_out(n, 0);
    uint8_t *pinned_in = nullptr, *pinned_out = nullptr;
    if (cudaMallocHost(reinterpret_cast<void**>(&pinned_in), n) != cudaSuccess ||
        cudaMallocHost(reinterpret_cast<void**>(&pinned_out), n) != cudaSuccess)
        die("cudaMallocHost of " + std::to_string(n) + " bytes failed");
    std::memset(pinned_in, 0x5a, n);
    std::memset(pinned_out, 0, n);
    struct HostMem {
        const char* name;
        uint8_t *in, *out;
    } host[2] = {{"pinned", pinned_in, pinned_out}, {"pageable", pageable_in.data(), pageable_out.data()}};

    std::deque<DeviceBuffers> bufs;  // each GPU's own (never moved: each frees its memory once)
    for (int d = 0; d < ngpu; ++d) bufs.emplace_back(d, a.device_size);
    if (a.device_size < (size_t(64) << 20)) die("--device-size must be at least 64 MiB");

    // 1. Roofs.
    header("1. Roofs");
    const double mem_all = memcpy_rate(pageable_out.data(), pageable_in.data(), n, cores, a.seconds);
    const double mem_one = memcpy_rate(pageable_out.data(), pageable_in.data(), n, 1, a.seconds);
    report({"roof", "host memcpy, every core", "host", "", "pageable", mem_all, 0, "", "read n, write n"});
    report({"roof", "host memcpy, one core", "host", "", "pageable", mem_one, 0, "", ""});
    CopyEngines dma(bufs);
    std::vector<int> every;
    for (int d = 0; d < ngpu; ++d) every.push_back(d);
    const double dma_one = median_rate([&] { dma.run({0}, pinned_in, pinned_out, n, a.device_size); }, n, a.seconds);
    const double dma_all = median_rate([&] { dma.run(every, pinned_in, pinned_out, n, a.device_size); }, n, a.seconds);
    report({"roof", "copy engines alone, both ways at once, GPU 0", "cuda:0", "", "pinned", dma_one, 0, "",
            "cudaMemcpyAsync, no pipeline"});
    report({"roof", "copy engines alone, both ways at once, every GPU", "cuda:all", "", "pinned", dma_all,
            dma_one * ngpu, "N x GPU 0", "cudaMemcpyAsync, no pipeline"});
    // Host memory as fast as it was seen moving n in and n out: cores copying, or DMA.
    const double host_roof = std::max(mem_all, dma_all);
    double noop_sum[2] = {0, 0}, noop_all[2] = {0, 0};
    for (int m = 0; m < 2; ++m) {
        for (int d = 0; d < ngpu; ++d) {
            Job j(one[d]->ctx, "noop");
            const double r = median_rate([&] { j.run(host[m].in, host[m].out, n, BC_MEMORY_HOST); }, n, a.seconds);
            noop_sum[m] += r;
            report({"roof", "NO-OP pipeline, one GPU alone", "cuda:" + std::to_string(d), "noop", host[m].name, r, 0,
                    "", ""});
        }
        Job j(all.ctx, "noop");
        noop_all[m] = median_rate([&] { j.run(host[m].in, host[m].out, n, BC_MEMORY_HOST); }, n, a.seconds, 3);
        report({"roof", "NO-OP pipelines, every GPU at once", "cuda:all", "noop", host[m].name, noop_all[m],
                noop_sum[m], "sum of the GPUs alone", ""});
    }

    // 1b. What bounds the pageable path on several GPUs: NO-OP pipelines of our own (not
    // the library's shared ones) with T staging threads each, every GPU its slice at once.
    header("1b. Pageable NO-OP, every GPU at once, by staging threads per GPU");
    for (unsigned t : {4u, 8u, 16u}) {
        if (t > 4 && t * unsigned(ngpu) > 2 * cores) break;
        std::vector<std::unique_ptr<bc::cuda::HostPipeline>> pipes;
        for (int d = 0; d < ngpu; ++d) pipes.push_back(std::make_unique<bc::cuda::HostPipeline>(d, t));
        auto nothing = [](uint8_t*, uint8_t*, size_t, size_t, cudaStream_t, uint8_t*) { return bc::Status::ok(); };
        auto call = [&] {
            const size_t share = (n / size_t(ngpu) + 4095) / 4096 * 4096;
            std::vector<std::thread> th;
            for (int d = 0; d < ngpu; ++d)
                th.emplace_back([&, d] {
                    const size_t off = std::min(n, size_t(d) * share), len = std::min(share, n - off);
                    if (!pipes[d]->run(pageable_in.data() + off, pageable_out.data() + off, len, 0, 0, nothing))
                        die("pipeline run failed");
                });
            for (auto& x : th) x.join();
        };
        const double r = median_rate(call, n, a.seconds);
        report({"roof", std::to_string(t) + " staging threads per GPU", "every GPU", "noop", "pageable", r,
                mem_all / 2, "host memcpy / 2", t == bc::cuda::default_host_threads() ? "the default here" : ""});
    }

    // 2. Data in GPU memory, each GPU its own buffers.
    header("2. Data in GPU memory (each GPU its own buffers)");
    for (const std::string& alg : a.algs) {
        Job j(all.ctx, alg);
        double sum = 0, first = 0;
        for (int d = 0; d < ngpu; ++d) {
            const double r =
                median_rate([&] { j.run(bufs[d].in, bufs[d].out, a.device_size, BC_MEMORY_DEVICE); }, a.device_size,
                            a.seconds);
            if (d == 0) first = r;
            sum += r;
            report({"device", "GPU " + std::to_string(d) + " alone", "cuda:all", alg, "device", r, 0, "", ""});
        }
        const double agg = concurrent_rate(j, bufs, a.device_size, a.seconds);
        report({"device", "every GPU at once, one caller each", "cuda:all", alg, "device", agg, sum,
                "sum of the GPUs alone", fmt("%.2f x GPU 0 alone", agg / first)});
    }

    // 3. Data in host memory: one call on the whole buffer.
    // Roofs of one call on the whole buffer. cuda:all: the smaller of the GPUs' NO-OP
    // pipelines summed and host memory, which a pageable job crosses six times where a
    // copy crosses it twice (staged in: read and write; DMA in: read; DMA out: write;
    // staged out: read and write). hybrid: host memory (its CPU share alone reads n and
    // writes n, as a copy does).
    for (int m = 0; m < 2; ++m) {
        header((std::string("3. Data in host memory, ") + host[m].name).c_str());
        const double host_path = m == 0 ? host_roof : host_roof / 3;
        const double gpu_roof = std::min(noop_sum[m], host_path);
        const std::string gpu_roof_name = noop_sum[m] < host_path ? "GPUs' NO-OP pipelines summed"
                                          : m == 0                ? "host memory"
                                                                  : "host memory / 3";
        for (const std::string& alg : a.algs) {
            for (Context* c : {&all, &hybrid}) {
                Job j(c->ctx, alg);
                // Warm-ups: the engine tries its arms (split, CPU alone, GPUs alone) first.
                const double r =
                    median_rate([&] { j.run(host[m].in, host[m].out, n, BC_MEMORY_HOST); }, n, a.seconds, 8);
                if (c == &all)
                    report({"host", "one call, whole buffer", "cuda:all", alg, host[m].name, r, gpu_roof, gpu_roof_name,
                            ""});
                else
                    report({"host", "one call, whole buffer", "hybrid", alg, host[m].name, r, host_roof, "host memory",
                            ""});
            }
        }
    }
    cudaFreeHost(pinned_in);
    cudaFreeHost(pinned_out);
    write_json(a.json, names, cores, a);
    return 0;
}
#endif  // BC_HAVE_CUDA
