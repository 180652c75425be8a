// The cache of tuned entries (src/tuning/cache.h): what is stored comes back whole, any
// change of the device's identity invalidates it, damaged files and hand edits cost only
// what they touch, and concurrent writers lose nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tuning/cache.h"

namespace {

using bc::tuning::DeviceIdentity;
using bc::tuning::TunedEntry;
using nlohmann::json;

DeviceIdentity h100() {
    DeviceIdentity id;
    id.kind = "cuda";
    id.name = "NVIDIA H100 80GB HBM3";
    id.driver = "580.159.04";
    id.runtime = "12.8";
    id.arch = "9.0";
    id.bulkcrypt = "0.1.0";
    id.sources = "3f9a0c17be42d5e8";
    return id;
}

DeviceIdentity opencl_cpu() {
    DeviceIdentity id;
    id.kind = "opencl";
    id.name = "cpu-haswell-Intel(R) Xeon(R) Platinum 8480+";
    id.driver = "5.0+debian";
    id.runtime = "OpenCL 3.0";
    id.arch = "Portable Computing Language OpenCL 3.0 PoCL 5.0";
    id.bulkcrypt = "0.1.0";
    id.sources = "77aa01";
    return id;
}

// An entry whose every field differs from the same field of another seed's entry.
TunedEntry entry(const std::string& family, const std::string& mode, int seed = 1) {
    TunedEntry e;
    e.family = family;
    e.mode = mode;
    e.kernel = {32 * (1 + seed % 32), 1 + seed % 64, 32 + seed, seed % 8};
    e.pair = {64 + seed % 64, 16 + seed % 48, 16 - seed % 8, 1 + seed % 8};
    e.ghash = {512, 1, 24 + seed, seed % 3};
    e.pipeline = {size_t(8 + seed) << 20, 1 + seed % 32, size_t(64 + seed) << 20};
    e.engine = {size_t(4 + seed) << 20, size_t(5 + seed) << 30, size_t(1 + seed) << 20, size_t(64 + seed) << 10};
    e.rate_gbs = 446.87654321 + seed;
    e.default_gbs = 0.1 + 0.2 + seed;  // not exact in binary: the text must round-trip it
    e.date = "2026-12-0" + std::to_string(1 + seed % 9) + "T10:15:00Z";
    e.search = std::to_string(200 + seed) + " points, 150 pruned, 48 s";
    return e;
}

void expect_kernel(const bc::tuning::KernelTuning& a, const bc::tuning::KernelTuning& b, const char* what) {
    EXPECT_EQ(a.threads_per_block, b.threads_per_block) << what;
    EXPECT_EQ(a.blocks_per_sm, b.blocks_per_sm) << what;
    EXPECT_EQ(a.items_per_thread, b.items_per_thread) << what;
    EXPECT_EQ(a.variant, b.variant) << what;
}

void expect_same(const TunedEntry& a, const TunedEntry& b) {
    EXPECT_EQ(a.family, b.family);
    EXPECT_EQ(a.mode, b.mode);
    expect_kernel(a.kernel, b.kernel, "kernel");
    expect_kernel(a.pair, b.pair, "pair");
    expect_kernel(a.ghash, b.ghash, "ghash");
    EXPECT_EQ(a.pipeline.chunk_bytes, b.pipeline.chunk_bytes);
    EXPECT_EQ(a.pipeline.depth, b.pipeline.depth);
    EXPECT_EQ(a.pipeline.stage_bytes, b.pipeline.stage_bytes);
    EXPECT_EQ(a.engine.chunk_bytes, b.engine.chunk_bytes);
    EXPECT_EQ(a.engine.cpu_threshold, b.engine.cpu_threshold);
    EXPECT_EQ(a.engine.oneshot_max, b.engine.oneshot_max);
    EXPECT_EQ(a.engine.split_min, b.engine.split_min);
    EXPECT_EQ(a.rate_gbs, b.rate_gbs);  // exactly: the JSON keeps every bit of a double
    EXPECT_EQ(a.default_gbs, b.default_gbs);
    EXPECT_EQ(a.date, b.date);
    EXPECT_EQ(a.search, b.search);
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void spill(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
}

bool exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

// Each test gets a fresh directory under /tmp, removed with everything in it at the end.
class TuningCache : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/bc_tuning_cache_XXXXXX";
        ASSERT_NE(nullptr, mkdtemp(tmpl));
        dir_ = tmpl;
        path_ = dir_ + "/tuning.json";
    }
    void TearDown() override {
        nftw(dir_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return remove(p); }, 16,
             FTW_DEPTH | FTW_PHYS);
    }

    // Stores and checks that it worked, with nothing to warn about.
    void store(const DeviceIdentity& id, const std::vector<TunedEntry>& entries) {
        std::string error, warning;
        EXPECT_TRUE(bc::tuning::store_entries(path_, id, entries, &error, &warning)) << error;
        EXPECT_EQ("", warning);
    }

    std::vector<TunedEntry> load(const DeviceIdentity& id, std::string* warning) {
        std::vector<TunedEntry> out;
        bc::tuning::load_entries(path_, id, &out, warning);
        return out;
    }

    std::string dir_;
    std::string path_;
};

