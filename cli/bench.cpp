// bulkcrypt bench: quick throughput figures through the C API, beside the host
// memory-copy roof and the NO-OP pass through the same path (no cipher) measured in the same
// run, and the size under which jobs stay on the CPU; or, with --memory device, on data in
// GPU memory beside the device copy roof.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "common.h"
#include "container.h"
#include "device_buffers.h"
#include "info.h"
#include "io.h"
#include "keys.h"

namespace bcli {

namespace {

struct Timing {
    std::vector<double> runs;  // seconds per call
    double median() const {
        std::vector<double> v = runs;
        std::sort(v.begin(), v.end());
        return v.empty() ? 0 : v[v.size() / 2];
    }
    double best() const { return runs.empty() ? 0 : *std::min_element(runs.begin(), runs.end()); }
    double total() const {
        double t = 0;
        for (double r : runs) t += r;
        return t;
    }
};

// One warm-up call, then calls until both min_runs and min_seconds are reached.
template <class F>
Timing measure(F&& call, double min_seconds, unsigned min_runs) {
    call();
    Timing t;
    const double start = now_seconds();
    while (t.runs.size() < min_runs || now_seconds() - start < min_seconds) {
        const double t0 = now_seconds();
        call();
        t.runs.push_back(now_seconds() - t0);
        if (t.runs.size() >= 100000) break;
    }
    return t;
}

// Two calls taking turns (one warm-up each), until the first has min_runs and min_seconds:
// the host's pageable bandwidth wanders by ~15 % between separate measurements
// (bench/NOTES.md), not between turns, so a ratio of the two is taken in turns.
template <class F, class G>
std::pair<Timing, Timing> measure_turns(F&& a, G&& b, double min_seconds, unsigned min_runs) {
    a();
    b();
    Timing ta, tb;
    const double start = now_seconds();
    while (ta.runs.size() < min_runs || now_seconds() - start < min_seconds) {
        double t0 = now_seconds();
        a();
        ta.runs.push_back(now_seconds() - t0);
        t0 = now_seconds();
        b();
        tb.runs.push_back(now_seconds() - t0);
        if (ta.runs.size() >= 100000) break;
    }
    return {ta, tb};
}

void fill_pattern(uint8_t* p, size_t n) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(p + i, &x, 8);
    }
    for (; i < n; ++i) p[i] = static_cast<uint8_t>(i);
}

// Copies src to dst with `threads` threads, each its own slice.
void parallel_copy(uint8_t* dst, const uint8_t* src, size_t n, unsigned threads) {
    std::vector<std::thread> ts;
    const size_t slice = (n / threads + 63) / 64 * 64;
    for (unsigned i = 0; i < threads; ++i) {
        const size_t off = std::min(n, size_t(i) * slice), len = std::min(slice, n - off);
        if (len == 0) break;
        ts.emplace_back([=] { std::memcpy(dst + off, src + off, len); });
    }
    for (std::thread& t : ts) t.join();
}

double gbps(uint64_t bytes, double seconds) { return seconds > 0 ? double(bytes) / seconds / 1e9 : 0; }

// MemAvailable of /proc/meminfo in bytes (0: unknown).
uint64_t available_memory() {
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    std::fclose(f);
    return uint64_t(kib) * 1024;
}

}  // namespace

