#include "pipeline.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common.h"

namespace bcli {

unsigned default_workers() {
    unsigned n = std::thread::hardware_concurrency();
    return std::clamp(n, 2u, 64u);
}

namespace {

class Pipeline {
public:
    Pipeline(Input& in, Output& out, const PipelineSpec& spec, const SegmentFn& fn, Progress* progress)
        : in_(in), out_(out), spec_(spec), fn_(fn), progress_(progress), slots_(spec.slots) {
        random_in_ = in.random_access();
        random_out_ = out.random_access();
        mapped_ = random_in_ ? in.mapped() : nullptr;
        out_map_ = random_out_ && spec.out_total > spec.out_base ? out.map_for_write(spec.out_total) : nullptr;
        for (Slot& s : slots_) {
            if (mapped_ == nullptr) s.in = RawBuffer(spec.in_stride, spec.wipe_in);
            if (out_map_ == nullptr) s.out = RawBuffer(spec.out_stride, spec.wipe_out);
        }
        threads_.reserve(spec.workers);
        for (unsigned i = 0; i < spec.workers; ++i) threads_.emplace_back([this] { work(); });
    }

    ~Pipeline() { stop(); }

    PipelineResult run() {
        uint64_t k = 0, total = 0;
        if (random_in_) {
            const uint64_t body = in_.size() >= spec_.in_base ? in_.size() - spec_.in_base : 0;
            const uint64_t n = std::max<uint64_t>(1, (body + spec_.in_stride - 1) / spec_.in_stride);
            for (; k < n; ++k) {
                Slot& s = prepare(k);
                s.seg.in_len = static_cast<size_t>(k + 1 < n ? spec_.in_stride : body - (n - 1) * spec_.in_stride);
                s.seg.last = k + 1 == n;
                submit(k);
            }
            total = n;
        } else {
            Slot* cur = &prepare(0);
            cur->seg.in_len = in_.read_full(cur->in.data(), spec_.in_stride);
            for (;; ++k) {
                if (cur->seg.in_len < spec_.in_stride) {
                    cur->seg.last = true;
                    submit(k);
                    break;
                }
                Slot& next = prepare(k + 1);
                next.seg.in_len = in_.read_full(next.in.data(), spec_.in_stride);
                if (next.seg.in_len == 0) {
                    cur->seg.last = true;
                    next.state = State::Free;  // read nothing: never submitted
                    submit(k);
                    break;
                }
                cur->seg.last = false;
                submit(k);
                cur = &next;
            }
            total = k + 1;
        }
        // Drain in order.
        const uint64_t first = total > slots_.size() ? total - slots_.size() : 0;
        for (uint64_t j = first; j < total; ++j) reclaim(slot_of(j));
        result_.segments = total;
        return result_;
    }

private:
    enum class State { Free, Queued, Done, Failed };
    struct Slot {
        RawBuffer in, out;
        Segment seg;
        State state = State::Free;
        std::exception_ptr error;
    };

    Slot& slot_of(uint64_t k) { return slots_[static_cast<size_t>(k % slots_.size())]; }

    // Makes slot k%S ready for segment k: waits for its previous segment,
    // writes that one out (stdout), and resets it.
    Slot& prepare(uint64_t k) {
        Slot& s = slot_of(k);
        reclaim(s);
        s.seg = Segment{};
        s.seg.index = k;
        s.seg.in = s.in.data();
        s.seg.out = s.out.data();
        s.seg.out_cap = s.out.size();
        return s;
    }

    void reclaim(Slot& s) {
        {
            std::unique_lock<std::mutex> lock(mu_);
            done_cv_.wait(lock, [&] { return s.state != State::Queued; });
        }
        if (s.state == State::Failed) {
            // In order, the first failed slot reached is the lowest failed
            // segment: slots after it were only cancelled.
            std::exception_ptr err = s.error;
            s.state = State::Free;
            stop();
            if (err) std::rethrow_exception(err);
            fail(kExitOther, "the pipeline was cancelled");
        }
        if (s.state == State::Done) {
            if (!random_out_) out_.write_all(s.seg.out, s.seg.out_len);
            result_.in_bytes += s.seg.in_len;
            result_.out_bytes += s.seg.out_len;
        }
        s.state = State::Free;
    }

