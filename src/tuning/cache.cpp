#include "tuning/cache.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace bc {
namespace tuning {

namespace {

using json = nlohmann::json;

// Bounds on what a file may say, so that a hand edit cannot launch 1e9 threads or stage
// terabytes: hardware limits where there are any, generous multiples of the shipped
// values elsewhere.
constexpr uint64_t kGiB = uint64_t(1) << 30;
constexpr uint64_t kMaxThreads = 1024;      // CUDA's and every OpenCL GPU's work-group limit
constexpr uint64_t kMaxItems = 1024;
constexpr uint64_t kMaxVariant = 63;
constexpr uint64_t kMaxPieceBytes = kGiB;
constexpr uint64_t kMaxCpuThreshold = 64 * kGiB;
constexpr double kMaxRate = 1e5;            // GB/s: beyond any memory system
constexpr size_t kMaxFileBytes = 16 << 20;  // a cache of a few devices is a few KiB

struct IdentityField {
    const char* key;
    std::string DeviceIdentity::*member;
};
const IdentityField kIdentityFields[] = {
    {"kind", &DeviceIdentity::kind},       {"name", &DeviceIdentity::name},
    {"driver", &DeviceIdentity::driver},   {"runtime", &DeviceIdentity::runtime},
    {"arch", &DeviceIdentity::arch},       {"bulkcrypt", &DeviceIdentity::bulkcrypt},
    {"sources", &DeviceIdentity::sources},
};

// The first field in which a and b differ, nullptr when none does.
const IdentityField* first_difference(const DeviceIdentity& a, const DeviceIdentity& b) {
    for (const IdentityField& f : kIdentityFields)
        if (a.*f.member != b.*f.member) return &f;
    return nullptr;
}

bool fail(std::string* why, const std::string& text) {
    *why = text;
    return false;
}

std::string sys_error(const char* what, const std::string& path) {
    return std::string(what) + " " + path + ": " + std::strerror(errno);
}

// Text that goes on into warnings and provenance: no control characters.
bool clean_text(const std::string& s, size_t max) {
    if (s.size() > max) return false;
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

bool is_name(const std::string& s) {  // a family or mode name: "aes-generic", "*"
    if (s.empty() || s.size() > 32) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr("-_.*", c)) return false;
    return true;
}

// o[key] as an integer in [0, hi], or false with *why naming group.key.
template <class T>
bool read_uint(const json& o, const std::string& group, const char* key, uint64_t hi, T* out, std::string* why) {
    const std::string name = group.empty() ? key : group + "." + key;
    auto it = o.find(key);
    if (it == o.end()) return fail(why, name + " missing");
    // Parsed text holds non-negative integers as unsigned, values set from C++ ints as signed.
    if (!it->is_number_integer()) return fail(why, name + " not an integer");
    if (!it->is_number_unsigned() && it->get<int64_t>() < 0) return fail(why, name + " negative");
    const uint64_t v = it->get<uint64_t>();
    if (v > hi) return fail(why, name + " = " + std::to_string(v) + " out of range (0.." + std::to_string(hi) + ")");
    *out = static_cast<T>(v);
    return true;
}

bool read_rate(const json& o, const char* key, double* out, std::string* why) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_number()) return fail(why, std::string(key) + " missing or not a number");
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0 || v > kMaxRate)
        return fail(why, std::string(key) + " = " + it->dump() + " out of range");
    *out = v;
    return true;
}

bool read_text(const json& o, const char* key, size_t max, std::string* out, std::string* why) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) return fail(why, std::string(key) + " missing or not a string");
    if (!clean_text(it->get_ref<const std::string&>(), max))
        return fail(why, std::string(key) + " too long or holds control characters");
    *out = it->get<std::string>();
    return true;
}

const json* object_at(const json& o, const char* key, std::string* why) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_object()) {
        *why = std::string(key) + " missing or not an object";
        return nullptr;
    }
    return &*it;
}

json kernel_json(const KernelTuning& k) {
    return {{"threads_per_block", k.threads_per_block}, {"blocks_per_sm", k.blocks_per_sm},
            {"items_per_thread", k.items_per_thread}, {"variant", k.variant}};
}

