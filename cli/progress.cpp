#include "progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "common.h"

namespace bcli {

bool Progress::stderr_is_tty() { return isatty(2) == 1; }

Progress::Progress(const std::string& label, uint64_t total, bool enabled)
    : label_(label), total_(total), enabled_(enabled), start_(now_seconds()) {
    if (enabled_) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() { finish(); }

void Progress::finish() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    // Erase the line: the summary (if any) is printed by the caller.
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
}

void Progress::run() {
    std::unique_lock<std::mutex> lock(mu_);
    // Short jobs finish before the first frame and never draw.
    if (cv_.wait_for(lock, std::chrono::milliseconds(300), [this] { return stop_; })) return;
    while (!stop_) {
        draw(false);
        cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; });
    }
}

static std::string clock_text(double seconds) {
    if (!(seconds >= 0) || seconds > 359999) return "--:--";
    auto s = static_cast<long>(seconds + 0.5);
    if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

void Progress::draw(bool) {
    const double elapsed = now_seconds() - start_;
    const double done = static_cast<double>(done_.load(std::memory_order_relaxed));
    const double rate = elapsed > 0 ? done / elapsed : 0;
    std::string line;
    if (total_ > 0) {
        const double frac = std::min(1.0, done / static_cast<double>(total_));
        const int width = 24;
        const int filled = static_cast<int>(frac * width);
        std::string bar(static_cast<size_t>(filled), '#');
        bar.append(static_cast<size_t>(width - filled), '.');
        const double eta = rate > 0 ? (static_cast<double>(total_) - done) / rate : -1;
        line = fmt::format("{} [{}] {:5.1f}%  {} / {}  {:.2f} GB/s  ETA {}", label_, bar, frac * 100,
                           human_bytes(done), human_bytes(static_cast<double>(total_)), rate / 1e9,
                           clock_text(eta));
    } else {
        line = fmt::format("{} {}  {:.2f} GB/s  {}", label_, human_bytes(done), rate / 1e9,
                           clock_text(elapsed));
    }
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
}

}  // namespace bcli