    void submit(uint64_t k) {
        Slot& s = slot_of(k);
        {
            std::lock_guard<std::mutex> lock(mu_);
            s.state = State::Queued;
            queue_.push_back(static_cast<size_t>(k % slots_.size()));
        }
        work_cv_.notify_one();
    }

    void work() {
        for (;;) {
            size_t idx;
            {
                std::unique_lock<std::mutex> lock(mu_);
                work_cv_.wait(lock, [&] { return !queue_.empty() || shutdown_; });
                if (queue_.empty()) return;
                idx = queue_.front();
                queue_.pop_front();
            }
            Slot& s = slots_[idx];
            State result = State::Done;
            std::exception_ptr err;
            // Segments after a failed one are skipped; the ones before it still
            // complete, so stdout receives every verified segment up to it.
            if (aborted_.load(std::memory_order_relaxed) ||
                s.seg.index > fail_index_.load(std::memory_order_relaxed)) {
                {
                    std::lock_guard<std::mutex> lock(mu_);
                    s.state = State::Failed;
                    s.error = nullptr;
                }
                done_cv_.notify_all();
                continue;
            }
            try {
                const uint64_t in_off = spec_.in_base + s.seg.index * spec_.in_stride;
                if (mapped_ != nullptr) s.seg.in = mapped_ + in_off;
                else if (random_in_) in_.pread_exact(s.in.data(), s.seg.in_len, in_off);
                const uint64_t out_off = spec_.out_base + s.seg.index * spec_.out_stride;
                if (out_map_ != nullptr) {
                    if (out_off > spec_.out_total) fail(kExitOther, "pipeline: output offset past the end");
                    s.seg.out = out_map_ + out_off;
                    s.seg.out_cap = static_cast<size_t>(std::min<uint64_t>(spec_.out_stride, spec_.out_total - out_off));
                }
                fn_(s.seg);
                if (mapped_ != nullptr) in_.release_mapped(in_off, s.seg.in_len);
                if (out_map_ != nullptr) {
                    out_.release_mapped(out_off, s.seg.out_len);
                    if (s.seg.last ? out_off + s.seg.out_len != spec_.out_total : s.seg.out_len != spec_.out_stride)
                        fail(kExitOther, fmt::format("pipeline: segment {} wrote {} bytes, not its share",
                                                     s.seg.index, s.seg.out_len));
                } else if (random_out_) {
                    out_.pwrite_all(s.seg.out, s.seg.out_len, out_off);
                }
                if (progress_ != nullptr) progress_->add(s.seg.in_len);
            } catch (...) {
                err = std::current_exception();
                result = State::Failed;
                uint64_t cur = fail_index_.load();
                while (s.seg.index < cur && !fail_index_.compare_exchange_weak(cur, s.seg.index)) {
                }
            }
            {
                std::lock_guard<std::mutex> lock(mu_);
                s.state = result;
                s.error = err;
            }
            done_cv_.notify_all();
        }
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (shutdown_ && threads_.empty()) return;
            aborted_.store(true);
            shutdown_ = true;
        }
        work_cv_.notify_all();
        for (std::thread& t : threads_) t.join();
        threads_.clear();
    }

    Input& in_;
    Output& out_;
    const PipelineSpec spec_;
    const SegmentFn& fn_;
    Progress* progress_;
    bool random_in_ = false, random_out_ = false;
    const uint8_t* mapped_ = nullptr;  // the input file, mapped: read in place
    uint8_t* out_map_ = nullptr;       // the temporary output file, mapped: written in place
    std::vector<Slot> slots_;
    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    std::deque<size_t> queue_;
    bool shutdown_ = false;
    std::atomic<bool> aborted_{false};               // stop(): skip everything left
    std::atomic<uint64_t> fail_index_{UINT64_MAX};   // lowest failed segment so far
    std::vector<std::thread> threads_;
    PipelineResult result_;
};

}  // namespace

PipelineResult run_pipeline(Input& in, Output& out, const PipelineSpec& spec, const SegmentFn& fn,
                            Progress* progress) {
    if (spec.in_stride == 0 || spec.out_stride == 0 || spec.workers == 0 || spec.slots < 2)
        fail(kExitOther, "run_pipeline: bad specification");
    Pipeline p(in, out, spec, fn, progress);
    return p.run();
}

}  // namespace bcli