bool read_kernel(const json& e, const char* key, KernelTuning* k, std::string* why) {
    const json* o = object_at(e, key, why);
    return o && read_uint(*o, key, "threads_per_block", kMaxThreads, &k->threads_per_block, why) &&
           read_uint(*o, key, "blocks_per_sm", uint64_t(kMaxBlocksPerSm), &k->blocks_per_sm, why) &&
           read_uint(*o, key, "items_per_thread", kMaxItems, &k->items_per_thread, why) &&
           read_uint(*o, key, "variant", kMaxVariant, &k->variant, why);
}

json entry_json(const TunedEntry& e) {
    const PipelineTuning& p = e.pipeline;
    const EngineTuning& g = e.engine;
    return {{"family", e.family},
            {"mode", e.mode},
            {"kernel", kernel_json(e.kernel)},
            {"pair", kernel_json(e.pair)},
            {"ghash", kernel_json(e.ghash)},
            {"pipeline", {{"chunk_bytes", p.chunk_bytes}, {"depth", p.depth}, {"stage_bytes", p.stage_bytes}}},
            {"engine",
             {{"chunk_bytes", g.chunk_bytes}, {"cpu_threshold", g.cpu_threshold}, {"oneshot_max", g.oneshot_max},
              {"split_min", g.split_min}}},
            {"rate_gbs", e.rate_gbs},
            {"default_gbs", e.default_gbs},
            {"date", e.date},
            {"search", e.search}};
}

// Fills *e from j, or false with *why; e->family and e->mode are set once known to be
// valid, so that a caller can name the entry in its warning.
bool read_entry(const json& j, TunedEntry* e, std::string* why) {
    if (!j.is_object()) return fail(why, "not an object");
    std::string family, mode;
    if (!read_text(j, "family", 32, &family, why) || !read_text(j, "mode", 32, &mode, why)) return false;
    if (!is_name(family) || !is_name(mode)) return fail(why, "family or mode is not a name");
    e->family = family;
    e->mode = mode;
    const json *p, *g;
    return read_kernel(j, "kernel", &e->kernel, why) && read_kernel(j, "pair", &e->pair, why) &&
           read_kernel(j, "ghash", &e->ghash, why) && (p = object_at(j, "pipeline", why)) &&
           read_uint(*p, "pipeline", "chunk_bytes", kMaxPieceBytes, &e->pipeline.chunk_bytes, why) &&
           read_uint(*p, "pipeline", "depth", uint64_t(kMaxDepth), &e->pipeline.depth, why) &&
           read_uint(*p, "pipeline", "stage_bytes", kMaxPieceBytes, &e->pipeline.stage_bytes, why) &&
           (g = object_at(j, "engine", why)) &&
           read_uint(*g, "engine", "chunk_bytes", kMaxPieceBytes, &e->engine.chunk_bytes, why) &&
           read_uint(*g, "engine", "cpu_threshold", kMaxCpuThreshold, &e->engine.cpu_threshold, why) &&
           read_uint(*g, "engine", "oneshot_max", kMaxPieceBytes, &e->engine.oneshot_max, why) &&
           read_uint(*g, "engine", "split_min", kMaxPieceBytes, &e->engine.split_min, why) &&
           read_rate(j, "rate_gbs", &e->rate_gbs, why) && read_rate(j, "default_gbs", &e->default_gbs, why) &&
           read_text(j, "date", 64, &e->date, why) && read_text(j, "search", 256, &e->search, why);
}

json identity_json(const DeviceIdentity& id) {
    json j = json::object();
    for (const IdentityField& f : kIdentityFields) j[f.key] = id.*f.member;
    return j;
}

bool read_identity(const json& j, DeviceIdentity* id, std::string* why) {
    if (!j.is_object()) return fail(why, "identity missing or not an object");
    for (const IdentityField& f : kIdentityFields)
        if (!read_text(j, f.key, 256, &(id->*f.member), why)) return fail(why, "identity." + *why);
    if (id->kind.empty() || id->name.empty()) return fail(why, "identity without kind or name");
    return true;
}

