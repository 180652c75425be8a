// The engine: one queue of chunks, one persistent thread per worker backend.
// See engine_backend.h for the splitting rules and the fault policy.
#include "engine/engine_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"
#include "util/thread_shard.h"

namespace bc {
namespace {

struct EngineKey : BackendKey {
    std::vector<std::unique_ptr<BackendKey>> keys;  // per worker; null: the worker does not take the algorithm
    bc_gf128 h{0, 0};                               // GCM: H = E_K(0), to fold the partials
    ~EngineKey() override { secure_wipe_object(h); }
};

uint32_t load_le32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
void store_le32(uint8_t* p, uint32_t v) {
    p[0] = uint8_t(v);
    p[1] = uint8_t(v >> 8);
    p[2] = uint8_t(v >> 16);
    p[3] = uint8_t(v >> 24);
}

// The largest block (CBC chaining value, CTR counter block, XTS tweak) a piece starts from.
constexpr size_t kMaxBlock = 16;

// Failures that another worker may not repeat: the device, its memory, a bug.
// Anything else (a bad argument, a counter overflow) would fail anywhere.
bool retryable(bc_status c) {
    return c == BC_ERR_DEVICE || c == BC_ERR_OUT_OF_MEMORY || c == BC_ERR_NO_DEVICE || c == BC_ERR_INTERNAL ||
           c == BC_ERR_NOT_SUPPORTED;
}

// Workers' rates are learned per kind of work (a GPU moves AES-CTR and ChaCha20 at
// about the same PCIe-bound rate, a CPU does not).
constexpr size_t kRateKinds = 8;
size_t rate_kind(Mode m) { return std::min<size_t>(size_t(m), kRateKinds - 1); }

// Size classes for the choice of arm: whether the GPUs pay off depends on the
// job's size (a pipeline's start and end are fixed costs). Class c holds jobs from
// 4^c MiB (class 0: anything smaller) up.
constexpr size_t kSizeClasses = 6;
size_t size_class(size_t len) {
    size_t c = 0;
    for (size_t mib = len >> 20; mib >= 4 && c + 1 < kSizeClasses; mib >>= 2) ++c;
    return c;
}

// Which workers take fresh pieces of a job (EngineOptions::split_policy), in the order
// the adaptive policy tries them.
enum class Arm : uint8_t { Split, CpuAlone, GpusAlone };
constexpr size_t kArms = 3;

// One job in the queue: nchunks chunks; a piece is a run [first, first + count).
struct Job {
    size_t nchunks = 0;
    std::function<Status(size_t w, size_t first, size_t count)> run;
    std::function<void(size_t first, size_t count)> scribble;  // test hook: garbage over a piece's output
    std::vector<char> usable;  // per worker: has the key
    bool retry = true;         // a failed piece may run again elsewhere (its input is intact)
    size_t chunk = 0, len = 0; // bytes per chunk and in all (the last chunk may be short)
    size_t kind = 0;           // what the workers' rates are kept per (rate_kind)
    bool chooses = false;      // its arm was chosen (EngineOptions::split_policy)
    Arm arm = Arm::Split;      // who takes fresh pieces; back to Split when no worker of the arm is left
    bool pinned = false;       // input and output in page-locked memory (EngineOptions::host_pinned)

    size_t piece_offset(size_t first) const { return first * chunk; }
    size_t piece_bytes(size_t first, size_t count) const {
        return std::min(len, (first + count) * chunk) - first * chunk;
    }
    void plan(size_t total, size_t chunk_bytes, Mode mode) {
        kind = rate_kind(mode);
        len = total;
        chunk = chunk_bytes;
        nchunks = (total + chunk_bytes - 1) / chunk_bytes;
    }

    // State, under the engine's mutex.
    size_t next = 0;
    std::deque<std::pair<size_t, size_t>> again;  // failed pieces waiting for another worker
    size_t done = 0;                              // chunks finished
    size_t running = 0;                           // pieces in flight
    std::vector<char> out;                        // workers taken out of this job
    std::vector<size_t> taken;                    // chunks taken per worker (test hook)
    double gpu_bytes = 0, gpu_seconds = 0;        // pieces the non-CPU workers finished, and their time
    size_t healthy = 0;                           // usable workers not taken out
    bool failed = false;
    Status status;

    bool finished() const { return running == 0 && (failed || done == nchunks); }
};

class EngineBackend final : public Backend {
public:
    EngineBackend(std::vector<std::unique_ptr<Backend>> workers, const EngineOptions& opt)
        : workers_(std::move(workers)), opt_(opt) {
        opt_.chunk = std::max<size_t>(opt_.chunk / 64 * 64, 64);
        stats_.pieces.assign(workers_.size(), 0);
        stats_.bytes.assign(workers_.size(), 0);
        rate_.assign(workers_.size() * kRateKinds, 0.0);
        inflight_.reset(new std::atomic<int>[workers_.size()]);
        for (size_t i = 0; i < workers_.size(); ++i) inflight_[i].store(0);
        cpu_flag_.assign(workers_.size(), 0);
        for (size_t i = 0; i < workers_.size(); ++i) {
            if (workers_[i]->is_cpu()) cpu_workers_.push_back(i), cpu_flag_[i] = 1;
            takes_host_ = takes_host_ || workers_[i]->supports_memory(BC_MEMORY_HOST);
            takes_device_ = takes_device_ || workers_[i]->supports_memory(BC_MEMORY_DEVICE);
        }
        for (size_t i = 0; i < workers_.size(); ++i) threads_.emplace_back([this, i] { worker_loop(i); });
    }

