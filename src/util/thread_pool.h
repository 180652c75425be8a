// A fixed pool of worker threads with one operation: run n independent tasks
// and wait for all of them. The calling thread takes tasks too, so a pool of
// size 1 runs everything inline. Tasks are pulled from a shared counter, so
// uneven tasks balance themselves.
//
// Several callers at once (threads sharing a context) do not queue behind each
// other: every call is a batch in a list; each caller works on its own batch and
// the pool's threads help the oldest batch that still has tasks. So n callers
// use n + pool threads, and a small call never waits for a large one to end.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "util/status.h"

namespace bc {

class ThreadPool {
public:
    // threads == 0 means one per hardware thread.
    explicit ThreadPool(unsigned threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Large calls in progress, counted by their owner while each runs (Caller). With k
    // of them at once a call plans for size() / k threads (share()): when many threads
    // call at once (the CLI's segments), each runs its job in a few large tasks instead
    // of cutting it for the whole pool, whose cost (GCM: a partial GHASH and a fold per
    // task, the hand-offs) then buys nothing: the callers already fill the cores.
    class Caller {
    public:
        Caller(ThreadPool& p, bool counted) : n_(counted ? &p.callers_ : nullptr) {
            if (n_) n_->fetch_add(1, std::memory_order_relaxed);
        }
        ~Caller() {
            if (n_) n_->fetch_sub(1, std::memory_order_relaxed);
        }
        Caller(const Caller&) = delete;
        Caller& operator=(const Caller&) = delete;

    private:
        std::atomic<unsigned>* n_;
    };
    unsigned share() const {
        const unsigned k = callers_.load(std::memory_order_relaxed);
        return k > 1 ? std::max(1u, size() / k) : size();
    }

    // Calls task(i) for i in [0, n) across the pool and returns when all are done.
    // A call from inside a task runs serially on that thread (no deadlock).
    void parallel_for(size_t n, const std::function<void(size_t)>& task);

private:
    struct Batch {
        const std::function<void(size_t)>* task = nullptr;
        size_t n = 0;
        std::atomic<size_t> next{0};
        std::atomic<size_t> done{0};
        unsigned helpers = 0;  // pool threads inside it (under mu_): it must outlive them
    };
    void worker_loop();
    Batch* open_batch();  // under mu_: the oldest batch with tasks left, or nullptr
    static void drain(Batch& b);

    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable wake_, finished_;
    std::vector<Batch*> batches_;  // in arrival order
    bool stop_ = false;
    std::atomic<unsigned> callers_{0};  // Caller
};

// Calls task(i) -> Status for i in [0, n) across the pool and returns the first
// failure (tasks not yet started when one fails are skipped). A single task runs
// on the calling thread with no dispatch at all: no std::function, no allocation,
// no lock (the path of every small job); so do all of them while other large calls
// fill the pool (share() == 1): helpers would only add threads to busy cores.
template <class F>
Status run_tasks(ThreadPool& pool, size_t n, F&& task) {
    if (n == 0) return Status::ok();
    if (n == 1) return task(size_t(0));
    if (pool.share() == 1) {
        for (size_t i = 0; i < n; ++i) BC_TRY(task(i));
        return Status::ok();
    }
    std::mutex mu;
    Status first;
    std::atomic<bool> failed{false};
    pool.parallel_for(n, [&](size_t i) {
        if (failed.load(std::memory_order_relaxed)) return;
        Status s = task(i);
        if (!s.is_ok()) {
            std::lock_guard<std::mutex> lk(mu);
            if (!failed.exchange(true)) first = std::move(s);
        }
    });
    return first;
}

}  // namespace bc
