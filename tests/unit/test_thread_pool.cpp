#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
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

TEST(ThreadPool, ConcurrentCallersEachGetEveryTask) {
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

// A call made while another caller's long batch holds every pool thread still
// completes: each caller works on its own batch (the old pool queued callers).
TEST(ThreadPool, ASmallCallDoesNotWaitForALongOne) {
    bc::ThreadPool pool(3);
    std::mutex mu;
    std::condition_variable cv;
    bool release = false, small_done = false;
    std::atomic<int> long_started{0};
    std::thread long_caller([&] {
        pool.parallel_for(3, [&](size_t) {
            long_started.fetch_add(1);
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] { return release; });
        });
    });
    while (long_started.load() < 3) std::this_thread::yield();  // every pool thread is stuck
    std::thread small_caller([&] {
        std::atomic<int> n{0};
        pool.parallel_for(5, [&](size_t) { n.fetch_add(1); });
        std::lock_guard<std::mutex> lk(mu);
        small_done = n.load() == 5;
        cv.notify_all();
    });
    {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait_for(lk, std::chrono::seconds(20), [&] { return small_done; });
        EXPECT_TRUE(small_done) << "the small call waited for the long one";
        release = true;
    }
    cv.notify_all();
    long_caller.join();
    small_caller.join();
}

TEST(ThreadPool, LargeCallersShareThePool) {
    bc::ThreadPool pool(8);
    EXPECT_EQ(8u, pool.share());
    {
        bc::ThreadPool::Caller one(pool, true);
        EXPECT_EQ(8u, pool.share());  // a lone caller plans for the whole pool
        bc::ThreadPool::Caller uncounted(pool, false);
        EXPECT_EQ(8u, pool.share());
        bc::ThreadPool::Caller two(pool, true);
        EXPECT_EQ(4u, pool.share());
        bc::ThreadPool::Caller three(pool, true);
        EXPECT_EQ(2u, pool.share());
        std::vector<std::unique_ptr<bc::ThreadPool::Caller>> more;
        for (int i = 0; i < 7; ++i) more.push_back(std::make_unique<bc::ThreadPool::Caller>(pool, true));
        EXPECT_EQ(1u, pool.share());  // 10 callers, 8 threads: each runs on its own
    }
    EXPECT_EQ(8u, pool.share());  // every caller gone
}