    ~EngineBackend() override {
        {
            std::lock_guard<std::mutex> lk(mu_);
            stop_ = true;
        }
        work_cv_.notify_all();
        for (auto& t : threads_) t.join();
    }

    const char* name() const override { return opt_.name.c_str(); }

    std::string device_name() const override {
        std::string s = "engine over " + std::to_string(workers_.size()) + " worker(s): ";
        for (size_t i = 0; i < workers_.size(); ++i) {
            if (i) s += " + ";
            s += std::string(workers_[i]->name()) + " [" + workers_[i]->device_name() + "]";
        }
        return s;
    }

    bool supports(const Algorithm& alg) const override {
        for (auto& w : workers_)
            if (w->supports(alg)) return true;
        return false;
    }

    bool supports_memory(bc_memory m) const override {
        return m == BC_MEMORY_HOST ? takes_host_ : m == BC_MEMORY_DEVICE && takes_device_;
    }

    Status prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) override {
        auto k = std::make_unique<EngineKey>();
        k->keys.resize(workers_.size());
        bool any = false;
        Status left_out;  // the first device worker that could not take the key
        for (size_t i = 0; i < workers_.size(); ++i) {
            if (!workers_[i]->supports(*key.alg)) continue;
            Status st = workers_[i]->prepare_key(key, &k->keys[i]);
            if (st) {
                any = true;
                continue;
            }
            st = Status(st.code, worker_label(i) + ": " + st.detail);
            // A device that cannot take the key (its run-time compiler, its memory) leaves it
            // to the other workers; a failure any worker would repeat (the key) is the call's.
            if (is_cpu(i) || !retryable(st.code)) return st;
            k->keys[i].reset();
            if (left_out.is_ok()) left_out = st;
        }
        if (!any)
            return left_out.is_ok() ? Status(BC_ERR_NOT_SUPPORTED, std::string("no worker of the engine takes ") + key.alg->name)
                                    : left_out;
        if (key.alg->mode == Mode::GCM) {
            // H = E_K(0) under the row's block cipher (AES's schedule, or the descriptor's).
            HostBlockSchedule ks;
            if (!key.alg->block || !ks.expand(key.alg->block, key.raw.data(), key.raw.size()))
                return Status(BC_ERR_KEY_SIZE, std::string(key.alg->name) + ": key length not accepted by the cipher");
            k->h = gcm_hash_subkey(GcmCipher(*key.alg->block, ks.key().ks));
        }
        *out = std::move(k);
        return Status::ok();
    }

    Status cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) override;
    Status aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) override;
    Status mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) override;

    Status aead_oneshot(const KeyMaterial& key, const BackendKey& bkey, Dir dir, const uint8_t* nonce,
                        size_t nonce_len, const uint8_t* aad, size_t aad_len, const uint8_t* in, uint8_t* out,
                        size_t len, uint8_t* tag, size_t tag_len, bc_memory memory) override {
        // Messages kept whole (as aead_chunk would): the CPU worker's own fast path
        // (libcrypto in one call, when its pool has no better use).
        if (memory != BC_MEMORY_HOST || (len >= opt_.cpu_threshold && len > opt_.chunk))
            return Status(BC_ERR_NOT_SUPPORTED);
        const auto& ek = static_cast<const EngineKey&>(bkey);
        // A job another worker should take (the CPU is busy) goes the chunk way: aead_chunk chooses again.
        const int w = choose_worker(ek, len);
        if (w < 0 || !is_cpu(size_t(w))) return Status(BC_ERR_NOT_SUPPORTED);
        InFlight busy(inflight_[size_t(w)], len);
        Status st = workers_[w]->aead_oneshot(key, *ek.keys[w], dir, nonce, nonce_len, aad, aad_len, in, out, len,
                                              tag, tag_len, memory);
        if (st.code != BC_ERR_NOT_SUPPORTED) count_small();
        return st;
    }

    Status wipe(void* p, size_t n, bc_memory memory, void* stream) override {
        if (!p || n == 0) return Status::ok();
        if (memory == BC_MEMORY_HOST) {
            secure_wipe(p, n);
            return Status::ok();
        }
        const int owner = device_owner(p, nullptr);
        if (owner >= 0) return workers_[owner]->wipe(p, n, memory, stream);
        Status last(BC_ERR_NOT_SUPPORTED, "no worker of the engine takes device memory");
        for (size_t i = 0; i < workers_.size(); ++i) {
            if (!workers_[i]->supports_memory(memory)) continue;
            last = workers_[i]->wipe(p, n, memory, stream);
            if (last.code != BC_ERR_INVALID_ARGUMENT) return last;
        }
        return last;
    }

    EngineStats stats() const {
        std::lock_guard<std::mutex> lk(mu_);
        EngineStats s = stats_;
        s.small_jobs = small_jobs();
        s.device_jobs = device_jobs_.load();
        return s;
    }
    void reset_stats() {
        std::lock_guard<std::mutex> lk(mu_);
        for (CountShard& c : small_jobs_) c.n.store(0, std::memory_order_relaxed);
        device_jobs_ = 0;
        stats_ = EngineStats();
        stats_.pieces.assign(workers_.size(), 0);
        stats_.bytes.assign(workers_.size(), 0);
    }
    const EngineOptions& options() const { return opt_; }
    // Whether it has CPU workers and workers of another kind.
    bool mixes_cpu() const { return !cpu_workers_.empty() && cpu_workers_.size() < workers_.size(); }

