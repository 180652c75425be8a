// sweep's throughput studies: openssl speed beside bulkcrypt, the sweep of each algorithm over
// sizes and paths, and CPU thread scaling.
#include "sweep.h"

namespace sweep {

// `openssl speed -elapsed -mr [-multi P] -seconds S [-bytes B] -evp ALG`. -elapsed
// divides by wall time, as every other figure here is (without it OpenSSL divides by
// user CPU time, which some virtual machines under-report).
void openssl_speed(Runner& r, const std::string& alg, unsigned procs) {
    Json j = Json::object();
    j["algorithm"] = alg;
    j["processes"] = procs;
    std::string cmd = "openssl speed -elapsed -mr -seconds " + std::to_string(r.cfg.openssl_seconds);
    if (procs > 1) cmd += " -multi " + std::to_string(procs);
    if (!r.cfg.openssl_all_sizes) cmd += " -bytes 16384";
    cmd += " -evp " + alg;
    j["command"] = cmd;
    int rc = 0;
    std::string out = run_command(cmd + " 2>&1", &rc);
    std::vector<uint64_t> sizes;
    std::vector<double> rates;
    if (rc != 0 || !bench::parse_openssl_speed_mr(out, &sizes, &rates)) {
        j["status"] = "skipped";
        std::string tail = trim(out);
        if (tail.size() > 300) tail = tail.substr(tail.size() - 300);
        j["reason"] = "openssl speed gave no figure (exit " + std::to_string(rc) + "): " + tail;
        r.log("openssl speed %s x%u: no figure", alg.c_str(), procs);
    } else {
        j["status"] = "ok";
        for (size_t i = 0; i < sizes.size(); ++i) {
            Json p = Json::object();
            p["bytes"] = sizes[i];
            p["gbps"] = rates[i];
            j["points"].push(p);
        }
        r.log("openssl speed %s x%u: %.2f GB/s at %s", alg.c_str(), procs, rates.back(),
              human_bytes(sizes.back()).c_str());
    }
    r.out["openssl"].push(j);
}

void sweep_alg(Runner& r, std::vector<Path>& paths, const std::string& spec) {
    AlgSpec a;
    std::string why;
    if (!make_alg(spec, &a, &why)) {
        Json s = Json::object();
        s["algorithm"] = spec;
        s["status"] = "skipped";
        s["reason"] = why;
        r.out["results"].push(s);
        r.log("%s: skipped (%s)", spec.c_str(), why.c_str());
        return;
    }
    const std::vector<SizePoint> sizes = sizes_for(a.name, a.info, std::min<uint64_t>(r.cfg.max_bytes, r.buf_bytes));
    std::vector<uint8_t> key(a.info.key_size);
    fill_pattern(key.data(), key.size(), 0x1234);
    if (a.info.kind == BC_KIND_XTS)  // two independent halves (OpenSSL refuses equal ones)
        fill_pattern(key.data() + key.size() / 2, key.size() / 2, 0x9876);

    // The reference output: one core of the CPU backend, at the verification size.
    uint64_t vbytes = 0;
    for (const SizePoint& sp : sizes)
        if (sp.bytes <= (uint64_t(1) << 20)) vbytes = sp.bytes;
    std::vector<uint8_t> ref(vbytes), got(vbytes);
    uint8_t ref_tag[16] = {}, got_tag[16] = {};
    bool have_ref = false;
    {
        bc_context* c = nullptr;
        bc_key* k = nullptr;
        if (vbytes && bc_context_create("cpu", "threads=1", &c) == BC_OK &&
            bc_key_create(c, a.name.c_str(), key.data(), key.size(), &k) == BC_OK)
            have_ref = call_alg(a, k, r.in.p, ref.data(), vbytes, BC_MEMORY_HOST, nullptr, ref_tag) == BC_OK;
        bc_key_destroy(k);
        bc_context_destroy(c);
    }

    for (Path& p : paths) {
        if (p.status != "ok") continue;
        Json base = Json::object();
        base["path"] = p.name;
        base["algorithm"] = a.spec;
        if (p.aes_only && a.name.rfind("aes-", 0) != 0) continue;
        if (p.backend == "opencl" && !r.opencl_runs(a.spec)) {
            Json s = base;
            s["status"] = "skipped";
            s["reason"] = "not in --opencl-algs (the mode keeps run-time kernel compilation short)";
            r.out["results"].push(s);
            continue;
        }
        if (r.over_budget()) {
            Json s = base;
            s["status"] = "skipped";
            s["reason"] = "over the run's budget (--budget)";
            r.out["results"].push(s);
            continue;
        }
        bc_key* k = nullptr;
        bc_status st = bc_key_create(p.ctx, a.name.c_str(), key.data(), key.size(), &k);
        if (st != BC_OK) {
            Json s = base;
            s["status"] = "skipped";
            s["reason"] = "key: " + status_text(st, bc_last_error());
            r.out["results"].push(s);
            r.log("%-15s %-20s skipped: %s", p.name.c_str(), a.spec.c_str(), status_text(st, bc_last_error()).c_str());
            continue;
        }
        uint8_t *in = r.in.p, *out = r.out_buf.p;
        if (p.pinned) { in = r.pin_in; out = r.pin_out; }
        if (p.memory == BC_MEMORY_DEVICE) { in = r.dev_in; out = r.dev_out; }
        void* stream = p.memory == BC_MEMORY_DEVICE ? r.stream : nullptr;
        uint8_t tag[16];

        // Verification against the CPU reference (cpu1 is the reference), before any timing.
        if (have_ref && p.name != "cpu1") {
            Json v = Json::object();
            v["path"] = p.name;
            v["algorithm"] = a.spec;
            v["bytes"] = vbytes;
            bool copied = true;
#if defined(BC_HAVE_CUDA)
            if (p.pinned || p.memory == BC_MEMORY_DEVICE) {
                if (p.memory == BC_MEMORY_DEVICE)
                    copied = cudaMemcpy(r.dev_in, r.in.p, vbytes, cudaMemcpyHostToDevice) == cudaSuccess;
                else
                    std::memcpy(r.pin_in, r.in.p, vbytes);
            }
#endif
            st = call_alg(a, k, in, out, vbytes, p.memory, stream, got_tag);
            if (st == BC_OK && copied) {
#if defined(BC_HAVE_CUDA)
                if (p.memory == BC_MEMORY_DEVICE) {
                    cudaStreamSynchronize(static_cast<cudaStream_t>(r.stream));
                    copied = cudaMemcpy(got.data(), r.dev_out, vbytes, cudaMemcpyDeviceToHost) == cudaSuccess;
                } else
#endif
                    std::memcpy(got.data(), out, vbytes);
                bool same = copied && got == ref &&
                            (a.info.kind != BC_KIND_AEAD || std::memcmp(got_tag, ref_tag, a.info.tag_size) == 0);
                v["matches_cpu"] = same;
                if (!same) r.log("%-15s %-20s OUTPUT DIFFERS from the CPU backend at %s", p.name.c_str(),
                                 a.spec.c_str(), human_bytes(vbytes).c_str());
            } else {
                v["matches_cpu"] = Json();
                v["reason"] = copied ? status_text(st, bc_last_error()) : "copy to or from the device failed";
            }
            r.out["verification"].push(v);
        }

        double last_rate = 0;  // GB/s at the previous size: predicts the next point's time
        std::string stop_reason;
        for (const SizePoint& sp : sizes) {
            Json j = base;
            j["bytes"] = sp.bytes;
            j["grids"] = Json::array_of(sp.grids);
            if (!stop_reason.empty() || r.over_budget()) {
                j["status"] = "skipped";
                j["reason"] = !stop_reason.empty() ? stop_reason : "over the run's budget (--budget)";
                r.out["results"].push(j);
                continue;
            }
            if (last_rate > 0) {
                double predicted = (r.cfg.runs + 2.0) * double(sp.bytes) / (last_rate * 1e9);
                if (predicted > r.cfg.point_cap_s) {
                    char b[160];
                    std::snprintf(b, sizeof b, "predicted %.1f s, over the per-point cap of %.1f s (--point-cap)",
                                  predicted, r.cfg.point_cap_s);
                    j["status"] = "skipped";
                    j["reason"] = b;
                    r.out["results"].push(j);
                    continue;
                }
            }
            auto call = [&] { return call_alg(a, k, in, out, sp.bytes, p.memory, stream, tag); };
            Measured m;
#if defined(BC_HAVE_CUDA)
            if (p.memory == BC_MEMORY_DEVICE) m = measure_events(r, sp.bytes, static_cast<cudaStream_t>(stream), call);
            else
#endif
                m = measure_host(r, sp.bytes, call);
            if (!m.ok) {
                j["status"] = "failed";
                j["reason"] = status_text(m.st, m.error);
                r.out["results"].push(j);
                r.log("%-15s %-20s %10s: %s", p.name.c_str(), a.spec.c_str(), human_bytes(sp.bytes).c_str(),
                      status_text(m.st, m.error).c_str());
                // A refusal repeats at every size: say it once per size, do not retry.
                stop_reason = "not run: " + status_text(m.st, m.error);
                continue;
            }
            const double med = median(m.gbps);
            last_rate = med;
            j["status"] = "ok";
            j["gbps"] = spread(m.gbps);
            j["seconds_per_call"] = double(sp.bytes) / (med * 1e9);
            j["calls_per_run"] = m.calls_per_run;
            j["timer"] = p.timer();
            if (!m.host_gbps.empty()) {
                const double hm = median(m.host_gbps);
                j["host_clock_gbps"] = hm;
                // Events faster than the host clock by more than launch overhead explains:
                // the work was not ordered on the stream the events were recorded on.
                if (med > 1.5 * hm && sp.bytes >= (uint64_t(1) << 20)) {
                    j["warning"] = "CUDA events report a rate 1.5x above the host clock: the call's work may "
                                   "not be ordered on bc_params.stream, so the event figure is doubtful";
                    r.log("%-15s %-20s %10s: WARNING events %.1f GB/s but host clock %.1f GB/s", p.name.c_str(),
                          a.spec.c_str(), human_bytes(sp.bytes).c_str(), med, hm);
                }
            }
            const std::string& roof = p.roof;
            double roof_g = r.roofs.count(roof) ? r.roofs.at(roof) : NAN;
            j["roof"] = roof;
            j["roof_gbps"] = roof_g;
            j["fraction_of_roof"] = std::isfinite(roof_g) && roof_g > 0 ? med / roof_g : NAN;
            // The roof curve at this size, where one was measured.
            std::string curve = roof == "host-memcpy-1t" || roof == "host-memcpy-all" ? "host-memcpy-1t"
                                : roof == "cuda-d2d"                                  ? "cuda-d2d"
                                : roof == "pcie-end-to-end"                           ? "pcie-roundtrip-pinned"
                                                                                      : "";
            if (!curve.empty() && r.curves.count(curve) && r.curves[curve].count(sp.bytes)) {
                j["roof_curve"] = curve;
                j["roof_curve_gbps"] = r.curves[curve][sp.bytes];
            }
            double opb = ops_per_byte(a.name);
            if (p.backend == "cuda" && opb > 0 && r.roofs.count("gpu-int32-ops")) {
                j["int_ops_per_byte"] = opb;
                j["int_roof_gbps"] = r.roofs["gpu-int32-ops"] / opb / 1e9;
            }
            r.out["results"].push(j);
            r.log("%-15s %-20s %10s: %9.4g GB/s (%.4g..%.4g, %zu runs x %" PRIu64 ") | %s %.2f GB/s: %.1f%%",
                  p.name.c_str(), a.spec.c_str(), human_bytes(sp.bytes).c_str(), med,
                  *std::min_element(m.gbps.begin(), m.gbps.end()), *std::max_element(m.gbps.begin(), m.gbps.end()),
                  m.gbps.size(), m.calls_per_run, roof.c_str(), roof_g, 100.0 * med / roof_g);
        }
        bc_key_destroy(k);
    }
}

// CPU backend threads 1, 2, 4, ... all cores at one size.
void cpu_scaling(Runner& r, const std::vector<std::string>& algs) {
    const uint64_t n = std::min<uint64_t>(r.cfg.scaling_bytes, r.buf_bytes);
    std::vector<unsigned> counts;
    for (unsigned t = 1; t < r.cores; t *= 2) counts.push_back(t);
    counts.push_back(r.cores);
    for (const std::string& spec : algs) {
        AlgSpec a;
        std::string why;
        if (!make_alg(spec, &a, &why)) continue;
        Json j = Json::object();
        j["algorithm"] = spec;
        j["bytes"] = n;
        std::vector<uint8_t> key(a.info.key_size);
        fill_pattern(key.data(), key.size(), 0x1234);
        for (unsigned t : counts) {
            if (r.over_budget()) break;
            bc_context* c = nullptr;
            bc_key* k = nullptr;
            std::string opts = "threads=" + std::to_string(t);
            Json p = Json::object();
            p["threads"] = t;
            if (bc_context_create("cpu", opts.c_str(), &c) != BC_OK ||
                bc_key_create(c, a.name.c_str(), key.data(), key.size(), &k) != BC_OK) {
                p["status"] = "failed";
                p["reason"] = bc_last_error();
            } else {
                uint8_t tag[16];
                Measured m = measure_host(r, n, [&] { return call_alg(a, k, r.in.p, r.out_buf.p, n, BC_MEMORY_HOST, nullptr, tag); });
                if (m.ok) {
                    p["status"] = "ok";
                    p["gbps"] = spread(m.gbps);
                    r.log("scaling cpu %-18s threads=%-3u %s: %.2f GB/s", spec.c_str(), t, human_bytes(n).c_str(),
                          median(m.gbps));
                } else {
                    p["status"] = "failed";
                    p["reason"] = status_text(m.st, m.error);
                }
            }
            bc_key_destroy(k);
            bc_context_destroy(c);
            j["points"].push(p);
        }
        r.out["scaling"]["cpu_threads"].push(j);
    }
}

}  // namespace sweep
