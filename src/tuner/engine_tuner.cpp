// The engine's CPU threshold: the job size under which a call through the multi-device
// engine runs whole on the CPU worker instead of entering the adaptive split between the CPU
// and the GPUs (src/engine/engine_backend.h). Measured, not searched point by point: each
// size of a ladder is timed through the engine twice, with the threshold at 0 (every job past
// one chunk takes the adaptive path) and at its maximum (the CPU alone), AES-256-GCM from
// pageable memory as a user's file or buffer meets it, each output and MAC partial checked
// against the CPU backend first. A candidate threshold T then runs the sizes under T as the
// CPU alone and the rest as the engine, and its figure of merit is the geometric mean of
// those rates over the ladder, so the search over T (exhaustive: a few values) costs no
// further runs and weighs small and large jobs alike.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>

#include "backends/backend.h"
#include "catalog/catalog.h"
#include "tuner/tuner.h"

namespace bc {
namespace tuner {

namespace {

struct Sample {
    std::vector<uint8_t> in, want;
    uint8_t want_partial[32] = {};
};

// The ladder: powers of 2 from twice the engine's chunk (a job of one chunk or less runs
// whole whatever the threshold, so smaller sizes would measure one path twice) to the
// largest job, three sizes at least.
std::vector<size_t> ladder(size_t chunk, size_t largest) {
    std::vector<size_t> v;
    for (size_t s = 2 * chunk; s <= std::max(largest, 8 * chunk); s *= 2) v.push_back(s);
    return v;
}

}  // namespace

Status tune_engine_threshold(const TuneOptions& opt, double budget, Backend& cpu, const EngineMaker& make_engine,
                             const tuning::Tuning& shipped, const tuning::TunedEntry* start, TunedPart* part) {
    const auto t0 = std::chrono::steady_clock::now();
    const tuning::Tuning& host = tuning::select_tuning(tuning::DeviceTraits{});  // the engine's shipped numbers
    const size_t chunk = host.engine.chunk_bytes ? host.engine.chunk_bytes : size_t(4) << 20;
    const Algorithm* alg = find_algorithm("aes-256-gcm");
    std::mt19937_64 rng(0x656e67);
    std::vector<uint8_t> key(alg->key_size);
    for (auto& b : key) b = static_cast<uint8_t>(rng());
    KeyMaterial km;
    km.alg = alg;
    km.raw = SecureBytes(key.data(), key.size());
    std::fill(key.begin(), key.end(), 0);
    uint8_t ctr[16];
    for (auto& b : ctr) b = static_cast<uint8_t>(rng());
    std::memset(ctr + 12, 0, 4);  // GCM's 32-bit counter word: no wrap
    ctr[15] = 2;

    // The CPU backend's output on each size: the reference.
    const std::vector<size_t> sizes = ladder(chunk, opt.bytes);
    std::map<size_t, Sample> samples;
    std::unique_ptr<BackendKey> cpu_key;
    BC_TRY(cpu.prepare_key(km, &cpu_key));
    for (size_t s : sizes) {
        Sample& x = samples[s];
        x.in.resize(s);
        for (auto& b : x.in) b = static_cast<uint8_t>(rng());
        x.want.assign(s, 0);
        AeadChunkOp op;
        std::memcpy(op.ctr, ctr, 16);
        op.in = x.in.data();
        op.out = x.want.data();
        op.len = s;
        BC_TRY(cpu.aead_chunk(km, *cpu_key, op));
        std::memcpy(x.want_partial, op.partial, sizeof op.partial);
    }

    // Both arms on every size: the output and the partial checked, then timed by the wall clock.
    const size_t never = std::numeric_limits<size_t>::max();
    std::map<std::pair<bool, size_t>, tuning::Measurement> rate;  // (split allowed, size)
    std::vector<uint8_t> out;
    for (const bool split : {false, true}) {
        std::unique_ptr<Backend> eng;
        std::unique_ptr<BackendKey> bk;
        Status st = make_engine(split ? 0 : never, chunk, &eng);
        if (st.is_ok()) st = eng->prepare_key(km, &bk);
        if (!st.is_ok()) return st;
        for (size_t s : sizes) {
            const Sample& x = samples.at(s);
            out.assign(s, 0);
            AeadChunkOp op;
            std::memcpy(op.ctr, ctr, 16);
            op.in = x.in.data();
            op.out = out.data();
            op.len = s;
            tuning::Measurement m;
            st = eng->aead_chunk(km, *bk, op);
            // tests: the point (size, 1 adaptive or 0 the CPU alone)
            if (st.is_ok() && opt.corrupt && opt.corrupt(tuning::Point{static_cast<int64_t>(s), split ? 1 : 0}))
                out[s / 2] ^= 1;
            if (!st.is_ok()) {
                m.error = st.detail;
            } else if (out != x.want || std::memcmp(op.partial, x.want_partial, 16) != 0) {
                m.error = "engine: output or MAC partial differs from the CPU backend";
            } else {
                m = timed_rate(s, opt, [&](double* t) {
                    const auto a = std::chrono::steady_clock::now();
                    AeadChunkOp again = op;
                    const Status r = eng->aead_chunk(km, *bk, again);
                    *t = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
                    return r;
                });
            }
            report(opt, std::string("engine ") + (split ? "adaptive" : "cpu alone") + " " + std::to_string(s >> 20) +
                            " MiB:", m);
            rate[{split, s}] = m;
        }
    }

    // Candidates: the chunk (every size adaptive; smaller thresholds run alike), each ladder
    // size, the shipped value, and past the ladder (the CPU alone throughout).
    const int64_t past = static_cast<int64_t>(sizes.back()) * 2;
    const int64_t shipped_t = static_cast<int64_t>(
        std::min<size_t>(std::max(host.engine.cpu_threshold, chunk), size_t(past)));
    std::vector<int64_t> values{static_cast<int64_t>(chunk), past, shipped_t};
    for (size_t s : sizes) values.push_back(static_cast<int64_t>(s));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    part->space.knobs = {{"cpu_threshold", values}};
    auto candidate = [&](const tuning::Point& p) {
        tuning::Measurement m;
        double log_sum = 0;
        for (size_t s : sizes) {
            const tuning::Measurement& r = rate.at({static_cast<int64_t>(s) >= p[0], s});
            if (!r.ok) {
                m.error = r.error;
                return m;
            }
            log_sum += std::log(r.rate);
        }
        m.ok = true;
        m.rate = std::exp(log_sum / static_cast<double>(sizes.size()));
        return m;
    };
    char what[160];
    std::snprintf(what, sizeof what, "engine threshold: aes-256-gcm, %zu to %zu MiB pageable, adaptive against the CPU alone",
                  sizes.front() >> 20, sizes.back() >> 20);
    part->what = what;
    tuning::SearchOptions so;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    so.budget_seconds = std::max(0.001, budget - spent);
    part->search = tuning::search(part->space, {shipped_t}, candidate, so);

    // One ("generic", "*") entry a device: the rest of it as it stands (start: the entry this
    // tune or an earlier one stored), the threshold from here.
    tuning::TunedEntry& e = part->entry;
    if (start) {
        e = *start;
    } else {
        e.family = "generic";
        e.mode = "*";
        e.kernel = shipped.kernel;
        e.pair = shipped.pair;
        e.ghash = shipped.ghash;
    }
    const tuning::TunedEntry kept = e;
    finish_entry(shipped, *part, spent, &e);
    e.pipeline = kept.pipeline.chunk_bytes || kept.pipeline.depth ? kept.pipeline : shipped.pipeline;
    e.engine = host.engine;
    if (!part->search.best.empty()) e.engine.cpu_threshold = static_cast<size_t>(part->search.best[0]);
    return Status::ok();
}

}  // namespace tuner
}  // namespace bc