private:
    std::string worker_label(size_t i) const {
        return "engine worker " + std::to_string(i) + " (" + workers_[i]->name() + ")";
    }

    // The worker for a job kept whole on the host: the first CPU worker with the
    // key, else the first worker with the key.
    int small_worker(const EngineKey& ek) const {
        for (size_t i : cpu_workers_)
            if (ek.keys[i]) return int(i);
        for (size_t i = 0; i < workers_.size(); ++i)
            if (ek.keys[i] && workers_[i]->supports_memory(BC_MEMORY_HOST)) return int(i);
        return -1;
    }

    bool is_cpu(size_t w) const { return cpu_flag_[w] != 0; }
    // Page-locked host memory: the test hook when set, else any worker that stages through it.
    bool host_pinned(const void* p) const {
        if (opt_.host_pinned) return opt_.host_pinned(p);
        for (const auto& w : workers_)
            if (w->host_pinned(p)) return true;
        return false;
    }

    // Under mu_: whether worker w may take fresh pieces of job j.
    bool takes_part(const Job& j, size_t w) const {
        return j.usable[w] && !j.out[w] && (j.arm == Arm::Split || (j.arm == Arm::CpuAlone) == is_cpu(w));
    }
    bool has_member(const Job& j) const {
        for (size_t i = 0; i < workers_.size(); ++i)
            if (takes_part(j, i)) return true;
        return false;
    }

    // Under mu_: the arm of a new job (EngineOptions::split_policy). Only a job that both
    // kinds of worker could run has a choice.
    bool has_choice(const Job& j) const {
        bool cpu = false, other = false;
        for (size_t i = 0; i < workers_.size(); ++i)
            if (j.usable[i]) (is_cpu(i) ? cpu : other) = true;
        return cpu && other;
    }
    Arm choose_arm(const Job& j) {
        using P = EngineOptions::SplitPolicy;
        switch (opt_.split_policy) {
        case P::Split: return Arm::Split;
        case P::CpuAlone: return Arm::CpuAlone;
        case P::GpusAlone: return Arm::GpusAlone;
        case P::Adaptive: break;
        }
        SplitRates& r = split_[split_class(j)];
        {
            // The GPUs-alone try is skipped when their pieces in the first split job ran at under
            // half the CPU-alone rate (learn_split): the arm starts from that rate.
            double& gpus = r.rate[size_t(Arm::GpusAlone)];
            const double cpu = r.rate[size_t(Arm::CpuAlone)];
            if (gpus <= 0 && cpu > 0 && r.gpus_in_split > 0 && r.gpus_in_split < kGpusTryRatio * cpu)
                gpus = r.gpus_in_split;
        }
        for (size_t a = 0; a < kArms; ++a)
            if (r.rate[a] <= 0) return Arm(a);  // not yet measured: tried in order
        const size_t cpu = size_t(Arm::CpuAlone), gpus = size_t(Arm::GpusAlone), split = size_t(Arm::Split);
        const size_t single = r.rate[cpu] >= r.rate[gpus] ? cpu : gpus;
        // The split must win clearly: it also costs the GPU's time and the host's memory
        // traffic (3x per byte staged) that other callers could use, and single job rates
        // on a shared host wander by 10 % or more (bench/notes/engine-host-memory.md).
        const size_t best = r.rate[split] > r.rate[single] * kSplitMargin ? split : single;
        // Probes: every other arm earns (rate / best rate)^2 a job; the one with the most
        // credit at or past explore_every runs now (EngineOptions::split_policy).
        size_t probe = best;
        for (size_t a = 0; a < kArms; ++a) {
            if (a == best) {
                r.credit[a] = 0;
                continue;
            }
            const double q = r.rate[a] / r.rate[best];
            r.credit[a] += q * q;
            if (opt_.explore_every && r.credit[a] >= opt_.explore_every &&
                (probe == best || r.credit[a] > r.credit[probe]))
                probe = a;
        }
        if (probe != best) r.credit[probe] = 0;
        return Arm(probe);
    }
    // Under mu_: a finished job's rate, folded into its arm's moving average.
    // The first split job also says what the GPUs could do alone: the rate of their pieces
    // (bytes over the time they ran), times their number. choose_arm skips their try when
    // that is under half the CPU-alone rate: from pageable memory a GPU alone runs at ~1/4 of
    // the CPU, and one try costs 3 jobs' time; with pinned buffers, where the GPUs win, it is
    // ~1.3. (Their share of the split job's chunks is no guide: the split slows the CPU, and a
    // GPU spends much of a split job between pieces.) The q^2 probes of choose_arm measure a
    // skipped arm for real later.
    void learn_split(const Job& j, Arm arm, double seconds) {
        if (seconds <= 0) return;
        SplitRates& r = split_[split_class(j)];
        double& x = r.rate[size_t(arm)];
        const double now = double(j.len) / seconds;
        x = x > 0 ? 0.5 * x + 0.5 * now : now;
        if (arm != Arm::Split || r.gpus_in_split > 0) return;
        size_t gpus = 0;
        for (size_t w = 0; w < workers_.size(); ++w) gpus += j.usable[w] && !is_cpu(w);
        const double each = j.gpu_seconds > 0 ? j.gpu_bytes / j.gpu_seconds : 0.0;
        r.gpus_in_split = std::max(each * double(gpus), 1e-3 * now);
    }

    // Where a job that stays whole runs (on the calling thread). Many callers at once
    // (the CLI's segments, a server's threads) must not all land on one worker: while
    // the CPU worker is busy (opt_.cpu_busy_at other callers' jobs), a job of at least
    // opt_.gpu_min_job bytes goes to the least loaded other worker that has room
    // (fewer than opt_.gpu_concurrency such jobs in flight); anything smaller, or with
    // no room anywhere, stays on the CPU (its pool serves concurrent callers).
    int choose_worker(const EngineKey& ek, size_t len) const {
        const int cpu = small_worker(ek);
        const bool cpu_busy =
            cpu < 0 || !is_cpu(size_t(cpu)) || inflight_[size_t(cpu)].load() >= int(std::max(1u, opt_.cpu_busy_at));
        if (len < opt_.gpu_min_job || !cpu_busy) return cpu;
        int best = -1;
        for (size_t i = 0; i < workers_.size(); ++i) {
            if (is_cpu(i) || !ek.keys[i] || !workers_[i]->supports_memory(BC_MEMORY_HOST)) continue;
            const int load = inflight_[i].load();
            if (load >= int(opt_.gpu_concurrency)) continue;
            if (best < 0 || load < inflight_[size_t(best)].load()) best = int(i);
        }
        return best >= 0 ? best : cpu;
    }

    // Counts a whole job of len bytes on worker w while it runs. Jobs under kCountedJob are
    // not counted: one holds its worker for microseconds, too briefly to steer another
    // caller's choice, and counting it costs two locked read-modify-writes (6.9 ns each on
    // the H100 host, bench/probes/small_job_primitives.cpp: ~1.5 % of a 4 KiB job).
    static constexpr size_t kCountedJob = 64 * 1024;
    struct InFlight {
        std::atomic<int>* n;
        InFlight(std::atomic<int>& c, size_t len) : n(len >= kCountedJob ? &c : nullptr) {
            if (n) n->fetch_add(1);
        }
        ~InFlight() {
            if (n) n->fetch_sub(1);
        }
        InFlight(const InFlight&) = delete;
        InFlight& operator=(const InFlight&) = delete;
    };

    // The worker owning device pointer p (-1: unknown, ask them in turn).
    int device_owner(const void* p, const EngineKey* ek) const {
        if (!opt_.device_of || opt_.worker_devices.size() != workers_.size()) {
            // The workers say which of them owns p.
            for (size_t i = 0; i < workers_.size(); ++i)
                if (workers_[i]->supports_memory(BC_MEMORY_DEVICE) && (!ek || ek->keys[i]) &&
                    workers_[i]->owns_device_pointer(p))
                    return int(i);
            return -1;
        }
        const int d = opt_.device_of(p);
        if (d < 0) return -1;
        for (size_t i = 0; i < workers_.size(); ++i)
            if (opt_.worker_devices[i] == d && workers_[i]->supports_memory(BC_MEMORY_DEVICE) &&
                (!ek || ek->keys[i]))
                return int(i);
        return -1;
    }

    // Device memory: the owner runs the whole job on the calling thread.
    template <class F>
    Status on_device(const void* p, const EngineKey& ek, F&& call) {
        device_jobs_.fetch_add(1, std::memory_order_relaxed);
        const int owner = device_owner(p, &ek);
        if (owner >= 0) return call(size_t(owner));
        Status last(BC_ERR_NOT_SUPPORTED, "no worker of the engine takes device memory for this algorithm");
        for (size_t i = 0; i < workers_.size(); ++i) {
            if (!ek.keys[i] || !workers_[i]->supports_memory(BC_MEMORY_DEVICE)) continue;
            last = call(i);
            if (last.code != BC_ERR_INVALID_ARGUMENT) return last;
        }
        return last;
    }

    // Pieces this large or larger teach the engine a worker's rate (smaller ones are mostly
    // fixed costs; a chunk is rarely smaller).
    static constexpr size_t kRatePieceMin = size_t(64) << 10;
    static constexpr double kSplitMargin = 1.1;  // choose_arm
    static constexpr double kGpusTryRatio = 0.5;  // choose_arm
    // Under mu_: folds a finished piece's rate into the worker's (moving average).
    void learn_rate(size_t w, size_t kind, size_t bytes, double sec) {
        if (sec <= 0) return;
        double& r = rate_[w * kRateKinds + kind];
        const double now = double(bytes) / sec;
        r = r > 0 ? 0.7 * r + 0.3 * now : now;
    }

    // Small jobs take no lock (many threads may send them at once).
    // The small-job count is a statistic, not an input to any choice, so it is kept without
    // a locked instruction (one costs 6.9 ns on the H100 host, ~0.8 % of a 4 KiB job): one
    // counter per shard of calling threads, a plain load and store. Two threads of one shard
    // counting at the same instant can lose one count.
    static constexpr unsigned kCountShardBits = 4;
    struct alignas(64) CountShard {
        std::atomic<uint64_t> n{0};
    };
    void count_small() {
        std::atomic<uint64_t>& c = small_jobs_[thread_shard(kCountShardBits)].n;
        c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    uint64_t small_jobs() const {
        uint64_t t = 0;
        for (const CountShard& c : small_jobs_) t += c.n.load(std::memory_order_relaxed);
        return t;
    }

    // Queues a job, lets the workers drain it, returns its status.
    // in, out: the job's buffers (pinned or pageable decides its split class).
    Status submit(Job& job, const EngineKey& ek, const void* in, const void* out);
    bool pick(size_t w, Job** job, size_t* first, size_t* count);
    void worker_loop(size_t w);

    std::vector<std::unique_ptr<Backend>> workers_;
    std::vector<size_t> cpu_workers_;
    std::vector<char> cpu_flag_;  // per worker: a CPU worker
    struct SplitRates {
        double rate[kArms] = {0, 0, 0};    // per Arm: job bytes/s, moving averages (0: not yet measured)
        double credit[kArms] = {0, 0, 0};  // per Arm: probe credit (choose_arm)
        double gpus_in_split = 0;          // the GPUs' piece rate in the first split job (learn_split)
    };
    SplitRates split_[kRateKinds * kSizeClasses * 2];  // per (rate_kind, size_class, pinned); under mu_
    static size_t split_class(const Job& j) { return (j.kind * kSizeClasses + size_class(j.len)) * 2 + j.pinned; }
    bool takes_host_ = false, takes_device_ = false;  // some worker does (asked once: the C API asks every call)
    EngineOptions opt_;
    mutable std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    std::deque<Job*> jobs_;
    bool stop_ = false;
    EngineStats stats_;
    std::vector<double> rate_;  // bytes/s per (worker, kind), learned from pieces (0: not yet); under mu_
    std::unique_ptr<std::atomic<int>[]> inflight_;  // whole jobs running per worker (choose_worker)
    CountShard small_jobs_[size_t(1) << kCountShardBits];
    std::atomic<uint64_t> device_jobs_{0};
    std::vector<std::thread> threads_;
};

