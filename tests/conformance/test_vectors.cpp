// The vector files: parser self-checks (record counts as the shared README
// counts them, no harness error while parsing) and every case on every backend.
#include <cctype>
#include <map>

#include <gtest/gtest.h>

#include "common.h"
#include "table.h"
#include "vector_cases.h"

namespace conf {
namespace {

// Each file is parsed once (so each harness error is reported once).
struct Loaded {
    std::vector<Case> cases;
    size_t seen = 0;
    size_t errors = 0;   // harness errors raised while loading
};
const Loaded& loaded(const VectorFile& f) {
    static std::map<std::string, Loaded> cache;
    auto it = cache.find(f.rel);
    if (it != cache.end()) return it->second;
    Loaded l;
    const size_t before = harness_errors().size();
    l.cases = load_cases(f, &l.seen);
    l.errors = harness_errors().size() - before;
    return cache.emplace(f.rel, std::move(l)).first->second;
}

class VectorFileTest : public testing::TestWithParam<VectorFile> {};

std::string param_name(const testing::TestParamInfo<VectorFile>& info) {
    std::string n;
    for (char c : info.param.rel) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return n;
}

// The parser alone: the count of records must match the README's count, and
// parsing plus case building must raise no harness error.
TEST_P(VectorFileTest, ParserCount) {
    const VectorFile& f = GetParam();
    const Loaded& l = loaded(f);
    EXPECT_EQ(l.seen, f.records) << f.rel;
    EXPECT_EQ(l.errors, 0u) << f.rel << ": harness errors while parsing (listed at the end)";
    size_t skipped = 0;
    for (const Case& c : l.cases) skipped += c.skip.empty() ? 0 : 1;
    std::printf("  %-70s %5zu records, %5zu cases (%zu skipped everywhere)\n", f.rel.c_str(), l.seen,
                l.cases.size(), skipped);
}

// Every case of the file on every backend.
TEST_P(VectorFileTest, AllBackends) {
    const VectorFile& f = GetParam();
    const size_t failed_before = results().total_failed();
    for (const Case& c : loaded(f).cases) run_case(c);
    EXPECT_EQ(results().total_failed(), failed_before)
        << (results().total_failed() - failed_before) << " case(s) of " << f.rel << " failed (see the table)";
}

INSTANTIATE_TEST_SUITE_P(Files, VectorFileTest, testing::ValuesIn(vector_files()), param_name);

}  // namespace
}  // namespace conf
