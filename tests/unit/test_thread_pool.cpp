#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
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

// Many threads sealing and opening large messages at once through one CPU context, the
// pool's share moving as calls come and go: every result as from one caller.
// (StreamDifferential.ChaChaPolyPieceWhileThePoolShareMoves aims at the one bug seen.)
TEST(ThreadPool, ConcurrentLargeAeadCallsMatchOneCaller) {
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=4", &ctx)) << bc_last_error();
    std::mt19937 rng(5);
    for (const char* alg : {"chacha20-poly1305", "aes-256-gcm"}) {
        std::vector<uint8_t> key(32), nonce(12);
        for (auto& b : key) b = uint8_t(rng());
        bc_key* k = nullptr;
        ASSERT_EQ(BC_OK, bc_key_create(ctx, alg, key.data(), key.size(), &k)) << bc_last_error();
        // Sizes from under the one-shot limit to several MiB, odd lengths included.
        const size_t sizes[] = {(size_t(1) << 20) + 77, (size_t(3) << 20) + 5, size_t(5) << 20};
        std::vector<std::vector<uint8_t>> pt, want, want_tag;
        for (size_t n : sizes) {
            pt.emplace_back(n);
            for (auto& b : pt.back()) b = uint8_t(rng());
            want.emplace_back(n);
            want_tag.emplace_back(16);
            ASSERT_EQ(BC_OK, bc_aead_seal_detached(k, nonce.data(), 12, nullptr, 0, pt.back().data(), n,
                                                   want.back().data(), want_tag.back().data(), 16, nullptr));
        }
        std::atomic<int> bad{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&, t] {
                for (int r = 0; r < 6; ++r) {
                    const size_t i = size_t(t + r) % pt.size(), n = pt[i].size();
                    std::vector<uint8_t> ct(n), tag(16), back(n);
                    if (bc_aead_seal_detached(k, nonce.data(), 12, nullptr, 0, pt[i].data(), n, ct.data(), tag.data(),
                                              16, nullptr) != BC_OK ||
                        ct != want[i] || tag != want_tag[i])
                        ++bad;
                    if (bc_aead_open_detached(k, nonce.data(), 12, nullptr, 0, ct.data(), n, tag.data(), 16,
                                              back.data(), nullptr) != BC_OK ||
                        back != pt[i])
                        ++bad;
                }
            });
        for (auto& th : threads) th.join();
        EXPECT_EQ(0, bad.load()) << alg;
        bc_key_destroy(k);
    }
    bc_context_destroy(ctx);
}
