// The tuner on an OpenCL device: the work-group size of the kernels (the backend builds its
// programs for one size a device), measured on data in a device buffer by the kernels'
// profiling events, each candidate in a context of its own with the shipped table alone
// beneath it (tuning=shipped), so that an earlier tune cannot colour the measurement.
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>

#include "backends/backend.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_kernels.h"
#include "catalog/catalog.h"
#include "tuner/tuner.h"
#include "tuning/tuned.h"

namespace bc {
namespace tuner {

namespace {

// The work-group sizes tried; the device's maximum prunes the rest.
const std::vector<int64_t> kWorkGroups = {16, 32, 64, 128, 256, 512, 1024};
// Bytes each candidate's output is checked on against the CPU backend (whole blocks of
// every cipher, several work-groups of every size).
constexpr size_t kCheckBytes = size_t(1) << 20;

struct Workload {
    const Algorithm* alg = nullptr;
    KeyMaterial key;
    std::vector<uint8_t> iv, sample, want;  // want: the CPU backend's output on sample
};

Status open_candidate(int index, const tuning::Overrides& knobs, std::unique_ptr<Backend>* be, OpenClBackend** ocl) {
    ContextOptions o;
    o.tuning = knobs;
    o.tuning.shipped_only = true;
    BC_TRY(make_opencl_backend(index, o, be));
    *ocl = dynamic_cast<OpenClBackend*>(be->get());
    return *ocl ? Status::ok() : Status(BC_ERR_INTERNAL, "the OpenCL backend is not an OpenClBackend");
}

// Random key, IV and sample, and the CPU backend's output on the sample.
Status prepare(const std::string& name, Backend& cpu, std::mt19937_64& rng, Workload* w) {
    w->alg = find_algorithm(name.c_str());
    if (!w->alg) return Status(BC_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '" + name + "'");
    if (w->alg->mode != Mode::CTR && w->alg->mode != Mode::Stream)
        return Status(BC_ERR_NOT_SUPPORTED, name + ": the OpenCL tuner measures CTR and stream ciphers");
    std::vector<uint8_t> key(w->alg->key_size);
    for (auto& b : key) b = static_cast<uint8_t>(rng());
    w->key.alg = w->alg;
    w->key.raw = SecureBytes(key.data(), key.size());
    std::fill(key.begin(), key.end(), 0);
    w->iv.assign(w->alg->iv_size, 0);
    for (auto& b : w->iv) b = static_cast<uint8_t>(rng());
    if (w->alg->mode == Mode::CTR && w->iv.size() >= 4) std::memset(w->iv.data() + w->iv.size() - 4, 0, 4);  // no wrap
    w->sample.resize(kCheckBytes);
    for (auto& b : w->sample) b = static_cast<uint8_t>(rng());
    w->want.assign(kCheckBytes, 0);
    const KeyMaterial& km = w->key;
    std::unique_ptr<BackendKey> bk;
    BC_TRY(cpu.prepare_key(km, &bk));
    CipherOp op;
    op.iv = w->iv.data();
    op.iv_len = w->iv.size();
    op.in = w->sample.data();
    op.out = w->want.data();
    op.len = kCheckBytes;
    return cpu.cipher(km, *bk, op);
}

// One candidate on one algorithm: the output check, then the timed runs.
tuning::Measurement measure(OpenClBackend& be, const Workload& w, cl_mem buf, size_t bytes, const TuneOptions& opt,
                            bool corrupt) {
    tuning::Measurement m;
    const KeyMaterial& km = w.key;
    std::unique_ptr<BackendKey> bk;
    Status s = be.prepare_key(km, &bk);
    std::vector<uint8_t> got(kCheckBytes);
    CipherOp op;
    op.iv = w.iv.data();
    op.iv_len = w.iv.size();
    op.in = w.sample.data();
    op.out = got.data();
    op.len = kCheckBytes;
    if (s.is_ok()) s = be.cipher(km, *bk, op);
    if (!s.is_ok()) {
        m.error = s.detail.empty() ? bc_status_message(s.code) : s.detail;
        return m;
    }
    if (corrupt) got[kCheckBytes / 2] ^= 1;
    if (got != w.want) {
        m.error = std::string(w.alg->name) + ": output differs from the CPU backend";
        return m;
    }
    return timed_rate(bytes, opt, [&](double* secs) {
        CipherOp t;
        t.iv = w.iv.data();
        t.iv_len = w.iv.size();
        t.len = bytes;
        return be.cipher_buffer(km, *bk, t, buf, secs);
    });
}

// One candidate: its own context with the knobs as overrides, one device buffer, every
// workload; the figure of merit is the geometric mean of their rates.
tuning::Measurement run_candidate(int index, const tuning::Overrides& knobs, const std::vector<const Workload*>& work,
                                  size_t bytes, const TuneOptions& opt, bool corrupt, std::string line) {
    tuning::Measurement m;
    std::unique_ptr<Backend> be;
    OpenClBackend* c = nullptr;
    Status s = open_candidate(index, knobs, &be, &c);
    cl_int err = CL_SUCCESS;
    cl_mem buf = s.is_ok() ? clCreateBuffer(c->cl_ctx(), CL_MEM_READ_WRITE, bytes, nullptr, &err) : nullptr;
    if (s.is_ok() && err != CL_SUCCESS) s = Status(BC_ERR_OUT_OF_MEMORY, "clCreateBuffer failed");
    line += ":";
    double log_sum = 0;
    m.ok = s.is_ok();
    if (!s.is_ok()) m.error = s.detail;
    for (size_t i = 0; i < work.size() && m.ok; ++i) {
        const tuning::Measurement r = measure(*c, *work[i], buf, bytes, opt, corrupt);
        if (!r.ok) {
            m.ok = false;
            m.error = r.error;
            break;
        }
        log_sum += std::log(r.rate);
        char b[96];
        std::snprintf(b, sizeof b, " %s %.2f GB/s", work[i]->alg->name, r.rate);
        line += b;
    }
    if (buf) clReleaseMemObject(buf);
    if (m.ok) m.rate = std::exp(log_sum / static_cast<double>(work.size()));
    if (opt.progress) opt.progress(m.ok ? line : line + " failed: " + m.error);
    return m;
}

std::string joined_names(const std::vector<const Workload*>& work) {
    std::string s;
    for (const Workload* w : work) s += (s.empty() ? "" : "+") + std::string(w->alg->name);
    if (work.size() > 1) s += " geomean";
    return s;
}

}  // namespace

Status identify_opencl(int index, tuning::DeviceIdentity* id, tuning::DeviceTraits* traits) {
    std::unique_ptr<Backend> be;
    OpenClBackend* ocl = nullptr;
    BC_TRY(open_candidate(index, tuning::Overrides{}, &be, &ocl));
    *id = ocl->identity();
    *traits = ocl->traits();
    traits->tuned = true;
    return Status::ok();
}

Status tune_opencl(int index, const TuneOptions& opt, TuneResult* out) {
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Backend> first;
    OpenClBackend* ocl = nullptr;
    BC_TRY(open_candidate(index, tuning::Overrides{}, &first, &ocl));
    out->identity = ocl->identity();
    const ocl::DeviceInfo dev = ocl->device();
    tuning::DeviceTraits shipped_traits = ocl->traits();
    shipped_traits.tuned = false;
    const tuning::Tuning shipped = tuning::select_tuning(shipped_traits);
    std::unique_ptr<Backend> cpu;
    BC_TRY(make_cpu_backend(ContextOptions{}, &cpu));
    std::mt19937_64 rng(0x7475);
    std::vector<Workload> work;
    const std::vector<std::string> algs = opt.algorithms.empty() ? std::vector<std::string>{"aes-128-ctr", "chacha20"}
                                                                 : opt.algorithms;
    for (const std::string& a : algs) {
        work.emplace_back();
        BC_TRY(prepare(a, *cpu, rng, &work.back()));
        // one small call builds the algorithm's program, whose kernels say how large a
        // work-group their registers allow (the build is cached for the candidates)
        std::unique_ptr<BackendKey> bk;
        uint8_t block[64] = {};
        CipherOp op;
        op.iv = work.back().iv.data();
        op.iv_len = work.back().iv.size();
        op.in = op.out = block;
        op.len = sizeof block;
        BC_TRY(ocl->prepare_key(work.back().key, &bk));
        BC_TRY(ocl->cipher(work.back().key, *bk, op));
    }
    // Pruned before any run: the device's largest work-group, and the kernels' (a launch
    // past a kernel's limit is cut to a size under it: the same run as a smaller candidate)
    int64_t max_wg = static_cast<int64_t>(dev.max_work_group ? dev.max_work_group : 1024);
    const int64_t kernel_wg = static_cast<int64_t>(ocl->kernel_work_group_limit());
    const bool kernel_bound = kernel_wg > 0 && kernel_wg < max_wg;
    if (kernel_bound) max_wg = kernel_wg;
    const int64_t baseline_wg = std::min<int64_t>(std::max(1, shipped.kernel.threads_per_block), max_wg);
    first.reset();
    const size_t bytes = std::max<size_t>(opt.bytes / 64 * 64, 64);

    std::vector<const Workload*> all, aes;
    for (const Workload& w : work) {
        all.push_back(&w);
        if (w.alg->cipher == Cipher::AES && w.alg->mode == Mode::CTR) aes.push_back(&w);
    }
    // The AES part gets the budget the work-group part leaves, and half of it at least.
    const double spent0 = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double first_budget = std::max(0.001, (opt.budget_seconds - spent0) * (aes.empty() ? 1.0 : 0.5));

    // ---- every kernel's work-group size: one ("generic", "*") entry
    out->parts.emplace_back();
    {
        TunedPart& part = out->parts.back();
        part.what = joined_names(all);
        tuning::SearchSpace& space = part.space;
        space.knobs = {{"work_group", kWorkGroups}};
        if (std::find(kWorkGroups.begin(), kWorkGroups.end(), baseline_wg) == kWorkGroups.end())
            space.knobs[0].values.push_back(baseline_wg);
        std::sort(space.knobs[0].values.begin(), space.knobs[0].values.end());
        space.allowed = [max_wg, kernel_bound](const tuning::Point& p, std::string* why) {
            if (p[0] <= max_wg) return true;
            *why = std::string(kernel_bound ? "over the kernels' largest work-group, " : "over the device's largest work-group, ") +
                   std::to_string(max_wg);
            return false;
        };
        auto candidate = [&](const tuning::Point& p) {
            tuning::Overrides k;
            k.work_group = static_cast<int>(p[0]);
            return run_candidate(index, k, all, bytes, opt, opt.corrupt && opt.corrupt(p), tuning::describe(space, p));
        };
        tuning::SearchOptions so;
        so.budget_seconds = first_budget;
        part.search = tuning::search(space, {baseline_wg}, candidate, so);
        const std::string confirmed = confirm(&part.search, candidate, opt.runs, so.min_gain);
        if (!confirmed.empty() && opt.progress) opt.progress(confirmed);

        tuning::TunedEntry& e = part.entry;
        e.family = shipped.family;
        e.mode = shipped.mode;
        e.kernel = shipped.kernel;
        if (!part.search.best.empty()) e.kernel.threads_per_block = static_cast<int>(part.search.best[0]);
        e.pair = shipped.pair;
        e.ghash = shipped.ghash;
        part.what += ", " + std::to_string(bytes >> 20) + " MiB";
        finish_entry(shipped, part, spent0, &e);
    }
    if (aes.empty()) return Status::ok();

    // ---- AES CTR's own kernel: the variant (batch or lane pairs), its work-group size and,
    // for pairs, the resident groups a compute unit (a grid cap, and on NVIDIA the register
    // cap that lets them reside). An ("aes", "ctr") entry; GCM's counter kernel follows it.
    const tuning::Tuning aes_shipped = tuning::select_tuning(shipped_traits, "aes", "ctr");
    const bool shuffles = dev.pair_shuffles();
    const int64_t base_variant = std::max(0, aes_shipped.kernel.variant);
    const int64_t base_aes_wg = std::min<int64_t>(std::max(1, aes_shipped.kernel.threads_per_block), max_wg);
    const int64_t base_groups = std::max(0, aes_shipped.kernel.blocks_per_sm);
    out->parts.emplace_back();
    TunedPart& part = out->parts.back();
    part.what = joined_names(aes) + " kernel";
    tuning::SearchSpace& space = part.space;
    space.knobs = {{"variant", {0, 1}}, {"work_group", {32, 64, 128, 256, 512}}, {"groups_per_unit", {0, 2, 3, 4, 6, 8}}};
    for (auto [k, v] : {std::pair<size_t, int64_t>{1, base_aes_wg}, {2, base_groups}}) {
        std::vector<int64_t>& vals = space.knobs[k].values;
        if (std::find(vals.begin(), vals.end(), v) == vals.end()) vals.push_back(v);
        std::sort(vals.begin(), vals.end());
    }
    const size_t local_mem = static_cast<size_t>(dev.local_mem);
    space.allowed = [max_wg, shuffles, local_mem, base_groups](const tuning::Point& p, std::string* why) {
        if (p[1] > max_wg) {
            *why = "over the largest work-group, " + std::to_string(max_wg);
            return false;
        }
        if (p[0] == 0 && p[2] != base_groups) {
            *why = "the batch kernel has no grid cap";
            return false;
        }
        if (p[0] == 1 && p[1] % static_cast<int64_t>(ocl::kAesPairTileItems) != 0) {
            *why = "pairs need whole tiles of 32 work-items";
            return false;
        }
        if (p[0] == 1 && local_mem && ocl::aes_pair_local_bytes(static_cast<size_t>(p[1]), shuffles) > local_mem) {
            *why = "the exchange and the masks exceed local memory";
            return false;
        }
        if (p[0] == 1 && shuffles && p[2] > 0 &&
            ocl::aes_pair_register_cap(65536, static_cast<size_t>(p[2]), static_cast<size_t>(p[1])) == 0) {
            *why = "under 64 registers a work-item";
            return false;
        }
        return true;
    };
    auto candidate = [&](const tuning::Point& p) {
        tuning::Overrides k;
        k.opencl_aes_variant = static_cast<int>(p[0]);
        k.opencl_aes_work_group = static_cast<int>(p[1]);
        k.opencl_aes_groups = static_cast<int>(p[2]);
        return run_candidate(index, k, aes, bytes, opt, opt.corrupt && opt.corrupt(p), tuning::describe(space, p));
    };
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    tuning::SearchOptions so;
    so.budget_seconds = std::max(0.001, opt.budget_seconds - spent);
    part.search = tuning::search(space, {base_variant, base_aes_wg, base_groups}, candidate, so);
    const std::string confirmed = confirm(&part.search, candidate, opt.runs, so.min_gain);
    if (!confirmed.empty() && opt.progress) opt.progress(confirmed);

    tuning::TunedEntry& e = part.entry;
    e.family = "aes";
    e.mode = "ctr";
    e.kernel = aes_shipped.kernel;
    if (!part.search.best.empty())
        e.kernel = tuning::KernelTuning{static_cast<int>(part.search.best[1]), static_cast<int>(part.search.best[2]), 0,
                                        static_cast<int>(part.search.best[0])};
    e.pair = aes_shipped.pair;
    e.ghash = aes_shipped.ghash;
    part.what += ", " + std::to_string(bytes >> 20) + " MiB";
    finish_entry(aes_shipped, part, 0, &e);
    return Status::ok();
}

}  // namespace tuner
}  // namespace bc