Status EngineBackend::submit(Job& job, const EngineKey& ek, const void* in, const void* out) {
    job.usable.assign(workers_.size(), 0);
    job.out.assign(workers_.size(), 0);
    job.taken.assign(workers_.size(), 0);
    for (size_t i = 0; i < workers_.size(); ++i)
        if (ek.keys[i] && workers_[i]->supports_memory(BC_MEMORY_HOST)) job.usable[i] = 1, ++job.healthy;
    if (job.healthy == 0) return Status(BC_ERR_NOT_SUPPORTED, "no worker of the engine has this key");
    if (job.nchunks == 0) return Status::ok();
    std::unique_lock<std::mutex> lk(mu_);
    ++stats_.jobs;
    job.chooses = has_choice(job);
    // Pinned buffers skip the GPU's staging copies, so they are measured apart.
    if (job.chooses) job.pinned = host_pinned(in) && host_pinned(out);
    const Arm arm = job.chooses ? choose_arm(job) : Arm::Split;
    job.arm = arm;
    if (arm == Arm::CpuAlone) ++stats_.cpu_alone_jobs;
    if (arm == Arm::GpusAlone) ++stats_.gpus_alone_jobs;
    const auto t0 = std::chrono::steady_clock::now();
    jobs_.push_back(&job);
    work_cv_.notify_all();
    done_cv_.wait(lk, [&] { return job.finished(); });
    jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
    // A job that lost a worker says nothing about the choice.
    const bool intact = job.healthy == size_t(std::count(job.usable.begin(), job.usable.end(), char(1)));
    if (job.chooses && opt_.split_policy == EngineOptions::SplitPolicy::Adaptive && intact)
        learn_split(job, arm, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return job.failed ? job.status : Status::ok();
}

// Under mu_: the next piece worker w may run, oldest job first.
bool EngineBackend::pick(size_t w, Job** out, size_t* first, size_t* count) {
    for (Job* j : jobs_) {
        if (j->failed || !j->usable[w] || j->out[w]) continue;
        if (!j->again.empty()) {  // a failed piece: any worker still in the job may run it
            *first = j->again.front().first;
            *count = j->again.front().second;
            j->again.pop_front();
        } else if (j->next < j->nchunks && takes_part(*j, w)) {
            const size_t left = j->nchunks - j->next;
            size_t n = 1;
            if (opt_.guided) {
                // Guided by rates: a worker takes about half of its share of what is left,
                // its share being its learned rate over the sum (equal shares until every
                // worker has a rate), and takes nothing when one chunk would keep it busy
                // longer than the others need for everything left: a slow worker must
                // not hold the job's tail.
                // The fastest worker never declines, so a job always finishes.
                double mine = rate_[w * kRateKinds + j->kind], others = 0, fastest = 0;
                bool known = mine > 0;
                size_t members = 1;
                for (size_t i = 0; i < workers_.size(); ++i) {
                    if (i == w || !takes_part(*j, i)) continue;
                    ++members;
                    const double r = rate_[i * kRateKinds + j->kind];
                    known = known && r > 0;
                    others += r;
                    fastest = std::max(fastest, r);
                }
                if (members == 1) {
                    n = left;  // alone in the job (one kind alone, or the others out): halving shares nothing
                } else if (known && others > 0) {
                    const double left_bytes = double(j->len - j->next * j->chunk);
                    const double next_bytes = std::min(double(j->chunk), left_bytes);
                    if (mine < fastest && next_bytes / mine > left_bytes / others) continue;
                    n = std::max<size_t>(1, size_t(double(left) * mine / (mine + others) / 2));
                } else {
                    n = std::max<size_t>(1, left / (2 * members));
                }
            }
            *first = j->next;
            *count = n;
            j->next += n;
        } else {
            continue;
        }
        *out = j;
        return true;
    }
    return false;
}

void EngineBackend::worker_loop(size_t w) {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        Job* job = nullptr;
        size_t first = 0, count = 0;
        work_cv_.wait(lk, [&] { return stop_ || pick(w, &job, &first, &count); });
        if (!job) return;  // stopping, nothing picked
        ++job->running;
        const bool inject = opt_.fail_worker == int(w) && job->taken[w] + count > opt_.fail_after_chunks;
        std::chrono::steady_clock::time_point t0;  // set when the piece starts (injected failures learn nothing)
        job->taken[w] += count;
        lk.unlock();
        Status st;
        if (inject) {
            if (job->scribble) job->scribble(first, count);
            st = Status(opt_.fail_status, "injected failure (EngineOptions::fail_worker)");
        } else {
            // Nothing may escape a worker thread: an exception becomes the piece's status.
            t0 = std::chrono::steady_clock::now();
            try {
                st = job->run(w, first, count);
            } catch (const std::bad_alloc&) {
                st = Status(BC_ERR_OUT_OF_MEMORY, "host memory exhausted");
            } catch (...) {
                st = Status(BC_ERR_INTERNAL, "unexpected exception in an engine worker");
            }
        }
        lk.lock();
        --job->running;
        ++stats_.pieces[w];
        bool wake_others = false;
        if (st) {
            job->done += count;
            const size_t bytes = job->piece_bytes(first, count);
            stats_.bytes[w] += bytes;
            if (!inject) {
                const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                if (bytes >= kRatePieceMin) learn_rate(w, job->kind, bytes, sec);
                if (!is_cpu(w)) job->gpu_bytes += double(bytes), job->gpu_seconds += sec;
            }
            // Rates moved: a worker that declined (pick) may be the fastest idle one now.
            wake_others = opt_.guided && (job->next < job->nchunks || !job->again.empty());
        } else {
            ++stats_.failures;
            if (!job->out[w]) {
                job->out[w] = 1;
                --job->healthy;
                // A job kept on one kind of worker (the CPU, or the GPUs) whose last worker
                // of that kind is out goes to everyone left.
                if (job->arm != Arm::Split && !has_member(*job)) job->arm = Arm::Split, wake_others = true;
            }
            if (job->retry && retryable(st.code) && job->healthy > 0 && !job->failed) {
                job->again.emplace_back(first, count);
                ++stats_.requeued;
                wake_others = true;
            } else if (!job->failed) {
                job->failed = true;
                job->status = Status(st.code, worker_label(w) + ": " + st.detail);
            }
        }
        if (job->finished()) done_cv_.notify_all();
        if (wake_others) work_cv_.notify_all();
    }
}

