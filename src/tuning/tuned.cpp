#include "tuning/tuned.h"

#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <set>

namespace bc {
namespace tuning {

namespace {

// One device's tuned entries and the strings their Tunings point into.
struct TunedSet {
    DeviceTraits dev;
    DeviceIdentity id;
    std::vector<TunedEntry> entries;
    std::deque<std::string> provenance;
    std::vector<Tuning> tunings;
    bool active = true;
};

struct Registry {
    std::mutex mu;
    std::deque<std::unique_ptr<TunedSet>> sets;  // retired sets stay: see tuned.h
    std::set<std::string> warned;
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: contexts may outlive static destruction
    return *r;
}

bool same_device(const DeviceTraits& a, const DeviceTraits& b) {
    return a.kind == b.kind && a.name == b.name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor;
}

bool same_entries(const std::vector<TunedEntry>& a, const std::vector<TunedEntry>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const TunedEntry &x = a[i], &y = b[i];
        if (x.family != y.family || x.mode != y.mode || x.date != y.date || x.rate_gbs != y.rate_gbs ||
            std::memcmp(&x.kernel, &y.kernel, sizeof x.kernel) != 0 || std::memcmp(&x.pair, &y.pair, sizeof x.pair) != 0 ||
            std::memcmp(&x.ghash, &y.ghash, sizeof x.ghash) != 0 ||
            x.pipeline.chunk_bytes != y.pipeline.chunk_bytes || x.pipeline.depth != y.pipeline.depth ||
            x.pipeline.stage_bytes != y.pipeline.stage_bytes || x.engine.chunk_bytes != y.engine.chunk_bytes ||
            x.engine.cpu_threshold != y.engine.cpu_threshold || x.engine.oneshot_max != y.engine.oneshot_max ||
            x.engine.split_min != y.engine.split_min)
            return false;
    }
    return true;
}

}  // namespace

void set_tuned(const DeviceIdentity& id, const DeviceTraits& dev, const std::vector<TunedEntry>& entries) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& s : r.sets) {
        if (!s->active || !same_device(s->dev, dev)) continue;
        if (s->id == id && same_entries(s->entries, entries)) return;  // already in effect
        s->active = false;
    }
    if (entries.empty()) return;
    auto s = std::make_unique<TunedSet>();
    s->dev = dev;
    s->id = id;
    s->entries = entries;
    s->id.name = dev.name;  // the Tunings' DeviceClass points at it
    for (const TunedEntry& e : s->entries) {
        s->provenance.emplace_back();
        s->tunings.push_back(to_tuning(e, s->id, &s->provenance.back()));
    }
    r.sets.push_back(std::move(s));
}

std::string load_tuned(const DeviceIdentity& id, const DeviceTraits& dev, const std::string& path) {
    const std::string file = path.empty() ? default_cache_path() : path;
    std::vector<TunedEntry> entries;
    std::string warning;
    if (!file.empty()) load_entries(file, id, &entries, &warning);
    set_tuned(id, dev, entries);
    return warning;
}

const Tuning* find_tuned(const DeviceTraits& dev, const char* family, const char* mode) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    const Tuning* any_mode = nullptr;
    for (const auto& s : r.sets) {
        if (!s->active || !same_device(s->dev, dev)) continue;
        for (const Tuning& t : s->tunings) {
            if (std::strcmp(t.family, family) != 0) continue;
            if (std::strcmp(t.mode, mode) == 0) return &t;
            if (std::strcmp(t.mode, "*") == 0) any_mode = &t;
        }
    }
    return any_mode;
}

double tuned_rate(const DeviceTraits& dev, const char* family, const char* mode) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    double best = 0;
    for (const auto& s : r.sets) {
        if (!s->active || !same_device(s->dev, dev)) continue;
        for (const TunedEntry& e : s->entries) {
            if (family && e.family != family) continue;
            if (mode && e.mode != mode && e.mode != "*") continue;
            if (e.rate_gbs > best) best = e.rate_gbs;
        }
    }
    return best;
}

void clear_tuned() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& s : r.sets) s->active = false;
}

void warn_once(const std::string& text) {
    if (text.empty()) return;
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    if (!r.warned.insert(text).second) return;
    std::fprintf(stderr, "bulkcrypt: warning: %s\n", text.c_str());
}

}  // namespace tuning
}  // namespace bc