// One element of "devices": its identity and its entries, or false with *why.
bool read_device(const json& dev, DeviceIdentity* id, const json** entries, std::string* why) {
    if (!dev.is_object()) return fail(why, "not an object");
    auto it = dev.find("identity");
    if (!read_identity(it == dev.end() ? json() : *it, id, why)) return false;
    auto en = dev.find("entries");
    if (en == dev.end() || !en->is_array()) return fail(why, id->name + ": entries missing or not an array");
    *entries = &*en;
    return true;
}

bool same_device(const DeviceIdentity& a, const DeviceIdentity& b) { return a.kind == b.kind && a.name == b.name; }

enum class Doc { Missing, Ok, Bad };

Doc bad(std::string* why, const std::string& text) {
    *why = text;
    return Doc::Bad;
}

// The "devices" array of the file, or why the file is not a cache of this format.
Doc read_doc(const std::string& path, json* devices, std::string* why) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return Doc::Missing;
        return bad(why, std::string("cannot open: ") + std::strerror(errno));
    }
    std::string text;
    char buf[65536];
    ssize_t n;
    for (;;) {
        n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, size_t(n));
        if (text.size() > kMaxFileBytes) break;
    }
    const int read_errno = errno;
    close(fd);
    if (n < 0) return bad(why, std::string("cannot read: ") + std::strerror(read_errno));
    if (text.size() > kMaxFileBytes) return bad(why, "larger than 16 MiB");
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        if (e.byte >= text.size()) return bad(why, "truncated (the JSON ends early)");
        return bad(why, "not JSON (error at byte " + std::to_string(e.byte) + ")");
    }
    if (!doc.is_object()) return bad(why, "not a JSON object");
    auto f = doc.find("format");
    if (f == doc.end() || !f->is_number_unsigned() || f->get<uint64_t>() != uint64_t(kCacheFormat))
        return bad(why, "format " + (f == doc.end() ? std::string("missing") : f->dump()) +
                      ", this bulkcrypt reads format " + std::to_string(kCacheFormat));
    auto d = doc.find("devices");
    if (d == doc.end() || !d->is_array()) return bad(why, "devices missing or not an array");
    *devices = std::move(*d);
    return Doc::Ok;
}

std::string dir_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// mkdir -p: the cache may be the first thing ever written under $XDG_CACHE_HOME.
bool make_dirs(const std::string& dir, std::string* error) {
    for (size_t i = 1; i <= dir.size(); ++i) {
        if (i < dir.size() && dir[i] != '/') continue;
        const std::string part = dir.substr(0, i);
        if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return fail(error, sys_error("cannot create", part));
    }
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return fail(error, dir + " is not a directory");
    return true;
}

// A temporary file beside the target, synced, then renamed over it: readers see the old
// file or the new one, and a crash leaves at worst a stray temporary.
bool write_atomically(const std::string& path, const std::string& text, std::string* error) {
    std::string tmp = path + ".XXXXXX";
    const int fd = mkostemp(&tmp[0], O_CLOEXEC);
    if (fd < 0) return fail(error, sys_error("cannot create a file beside", path));
    bool ok = true;
    for (size_t done = 0; ok && done < text.size();) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n > 0) done += size_t(n);
        else if (n < 0 && errno != EINTR) ok = false;
    }
    if (ok && fsync(fd) != 0) ok = false;
    if (!ok) *error = sys_error("cannot write", tmp);
    if (close(fd) != 0 && ok) {
        ok = false;
        *error = sys_error("cannot write", tmp);
    }
    if (ok && rename(tmp.c_str(), path.c_str()) != 0) {
        ok = false;
        *error = sys_error("cannot replace", path);
    }
    if (!ok) {
        unlink(tmp.c_str());
        return false;
    }
    // The rename itself is durable once the directory is.
    const int dfd = open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return true;
}