// ---------------------------------------------------------------- the calls

Status EngineBackend::cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) {
    const auto& ek = static_cast<const EngineKey&>(bkey);
    if (op.memory == BC_MEMORY_DEVICE)
        return on_device(op.in, ek, [&](size_t w) { return workers_[w]->cipher(key, *ek.keys[w], op); });
    const Mode mode = key.alg->mode;
    // Serial or unsplittable jobs, and small ones: one worker, on this thread.
    const bool serial = (mode == Mode::CBC && op.dir == Dir::Encrypt) || (mode == Mode::XTS && op.data_unit == 0);
    if (serial || op.len < opt_.cpu_threshold || op.len <= opt_.chunk) {
        // CBC encryption runs on the host whatever the worker: keep it on the CPU.
        const bool cbc_enc = mode == Mode::CBC && op.dir == Dir::Encrypt;
        const int w = cbc_enc ? small_worker(ek) : choose_worker(ek, op.len);
        if (w < 0) return Status(BC_ERR_NOT_SUPPORTED, "no worker of the engine takes host memory for this key");
        count_small();
        InFlight busy(inflight_[size_t(w)], op.len);
        return workers_[w]->cipher(key, *ek.keys[w], op);
    }
    const size_t chunk = engine_cipher_chunk(*key.alg, opt_.chunk, op.data_unit);
    const size_t bs = key.alg->block_size;  // ECB, CBC, CTR: the cipher's block, 8 or 16
    Job job;
    job.plan(op.len, chunk, mode);
    job.retry = op.in != op.out;
    // CBC decryption: chunk k chains from the ciphertext block before it, saved now,
    // before any in-place output can land there.
    std::vector<uint8_t> chains;
    if (mode == Mode::CBC) {
        if (bs == 0 || bs > kMaxBlock || op.iv_len != bs)
            return Status(BC_ERR_INTERNAL, "engine: a CBC chaining value of " + std::to_string(op.iv_len) + " bytes");
        chains.resize(bs * job.nchunks);
        engine_cbc_chains(bs, op.iv, op.in, chunk, job.nchunks, chains.data());
    }
    if (mode == Mode::CTR && (bs == 0 || bs > kMaxBlock || op.iv_len != bs))
        return Status(BC_ERR_INTERNAL, "engine: a CTR counter block of " + std::to_string(op.iv_len) + " bytes");
    job.run = [&](size_t w, size_t first, size_t count) -> Status {
        const size_t off = job.piece_offset(first);
        CipherOp sub = op;
        sub.in = op.in + off;
        sub.out = op.out + off;
        sub.len = job.piece_bytes(first, count);
        uint8_t state[kMaxBlock];  // the piece's XTS tweak or CTR counter block
        switch (mode) {
        case Mode::CBC: sub.iv = &chains[bs * first]; break;
        case Mode::XTS:
            std::memcpy(state, op.iv, 16);
            add_le128(state, off / op.data_unit);
            sub.iv = state;
            break;
        case Mode::CTR:
            engine_ctr_piece(bs, op.iv, op.offset + off, state, &sub.offset);
            sub.iv = state;
            break;
        case Mode::ECB: break;
        default: sub.offset = op.offset + off; break;  // stream ciphers, NO-OP: same IV, later offset
        }
        Status st = workers_[w]->cipher(key, *ek.keys[w], sub);
        secure_wipe(state, sizeof state);
        return st;
    };
    job.scribble = [&](size_t first, size_t count) {
        std::memset(op.out + job.piece_offset(first), 0xA5, job.piece_bytes(first, count) / 2 + 1);
    };
    Status st = submit(job, ek, op.in, op.out);
    if (!chains.empty()) secure_wipe(chains.data(), chains.size());
    return st;
}

