#include "util/thread_pool.h"

#include <algorithm>

namespace bc {
namespace {
thread_local bool t_inside_pool_task = false;
}

ThreadPool::ThreadPool(unsigned threads) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::drain(Batch& b) {
    bool was_inside = t_inside_pool_task;
    t_inside_pool_task = true;
    for (;;) {
        size_t i = b.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= b.n) break;
        (*b.task)(i);
        b.done.fetch_add(1, std::memory_order_acq_rel);
    }
    t_inside_pool_task = was_inside;
}

ThreadPool::Batch* ThreadPool::open_batch() {
    for (Batch* b : batches_)
        if (b->next.load(std::memory_order_relaxed) < b->n) return b;
    return nullptr;
}

void ThreadPool::worker_loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        Batch* b = nullptr;
        wake_.wait(lk, [&] { return stop_ || (b = open_batch()) != nullptr; });
        if (stop_) return;
        ++b->helpers;
        lk.unlock();
        drain(*b);
        lk.lock();
        if (--b->helpers == 0) finished_.notify_all();
    }
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t)>& task) {
    if (n == 0) return;
    if (n == 1 || workers_.empty() || t_inside_pool_task) {
        bool was_inside = t_inside_pool_task;
        t_inside_pool_task = true;
        for (size_t i = 0; i < n; ++i) task(i);
        t_inside_pool_task = was_inside;
        return;
    }
    Batch b;
    b.task = &task;
    b.n = n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        batches_.push_back(&b);
    }
    wake_.notify_all();
    drain(b);
    std::unique_lock<std::mutex> lk(mu_);
    // Every task was taken (drain returned); wait for the helpers still running one.
    finished_.wait(lk, [&] { return b.done.load() == b.n && b.helpers == 0; });
    batches_.erase(std::find(batches_.begin(), batches_.end(), &b));
}

}  // namespace bc