TEST_F(TuningCache, RoundTripKeepsEveryField) {
    // Two levels of missing directories: created, private to the user.
    path_ = dir_ + "/xdg/bulkcrypt/tuning.json";
    const std::vector<TunedEntry> stored = {entry("aes", "ctr", 1), entry("aes", "gcm", 2), entry("generic", "*", 3)};
    store(h100(), stored);
    struct stat st;
    ASSERT_EQ(0, stat((dir_ + "/xdg/bulkcrypt").c_str(), &st));
    EXPECT_EQ(0700u, st.st_mode & 0777);
    ASSERT_EQ(0, stat(path_.c_str(), &st));
    EXPECT_EQ(0600u, st.st_mode & 0777);

    std::string warning = "stale text";
    const std::vector<TunedEntry> loaded = load(h100(), &warning);
    EXPECT_EQ("", warning);
    ASSERT_EQ(stored.size(), loaded.size());
    for (size_t i = 0; i < stored.size(); ++i) expect_same(stored[i], loaded[i]);

    // The file is what the header says it is.
    const json doc = json::parse(slurp(path_));
    EXPECT_EQ(1, doc["format"]);
    ASSERT_EQ(1u, doc["devices"].size());
    EXPECT_EQ("9.0", doc["devices"][0]["identity"]["arch"]);
    EXPECT_EQ(3u, doc["devices"][0]["entries"].size());
}

TEST_F(TuningCache, MissingFileLoadsNothingQuietly) {
    std::vector<TunedEntry> out = {entry("aes", "ctr")};
    std::string warning = "stale text";
    bc::tuning::load_entries(path_, h100(), &out, &warning);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ("", warning);
    EXPECT_FALSE(exists(path_));  // loading creates nothing
}

TEST_F(TuningCache, EachIdentityFieldInvalidates) {
    store(h100(), {entry("aes", "ctr")});
    struct Change {
        const char* field;
        std::string DeviceIdentity::*member;
        const char* value;
    };
    const Change changes[] = {
        {"driver", &DeviceIdentity::driver, "590.1"},
        {"runtime", &DeviceIdentity::runtime, "13.0"},
        {"arch", &DeviceIdentity::arch, "9.1"},
        {"bulkcrypt", &DeviceIdentity::bulkcrypt, "0.2.0"},
        {"sources", &DeviceIdentity::sources, "3f9a0c17be42d5e9"},
    };
    for (const Change& c : changes) {
        DeviceIdentity id = h100();
        id.*c.member = c.value;
        EXPECT_FALSE(id == h100()) << c.field;
        EXPECT_STREQ(c.field, bc::tuning::identity_difference(h100(), id));
        std::string warning;
        EXPECT_TRUE(load(id, &warning).empty()) << c.field;
        const std::string expect = std::string(c.field) + " changed: " + h100().*c.member + " -> " + c.value;
        EXPECT_NE(std::string::npos, warning.find(expect)) << warning;
        EXPECT_NE(std::string::npos, warning.find(path_)) << warning;
    }
    // Another kind or name is another device: nothing cached for it, nothing to say.
    for (const char* field : {"kind", "name"}) {
        DeviceIdentity id = h100();
        (field[0] == 'k' ? id.kind : id.name) = "other";
        EXPECT_STREQ(field, bc::tuning::identity_difference(h100(), id));
        std::string warning;
        EXPECT_TRUE(load(id, &warning).empty()) << field;
        EXPECT_EQ("", warning) << field;
    }
    EXPECT_EQ(nullptr, bc::tuning::identity_difference(h100(), h100()));
    std::string warning;
    EXPECT_EQ(1u, load(h100(), &warning).size());  // the stored identity still loads
    EXPECT_EQ("", warning);
}

