// Entries tuned on this machine, in effect in this process. A backend that opens a device
// loads the cache's entries for the device's identity (load_tuned); select_tuning consults
// them before the shipped table, for that exact device (kind, name, compute capability) and
// the exact family, the exact mode before "*". A context with tuning=shipped sets them aside
// (DeviceTraits::tuned = false).
//
// Entries once in effect stay allocated for the process's life (a Tuning& handed out is
// never left dangling by a later load); a load whose entries equal those in effect changes
// nothing, so contexts opened in a loop do not grow it.
#pragma once

#include <string>
#include <vector>

#include "tuning/cache.h"
#include "tuning/tuning.h"

namespace bc {
namespace tuning {

// Loads the cache's entries for id (from path, default_cache_path() when empty) and puts
// them in effect for the device with these traits, in place of what was. Returns the
// cache's warnings, "" when none.
std::string load_tuned(const DeviceIdentity& id, const DeviceTraits& dev, const std::string& path = "");

// Puts entries in effect for the device directly (the tuner after it stores them; tests).
void set_tuned(const DeviceIdentity& id, const DeviceTraits& dev, const std::vector<TunedEntry>& entries);

// The tuned entry for this device, family and mode; nullptr when none is in effect.
const Tuning* find_tuned(const DeviceTraits& dev, const char* family, const char* mode);

// The best rate (TunedEntry::rate_gbs, GB/s) among the entries in effect for this device
// whose family is `family` and whose mode is `mode` or "*"; nullptr matches any family or
// mode. 0 when none was measured. Rates of different entries measure different workloads
// (the tuner's choice), so they compare devices only roughly.
double tuned_rate(const DeviceTraits& dev, const char* family = nullptr, const char* mode = nullptr);

// Takes every tuned entry out of effect (tests; `bulkcrypt tune --reset`).
void clear_tuned();

// Writes "bulkcrypt: warning: <text>" to stderr, once a process for each distinct text:
// a stale or broken cache is reported at the first context that meets it, not at every one.
void warn_once(const std::string& text);

}  // namespace tuning
}  // namespace bc
