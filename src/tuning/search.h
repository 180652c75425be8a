// The tuner's search over one (device, cipher, mode)'s launch knobs.
//
// A space is a list of knobs, each with its candidate values, and a predicate that knows the
// device's limits (registers, shared memory, work-group size) and prunes the points that
// cannot run before any is measured. A measurement checks the candidate's output against the
// reference before its rate counts: a point whose output is wrong is a failure, never a best.
//
// Strategy: the shipped entry's point (the baseline) first; then every allowed point where the
// pruned space is small (exhaustive_max), nearest the baseline first; otherwise random points for a share of the budget
// and then a local search from the best of them, one knob a step to its neighbouring values,
// until no neighbour is better or the budget is spent. Launch knobs are mostly unimodal
// (occupancy against per-thread work), which is what a walk from a good sample exploits.
// A candidate replaces the baseline only when it is faster by min_gain: ties within the
// noise of a measurement keep the hand-tuned entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bc {
namespace tuning {

struct Knob {
    std::string name;           // "threads_per_block", "blocks_per_sm", "chunk_bytes", ...
    std::vector<int64_t> values;
};

// One value per knob, in the space's knob order.
using Point = std::vector<int64_t>;

struct Measurement {
    bool ok = false;    // false: the output was wrong or the run failed
    double rate = 0;    // GB/s
    std::string error;  // why it failed
};

struct SearchSpace {
    std::vector<Knob> knobs;
    // Whether the point can run on this device; *why names the limit it breaks. Null: all can.
    std::function<bool(const Point&, std::string* why)> allowed;
};

struct SearchOptions {
    double budget_seconds = 30;
    size_t exhaustive_max = 64;  // pruned spaces up to this many points are measured whole
    double sample_share = 0.5;   // of the budget, for random points before the local search
    double min_gain = 1.01;      // a candidate must beat the baseline by this factor
    size_t max_trials = 0;       // 0: no limit but the budget
    uint64_t seed = 1;
    std::function<double()> now;  // seconds; null: the steady clock (tests give their own)
};

struct Trial {
    Point point;
    Measurement m;
};

struct SearchResult {
    Point baseline;
    Measurement baseline_m;
    Point best;              // the baseline unless a candidate beat it by min_gain
    double best_rate = 0;
    size_t space = 0;        // points in the full space
    size_t pruned = 0;       // of them, refused by the device's limits
    size_t failed = 0;       // measured and wrong, or failed to run
    std::string strategy;    // "exhaustive", "sampled + local", with "(budget spent)" when cut
    double seconds = 0;
    std::vector<Trial> trials;  // in the order measured, the baseline first

    bool improved() const { return best != baseline; }
};

// Searches the space. The baseline is measured even when `allowed` refuses it (it is what
// runs today); a baseline that fails leaves best empty unless some candidate passes.
SearchResult search(const SearchSpace& space, const Point& baseline,
                    const std::function<Measurement(const Point&)>& measure, const SearchOptions& opt);

// The benchmark's protocol for one point: `warmup` runs not counted, then the median rate of
// `runs`; any run that fails makes the point fail with its error.
Measurement median_of(const std::function<Measurement()>& once, int warmup, int runs);

// "threads_per_block=128 blocks_per_sm=8": a point for reports and the cache's summary.
std::string describe(const SearchSpace& space, const Point& p);

}  // namespace tuning
}  // namespace bc