TEST_F(TuningCache, CorruptedFileWarnsAndStoreRepairs) {
    spill(path_, std::string("\x7f" "ELF\0\0\x01garbage{{[", 16));
    std::string warning;
    EXPECT_TRUE(load(h100(), &warning).empty());
    EXPECT_NE(std::string::npos, warning.find(path_)) << warning;
    EXPECT_NE(std::string::npos, warning.find("not JSON")) << warning;

    std::string error;
    ASSERT_TRUE(bc::tuning::store_entries(path_, h100(), {entry("aes", "ctr")}, &error, &warning)) << error;
    EXPECT_NE(std::string::npos, warning.find("replaced")) << warning;
    const std::vector<TunedEntry> loaded = load(h100(), &warning);
    EXPECT_EQ("", warning);
    ASSERT_EQ(1u, loaded.size());
    expect_same(entry("aes", "ctr"), loaded[0]);
}

TEST_F(TuningCache, TruncatedFileWarnsAndStoreRepairs) {
    store(h100(), {entry("aes", "ctr", 1), entry("aes", "xts", 2)});
    store(opencl_cpu(), {entry("generic", "*", 3)});
    const std::string whole = slurp(path_);
    spill(path_, whole.substr(0, whole.size() / 2));
    std::string warning;
    EXPECT_TRUE(load(h100(), &warning).empty());
    EXPECT_NE(std::string::npos, warning.find("truncated")) << warning;
    EXPECT_TRUE(load(opencl_cpu(), &warning).empty());
    EXPECT_NE(std::string::npos, warning.find("truncated")) << warning;

    std::string error;
    ASSERT_TRUE(bc::tuning::store_entries(path_, h100(), {entry("aes", "ctr", 4)}, &error, &warning)) << error;
    EXPECT_NE(std::string::npos, warning.find("replaced")) << warning;
    const std::vector<TunedEntry> loaded = load(h100(), &warning);
    EXPECT_EQ("", warning);
    ASSERT_EQ(1u, loaded.size());  // what the damaged file held is gone, the new entry is whole
    expect_same(entry("aes", "ctr", 4), loaded[0]);
    EXPECT_TRUE(load(opencl_cpu(), &warning).empty());
    EXPECT_EQ("", warning);
}

TEST_F(TuningCache, WrongFormatOrShapeWarns) {
    const char* docs[][2] = {
        {R"({"format": 2, "devices": []})", "format 2"},
        {R"({"devices": []})", "format missing"},
        {R"({"format": 1, "devices": {}})", "devices"},
        {R"([1, 2, 3])", "not a JSON object"},
        {"", "truncated"},
    };
    for (const auto& d : docs) {
        spill(path_, d[0]);
        std::string warning;
        EXPECT_TRUE(load(h100(), &warning).empty()) << d[0];
        EXPECT_NE(std::string::npos, warning.find(d[1])) << d[0] << ": " << warning;
    }
}

