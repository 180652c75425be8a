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
//             work-group size. Then, when AES-CTR is among them, AES's counter kernel (an
//             ("aes", "ctr") entry): one work-item a batch or lane pairs, its group size, and
//             the pairs' resident groups a compute unit (on NVIDIA also a register cap);
//             pruned by tiles of 32, local memory and a floor of 64 registers.
//   cuda:N    one entry an algorithm's (family, mode), each searched on its own: AES's
//             bitsliced variant, grid caps of its one-lane and lane-pair kernels, pair-cc's
//             waves and (GCM) the GHASH layout; the stream kernels' threads a block, grid cap
//             and unroll; a generic block cipher's grid cap. Pruned by the resident blocks
//             the compiled kernels' registers allow. And the host-memory pipeline's piece
//             size and depth ("generic", "*"), from pageable memory by the wall clock, and
//             the engine's CPU threshold beside the GPU (the same entry), by the crossover of
//             the engine's adaptive split and the CPU alone over a ladder of job sizes.
// The shipped entry's point is the baseline of every search: a tuned entry is stored only
// when it beats it by the search's margin, confirmed by a second measurement of both, so a
// tune never makes a device slower.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "tuning/cache.h"
#include "tuning/search.h"
#include "util/status.h"

namespace bc {
namespace tuner {

struct TuneOptions {
    std::string device = "opencl:0";
    std::vector<std::string> algorithms;  // empty: the device kind's main ones; CUDA: "pipeline" is
                                          // the host-memory pipeline's piece size and depth
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

// One entry's search: its space, what was measured and the entry it gives.
struct TunedPart {
    std::string what;             // the algorithms measured ("aes-128-ctr", "aes-128-ctr+chacha20")
    tuning::SearchSpace space;
    tuning::SearchResult search;
    tuning::TunedEntry entry;     // what was (or would be) stored; none when search.best is empty
};

struct TuneResult {
    tuning::DeviceIdentity identity;
    std::vector<TunedPart> parts;
    double seconds = 0;           // the whole tune, compiles included
    bool stored = false;
    std::string cache_path;
    std::string note;             // why nothing was stored, when nothing was
};

// Tunes one device. A device the build or the machine lacks is BC_ERR_NO_DEVICE.
Status tune(const TuneOptions& opt, TuneResult* out);

// The device `bulkcrypt tune` tunes when none is named: cuda:0 where a CUDA device is, else opencl:0.
std::string default_device();

// The identity and traits of a device, for --show and --reset ("opencl:0", "cuda:0").
Status identify(const std::string& device, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits);

// An entry in the form of the shipped table (src/tuning/defaults.cpp), for committing.
std::string emit_entry(const tuning::DeviceIdentity& id, const tuning::TunedEntry& e);

// Implemented per device kind (opencl_tuner.cpp, cuda_tuner.cpp; absent builds answer
// BC_ERR_NO_DEVICE).
Status tune_opencl(int index, const TuneOptions& opt, TuneResult* out);
Status identify_opencl(int index, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits);
Status tune_cuda(int index, const TuneOptions& opt, TuneResult* out);
Status identify_cuda(int index, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits);

// The engine's CPU threshold beside a GPU (engine_tuner.cpp): make_engine builds the engine
// as contexts do, with the given threshold and chunk (the host entry's). Stores a ("generic", "*") entry for the GPU:
// start's fields (this tune's or the cache's entry) with the measured threshold, or the
// shipped entry's where start is null. Reached through `bulkcrypt tune -a engine` on CUDA.
using EngineMaker = std::function<Status(size_t cpu_threshold, size_t chunk, std::unique_ptr<Backend>* out)>;
Status tune_engine_threshold(const TuneOptions& opt, double budget, Backend& cpu, const EngineMaker& make_engine,
                             const tuning::Tuning& shipped, const tuning::TunedEntry* start, TunedPart* part);

// Shared by the device kinds.
std::string today();  // ISO 8601, UTC
// The search's best against its baseline once more, in turns (baseline, best, ...), `runs`
// each: a best that the second look does not put ahead by min_gain gives way to the
// baseline (a maximum over many noisy points is biased upward). Returns what it did.
std::string confirm(tuning::SearchResult* r, const std::function<tuning::Measurement(const tuning::Point&)>& measure,
                    int runs, double min_gain);
// The benchmark's protocol over one timed call: `run` does the call and sets the seconds it
// took; the rate is bytes over them, the median of opt.runs after opt.warmup.
tuning::Measurement timed_rate(size_t bytes, const TuneOptions& opt, const std::function<Status(double* seconds)>& run);
// One progress line for a candidate: "<line> <rate> GB/s" or "<line> failed: <why>".
void report(const TuneOptions& opt, const std::string& line, const tuning::Measurement& m);
// A part's entry from the shipped entry and the search: rates, date and summary filled in.
void finish_entry(const tuning::Tuning& shipped, const TunedPart& part, double extra_seconds, tuning::TunedEntry* e);

}  // namespace tuner
}  // namespace bc