// The read-modify-write of store and remove: edit gets the cached devices ([] when the file
// is missing or malformed) under the lock, and the file is replaced by the result.
bool rewrite(const std::string& path, bool create, const std::function<void(json*)>& edit, std::string* error,
             std::string* warning) {
    error->clear();
    if (warning) warning->clear();
    if (path.empty()) return fail(error, "no tuning cache path (HOME is not set)");
    struct stat st;
    if (!create && stat(path.c_str(), &st) != 0 && errno == ENOENT) return true;
    if (!make_dirs(dir_of(path), error)) return false;
    const std::string lock_path = path + ".lock";
    const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) return fail(error, sys_error("cannot open", lock_path));
    int rc;
    do rc = flock(lock, LOCK_EX);
    while (rc != 0 && errno == EINTR);
    bool ok = false;
    if (rc != 0) {
        *error = sys_error("cannot lock", lock_path);
    } else {
        try {
            json devices = json::array();
            std::string why;
            const Doc d = read_doc(path, &devices, &why);
            if (d == Doc::Bad && warning) *warning = path + ": " + why + "; replaced";
            if (d != Doc::Ok) devices = json::array();
            if (d == Doc::Missing && !create) {
                ok = true;  // removed since the check above: nothing to drop
            } else {
                edit(&devices);
                const json doc = {{"format", kCacheFormat}, {"devices", std::move(devices)}};
                ok = write_atomically(path, doc.dump(2) + "\n", error);
            }
        } catch (const std::exception& e) {
            *error = path + ": " + e.what();
        }
    }
    close(lock);  // releases the lock
    return ok;
}

std::string format_rate(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v >= 100 ? "%.1f" : "%.4g", v);
    return buf;
}

}  // namespace

bool operator==(const DeviceIdentity& a, const DeviceIdentity& b) { return identity_difference(a, b) == nullptr; }
bool operator!=(const DeviceIdentity& a, const DeviceIdentity& b) { return !(a == b); }

const char* identity_difference(const DeviceIdentity& a, const DeviceIdentity& b) {
    const IdentityField* f = first_difference(a, b);
    return f ? f->key : nullptr;
}

const char* device_kind_name(DeviceKind k) {
    return k == DeviceKind::Cuda ? "cuda" : k == DeviceKind::OpenCl ? "opencl" : "cpu";
}

Tuning to_tuning(const TunedEntry& e, const DeviceIdentity& id, std::string* provenance) {
    *provenance = "tuned on this machine " + e.date + ": " + format_rate(e.rate_gbs) + " GB/s against " +
                  format_rate(e.default_gbs) + " GB/s for the shipped entry";
    if (!e.search.empty()) *provenance += " (" + e.search + ")";
    const DeviceKind kind = id.kind == "cuda"     ? DeviceKind::Cuda
                            : id.kind == "opencl" ? DeviceKind::OpenCl
                                                  : DeviceKind::Cpu;
    // The cache is keyed by the exact identity already, so the class only names the device.
    return Tuning{DeviceClass{kind, id.name.c_str(), -1, -1, -1}, e.family.c_str(), e.mode.c_str(), e.kernel, e.pair,
                  e.ghash, e.pipeline, e.engine, provenance->c_str()};
}

std::string default_cache_path() {
    auto env = [](const char* k) {
        const char* v = std::getenv(k);
        return std::string(v ? v : "");
    };
    std::string p = env("BULKCRYPT_TUNING_CACHE");
    if (!p.empty()) return p;
    // The XDG spec has relative values ignored; a relative HOME is as suspect.
    p = env("XDG_CACHE_HOME");
    if (!p.empty() && p[0] == '/') return p + "/bulkcrypt/tuning.json";
    p = env("HOME");
    if (!p.empty() && p[0] == '/') return p + "/.cache/bulkcrypt/tuning.json";
    return "";
}