TEST_F(TuningCache, OutOfRangeEntryIsIgnored) {
    store(h100(), {entry("aes", "ctr", 1), entry("aes", "gcm", 2)});
    const json good = json::parse(slurp(path_));
    struct Edit {
        const char* what;  // expected in the warning
        void (*apply)(json& e);
    };
    const Edit edits[] = {
        {"kernel.threads_per_block = 1025", [](json& e) { e["kernel"]["threads_per_block"] = 1025; }},
        {"pipeline.depth = 33", [](json& e) { e["pipeline"]["depth"] = 33; }},
        {"pair.blocks_per_sm negative", [](json& e) { e["pair"]["blocks_per_sm"] = -1; }},
        {"ghash.variant = 18446744073709551615", [](json& e) { e["ghash"]["variant"] = UINT64_MAX; }},
        {"engine.chunk_bytes not an integer", [](json& e) { e["engine"]["chunk_bytes"] = 1.5; }},
        {"engine.cpu_threshold = ", [](json& e) { e["engine"]["cpu_threshold"] = uint64_t(1) << 50; }},
        {"pipeline.stage_bytes missing", [](json& e) { e["pipeline"].erase("stage_bytes"); }},
        {"rate_gbs = -3", [](json& e) { e["rate_gbs"] = -3; }},
        {"default_gbs missing or not a number", [](json& e) { e["default_gbs"] = "fast"; }},
        {"search too long", [](json& e) { e["search"] = "line\nbreak"; }},
        {"date missing", [](json& e) { e.erase("date"); }},
        {"family or mode is not a name", [](json& e) { e["mode"] = "ctr; rm -rf"; }},
        {"engine missing or not an object", [](json& e) { e["engine"] = json::array(); }},
    };
    for (const Edit& ed : edits) {
        json doc = good;
        ed.apply(doc["devices"][0]["entries"][0]);
        spill(path_, doc.dump());
        std::string warning;
        const std::vector<TunedEntry> loaded = load(h100(), &warning);
        ASSERT_EQ(1u, loaded.size()) << ed.what;
        expect_same(entry("aes", "gcm", 2), loaded[0]);
        EXPECT_NE(std::string::npos, warning.find(ed.what)) << warning;
        EXPECT_NE(std::string::npos, warning.find(path_)) << warning;
    }
    // An entry that would not load is refused at store time, and the file is left as it was.
    spill(path_, good.dump());
    TunedEntry bad = entry("aes", "ecb");
    bad.kernel.threads_per_block = 4096;
    std::string error;
    EXPECT_FALSE(bc::tuning::store_entries(path_, h100(), {entry("aes", "cbc"), bad}, &error));
    EXPECT_NE(std::string::npos, error.find("kernel.threads_per_block")) << error;
    EXPECT_EQ(good.dump(), slurp(path_));
    bad = entry("aes", "ecb");
    bad.rate_gbs = std::nan("");
    EXPECT_FALSE(bc::tuning::store_entries(path_, h100(), {bad}, &error));
    DeviceIdentity nameless = h100();
    nameless.name.clear();
    EXPECT_FALSE(bc::tuning::store_entries(path_, nameless, {entry("aes", "cbc")}, &error));
    EXPECT_EQ(good.dump(), slurp(path_));
}

TEST_F(TuningCache, StoreReplacesOnlyTheSameFamilyAndMode) {
    store(h100(), {entry("aes", "ctr", 1), entry("aes", "gcm", 2)});
    store(h100(), {entry("aes", "ctr", 5)});
    std::string warning;
    std::vector<TunedEntry> loaded = load(h100(), &warning);
    EXPECT_EQ("", warning);
    ASSERT_EQ(2u, loaded.size());
    expect_same(entry("aes", "gcm", 2), loaded[0]);
    expect_same(entry("aes", "ctr", 5), loaded[1]);
    // Of two new entries for one (family, mode) the last wins.
    store(h100(), {entry("aes", "gcm", 6), entry("aes", "gcm", 7)});
    loaded = load(h100(), &warning);
    ASSERT_EQ(2u, loaded.size());
    expect_same(entry("aes", "ctr", 5), loaded[0]);
    expect_same(entry("aes", "gcm", 7), loaded[1]);
}

