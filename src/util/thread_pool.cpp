#include "util/thread_pool.h"

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

void ThreadPool::worker_loop() {
    unsigned long seen = 0;
    for (;;) {
        Batch* b = nullptr;
        {
            std::unique_lock<std::mutex> lk(mu_);
            wake_.wait(lk, [&] { return stop_ || (current_ != nullptr && generation_ != seen); });
            if (stop_) return;
            seen = generation_;
            b = current_;
            ++busy_;  // the batch must outlive every worker that took it
        }
        drain(*b);
        {
            std::lock_guard<std::mutex> lk(mu_);
            --busy_;
        }
        finished_.notify_all();
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
    std::lock_guard<std::mutex> submit(submit_mu_);
    Batch b;
    b.task = &task;
    b.n = n;
    {
        std::lock_guard<std::mutex> lk(mu_);
        current_ = &b;
        ++generation_;
    }
    wake_.notify_all();
    drain(b);
    std::unique_lock<std::mutex> lk(mu_);
    current_ = nullptr;  // no new worker picks the batch up from here on
    finished_.wait(lk, [&] { return b.done.load() == b.n && busy_ == 0; });
}

}  // namespace bc
