// bulkcrypt tune: measures a device's launch knobs and keeps the fastest correct ones in
// the user's tuning cache, where every later context on that device uses them.
#pragma once

#include <string>
#include <vector>

namespace bcli {

struct TuneArgs {
    std::string device;         // empty: tuner::default_device()
    std::vector<std::string> algorithms;
    double budget = 60;         // seconds
    std::string size = "64M";   // bytes per timed call
    bool show = false, reset = false, emit = false, no_store = false;
};

int cmd_tune(const TuneArgs& a);

}  // namespace bcli
