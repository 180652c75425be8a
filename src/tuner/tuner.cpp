#include "tuner/tuner.h"

#include <cstdio>
#include <cstdlib>

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

// The index of an OpenCL device string: the one kind the tuner tunes today.
Status opencl_index(const std::string& device, int* index) {
    std::string kind;
    if (!split_device(device, &kind, index)) return Status(BC_ERR_BAD_DEVICE, "bad device '" + device + "'");
    if (kind != "opencl")
        return Status(BC_ERR_NOT_SUPPORTED, "the tuner tunes OpenCL devices (opencl:N); '" + device + "' is not one");
    return Status::ok();
}

}  // namespace

Status identify(const std::string& device, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits) {
    int index = 0;
    BC_TRY(opencl_index(device, &index));
    return identify_opencl(index, id, traits);
}

Status tune(const TuneOptions& opt, TuneResult* out) {
    int index = 0;
    BC_TRY(opencl_index(opt.device, &index));
    if (opt.budget_seconds <= 0) return Status(BC_ERR_INVALID_ARGUMENT, "the budget must be positive");
    BC_TRY(tune_opencl(index, opt, out));
    out->cache_path = opt.cache_path.empty() ? tuning::default_cache_path() : opt.cache_path;
    if (out->search.best.empty()) {
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
    if (!tuning::store_entries(out->cache_path, out->identity, {out->entry}, &error, &warning))
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

}  // namespace tuner
}  // namespace bc
