#include "tuner/tuner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "backends/backend.h"
#include "tuning/tuned.h"

namespace bc {
namespace tuner {

namespace {

// "opencl:3" -> ("opencl", 3); false when malformed.
bool split_device(const std::string& d, std::string* kind, int* index) {
    const size_t colon = d.find(':');
    *kind = d.substr(0, colon);
    if (colon == std::string::npos) {
        *index = 0;
        return !kind->empty();
    }
    const std::string n = d.substr(colon + 1);
    if (n.empty() || n.size() > 4 || n.find_first_not_of("0123456789") != std::string::npos) return false;
    *index = std::atoi(n.c_str());
    return true;
}

std::string kernel_text(const tuning::KernelTuning& k) {
    char b[96];
    std::snprintf(b, sizeof b, "{%d, %d, %d, %d}", k.threads_per_block, k.blocks_per_sm, k.items_per_thread, k.variant);
    return b;
}

// The kind and index of a device string the tuner tunes (cuda:N, opencl:N).
Status device_index(const std::string& device, std::string* kind, int* index) {
    if (!split_device(device, kind, index)) return Status(BC_ERR_BAD_DEVICE, "bad device '" + device + "'");
    if (*kind != "opencl" && *kind != "cuda")
        return Status(BC_ERR_NOT_SUPPORTED, "the tuner tunes CUDA and OpenCL devices (cuda:N, opencl:N); '" + device +
                                                "' is neither");
    return Status::ok();
}

}  // namespace

std::string today() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[16];
    std::strftime(b, sizeof b, "%Y-%m-%d", &tm);
    return b;
}

std::string confirm(tuning::SearchResult* r, const std::function<tuning::Measurement(const tuning::Point&)>& measure,
                    int runs, double min_gain) {
    if (!r->improved() || r->best.empty() || !r->baseline_m.ok) return "";
    std::vector<double> base, best;
    for (int i = 0; i < runs; ++i) {
        const tuning::Measurement b = measure(r->baseline);
        const tuning::Measurement c = measure(r->best);
        if (!b.ok || !c.ok) return "confirmation failed: " + (b.ok ? c.error : b.error);
        base.push_back(b.rate);
        best.push_back(c.rate);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double mb = median(base), mc = median(best);
    char line[160];
    std::snprintf(line, sizeof line, "confirmed %.2f against %.2f GB/s", mc, mb);
    if (mc >= mb * min_gain) {
        r->best_rate = mc;
        r->baseline_m.rate = mb;
        return line;
    }
    r->best = r->baseline;  // the second look did not hold: the shipped point stays
    r->best_rate = mb;
    r->baseline_m.rate = mb;
    return std::string(line) + ": not by the margin, the default stays";
}

tuning::Measurement timed_rate(size_t bytes, const TuneOptions& opt, const std::function<Status(double* seconds)>& run) {
    auto once = [&] {
        tuning::Measurement r;
        double t = 0;
        const Status st = run(&t);
        if (!st.is_ok() || t <= 0) {
            r.error = st.is_ok() ? "no time measured" : st.detail;
            return r;
        }
        r.ok = true;
        r.rate = static_cast<double>(bytes) / t / 1e9;
        return r;
    };
    return tuning::median_of(once, opt.warmup, opt.runs);
}

void report(const TuneOptions& opt, const std::string& line, const tuning::Measurement& m) {
    if (!opt.progress) return;
    char b[64];
    std::snprintf(b, sizeof b, " %.2f GB/s", m.rate);
    opt.progress(m.ok ? line + b : line + " failed: " + m.error);
}

void finish_entry(const tuning::Tuning& shipped, const TunedPart& part, double extra_seconds, tuning::TunedEntry* e) {
    e->rate_gbs = part.search.best_rate;
    e->default_gbs = part.search.baseline_m.ok ? part.search.baseline_m.rate : 0;
    e->date = today();
    e->pipeline = shipped.pipeline;
    e->engine = shipped.engine;
    char summary[320];
    std::snprintf(summary, sizeof summary, "%s, %s: %zu of %zu points measured, %zu pruned, %zu failed, %.0f s",
                  part.what.c_str(), part.search.strategy.c_str(), part.search.trials.size(), part.search.space,
                  part.search.pruned, part.search.failed, part.search.seconds + extra_seconds);
    e->search = summary;
}

std::string default_device() { return cuda_device_count() > 0 ? "cuda:0" : "opencl:0"; }

Status identify(const std::string& device, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits) {
    std::string kind;
    int index = 0;
    BC_TRY(device_index(device, &kind, &index));
    return kind == "cuda" ? identify_cuda(index, id, traits) : identify_opencl(index, id, traits);
}

Status tune(const TuneOptions& opt, TuneResult* out) {
    std::string kind;
    int index = 0;
    BC_TRY(device_index(opt.device, &kind, &index));
    if (opt.budget_seconds <= 0) return Status(BC_ERR_INVALID_ARGUMENT, "the budget must be positive");
    const auto start = std::chrono::steady_clock::now();
    BC_TRY(kind == "cuda" ? tune_cuda(index, opt, out) : tune_opencl(index, opt, out));
    out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out->cache_path = opt.cache_path.empty() ? tuning::default_cache_path() : opt.cache_path;
    std::vector<tuning::TunedEntry> entries;
    for (const TunedPart& p : out->parts)
        if (!p.search.best.empty()) entries.push_back(p.entry);
    if (entries.empty()) {
        out->note = "no candidate passed its check: nothing stored";
        return Status::ok();
    }
    if (!opt.store) {
        out->note = "not stored (asked not to)";
        return Status::ok();
    }
    if (out->cache_path.empty()) {
        out->note = "no cache path (set XDG_CACHE_HOME, HOME or BULKCRYPT_TUNING_CACHE): nothing stored";
        return Status::ok();
    }
    std::string error, warning;
    if (!tuning::store_entries(out->cache_path, out->identity, entries, &error, &warning))
        return Status(BC_ERR_INVALID_ARGUMENT, "tuning cache: " + error);
    tuning::warn_once(warning);
    out->stored = true;
    return Status::ok();
}

std::string emit_entry(const tuning::DeviceIdentity& id, const tuning::TunedEntry& e) {
    const char* kind = id.kind == "cuda" ? "DeviceKind::Cuda" : id.kind == "opencl" ? "DeviceKind::OpenCl" : "DeviceKind::Cpu";
    char pipe[128], engine[160];
    std::snprintf(pipe, sizeof pipe, "{%zu, %d, %zu}", e.pipeline.chunk_bytes, e.pipeline.depth, e.pipeline.stage_bytes);
    std::snprintf(engine, sizeof engine, "{%zu, %zu, %zu, %zu}", e.engine.chunk_bytes, e.engine.cpu_threshold,
                  e.engine.oneshot_max, e.engine.split_min);
    char rates[96];
    std::snprintf(rates, sizeof rates, "%.1f GB/s against the shipped entry's %.1f", e.rate_gbs, e.default_gbs);
    return "    {DeviceClass{" + std::string(kind) + ", \"" + id.name + "\", -1, -1, -1}, \"" + e.family + "\", \"" +
           e.mode + "\", " + kernel_text(e.kernel) + ", " + kernel_text(e.pair) + ", " + kernel_text(e.ghash) + ", " +
           pipe + ", " + engine + ",\n     \"" + id.name + ", driver " + id.driver + ", " + id.arch + ". bulkcrypt tune " +
           e.date + ": " + rates + " (" + e.search + "); bench/results/<date>-<topic>\"},\n";
}

#if !BC_HAVE_OPENCL
Status tune_opencl(int, const TuneOptions&, TuneResult*) {
    return Status(BC_ERR_NO_DEVICE, "this build has no OpenCL backend");
}
Status identify_opencl(int, tuning::DeviceIdentity*, tuning::DeviceTraits*) {
    return Status(BC_ERR_NO_DEVICE, "this build has no OpenCL backend");
}
#endif
#if !BC_HAVE_CUDA
Status tune_cuda(int, const TuneOptions&, TuneResult*) { return Status(BC_ERR_NO_DEVICE, "this build has no CUDA backend"); }
Status identify_cuda(int, tuning::DeviceIdentity*, tuning::DeviceTraits*) {
    return Status(BC_ERR_NO_DEVICE, "this build has no CUDA backend");
}
#endif

}  // namespace tuner
}  // namespace bc
