// bulkcrypt tune: the library's tuner (src/tuner) with a report for people; --show says what
// a context on the device uses and where it comes from, --reset forgets the device's tuned
// entries, --emit prints the winner in the shipped table's form for committing.
#include "tune.h"

#include <cstdio>

#include <fmt/format.h>

#include "common.h"
#include "tuner/tuner.h"
#include "tuning/tuned.h"

namespace bcli {

namespace {

std::string cache_path() {
    const std::string p = bc::tuning::default_cache_path();
    if (p.empty()) fail(kExitUsage, "no tuning cache path: set XDG_CACHE_HOME, HOME or BULKCRYPT_TUNING_CACHE");
    return p;
}

void print_identity(const bc::tuning::DeviceIdentity& id) {
    fmt::print("device    {} ({})\ndriver    {}\nruntime   {}\narch      {}\nbulkcrypt {}\nsources   {}\n", id.name,
               id.kind, id.driver, id.runtime, id.arch, id.bulkcrypt, id.sources);
}

int show(const std::string& device) {
    bc::tuning::DeviceIdentity id;
    bc::tuning::DeviceTraits traits;
    bc::Status s = bc::tuner::identify(device, &id, &traits);
    if (!s.is_ok()) fail(exit_code_for(s.code), device + ": " + s.detail);
    print_identity(id);
    const std::string path = cache_path();
    std::vector<bc::tuning::TunedEntry> entries;
    std::string warning;
    bc::tuning::load_entries(path, id, &entries, &warning);
    fmt::print("cache     {} ({} tuned entr{} for this device)\n", path, entries.size(), entries.size() == 1 ? "y" : "ies");
    if (!warning.empty()) fmt::print("warning   {}\n", warning);
    bc::tuning::set_tuned(id, traits, entries);
    // What a context on this device uses for its kernels: the device-wide entry
    const bc::tuning::Tuning& t = bc::tuning::select_tuning(traits);
    const bool tuned = bc::tuning::find_tuned(traits, "generic", "*") == &t;
    fmt::print("in use    work_group {} (threads_per_block), pipeline chunk {}, from the {}\n          {}\n",
               t.kernel.threads_per_block, human_bytes(static_cast<double>(t.pipeline.chunk_bytes)),
               tuned ? "tuning cache" : "shipped table", t.provenance);
    return kExitOk;
}

int reset(const std::string& device) {
    bc::tuning::DeviceIdentity id;
    bc::tuning::DeviceTraits traits;
    bc::Status s = bc::tuner::identify(device, &id, &traits);
    if (!s.is_ok()) fail(exit_code_for(s.code), device + ": " + s.detail);
    const std::string path = cache_path();
    std::string error, warning;
    if (!bc::tuning::remove_entries(path, &id, &error, &warning)) fail(kExitIo, "tuning cache: " + error);
    if (!warning.empty()) fmt::print(stderr, "bulkcrypt: warning: {}\n", warning);
    fmt::print("forgot the tuned entries of {} in {}\n", id.name, path);
    return kExitOk;
}

}  // namespace

int cmd_tune(const TuneArgs& a) {
    if (a.show) return show(a.device);
    if (a.reset) return reset(a.device);
    bc::tuner::TuneOptions o;
    o.device = a.device;
    o.algorithms = a.algorithms;
    o.budget_seconds = a.budget;
    o.bytes = static_cast<size_t>(parse_size(a.size, "--size"));
    o.store = !a.no_store;
    o.progress = [](const std::string& line) { fmt::print(stderr, "  {}\n", line); };
    bc::tuner::TuneResult r;
    fmt::print(stderr, "tuning {} for at most {:.0f} s\n", a.device, a.budget);
    const bc::Status s = bc::tuner::tune(o, &r);
    if (!s.is_ok()) fail(exit_code_for(s.code), a.device + ": " + s.detail);
    const auto& sr = r.search;
    fmt::print("device    {}\nsearch    {}: {} of {} points measured, {} pruned by the limits of the device and its kernels, {} failed, {:.1f} s\n",
               r.identity.name, sr.strategy, sr.trials.size(), sr.space, sr.pruned, sr.failed, sr.seconds);
    fmt::print("default   {} : {}\n", bc::tuning::describe(r.space, sr.baseline),
               sr.baseline_m.ok ? fmt::format("{:.2f} GB/s", sr.baseline_m.rate) : "failed: " + sr.baseline_m.error);
    if (!sr.best.empty())
        fmt::print("best      {} : {:.2f} GB/s ({})\n", bc::tuning::describe(r.space, sr.best), sr.best_rate,
                   sr.improved() ? fmt::format("{:.2f}x the default", sr.baseline_m.ok ? sr.best_rate / sr.baseline_m.rate : 0)
                                 : "the default stays: nothing beat it by the margin");
    if (r.stored) fmt::print("stored    {}\n", r.cache_path);
    else fmt::print("stored    nothing: {}\n", r.note);
    if (a.emit && !sr.best.empty()) fmt::print("\n{}", bc::tuner::emit_entry(r.identity, r.entry));
    return sr.best.empty() ? kExitDevice : kExitOk;
}

}  // namespace bcli
