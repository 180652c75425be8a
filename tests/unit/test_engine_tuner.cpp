// The engine's CPU threshold and chunk measurement (tuner/engine_tuner.cpp) over an engine of
// two CPU workers, so that it runs without a GPU: every arm measured and checked at every size
// it splits, a threshold and chunk chosen among the candidates, the rest of the entry kept from
// its start, and no candidate that runs a wrong arm chosen.
#include <gtest/gtest.h>

#include "engine/engine_backend.h"
#include "tuner/tuner.h"
#include "tuning/tuning.h"

namespace {

bc::tuner::EngineMaker two_cpus() {
    return [](size_t threshold, size_t chunk, std::unique_ptr<bc::Backend>* out) {
        std::vector<std::unique_ptr<bc::Backend>> w(2);
        bc::ContextOptions co;
        co.threads = 1;
        for (auto& b : w) BC_TRY(bc::make_cpu_backend(co, &b));
        bc::EngineOptions eo;
        eo.chunk = chunk;
        eo.cpu_threshold = threshold;
        return bc::make_engine_backend(std::move(w), eo, out);
    };
}

// The engine's chunk as the host entry ships it (the ladder starts at twice it).
size_t chunk() { return bc::tuning::select_tuning(bc::tuning::DeviceTraits{}).engine.chunk_bytes; }

bc::tuner::TuneOptions small() {
    bc::tuner::TuneOptions o;
    o.bytes = 0;  // the shortest ladder: half a chunk to 8 chunks
    o.runs = 1;
    return o;
}

TEST(EngineTuner, MeasuresBothArmsAndKeepsTheRestOfTheEntry) {
    std::unique_ptr<bc::Backend> cpu;
    ASSERT_TRUE(bc::make_cpu_backend(bc::ContextOptions{}, &cpu).is_ok());
    const bc::tuning::Tuning& generic = bc::tuning::select_tuning(bc::tuning::DeviceTraits{}, "generic", "*");
    bc::tuning::TunedEntry start;
    start.family = "generic";
    start.mode = "*";
    start.pipeline.chunk_bytes = 12345 * 64;
    start.pipeline.depth = 5;
    std::vector<std::string> lines;
    bc::tuner::TuneOptions o = small();
    o.progress = [&](const std::string& l) { lines.push_back(l); };
    bc::tuner::TunedPart part;
    ASSERT_TRUE(bc::tuner::tune_engine_threshold(o, 30, *cpu, two_cpus(), generic, &start, &part).is_ok());
    // the CPU alone at 5 sizes (chunk/2 .. 8 chunks), each chunk (chunk/4 .. 4 chunks) at the sizes over it
    EXPECT_EQ(5u + 5u + 4u + 3u + 2u + 1u, lines.size());
    for (const std::string& l : lines) EXPECT_EQ(std::string::npos, l.find("failed")) << l;
    const std::vector<int64_t>& values = part.space.knobs.at(0).values;
    EXPECT_EQ(int64_t(chunk() / 4), values.front()) << "every size through the engine is a candidate";
    EXPECT_EQ(int64_t(16 * chunk()), values.back()) << "the CPU alone throughout is a candidate";
    ASSERT_FALSE(part.search.best.empty());
    EXPECT_TRUE(part.search.baseline_m.ok);
    EXPECT_EQ(static_cast<size_t>(part.search.best[0]), part.entry.engine.cpu_threshold);
    EXPECT_EQ(static_cast<size_t>(part.search.best[1]), part.entry.engine.chunk_bytes);
    EXPECT_GT(part.entry.rate_gbs, 0);
    EXPECT_EQ("generic", part.entry.family);
    EXPECT_EQ(start.pipeline.chunk_bytes, part.entry.pipeline.chunk_bytes) << "the pipeline's tuned numbers stay";
    EXPECT_EQ(start.pipeline.depth, part.entry.pipeline.depth);
}

TEST(EngineTuner, WrongOutputOnEitherArmChoosesNothing) {
    std::unique_ptr<bc::Backend> cpu;
    ASSERT_TRUE(bc::make_cpu_backend(bc::ContextOptions{}, &cpu).is_ok());
    const bc::tuning::Tuning& generic = bc::tuning::select_tuning(bc::tuning::DeviceTraits{}, "generic", "*");
    for (int arm : {0, 1}) {
        bc::tuner::TuneOptions o = small();
        // one size of one arm computes nonsense: every threshold that uses it fails
        const int64_t mid = int64_t(4 * chunk());
        o.corrupt = [arm, mid](const bc::tuning::Point& p) { return p[0] == mid && p[1] == arm; };  // any chunk
        bc::tuner::TunedPart part;
        ASSERT_TRUE(bc::tuner::tune_engine_threshold(o, 30, *cpu, two_cpus(), generic, nullptr, &part).is_ok());
        for (const bc::tuning::Trial& t : part.search.trials) {
            // a threshold up to that size with a smaller chunk runs it through the engine (arm 1),
            // anything else the CPU alone
            const bool adaptive = t.point[0] <= mid && t.point[1] < mid;
            const bool uses = adaptive == (arm == 1);
            EXPECT_EQ(!uses, t.m.ok) << "threshold " << t.point[0] << ", arm " << arm;
        }
        if (!part.search.best.empty()) {
            const bool adaptive = part.search.best[0] <= mid && part.search.best[1] < mid;
            const bool uses = adaptive == (arm == 1);
            EXPECT_FALSE(uses) << "a threshold that runs a wrong arm was chosen";
        }
    }
}

}  // namespace
