// Shared by the tuner tests of each device kind: a tuning cache of the test's own, and the
// check that a search whose every candidate fails stores nothing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "tuner/tuner.h"
#include "tuning/tuned.h"

namespace tuner_test {

// A tuning cache file of the test's own, named by BULKCRYPT_TUNING_CACHE so that every
// backend the test opens reads it; the variable, the file and the entries in effect go at
// the end.
class CacheFile {
public:
    CacheFile() {
        char tmpl[] = "/tmp/bc-tuner-test-XXXXXX";
        dir_ = mkdtemp(tmpl) ? tmpl : "";
        path_ = dir_ + "/tuning.json";
        const char* old = std::getenv("BULKCRYPT_TUNING_CACHE");
        had_ = old != nullptr;
        if (had_) old_ = old;
        setenv("BULKCRYPT_TUNING_CACHE", path_.c_str(), 1);
    }
    ~CacheFile() {
        if (had_) setenv("BULKCRYPT_TUNING_CACHE", old_.c_str(), 1);
        else unsetenv("BULKCRYPT_TUNING_CACHE");
        unlink(path_.c_str());
        unlink((path_ + ".lock").c_str());
        rmdir(dir_.c_str());
        bc::tuning::clear_tuned();
    }
    const std::string& path() const { return path_; }

private:
    std::string dir_, path_, old_;
    bool had_ = false;
};

// Every candidate failing its check, the baseline too: no best, nothing stored, no file.
inline void expect_failed_search_stores_nothing(bc::tuner::TuneOptions o, double budget_seconds) {
    CacheFile empty;
    o.cache_path = empty.path();
    o.corrupt = [](const bc::tuning::Point&) { return true; };
    o.budget_seconds = budget_seconds;
    bc::tuner::TuneResult none;
    ASSERT_TRUE(bc::tuner::tune(o, &none).is_ok());
    ASSERT_EQ(1u, none.parts.size());
    EXPECT_TRUE(none.parts[0].search.best.empty());
    EXPECT_FALSE(none.stored);
    struct stat st;
    EXPECT_NE(0, stat(empty.path().c_str(), &st)) << "a cache file was written for a failed search";
}

}  // namespace tuner_test