namespace {

// The MAC partials of a split job, kept per piece (indexed by its first chunk)
// and folded in message order at the end.
struct Partials {
    std::vector<uint8_t> value;   // 32 bytes per chunk index
    std::vector<size_t> count;    // chunks of the piece starting there (0: none)
    explicit Partials(size_t n) : value(32 * n, 0), count(n, 0) {}
    ~Partials() { secure_wipe(value.data(), value.size()); }
    void put(size_t first, size_t n, const uint8_t p[32]) {
        std::memcpy(&value[32 * first], p, 32);
        count[first] = n;
    }
    // acc (32 bytes, zero on entry) = the partial of the whole message.
    Status fold(const Job& job, Mode mode, const bc_gf128& h, const uint8_t* r, uint8_t acc_out[32]) const {
        bc_gf128 g{0, 0};
        uint8_t acc[17] = {0};
        for (size_t k = 0; k < count.size();) {
            if (count[k] == 0) return Status(BC_ERR_INTERNAL, "engine: a MAC partial is missing");
            const uint64_t nblocks = (job.piece_bytes(k, count[k]) + 15) / 16;
            if (mode == Mode::GCM) g = ghash_fold(g, bc_gf128_load(&value[32 * k]), nblocks, h);
            else poly1305_combine(acc, &value[32 * k], nblocks, r);
            k += count[k];
        }
        std::memset(acc_out, 0, 32);
        if (mode == Mode::GCM) bc_gf128_store(acc_out, g);
        else std::memcpy(acc_out, acc, 17);
        secure_wipe_object(g);
        secure_wipe(acc, sizeof acc);
        return Status::ok();
    }
};

}  // namespace

