// The tuner behind `bulkcrypt tune`: measures one device's launch knobs as the benchmarks
// measure (warm-up, median of runs, on data already in device memory), checks every
// candidate's output against the CPU backend before its rate counts, searches with
// tuning/search.h within a time budget, and stores the winner in the tuning cache
// (tuning/cache.h) under the device's identity, where every later context on that device
// finds it (tuning/tuned.h).
//
// What each device kind tunes:
//   opencl:N  the kernels' work-group size (one entry a device: "generic", "*"), over the
//             requested algorithms' geometric mean rate; pruned by the device's maximum
//             work-group size.
// The shipped entry's point is the baseline of every search: a tuned entry is stored only
// when it beats it by the search's margin, so a tune never makes a device slower.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tuning/cache.h"
#include "tuning/search.h"
#include "util/status.h"

namespace bc {
namespace tuner {

struct TuneOptions {
    std::string device = "opencl:0";
    std::vector<std::string> algorithms;  // empty: the device kind's main ones
    double budget_seconds = 60;           // the whole search (compiles included)
    size_t bytes = size_t(64) << 20;      // data per timed call, in device memory
    int warmup = 1, runs = 3;             // per candidate and algorithm
    std::string cache_path;               // empty: tuning::default_cache_path()
    bool store = true;                    // false: measure and report only
    std::function<void(const std::string&)> progress;  // one line a candidate; may be null
    // Tests: makes a candidate's check see wrong output (a kernel that computes nonsense),
    // to show that such a candidate is never stored however fast it is.
    std::function<bool(const tuning::Point&)> corrupt;
};

struct TuneResult {
    tuning::DeviceIdentity identity;
    tuning::SearchSpace space;
    tuning::SearchResult search;
    tuning::TunedEntry entry;     // what was (or would be) stored
    bool stored = false;
    std::string cache_path;
    std::string note;             // why nothing was stored, when nothing was
};

// Tunes one device. A device the build or the machine lacks is BC_ERR_NO_DEVICE.
Status tune(const TuneOptions& opt, TuneResult* out);

// The identity and traits of a device, for --show and --reset ("opencl:0", "cuda:0").
Status identify(const std::string& device, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits);

// An entry in the form of the shipped table (src/tuning/defaults.cpp), for committing.
std::string emit_entry(const tuning::DeviceIdentity& id, const tuning::TunedEntry& e);

// Implemented per device kind (opencl_tuner.cpp; absent builds answer BC_ERR_NO_DEVICE).
Status tune_opencl(int index, const TuneOptions& opt, TuneResult* out);
Status identify_opencl(int index, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits);

}  // namespace tuner
}  // namespace bc
