// The CPU backend's pool of keyed OpenSSL contexts (EvpKeyedPool): a shard's first thread
// owns a slot that no other thread may take from, whatever shard the others hash to.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_aes_evp.h"
#include "util/thread_shard.h"

namespace {

constexpr unsigned kBits = 4;  // EvpKeyedPool's shards: 2^4

// Runs f on a thread whose shard is `shard`. A thread started after another has ended gets
// the same handle back (glibc reuses the descriptor), so threads are kept alive together
// until one of them hashes to the shard; that one runs f, then all end.
template <class F>
void on_thread_of_shard(size_t shard, F&& f) {
    std::mutex mu;
    std::condition_variable cv;
    int chosen = -1, started = 0;
    bool done = false;
    std::vector<std::thread> threads;
    for (int i = 0; i < 256; ++i) {
        threads.emplace_back([&, i] {
            std::unique_lock<std::mutex> lk(mu);
            if (chosen < 0 && bc::thread_shard(kBits) == shard) chosen = i;
            ++started;
            cv.notify_all();
            cv.wait(lk, [&] { return done || chosen == i; });
            if (chosen == i && !done) {
                lk.unlock();
                f();
                lk.lock();
                done = true;
                cv.notify_all();
            }
        });
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return started == i + 1; });
        if (chosen >= 0) {
            cv.notify_all();
            cv.wait(lk, [&] { return done; });
            break;
        }
    }
    {
        std::lock_guard<std::mutex> lk(mu);
        done = true;
    }
    cv.notify_all();
    for (auto& t : threads) t.join();
    ASSERT_GE(chosen, 0) << "no thread of shard " << shard << " among 256 alive at once";
}

TEST(CpuKeyedPool, TheOwnersContextStaysWithItsOwner) {
    bc::EvpKeyedPool pool;
    const size_t mine = bc::thread_shard(kBits);
    EXPECT_EQ(nullptr, pool.acquire()) << "a new pool holds no context";
    EVP_CIPHER_CTX* x = EVP_CIPHER_CTX_new();
    ASSERT_NE(nullptr, x);
    pool.release(x);  // this thread now owns its shard: x in its own slot

    // Another thread of the same shard finds nothing: x is the owner's alone.
    EVP_CIPHER_CTX* y = nullptr;
    on_thread_of_shard(mine, [&] {
        EXPECT_EQ(nullptr, pool.acquire()) << "a non-owner took the owner's context";
        y = EVP_CIPHER_CTX_new();
        pool.release(y);  // into the shared slot
    });
    ASSERT_NE(nullptr, y);

    EXPECT_EQ(x, pool.acquire()) << "the owner gets its own context back first";
    EXPECT_EQ(y, pool.acquire()) << "then the one the other thread left";
    EXPECT_EQ(nullptr, pool.acquire());
    pool.release(y);  // the owner's slot is empty again: y goes there
    pool.release(x);  // the slot is full: x goes to the shared slot

    // Another thread of the shard may take x, never y.
    EVP_CIPHER_CTX* got_by_other = nullptr;
    on_thread_of_shard(mine, [&] {
        got_by_other = pool.acquire();
        EXPECT_EQ(nullptr, pool.acquire()) << "a non-owner reached the owner's slot";
        if (got_by_other) pool.release(got_by_other);
    });
    EXPECT_EQ(x, got_by_other);
    EXPECT_EQ(y, pool.acquire()) << "the owner's slot";
    EXPECT_EQ(x, pool.acquire()) << "what the other thread gave back";
    pool.release(x);
    pool.release(y);
}  // the pool frees (and so cleanses) x and y

// A non-owner's release goes to the shared slot even while the owner's slot is empty (the
// owner has its context out): only the owner writes its slot.
TEST(CpuKeyedPool, ANonOwnerNeverFillsTheOwnersSlot) {
    bc::EvpKeyedPool pool;
    const size_t mine = bc::thread_shard(kBits);
    EVP_CIPHER_CTX* x = EVP_CIPHER_CTX_new();
    pool.release(x);                 // this thread owns the shard; x in its slot
    EXPECT_EQ(x, pool.acquire());    // out: the owner's slot is empty
    EVP_CIPHER_CTX* z = EVP_CIPHER_CTX_new();
    on_thread_of_shard(mine, [&] { pool.release(z); });
    pool.release(x);                 // back into the owner's slot
    on_thread_of_shard(mine, [&] {
        EXPECT_EQ(z, pool.acquire()) << "the other thread's context went to the owner's slot";
        EXPECT_EQ(nullptr, pool.acquire());
        pool.release(z);
    });
    EXPECT_EQ(x, pool.acquire());
    pool.release(x);
}

// Threads of other shards never see this shard's contexts at all.
TEST(CpuKeyedPool, OtherShardsSeeNothingOfThisOne) {
    bc::EvpKeyedPool pool;
    const size_t mine = bc::thread_shard(kBits);
    EVP_CIPHER_CTX* x = EVP_CIPHER_CTX_new();
    pool.release(x);
    on_thread_of_shard((mine + 1) % (size_t(1) << kBits), [&] { EXPECT_EQ(nullptr, pool.acquire()); });
    EXPECT_EQ(x, pool.acquire());
    pool.release(x);
}

}  // namespace
