// bulkcrypt tune: the library's tuner (src/tuner) with a report for people; --show says what
// a context on the device uses and where it comes from, --reset forgets the device's tuned
// entries, --emit prints the winner in the shipped table's form for committing.
#include "tune.h"

#include <algorithm>
#include <cstdio>
#include <utility>

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

// An entry's numbers in the words of the knobs the device kind reads.
std::string describe_entry(const bc::tuning::DeviceIdentity& id, const bc::tuning::Tuning& t) {
    if (id.kind == "opencl" && std::string(t.family) == "aes")
        return fmt::format("AES counter kernel {}, work_group {}, groups_per_unit {}",
                           bc::tuning::opencl_aes_variant_name(t.kernel.variant), t.kernel.threads_per_block,
                           t.kernel.blocks_per_sm);
    if (id.kind == "opencl")
        return fmt::format("work_group {}, pipeline chunk {}", t.kernel.threads_per_block,
                           human_bytes(static_cast<double>(t.pipeline.chunk_bytes)));
    if (std::string(t.family) == "aes")
        return fmt::format("variant {}, blocks_per_sm {}, pair_blocks_per_sm {}, pair_cc_waves {}, ghash {}",
                           bc::tuning::aes_variant_name(t.kernel.variant), t.kernel.blocks_per_sm,
                           t.pair.blocks_per_sm, t.pair.variant, bc::tuning::ghash_variant_name(t.ghash.variant));
    if (std::string(t.family) == "chacha" || std::string(t.family) == "salsa")
        return fmt::format("threads {}, blocks_per_sm {}, unroll {}", t.kernel.threads_per_block,
                           t.kernel.blocks_per_sm, t.kernel.items_per_thread);
    if (std::string(t.family) == "generic")
        return fmt::format("blocks_per_sm {}, pipeline chunk {} depth {}, engine {}", t.kernel.blocks_per_sm,
                           human_bytes(static_cast<double>(t.pipeline.chunk_bytes)), t.pipeline.depth,
                           t.engine.cpu_threshold
                               ? fmt::format("threshold {} chunk {}", human_bytes(static_cast<double>(t.engine.cpu_threshold)),
                                             human_bytes(static_cast<double>(t.engine.chunk_bytes)))
                               : std::string("threshold and chunk the host's"));
    return fmt::format("blocks_per_sm {}", t.kernel.blocks_per_sm);
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
    // What a context on this device uses: the device-wide entry and AES's counter kernel on
    // OpenCL; on CUDA the
    // entry of each family and mode the kernels read, and every tuned one.
    std::vector<std::pair<std::string, std::string>> keys;
    if (id.kind == "opencl") keys = {{"generic", "*"}, {"aes", "ctr"}};
    else keys = {{"aes", "ecb"}, {"aes", "cbc"}, {"aes", "ctr"}, {"aes", "xts"}, {"aes", "gcm"},
                 {"chacha", "stream"}, {"chacha", "chachapoly"}, {"salsa", "stream"}, {"generic", "*"}};
    for (const auto& e : entries)
        if (std::find(keys.begin(), keys.end(), std::make_pair(e.family, e.mode)) == keys.end())
            keys.emplace_back(e.family, e.mode);
    for (const auto& k : keys) {
        const bc::tuning::Tuning& t = bc::tuning::select_tuning(traits, k.first.c_str(), k.second.c_str());
        const bool tuned = bc::tuning::find_tuned(traits, k.first.c_str(), k.second.c_str()) == &t;
        fmt::print("in use    {}/{}: {}, from the {}\n          {}\n", k.first, k.second, describe_entry(id, t),
                   tuned ? "tuning cache" : "shipped table", t.provenance);
    }
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

int cmd_tune(const TuneArgs& args) {
    TuneArgs a = args;
    if (a.device.empty()) a.device = bc::tuner::default_device();
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
    fmt::print("device    {}\n", r.identity.name);
    bool any = false;
    for (const bc::tuner::TunedPart& p : r.parts) {
        const auto& sr = p.search;
        fmt::print("\n{}/{}   {}\nsearch    {}: {} of {} points measured, {} pruned by the limits of the device and its kernels, {} failed, {:.1f} s\n",
                   p.entry.family, p.entry.mode, p.what, sr.strategy, sr.trials.size(), sr.space, sr.pruned, sr.failed,
                   sr.seconds);
        fmt::print("default   {} : {}\n", bc::tuning::describe(p.space, sr.baseline),
                   sr.baseline_m.ok ? fmt::format("{:.2f} GB/s", sr.baseline_m.rate) : "failed: " + sr.baseline_m.error);
        if (sr.best.empty()) continue;
        any = true;
        fmt::print("best      {} : {:.2f} GB/s ({})\n", bc::tuning::describe(p.space, sr.best), sr.best_rate,
                   sr.improved() ? fmt::format("{:.2f}x the default", sr.baseline_m.ok ? sr.best_rate / sr.baseline_m.rate : 0)
                                 : "the default stays: nothing beat it by the margin");
    }
    fmt::print("\ntotal     {:.1f} s\n", r.seconds);
    if (r.stored) fmt::print("stored    {}\n", r.cache_path);
    else fmt::print("stored    nothing: {}\n", r.note);
    if (a.emit)
        for (const bc::tuner::TunedPart& p : r.parts)
            if (!p.search.best.empty()) fmt::print("\n{}", bc::tuner::emit_entry(r.identity, p.entry));
    return any ? kExitOk : kExitDevice;
}

}  // namespace bcli