void load_entries(const std::string& path, const DeviceIdentity& id, std::vector<TunedEntry>* out,
                  std::string* warning) {
    std::string ignored;
    if (!warning) warning = &ignored;
    out->clear();
    warning->clear();
    auto warn = [&](const std::string& w) { *warning += (warning->empty() ? "" : "\n") + path + ": " + w; };
    try {
        json devices;
        std::string why;
        const Doc d = read_doc(path, &devices, &why);
        if (d == Doc::Missing) return;
        if (d == Doc::Bad) return warn(why + "; no tuned entries used");
        for (size_t i = 0; i < devices.size(); ++i) {
            DeviceIdentity got;
            const json* entries = nullptr;
            if (!read_device(devices[i], &got, &entries, &why)) {
                warn("device " + std::to_string(i) + ": " + why + "; ignored");
                continue;
            }
            if (!same_device(got, id)) continue;
            if (const IdentityField* f = first_difference(got, id)) {
                warn("tuned entries of " + id.name + " are stale (" + f->key + " changed: " + got.*f->member + " -> " +
                     id.*f->member + "); ignored until bulkcrypt tune runs again");
                continue;
            }
            for (size_t k = 0; k < entries->size(); ++k) {
                TunedEntry e;
                if (read_entry((*entries)[k], &e, &why)) {
                    out->push_back(std::move(e));
                    continue;
                }
                const std::string label = e.family.empty() ? std::to_string(k) : e.family + "/" + e.mode;
                warn("entry " + label + " of " + id.name + ": " + why + "; ignored");
            }
        }
    } catch (const std::exception& e) {
        out->clear();
        warn(std::string("unreadable (") + e.what() + "); no tuned entries used");
    }
}

bool store_entries(const std::string& path, const DeviceIdentity& id, const std::vector<TunedEntry>& entries,
                   std::string* error, std::string* warning) {
    std::string ignored;
    if (!error) error = &ignored;
    // Refuse what load would drop: better an error at tune time than a warning at every start.
    DeviceIdentity check;
    std::string why;
    if (!read_identity(identity_json(id), &check, &why)) return fail(error, "cannot cache: " + why);
    std::vector<json> fresh;
    for (size_t i = 0; i < entries.size(); ++i) {
        TunedEntry e;
        fresh.push_back(entry_json(entries[i]));
        if (!read_entry(fresh.back(), &e, &why))
            return fail(error, "cannot cache entry " + std::to_string(i) + " (" + entries[i].family + "/" +
                            entries[i].mode + "): " + why);
    }
    auto replaced = [&](const std::string& family, const std::string& mode, size_t from) {
        for (size_t i = from; i < entries.size(); ++i)
            if (entries[i].family == family && entries[i].mode == mode) return true;
        return false;
    };
    return rewrite(path, true, [&](json* devices) {
        json kept = json::array(), mine = json::array();
        for (json& dev : *devices) {
            DeviceIdentity got;
            const json* old = nullptr;
            if (!read_device(dev, &got, &old, &why)) continue;      // malformed: would never load
            if (!same_device(got, id)) {
                kept.push_back(std::move(dev));
                continue;
            }
            if (got != id) continue;                                // stale: would never load
            for (const json& j : *old) {
                TunedEntry e;
                if (read_entry(j, &e, &why) && !replaced(e.family, e.mode, 0)) mine.push_back(j);
            }
        }
        // Of several new entries for one (family, mode), the last wins.
        for (size_t i = 0; i < entries.size(); ++i)
            if (!replaced(entries[i].family, entries[i].mode, i + 1)) mine.push_back(fresh[i]);
        kept.push_back(json{{"identity", identity_json(id)}, {"entries", std::move(mine)}});
        *devices = std::move(kept);
    }, error, warning);
}

bool remove_entries(const std::string& path, const DeviceIdentity* id, std::string* error, std::string* warning) {
    std::string ignored;
    if (!error) error = &ignored;
    return rewrite(path, false, [&](json* devices) {
        json kept = json::array();
        for (json& dev : *devices) {
            DeviceIdentity got;
            const json* entries = nullptr;
            std::string why;
            const bool other = id && read_device(dev, &got, &entries, &why) && !same_device(got, *id);
            if (other) kept.push_back(std::move(dev));
        }
        *devices = std::move(kept);
    }, error, warning);
}

}  // namespace tuning
}  // namespace bc
