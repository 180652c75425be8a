// The on-disk cache of tuned entries: what `bulkcrypt tune` measured on this machine, kept
// per device identity so that a new driver, runtime, bulkcrypt version or kernel build
// invalidates it instead of silently applying numbers measured on something else.
//
// One JSON file holds every device of the machine:
//   {"format": 1, "devices": [{"identity": {...}, "entries": [{...}, ...]}, ...]}
// Readers take no lock: writers replace the file by rename, so a reader sees the old file
// or the new one, never a torn one. Writers serialise their read-modify-write with flock on
// a sibling file (path + ".lock", left in place: unlinking it would let two writers hold
// locks on different inodes).
//
// Nothing here throws and nothing is global; every call names its file.
#pragma once

#include <string>
#include <vector>

#include "tuning/tuning.h"

namespace bc {
namespace tuning {

constexpr int kCacheFormat = 1;

// What the cached numbers are only valid for. Every field is compared as text.
struct DeviceIdentity {
    std::string kind;       // "cpu", "cuda", "opencl" (device_kind_name)
    std::string name;       // as the driver reports it
    std::string driver;     // driver version ("580.159.04")
    std::string runtime;    // CUDA runtime or OpenCL ICD version
    std::string arch;       // CUDA compute capability ("9.0"); OpenCL platform name and version
    std::string bulkcrypt;  // bc_version() of the build that measured
    std::string sources;    // hex hash of the kernel sources and build options (the caller's)
};

bool operator==(const DeviceIdentity& a, const DeviceIdentity& b);
bool operator!=(const DeviceIdentity& a, const DeviceIdentity& b);
// The name of the first field (in declaration order: "kind", "name", "driver", "runtime",
// "arch", "bulkcrypt", "sources") in which a and b differ; nullptr when they are equal.
const char* identity_difference(const DeviceIdentity& a, const DeviceIdentity& b);
const char* device_kind_name(DeviceKind k);  // "cpu", "cuda", "opencl"

// One tuned (family, mode) of one device: the values a Tuning carries, and the measurement
// that chose them.
struct TunedEntry {
    std::string family;  // as Tuning::family
    std::string mode;    // as Tuning::mode
    KernelTuning kernel{};
    KernelTuning pair{};
    KernelTuning ghash{};
    PipelineTuning pipeline{};
    EngineTuning engine{};
    double rate_gbs = 0;     // the tuned point, GB/s
    double default_gbs = 0;  // the shipped entry, measured in the same run
    std::string date;        // ISO 8601
    std::string search;      // summary of the search ("212 points, 150 pruned, 48 s")
};

// The Tuning of a cached entry for the device id. The result points into e (family, mode),
// id (the device name) and *provenance, which this fills ("tuned on this machine <date>:
// <rate> GB/s against <default> GB/s for the shipped entry (<search>)"): all three must
// outlive it.
Tuning to_tuning(const TunedEntry& e, const DeviceIdentity& id, std::string* provenance);

// $BULKCRYPT_TUNING_CACHE when set and non-empty; else $XDG_CACHE_HOME/bulkcrypt/tuning.json
// when XDG_CACHE_HOME is an absolute path; else $HOME/.cache/bulkcrypt/tuning.json; "" when
// none of them is set.
std::string default_cache_path();

// The entries cached for exactly id, in file order; *out is cleared first. A missing file
// gives none and no warning. Everything else that is wrong gives *warning (one line per
// problem, each naming the file) and costs only what it touches: an unreadable or malformed
// file or a format other than kCacheFormat drops everything, a malformed entry (a value out
// of range, a field missing or of the wrong type) drops that entry, and a cached identity of
// the same kind and name that differs in another field (stale: "driver changed: a -> b")
// drops that device's entries. Other devices are skipped silently. warning may be null.
void load_entries(const std::string& path, const DeviceIdentity& id, std::vector<TunedEntry>* out,
                  std::string* warning);

// Caches entries for id: replaces id's cached entries of the same (family, mode), keeps its
// others and every other device; drops stale identities of the same kind and name (they can
// never load again), malformed device records and id's malformed entries. Creates the
// directory (mode 0700) when missing. Entries are validated as load would: one that would
// not load fails the call and nothing is written. Returns false with *error when it could
// not write (the file is then as it was). An unreadable or malformed existing file is
// replaced; *warning says so, and is cleared otherwise. error and warning may be null.
bool store_entries(const std::string& path, const DeviceIdentity& id, const std::vector<TunedEntry>& entries,
                   std::string* error, std::string* warning = nullptr);

// `bulkcrypt tune --reset`: drops every cached identity of id's kind and name (stale ones
// too), or every device when id is null; the same locking and replacement as store_entries.
// A missing file is left missing (true). A malformed file is replaced by an empty one.
bool remove_entries(const std::string& path, const DeviceIdentity* id, std::string* error,
                    std::string* warning = nullptr);

}  // namespace tuning
}  // namespace bc