TEST_F(TuningCache, StoreKeepsOtherDevicesAndDropsStaleOnes) {
    store(h100(), {entry("aes", "ctr", 1)});
    store(opencl_cpu(), {entry("generic", "*", 2)});
    DeviceIdentity updated = h100();
    updated.driver = "590.1";
    std::string warning;
    EXPECT_TRUE(load(updated, &warning).empty());
    EXPECT_NE(std::string::npos, warning.find("driver changed: 580.159.04 -> 590.1")) << warning;

    store(updated, {entry("aes", "gcm", 3)});
    std::vector<TunedEntry> loaded = load(updated, &warning);
    EXPECT_EQ("", warning);  // the stale identity is gone from the file
    ASSERT_EQ(1u, loaded.size());
    expect_same(entry("aes", "gcm", 3), loaded[0]);
    loaded = load(opencl_cpu(), &warning);
    ASSERT_EQ(1u, loaded.size());
    expect_same(entry("generic", "*", 2), loaded[0]);
    EXPECT_TRUE(load(h100(), &warning).empty());  // the old driver's entries are gone
    EXPECT_NE(std::string::npos, warning.find("driver changed: 590.1 -> 580.159.04")) << warning;
    EXPECT_EQ(2u, json::parse(slurp(path_))["devices"].size());
}

// Several processes store into one file at once while this one reads it: every store's
// entries survive (the lock serialises read-modify-write) and no read sees a torn file.
TEST_F(TuningCache, ConcurrentStoresLoseNothing) {
    constexpr int kChildren = 6, kRounds = 20;
    std::vector<pid_t> pids;
    for (int c = 0; c < kChildren; ++c) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            const DeviceIdentity id = c == kChildren - 1 ? opencl_cpu() : h100();
            int failures = 0;
            for (int r = 0; r < kRounds; ++r) {
                std::string error;
                const std::string family = "child" + std::to_string(c);
                const TunedEntry e = entry(family, "m" + std::to_string(r), c + r);
                if (!bc::tuning::store_entries(path_, id, {e}, &error)) {
                    std::fprintf(stderr, "child %d: %s\n", c, error.c_str());
                    ++failures;
                }
            }
            _exit(failures == 0 ? 0 : 1);
        }
        pids.push_back(pid);
    }
    int reads = 0, torn = 0, running = kChildren;
    while (running > 0) {
        std::string warning;
        load(h100(), &warning);
        ++reads;
        torn += !warning.empty();
        for (pid_t& pid : pids) {
            int status = 0;
            if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
                EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a child failed to store";
                pid = 0;
                --running;
            }
        }
    }
    EXPECT_EQ(0, torn) << "of " << reads << " reads";

    std::string warning;
    const std::vector<TunedEntry> mine = load(h100(), &warning);
    EXPECT_EQ("", warning);
    ASSERT_EQ(size_t((kChildren - 1) * kRounds), mine.size());
    for (int c = 0; c < kChildren - 1; ++c)
        for (int r = 0; r < kRounds; ++r) {
            const std::string family = "child" + std::to_string(c), mode = "m" + std::to_string(r);
            int found = 0;
            for (const TunedEntry& e : mine)
                if (e.family == family && e.mode == mode) {
                    ++found;
                    expect_same(entry(family, mode, c + r), e);
                }
            EXPECT_EQ(1, found) << family << "/" << mode;
        }
    EXPECT_EQ(size_t(kRounds), load(opencl_cpu(), &warning).size());
    // Nothing left behind but the file and its lock.
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    ASSERT_NE(nullptr, d);
    while (const dirent* de = readdir(d))
        if (de->d_name[0] != '.') names.push_back(de->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    EXPECT_EQ((std::vector<std::string>{"tuning.json", "tuning.json.lock"}), names);
}

// Sets or unsets environment variables for one scope, then puts them back.
class EnvScope {
public:
    void set(const char* name, const char* value) {
        const char* old = std::getenv(name);
        saved_.push_back({name, old ? old : "", old != nullptr});
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~EnvScope() {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            if (it->had)
                setenv(it->name.c_str(), it->value.c_str(), 1);
            else
                unsetenv(it->name.c_str());
        }
    }

private:
    struct Saved {
        std::string name, value;
        bool had;
    };
    std::vector<Saved> saved_;
};

