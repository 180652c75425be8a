// The tuner's search on synthetic spaces: what it measures, what it prunes, what it keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tuning/search.h"

namespace {

using bc::tuning::Knob;
using bc::tuning::Measurement;
using bc::tuning::Point;
using bc::tuning::SearchOptions;
using bc::tuning::SearchResult;
using bc::tuning::SearchSpace;

Measurement rate(double r) {
    Measurement m;
    m.ok = true;
    m.rate = r;
    return m;
}

Measurement wrong(const char* why) {
    Measurement m;
    m.error = why;
    return m;
}

// A launch-like space: threads per block x blocks per SM, with a register limit that
// refuses threads x blocks above 2048 (as a device's occupancy limit would).
SearchSpace launch_space() {
    SearchSpace s;
    s.knobs = {{"threads_per_block", {64, 128, 256, 512, 1024}}, {"blocks_per_sm", {1, 2, 4, 8, 16, 32}}};
    s.allowed = [](const Point& p, std::string* why) {
        if (p[0] * p[1] > 2048) {
            *why = "more than 2048 threads an SM";
            return false;
        }
        return true;
    };
    return s;
}

// A smooth hill with its top at (256, 8).
double hill(const Point& p) {
    const double a = std::log2(static_cast<double>(p[0])) - 8, b = std::log2(static_cast<double>(p[1])) - 3;
    return 100 - 5 * a * a - 3 * b * b;
}

// A clock that moves one second a measurement, so budgets count measurements.
struct FakeClock {
    double t = 0;
    std::function<double()> fn() {
        return [this] { return t; };
    }
};

TEST(TuningSearch, SmallSpacesAreMeasuredWholeAndPrunedFirst) {
    const SearchSpace s = launch_space();
    std::set<Point> measured;
    auto measure = [&](const Point& p) {
        measured.insert(p);
        return rate(hill(p));
    };
    SearchOptions o;
    o.exhaustive_max = 100;
    const SearchResult r = bc::tuning::search(s, {128, 8}, measure, o);
    EXPECT_EQ(30u, r.space);
    size_t refused = 0;
    for (const Point& p : measured) refused += p[0] * p[1] > 2048;
    EXPECT_EQ(0u, refused) << "a pruned point was measured";
    EXPECT_EQ(30u - r.pruned, measured.size());
    EXPECT_EQ(10u, r.pruned);  // allowed: 64 threads x 6, 128 x 5, 256 x 4, 512 x 3, 1024 x 2
    EXPECT_EQ("exhaustive", r.strategy);
    EXPECT_EQ((Point{256, 8}), r.best);
    EXPECT_TRUE(r.improved());
}

TEST(TuningSearch, AFastWrongCandidateIsNeverTheBest) {
    const SearchSpace s = launch_space();
    // (256, 8) is the hill's top and (512, 4) would be fastest of all: both fail their check
    auto checked = [&](const Point& p) {
        if (p == Point{256, 8}) return wrong("output differs from the reference at byte 0");
        if (p == Point{512, 4}) return wrong("tag differs");
        return rate(hill(p));
    };
    const SearchResult r = bc::tuning::search(s, {128, 8}, checked, SearchOptions{});
    EXPECT_NE((Point{256, 8}), r.best);
    EXPECT_NE((Point{512, 4}), r.best);
    EXPECT_EQ(2u, r.failed);
    for (const auto& t : r.trials)
        if (t.point == r.best) EXPECT_TRUE(t.m.ok);
}

TEST(TuningSearch, TiesKeepTheBaseline) {
    const SearchSpace s = launch_space();
    // every point within 0.5 % of the baseline's rate: noise, not a better point
    auto measure = [&](const Point& p) { return rate(p == Point{128, 8} ? 100.0 : 100.4); };
    const SearchResult r = bc::tuning::search(s, {128, 8}, measure, SearchOptions{});
    EXPECT_EQ((Point{128, 8}), r.best);
    EXPECT_FALSE(r.improved());
    EXPECT_DOUBLE_EQ(100.0, r.best_rate);
}

TEST(TuningSearch, AFailingBaselineIsReplacedByAPassingPoint) {
    const SearchSpace s = launch_space();
    auto measure = [&](const Point& p) { return p == Point{128, 8} ? wrong("launch failed") : rate(hill(p)); };
    const SearchResult r = bc::tuning::search(s, {128, 8}, measure, SearchOptions{});
    EXPECT_FALSE(r.baseline_m.ok);
    EXPECT_EQ((Point{256, 8}), r.best);
}

TEST(TuningSearch, LargeSpacesAreSampledThenClimbedWithinTheBudget) {
    SearchSpace s;
    std::vector<int64_t> v;
    for (int i = 1; i <= 40; ++i) v.push_back(i);
    s.knobs = {{"a", v}, {"b", v}};  // 1,600 points
    FakeClock clock;
    auto measure = [&](const Point& p) {
        clock.t += 1;
        const double da = p[0] - 27.0, db = p[1] - 13.0;
        return rate(1000 - da * da - db * db);
    };
    SearchOptions o;
    o.budget_seconds = 200;  // 200 measurements of the 1,600
    o.now = clock.fn();
    o.seed = 7;
    const SearchResult r = bc::tuning::search(s, {1, 1}, measure, o);
    EXPECT_EQ(1600u, r.space);
    EXPECT_EQ(0u, r.pruned);
    EXPECT_EQ(0u, r.strategy.find("sampled + local"));
    EXPECT_LE(r.trials.size(), 201u);
    EXPECT_EQ((Point{27, 13}), r.best) << "the climb from the best sample reaches the top";
    std::set<Point> distinct;
    for (const auto& t : r.trials) distinct.insert(t.point);
    EXPECT_EQ(distinct.size(), r.trials.size()) << "a point was measured twice";
}

TEST(TuningSearch, TheBudgetCutsAnExhaustiveSearch) {
    const SearchSpace s = launch_space();
    FakeClock clock;
    auto measure = [&](const Point& p) {
        clock.t += 1;
        return rate(hill(p));
    };
    SearchOptions o;
    o.budget_seconds = 5;
    o.now = clock.fn();
    const SearchResult r = bc::tuning::search(s, {128, 8}, measure, o);
    EXPECT_EQ(5u, r.trials.size());
    EXPECT_NE(std::string::npos, r.strategy.find("budget spent"));
    // nearest the baseline first: one step from (128, 8) before anything further
    for (size_t i = 1; i < r.trials.size(); ++i) {
        const Point& p = r.trials[i].point;
        const int steps = std::abs(static_cast<int>(std::log2(p[0])) - 7) + std::abs(static_cast<int>(std::log2(p[1])) - 3);
        EXPECT_EQ(1, steps) << bc::tuning::describe(s, p);
    }
}

TEST(TuningSearch, MedianOfRunsAfterWarmup) {
    int calls = 0;
    const double rates[] = {1, 50, 10, 30, 20};  // the first is the warm-up
    auto once = [&] { return rate(rates[calls++]); };
    const Measurement m = bc::tuning::median_of(once, 1, 4);
    EXPECT_TRUE(m.ok);
    EXPECT_EQ(5, calls);
    EXPECT_DOUBLE_EQ(25.0, m.rate);  // median of 50, 10, 30, 20
    calls = 0;
    auto fails_third = [&] { return ++calls == 3 ? wrong("mismatch") : rate(9); };
    const Measurement f = bc::tuning::median_of(fails_third, 1, 5);
    EXPECT_FALSE(f.ok);
    EXPECT_EQ("mismatch", f.error);
}

TEST(TuningSearch, DescribeNamesEveryKnob) {
    EXPECT_EQ("threads_per_block=256 blocks_per_sm=4", bc::tuning::describe(launch_space(), {256, 4}));
}

}  // namespace
