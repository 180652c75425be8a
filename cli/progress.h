// A progress line on stderr (bytes, rate, ETA), drawn by its own thread five
// times a second, only when stderr is a terminal and the user did not ask for
// quiet. Workers only bump an atomic counter.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace bcli {

class Progress {
public:
    // total 0 = unknown (a pipe): then no bar and no ETA, only bytes and rate.
    Progress(const std::string& label, uint64_t total, bool enabled);
    ~Progress();
    void add(uint64_t bytes) { done_.fetch_add(bytes, std::memory_order_relaxed); }
    uint64_t done() const { return done_.load(std::memory_order_relaxed); }
    // Stops the thread and clears the line.
    void finish();

    static bool stderr_is_tty();

private:
    void run();
    void draw(bool final_line);

    std::string label_;
    uint64_t total_;
    bool enabled_;
    double start_;
    std::atomic<uint64_t> done_{0};
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace bcli