Status EngineBackend::aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) {
    const auto& ek = static_cast<const EngineKey&>(bkey);
    if (op.memory == BC_MEMORY_DEVICE)
        return on_device(op.in, ek, [&](size_t w) { return workers_[w]->aead_chunk(key, *ek.keys[w], op); });
    const Mode mode = key.alg->mode;
    if (mode != Mode::GCM && mode != Mode::ChaChaPoly)
        return Status(BC_ERR_NOT_SUPPORTED, std::string(key.alg->name) + " is not an AEAD the engine can split");
    if (op.len < opt_.cpu_threshold || op.len <= opt_.chunk) {
        const int w = choose_worker(ek, op.len);
        if (w < 0) return Status(BC_ERR_NOT_SUPPORTED, "no worker of the engine takes host memory for this key");
        count_small();
        InFlight busy(inflight_[size_t(w)], op.len);
        return workers_[w]->aead_chunk(key, *ek.keys[w], op);
    }
    Job job;
    job.plan(op.len, opt_.chunk, mode);  // a multiple of 64: every piece but the last is whole blocks
    job.retry = op.in != op.out;
    Partials parts(job.nchunks);
    job.run = [&](size_t w, size_t first, size_t count) -> Status {
        const size_t off = job.piece_offset(first);
        AeadChunkOp sub;
        sub.dir = op.dir;
        std::memcpy(sub.ctr, op.ctr, 16);
        if (mode == Mode::GCM) gcm_inc32(sub.ctr, off / 16);
        else store_le32(sub.ctr, load_le32(sub.ctr) + uint32_t(off / 64));  // ChaCha block counter
        sub.mac_key = op.mac_key;
        sub.subkey = op.subkey;
        sub.in = op.in + off;
        sub.out = op.out + off;
        sub.len = job.piece_bytes(first, count);
        sub.memory = BC_MEMORY_HOST;
        Status st = workers_[w]->aead_chunk(key, *ek.keys[w], sub);
        if (st) parts.put(first, count, sub.partial);  // pieces are disjoint: no lock needed
        secure_wipe(sub.ctr, sizeof sub.ctr);
        secure_wipe(sub.partial, sizeof sub.partial);
        return st;
    };
    job.scribble = [&](size_t first, size_t count) {
        std::memset(op.out + job.piece_offset(first), 0x5A, job.piece_bytes(first, count) / 2 + 1);
    };
    BC_TRY(submit(job, ek, op.in, op.out));
    return parts.fold(job, mode, ek.h, op.mac_key, op.partial);
}

