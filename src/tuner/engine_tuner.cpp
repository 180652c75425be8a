// The engine's CPU threshold and chunk: the job size under which a call through the
// multi-device engine runs whole on the CPU worker instead of entering the adaptive split
// between the CPU and the GPUs, and the unit that split hands out
// (src/engine/engine_backend.h). Measured, not searched point by point: each size of a
// ladder is timed through the engine with the threshold at its maximum (the CPU alone) and
// at 0 (every job past one chunk takes the adaptive path) for each chunk candidate,
// AES-256-GCM from pageable memory as a user's file or buffer meets it, each output and MAC
// partial checked against the CPU backend first. A candidate (threshold T, chunk c) then
// runs the sizes under T or within one chunk as the CPU alone and the rest as the engine
// with chunk c; its figure of merit is the geometric mean of those rates over the ladder, so
// the exhaustive search over (T, c) costs no further runs and weighs small and large jobs
// alike.
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

// The chunk candidates: a quarter to four times the shipped chunk, by powers of 2.
std::vector<size_t> chunk_candidates(size_t chunk) {
    return {chunk / 4, chunk / 2, chunk, chunk * 2, chunk * 4};
}

// The ladder: powers of 2 from twice the smallest chunk (a job of one chunk or less runs
// whole whatever the threshold, so smaller sizes would measure one path twice) to the
// largest job, and up to 8 shipped chunks at least.
std::vector<size_t> ladder(size_t smallest_chunk, size_t chunk, size_t largest) {
    std::vector<size_t> v;
    for (size_t s = 2 * smallest_chunk; s <= std::max(largest, 8 * chunk); s *= 2) v.push_back(s);
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
    const std::vector<size_t> chunks = chunk_candidates(chunk);
    const std::vector<size_t> sizes = ladder(chunks.front(), chunk, opt.bytes);
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

    // The arms: the CPU alone (threshold past every job) once, the adaptive path (threshold 0)
    // once per chunk candidate, each on every size it would split (a job of one chunk or less
    // runs whole: the CPU alone). Outputs and partials checked, then timed by the wall clock.
    const size_t never = std::numeric_limits<size_t>::max();
    std::map<std::pair<size_t, size_t>, tuning::Measurement> rate;  // (chunk, size); chunk 0: the CPU alone
    std::vector<uint8_t> out;
    std::vector<size_t> arms{0};
    for (size_t c : chunks) arms.push_back(c);
    for (const size_t arm : arms) {
        std::unique_ptr<Backend> eng;
        std::unique_ptr<BackendKey> bk;
        Status st = make_engine(arm ? 0 : never, arm ? arm : chunk, &eng);
        if (st.is_ok()) st = eng->prepare_key(km, &bk);
        if (!st.is_ok()) return st;
        for (size_t s : sizes) {
            if (arm && s <= arm) continue;
            const Sample& x = samples.at(s);
            out.assign(s, 0);
            AeadChunkOp op;
            std::memcpy(op.ctr, ctr, 16);
            op.in = x.in.data();
            op.out = out.data();
            op.len = s;
            tuning::Measurement m;
            st = eng->aead_chunk(km, *bk, op);
            // tests: the point (size, 1 adaptive or 0 the CPU alone, chunk)
            if (st.is_ok() && opt.corrupt &&
                opt.corrupt(tuning::Point{static_cast<int64_t>(s), arm ? 1 : 0, static_cast<int64_t>(arm)}))
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
            report(opt, "engine " + (arm ? "adaptive, chunk " + std::to_string(arm >> 10) + " KiB," : std::string("cpu alone")) +
                            " " + std::to_string(s >> 10) + " KiB:", m);
            rate[{arm, s}] = m;
        }
    }

    // Candidates: thresholds from the smallest chunk (every size past a chunk adaptive;
    // smaller thresholds run alike), each ladder size, the shipped value, and past the ladder
    // (the CPU alone throughout); chunks as measured.
    const int64_t past = static_cast<int64_t>(sizes.back()) * 2;
    const int64_t shipped_t = static_cast<int64_t>(
        std::min<size_t>(std::max(host.engine.cpu_threshold, chunks.front()), size_t(past)));
    std::vector<int64_t> values{static_cast<int64_t>(chunks.front()), past, shipped_t};
    for (size_t s : sizes) values.push_back(static_cast<int64_t>(s));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    std::vector<int64_t> chunk_values;
    for (size_t c : chunks) chunk_values.push_back(static_cast<int64_t>(c));
    part->space.knobs = {{"cpu_threshold", values}, {"chunk_bytes", chunk_values}};
    // A job of size s: the CPU alone under the threshold or within one chunk, else the adaptive path.
    auto candidate = [&](const tuning::Point& p) {
        tuning::Measurement m;
        double log_sum = 0;
        for (size_t s : sizes) {
            const size_t c = static_cast<size_t>(p[1]);
            const bool adaptive = static_cast<int64_t>(s) >= p[0] && s > c;
            const tuning::Measurement& r = rate.at({adaptive ? c : 0, s});
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
    std::snprintf(what, sizeof what, "engine threshold and chunk: aes-256-gcm, %zu to %zu MiB pageable, adaptive against the CPU alone",
                  sizes.front() >> 20, sizes.back() >> 20);
    part->what = what;
    tuning::SearchOptions so;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    so.budget_seconds = std::max(0.001, budget - spent);
    part->search = tuning::search(part->space, {shipped_t, static_cast<int64_t>(chunk)}, candidate, so);

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
    if (!part->search.best.empty()) {
        e.engine.cpu_threshold = static_cast<size_t>(part->search.best[0]);
        e.engine.chunk_bytes = static_cast<size_t>(part->search.best[1]);
    }
    return Status::ok();
}

}  // namespace tuner
}  // namespace bc