TEST(TuningCachePath, OverrideThenXdgThenHome) {
    EnvScope env;
    env.set("BULKCRYPT_TUNING_CACHE", "/srv/cache/t.json");
    env.set("XDG_CACHE_HOME", "/xdg");
    env.set("HOME", "/home/u");
    EXPECT_EQ("/srv/cache/t.json", bc::tuning::default_cache_path());
    env.set("BULKCRYPT_TUNING_CACHE", "");  // empty: as if unset
    EXPECT_EQ("/xdg/bulkcrypt/tuning.json", bc::tuning::default_cache_path());
    env.set("BULKCRYPT_TUNING_CACHE", nullptr);
    EXPECT_EQ("/xdg/bulkcrypt/tuning.json", bc::tuning::default_cache_path());
    env.set("XDG_CACHE_HOME", "relative/cache");  // the XDG spec: relative values are ignored
    EXPECT_EQ("/home/u/.cache/bulkcrypt/tuning.json", bc::tuning::default_cache_path());
    env.set("XDG_CACHE_HOME", "");
    EXPECT_EQ("/home/u/.cache/bulkcrypt/tuning.json", bc::tuning::default_cache_path());
    env.set("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ("/home/u/.cache/bulkcrypt/tuning.json", bc::tuning::default_cache_path());
    env.set("HOME", nullptr);
    EXPECT_EQ("", bc::tuning::default_cache_path());
    env.set("BULKCRYPT_TUNING_CACHE", "relative.json");  // the user's own choice, taken as given
    EXPECT_EQ("relative.json", bc::tuning::default_cache_path());
}

TEST_F(TuningCache, RemoveOneDeviceAndAll) {
    std::string error, warning;
    // Nothing cached: nothing to do, and nothing created.
    EXPECT_TRUE(bc::tuning::remove_entries(path_, nullptr, &error)) << error;
    const DeviceIdentity h = h100();
    EXPECT_TRUE(bc::tuning::remove_entries(path_, &h, &error)) << error;
    EXPECT_FALSE(exists(path_));

    store(h100(), {entry("aes", "ctr", 1), entry("aes", "gcm", 2)});
    store(opencl_cpu(), {entry("generic", "*", 3)});
    // The device is dropped whatever its driver: a reset follows the hardware.
    DeviceIdentity newer = h100();
    newer.driver = "590.1";
    ASSERT_TRUE(bc::tuning::remove_entries(path_, &newer, &error, &warning)) << error;
    EXPECT_EQ("", warning);
    EXPECT_TRUE(load(h100(), &warning).empty());
    EXPECT_EQ("", warning);  // no stale identity left to warn about
    ASSERT_EQ(1u, load(opencl_cpu(), &warning).size());

    store(h100(), {entry("aes", "ctr", 4)});
    ASSERT_TRUE(bc::tuning::remove_entries(path_, nullptr, &error)) << error;
    EXPECT_TRUE(load(h100(), &warning).empty());
    EXPECT_TRUE(load(opencl_cpu(), &warning).empty());
    EXPECT_EQ("", warning);
    const json doc = json::parse(slurp(path_));
    EXPECT_EQ(1, doc["format"]);
    EXPECT_TRUE(doc["devices"].empty());

    // A damaged file is replaced by an empty one, with a warning.
    spill(path_, "{\"format\": 1, \"dev");
    ASSERT_TRUE(bc::tuning::remove_entries(path_, &h, &error, &warning)) << error;
    EXPECT_NE(std::string::npos, warning.find("replaced")) << warning;
    EXPECT_TRUE(json::parse(slurp(path_))["devices"].empty());
}

TEST_F(TuningCache, StoreReportsWhatItCannotWrite) {
    spill(dir_ + "/file", "x");
    std::string error;
    // The directory would have to be made under a regular file.
    EXPECT_FALSE(bc::tuning::store_entries(dir_ + "/file/sub/tuning.json", h100(), {entry("aes", "ctr")}, &error));
    EXPECT_NE(std::string::npos, error.find(dir_ + "/file")) << error;
    EXPECT_FALSE(bc::tuning::store_entries("", h100(), {entry("aes", "ctr")}, &error));
    EXPECT_NE("", error);
}

TEST(TuningCacheEntry, ToTuningCarriesValuesAndProvenance) {
    TunedEntry e = entry("aes", "ctr", 2);
    e.rate_gbs = 452.31;
    e.default_gbs = 446.9;
    e.date = "2026-12-02";
    e.search = "212 points, 150 pruned, 48 s";
    const DeviceIdentity id = h100();
    std::string provenance;
    const bc::tuning::Tuning t = bc::tuning::to_tuning(e, id, &provenance);
    EXPECT_EQ(bc::tuning::DeviceKind::Cuda, t.device.kind);
    EXPECT_EQ(id.name.c_str(), t.device.name_contains);
    EXPECT_EQ(e.family.c_str(), t.family);
    EXPECT_STREQ("ctr", t.mode);
    expect_kernel(e.kernel, t.kernel, "kernel");
    expect_kernel(e.pair, t.pair, "pair");
    expect_kernel(e.ghash, t.ghash, "ghash");
    EXPECT_EQ(e.pipeline.chunk_bytes, t.pipeline.chunk_bytes);
    EXPECT_EQ(e.pipeline.depth, t.pipeline.depth);
    EXPECT_EQ(e.pipeline.stage_bytes, t.pipeline.stage_bytes);
    EXPECT_EQ(e.engine.chunk_bytes, t.engine.chunk_bytes);
    EXPECT_EQ(e.engine.cpu_threshold, t.engine.cpu_threshold);
    EXPECT_EQ(e.engine.oneshot_max, t.engine.oneshot_max);
    EXPECT_EQ(e.engine.split_min, t.engine.split_min);
    EXPECT_EQ(provenance.c_str(), t.provenance);
    EXPECT_EQ("tuned on this machine 2026-12-02: 452.3 GB/s against 446.9 GB/s for the shipped entry "
              "(212 points, 150 pruned, 48 s)",
              provenance);
    DeviceIdentity cl = opencl_cpu();
    e.rate_gbs = 3.4567;
    e.default_gbs = 0.5;
    e.search.clear();
    EXPECT_EQ(bc::tuning::DeviceKind::OpenCl, bc::tuning::to_tuning(e, cl, &provenance).device.kind);
    EXPECT_EQ("tuned on this machine 2026-12-02: 3.457 GB/s against 0.5 GB/s for the shipped entry", provenance);
    EXPECT_STREQ("opencl", bc::tuning::device_kind_name(bc::tuning::DeviceKind::OpenCl));
}

// The bounds a file is held to admit every shipped entry: a tuner that finds the shipped
// point best can cache it.
TEST_F(TuningCache, EveryShippedEntryCanBeCached) {
    size_t n = 0;
    const bc::tuning::Tuning* table = bc::tuning::default_table(&n);
    std::vector<TunedEntry> entries;
    for (size_t i = 0; i < n; ++i) {
        TunedEntry e;
        e.family = table[i].family;
        e.mode = table[i].mode + std::string("-") + std::to_string(i);  // one entry each
        e.kernel = table[i].kernel;
        e.pair = table[i].pair;
        e.ghash = table[i].ghash;
        e.pipeline = table[i].pipeline;
        e.engine = table[i].engine;
        e.date = "2026-12-01";
        entries.push_back(e);
    }
    store(h100(), entries);
    std::string warning;
    const std::vector<TunedEntry> loaded = load(h100(), &warning);
    EXPECT_EQ("", warning);
    ASSERT_EQ(entries.size(), loaded.size());
    for (size_t i = 0; i < n; ++i) expect_same(entries[i], loaded[i]);
}

}  // namespace