int cmd_bench(const BenchOptions& opt) {
    bc::allow_benchmark_algorithms(true);  // the NO-OP baseline (and -a noop) are the benchmark's own
    bc_algorithm_info info{};
    if (bc_algorithm_query(opt.algorithm.c_str(), &info) != BC_OK)
        fail(kExitUsage, fmt::format("unknown algorithm '{}' (see `bulkcrypt list`)", opt.algorithm));
    if (opt.size == 0) fail(kExitUsage, "--size must be at least 1 byte");
    if (opt.size > (uint64_t(1) << 40)) fail(kExitUsage, "--size above 1 TiB");
    const bool aead = info.kind == BC_KIND_AEAD;
    uint64_t size = opt.size;
    // ECB/CBC: whole blocks of the cipher (8 or 16 bytes); XTS: 16-byte blocks.
    const uint64_t whole = info.kind == BC_KIND_BLOCK_MODE ? info.block_size : info.kind == BC_KIND_XTS ? 16 : 1;
    size = std::max<uint64_t>(whole, size / whole * whole);
    if (aead && size > info.max_message_size) size = info.max_message_size;
    const uint64_t sector = info.kind == BC_KIND_XTS && size % 4096 == 0 ? 4096 : 0;

    // --memory device: the CUDA device whose memory holds the data (an engine context routes
    // device pointers to the GPU that owns them; its first GPU is used).
    const bool on_device = opt.memory == "device";
    int cuda_device = 0;
    if (on_device) {
        if (opt.device.rfind("cuda:", 0) == 0 && opt.device.size() > 5 &&
            opt.device.find_first_not_of("0123456789", 5) == std::string::npos)
            cuda_device = std::stoi(opt.device.substr(5));
        else if (opt.device != "auto" && opt.device != "hybrid" && opt.device != "cuda:all")
            fail(kExitUsage, "--memory device needs a CUDA device: --device cuda:N, cuda:all, hybrid or auto");
        if (opt.segment_size > 0 || !opt.file.empty())
            fail(kExitUsage, "--memory device measures one-shot calls only (no --segment-size, no --file)");
    }

    Context ctx;
    open_context(ctx, opt.device, opt.options);
    Key key;
    {
        SecureBytes k(info.key_size);
        random_bytes(k.data(), k.size());
        check(bc_key_create(ctx.ctx, opt.algorithm.c_str(), k.data(), k.size(), &key.key),
              fmt::format("cannot create a {} key", opt.algorithm));
    }
    std::vector<uint8_t> iv(info.iv_size);
    random_bytes(iv.data(), iv.size());
    // CTR: the whole block is the counter (128 bits for a 16-byte block, 64 for an 8-byte
    // one); clear its low bytes so no size up to 1 TiB makes it wrap (2^64 and 2^40 blocks).
    if (info.kind == BC_KIND_STREAM && info.block_size > 1 && iv.size() == info.block_size)
        std::memset(iv.data() + iv.size() - (info.block_size >= 16 ? 8 : 5), 0, info.block_size >= 16 ? 8 : 5);

    const size_t n = static_cast<size_t>(size);
    const size_t tag = aead ? info.tag_size : 0;
    // Refused up front rather than killed by the kernel's out-of-memory handler half way.
    const uint64_t needed = (aead && opt.decrypt ? 3 : 2) * (uint64_t(n) + tag + 16);
    const uint64_t available = available_memory();
    if (available > 0 && needed > available)
        fail(kExitUsage, fmt::format("--size {}: the buffers need {} of memory and {} is available: use a "
                                     "smaller --size", human_bytes(double(size)), human_bytes(double(needed)),
                                     human_bytes(double(available))));
    RawBuffer in(n + tag), out(n + tag + 16), ct(aead && opt.decrypt ? n + tag : 0);
    fill_pattern(in.data(), n);
    std::memset(out.data(), 0, out.size());
    bc_params params{};
    params.data_unit_size = sector;
    DeviceBuffer din, dout, dct;
    std::vector<uint8_t> dtag(16);
    if (on_device) {
        std::string why;
        if (!din.allocate(cuda_device, n, in.data(), &why) || !dout.allocate(cuda_device, n + 16, nullptr, &why) ||
            (aead && opt.decrypt && !dct.allocate(cuda_device, n, nullptr, &why)))
            fail(kExitDevice, "--memory device: " + why);
        params.memory = BC_MEMORY_DEVICE;
        if (aead && opt.decrypt)
            check(bc_aead_seal_detached(key.key, iv.data(), iv.size(), nullptr, 0, static_cast<uint8_t*>(din.data()), n,
                                        static_cast<uint8_t*>(dct.data()), dtag.data(), tag, &params),
                  "sealing the benchmark message in GPU memory");
    }

    // The sealed message the decrypt benchmark opens.
    if (aead && opt.decrypt) {
        size_t len = 0;
        check(bc_aead_seal(key.key, iv.data(), iv.size(), nullptr, 0, in.data(), n, ct.data(), ct.size(), &len,
                           tag, nullptr), "sealing the benchmark message");
    }
    // In GPU memory: the detached AEAD calls (the tag stays on the host), every call synchronous.
    auto one_shot_device = [&] {
        auto* di = static_cast<uint8_t*>(din.data());
        auto* dout_p = static_cast<uint8_t*>(dout.data());
        size_t len = 0;
        bc_status st;
        if (aead && !opt.decrypt)
            st = bc_aead_seal_detached(key.key, iv.data(), iv.size(), nullptr, 0, di, n, dout_p, dtag.data(), tag, &params);
        else if (aead)
            st = bc_aead_open_detached(key.key, iv.data(), iv.size(), nullptr, 0, static_cast<uint8_t*>(dct.data()), n,
                                       dtag.data(), tag, dout_p, &params);
        else
            st = (opt.decrypt ? bc_decrypt : bc_encrypt)(key.key, iv.data(), iv.size(), di, n, dout_p, n, &len, &params);
        check(st, fmt::format("{} {} in GPU memory", opt.decrypt ? "decrypting" : "encrypting", opt.algorithm));
    };
    auto one_shot = [&] {
        if (on_device) return one_shot_device();
        size_t len = 0;
        bc_status st;
        if (aead && !opt.decrypt)
            st = bc_aead_seal(key.key, iv.data(), iv.size(), nullptr, 0, in.data(), n, out.data(), out.size(),
                              &len, tag, nullptr);
        else if (aead)
            st = bc_aead_open(key.key, iv.data(), iv.size(), nullptr, 0, ct.data(), n + tag, out.data(),
                              out.size(), &len, tag, nullptr);
        else
            st = (opt.decrypt ? bc_decrypt : bc_encrypt)(key.key, iv.data(), iv.size(), in.data(), n,
                                                         out.data(), out.size(), &len, &params);
        check(st, fmt::format("{} {}", opt.decrypt ? "decrypting" : "encrypting", opt.algorithm));
    };
    // Beside it, in turns, the same path with no cipher ("noop": host to device and back
    // through the engine's pipelines, copies on the CPU): the ceiling of every cipher there.
    Timing t_one, t_noop;
    Key noop;
    const bool with_noop = !on_device && opt.algorithm != "noop";
    // A backend without the NO-OP pass (OpenCL) is measured without that roof.
    const bc_status noop_status = with_noop ? bc_key_create(ctx.ctx, "noop", nullptr, 0, &noop.key) : BC_OK;
    if (with_noop && noop_status != BC_ERR_NOT_SUPPORTED) {
        check(noop_status, "cannot create the NO-OP key");
        auto noop_call = [&] {
            size_t len = 0;
            check(bc_encrypt(noop.key, nullptr, 0, in.data(), n, out.data(), out.size(), &len, nullptr),
                  "the NO-OP pass (no cipher)");
        };
        std::tie(t_one, t_noop) = measure_turns(one_shot, noop_call, opt.seconds, opt.min_runs);
    } else {
        t_one = measure(one_shot, opt.seconds, opt.min_runs);
    }
    const double noop_gbps = t_noop.runs.empty() ? 0 : gbps(size, t_noop.median());
    const char* noop_missing = with_noop && noop_status == BC_ERR_NOT_SUPPORTED
                                   ? "this backend has no NO-OP pass (transfers alone): not measured"
                                   : nullptr;
    const size_t cpu_threshold = bc_context_cpu_threshold(ctx.ctx);

    // The container's path: independent segments sealed by a pool of threads.
    // (Every run seals with the same key and nonces: harmless for a throwaway
    // benchmark key and data, never done with real data.)
    Timing t_seg;
    unsigned workers = 0;
    uint64_t seg = opt.segment_size;
    if (seg > 0 && aead && !opt.decrypt && opt.file.empty()) {
        seg = std::min<uint64_t>(seg, n);
        if (opt.jobs > 256) fail(kExitUsage, "--jobs: at most 256 threads");
        workers = opt.jobs != 0 ? opt.jobs : std::clamp(std::thread::hardware_concurrency(), 2u, 64u);
        const uint64_t nseg = (n + seg - 1) / seg;
        RawBuffer segout(static_cast<size_t>(nseg * (seg + tag)));
        auto segmented = [&] {
            std::atomic<uint64_t> next{0};
            std::atomic<int> failed{0};
            std::vector<std::thread> ts;
            for (unsigned w = 0; w < workers; ++w)
                ts.emplace_back([&] {
                    uint8_t nonce[12] = {};
                    for (uint64_t k; (k = next.fetch_add(1)) < nseg;) {
                        const size_t off = static_cast<size_t>(k * seg);
                        const size_t len = static_cast<size_t>(std::min<uint64_t>(seg, n - off));
                        std::memcpy(nonce, &k, sizeof k);
                        size_t olen = 0;
                        if (bc_aead_seal(key.key, nonce, sizeof nonce, nullptr, 0, in.data() + off, len,
                                         segout.data() + k * (seg + tag), len + tag, &olen, tag, nullptr) != BC_OK)
                            failed = 1;
                    }
                });
            for (std::thread& t : ts) t.join();
            if (failed) fail(kExitDevice, "a segment failed to seal");
        };
        t_seg = measure(segmented, opt.seconds, opt.min_runs);
    }

    // The whole command's path: a file through the container (read, seal, write).
    ContainerSummary file_run;
    bool have_file = false;
    if (!opt.file.empty()) {
        if (container_algorithm_id(opt.algorithm) == 0 || opt.decrypt)
            fail(kExitUsage, "--file needs encryption with a container algorithm (aes-256-gcm, "
                             "chacha20-poly1305, aes-128-gcm, xchacha20-poly1305, sm4-gcm, "
                             "aria-{128,192,256}-gcm, seed-128-gcm)");
        {
            // Warm the page cache: the figure is about the command, not the disk.
            Input warm;
            warm.open(opt.file);
            RawBuffer chunk(size_t(8) << 20);
            while (warm.read_full(chunk.data(), chunk.size()) == chunk.size()) {
            }
        }
        SecureBytes master(kMasterKeySize);
        random_bytes(master.data(), master.size());
        ContainerOptions c;
        c.algorithm = opt.algorithm;
        c.device = opt.device;
        c.options = opt.options;
        c.master_key = master.data();
        c.segment_size = opt.segment_size > 0 ? opt.segment_size : c.segment_size;
        c.jobs = opt.jobs;
        c.force = true;
        c.progress = false;
        file_run = encrypt_container(c, opt.file, opt.file_out);
        have_file = true;
    }

    const unsigned copy_threads = std::clamp(std::thread::hardware_concurrency(), 1u, 64u);
    const Timing t_copy = measure([&] { parallel_copy(out.data(), in.data(), n, copy_threads); }, 0.3, 3);
    const double t_dcopy = on_device ? device_copy_seconds(dout, din, n, 0.3) : -1;

    const char* dir = opt.decrypt ? "decrypt" : "encrypt";
    if (opt.json) {
        nlohmann::json j;
        j["algorithm"] = opt.algorithm;
        j["direction"] = dir;
        j["device"] = bc_context_device_name(ctx.ctx);
        j["backend"] = bc_context_backend(ctx.ctx);
        j["options"] = opt.options;
        j["bytes_per_call"] = size;
        if (sector) j["xts_data_unit"] = sector;
        j["one_shot"] = {{"gb_per_s", gbps(size, t_one.median())},
                         {"gb_per_s_best", gbps(size, t_one.best())},
                         {"runs", t_one.runs.size()},
                         {"seconds", t_one.total()}};
        if (!t_seg.runs.empty())
            j["segmented"] = {{"gb_per_s", gbps(size, t_seg.median())},
                              {"gb_per_s_best", gbps(size, t_seg.best())},
                              {"segment_size", seg},
                              {"workers", workers},
                              {"runs", t_seg.runs.size()}};
        if (have_file)
            j["file"] = {{"path", opt.file},
                         {"output", opt.file_out},
                         {"bytes", file_run.plaintext_bytes},
                         {"seconds", file_run.seconds},
                         {"gb_per_s", gbps(file_run.plaintext_bytes, file_run.seconds)},
                         {"fraction_of_one_shot", gbps(file_run.plaintext_bytes, file_run.seconds) /
                                                      gbps(size, t_one.median())},
                         {"segment_size", opt.segment_size > 0 ? opt.segment_size : ContainerOptions{}.segment_size},
                         {"workers", file_run.workers},
                         {"segments_in_flight", file_run.slots}};
        j["roof_host_memcpy"] = {{"gb_per_s", gbps(size, t_copy.median())}, {"threads", copy_threads}};
        if (noop_gbps > 0)
            j["noop"] = {{"gb_per_s", noop_gbps}, {"fraction", gbps(size, t_one.median()) / noop_gbps}};
        else if (noop_missing)
            j["noop"] = {{"skipped", noop_missing}};
        j["cpu_threshold_bytes"] = cpu_threshold;
        j["memory"] = on_device ? "device" : "host";
        if (on_device) j["roof_device_copy"] = {{"gb_per_s", t_dcopy > 0 ? gbps(size, t_dcopy) : -1.0}};
        j["library_version"] = bc_version();
        std::puts(j.dump().c_str());
        return kExitOk;
    }
    fmt::print("bulkcrypt bench: {} {} on {} ({}), {} per call\n", opt.algorithm, dir,
               bc_context_device_name(ctx.ctx), bc_context_backend(ctx.ctx), human_bytes(double(size)));
    if (sector) fmt::print("  (XTS with {}-byte data units)\n", sector);
    fmt::print("  one-shot call      {:9.2f} GB/s  (best {:.2f}, {} runs in {:.2f} s)\n",
               gbps(size, t_one.median()), gbps(size, t_one.best()), t_one.runs.size(), t_one.total());
    if (!t_seg.runs.empty())
        fmt::print("  segmented          {:9.2f} GB/s  ({} segments, {} workers: the container's path)\n",
                   gbps(size, t_seg.median()), human_bytes(double(seg)), workers);
    if (have_file) {
        const double r = gbps(file_run.plaintext_bytes, file_run.seconds);
        fmt::print("  file -> {:<10} {:9.2f} GB/s  ({} of {}, {} workers, {} segments in flight: {:.0f}% of "
                   "one-shot)\n", opt.file_out == "/dev/null" ? "/dev/null" : "file", r,
                   human_bytes(double(file_run.plaintext_bytes)), opt.file, file_run.workers, file_run.slots,
                   100 * r / gbps(size, t_one.median()));
    }
    if (on_device) {
        if (t_dcopy > 0)
            fmt::print("  roof: device copy  {:9.2f} GB/s  (cudaMemcpy device to device, same buffers)\n",
                       gbps(size, t_dcopy));
        else
            fmt::print("  roof: device copy  (could not be measured)\n");
        fmt::print("  GB/s = 10^9 plaintext bytes per second, GPU memory in and out (median of the runs).\n");
        return kExitOk;
    }
    if (noop_gbps > 0)
        fmt::print("  NO-OP, same path   {:9.2f} GB/s  (the data through the same path, no cipher, in turns with "
                   "the call: the call at {:.0f}% of it)\n", noop_gbps, 100 * gbps(size, t_one.median()) / noop_gbps);
    else if (noop_missing)
        fmt::print("  NO-OP, same path   (skipped: {})\n", noop_missing);
    fmt::print("  roof: host memcpy  {:9.2f} GB/s  ({} threads, same buffers)\n", gbps(size, t_copy.median()),
               copy_threads);
    if (cpu_threshold > 0)
        fmt::print("  CPU alone under    {:>9}       (smaller jobs run whole on the calling thread's core)\n",
                   human_bytes(double(cpu_threshold)));
    fmt::print("  GB/s = 10^9 plaintext bytes per second, host memory in and out (median of the runs).\n");
    return kExitOk;
}

}  // namespace bcli
