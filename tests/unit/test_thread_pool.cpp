#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "util/thread_pool.h"

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
    bc::ThreadPool pool(4);
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(1000)}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, [&](size_t i) { hits[i].fetch_add(1); });
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "task " << i << " of " << n;
    }
}

TEST(ThreadPool, NestedCallsRunInline) {
    bc::ThreadPool pool(3);
    std::atomic<int> total{0};
    pool.parallel_for(8, [&](size_t) { pool.parallel_for(8, [&](size_t) { total.fetch_add(1); }); });
    EXPECT_EQ(total.load(), 64);
}

TEST(ThreadPool, ConcurrentCallersAreSerialisedSafely) {
    bc::ThreadPool pool(4);
    std::atomic<int> total{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            for (int r = 0; r < 50; ++r) pool.parallel_for(17, [&](size_t) { total.fetch_add(1); });
        });
    for (auto& t : callers) t.join();
    EXPECT_EQ(total.load(), 4 * 50 * 17);
}