Status EngineBackend::mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) {
    const auto& ek = static_cast<const EngineKey&>(bkey);
    if (op.memory == BC_MEMORY_DEVICE)
        return on_device(op.data, ek, [&](size_t w) { return workers_[w]->mac(key, *ek.keys[w], op); });
    const Mode mode = key.alg->mode;
    if ((mode != Mode::GCM && mode != Mode::ChaChaPoly) || op.len < opt_.cpu_threshold || op.len <= opt_.chunk) {
        const int w = small_worker(ek);
        if (w < 0) return Status(BC_ERR_NOT_SUPPORTED, "no worker of the engine takes host memory for this key");
        count_small();
        return workers_[w]->mac(key, *ek.keys[w], op);
    }
    Job job;
    job.plan(op.len, opt_.chunk, mode);
    job.retry = true;  // reads only
    Partials parts(job.nchunks);
    job.run = [&](size_t w, size_t first, size_t count) -> Status {
        MacOp sub;
        sub.mac_key = op.mac_key;
        sub.data = op.data + job.piece_offset(first);
        sub.len = job.piece_bytes(first, count);
        sub.memory = BC_MEMORY_HOST;
        Status st = workers_[w]->mac(key, *ek.keys[w], sub);
        if (st) parts.put(first, count, sub.partial);
        secure_wipe(sub.partial, sizeof sub.partial);
        return st;
    };
    BC_TRY(submit(job, ek, op.data, op.data));
    return parts.fold(job, mode, ek.h, op.mac_key, op.partial);
}

}  // namespace

// ---------------------------------------------------------------- piece start states

size_t engine_cipher_chunk(const Algorithm& a, size_t chunk, uint64_t data_unit) {
    if (a.mode == Mode::XTS && data_unit) {
        const size_t unit = size_t(data_unit);
        return std::max<size_t>(chunk / unit, 1) * unit;
    }
    const size_t bs = std::max<size_t>(a.block_size, 1);
    return std::max<size_t>(chunk / bs, 1) * bs;
}

void engine_cbc_chains(size_t block, const uint8_t* iv, const uint8_t* in, size_t chunk, size_t nchunks,
                       uint8_t* chains) {
    if (nchunks == 0) return;
    std::memcpy(chains, iv, block);
    for (size_t k = 1; k < nchunks; ++k) std::memcpy(chains + block * k, in + k * chunk - block, block);
}

void engine_ctr_piece(size_t block, const uint8_t* ctr, uint64_t pos, uint8_t* piece_ctr, uint64_t* piece_offset) {
    std::memcpy(piece_ctr, ctr, block);
    add_be(piece_ctr, block, pos / block);
    *piece_offset = pos % block;
}

// ---------------------------------------------------------------- factory, introspection

Status make_engine_backend(std::vector<std::unique_ptr<Backend>> workers, const EngineOptions& opt,
                           std::unique_ptr<Backend>* out) {
    if (workers.empty()) return Status(BC_ERR_INVALID_ARGUMENT, "the engine needs at least one worker");
    for (auto& w : workers)
        if (!w) return Status(BC_ERR_NULL_POINTER, "the engine was given a null worker");
    if (!opt.worker_devices.empty() && opt.worker_devices.size() != workers.size())
        return Status(BC_ERR_INVALID_ARGUMENT, "EngineOptions::worker_devices must name every worker");
    *out = std::make_unique<EngineBackend>(std::move(workers), opt);
    return Status::ok();
}

bool engine_stats(const Backend& b, EngineStats* out) {
    auto* e = dynamic_cast<const EngineBackend*>(&b);
    if (!e) return false;
    *out = e->stats();
    return true;
}

void engine_reset_stats(Backend& b) {
    if (auto* e = dynamic_cast<EngineBackend*>(&b)) e->reset_stats();
}

const EngineOptions* engine_options(const Backend& b) {
    auto* e = dynamic_cast<const EngineBackend*>(&b);
    return e ? &e->options() : nullptr;
}

size_t engine_cpu_threshold(const Backend& b) {
    auto* e = dynamic_cast<const EngineBackend*>(&b);
    return e && e->mixes_cpu() ? e->options().cpu_threshold : 0;
}

}  // namespace bc
