// sweep's roofs: what the memory and the links allow, measured in the same run.
#include "sweep.h"

namespace sweep {

void add_roof(Runner& r, const std::string& name, const std::vector<double>& gbps, uint64_t bytes,
              const char* timer, const std::string& note) {
    Json j = Json::object();
    j["name"] = name;
    j["bytes"] = bytes;
    j["gbps"] = spread(gbps);
    j["timer"] = timer;
    j["note"] = note;
    r.out["roofs"].push(j);
    r.roofs[name] = median(gbps);
    if (gbps.empty()) return;
    r.log("roof %-22s %9.2f GB/s  (%.2f..%.2f, %s, %s)", name.c_str(), median(gbps),
          *std::min_element(gbps.begin(), gbps.end()), *std::max_element(gbps.begin(), gbps.end()),
          human_bytes(bytes).c_str(), note.c_str());
}

// Copies src to dst with `threads` threads, each its own slice.
void parallel_copy(uint8_t* dst, const uint8_t* src, size_t n, unsigned threads) {
    if (threads <= 1) {
        std::memcpy(dst, src, n);
        return;
    }
    std::vector<std::thread> ts;
    const size_t slice = (n / threads + 63) / 64 * 64;
    for (unsigned i = 0; i < threads; ++i) {
        const size_t off = std::min(n, size_t(i) * slice), len = std::min(slice, n - off);
        if (len == 0) break;
        ts.emplace_back([=] { std::memcpy(dst + off, src + off, len); });
    }
    for (std::thread& t : ts) t.join();
}

std::vector<double> time_host_copy(Runner& r, uint8_t* dst, const uint8_t* src, size_t n, unsigned threads) {
    Measured m = measure_host(r, n, [&] {
        parallel_copy(dst, src, n, threads);
        return BC_OK;
    });
    return m.gbps;
}

void host_roofs(Runner& r) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(r.cfg.roof_bytes, r.buf_bytes));
    add_roof(r, "host-memcpy-1t", time_host_copy(r, r.out_buf.p, r.in.p, n, 1), n, "steady_clock",
             "memcpy, one thread, payload bytes (read + write = 2x)");
    add_roof(r, "host-memcpy-all", time_host_copy(r, r.out_buf.p, r.in.p, n, r.cores), n, "steady_clock",
             "memcpy split over " + std::to_string(r.cores) + " threads");
    // The one-thread copy at every swept size: the roof curve of small messages
    // (in cache, as the benchmark's repeated calls are).
    Json c = Json::object();
    c["name"] = "host-memcpy-1t";
    for (uint64_t s = 16; s <= r.cfg.max_bytes && s <= r.buf_bytes; s *= 2) {
        if (r.over_budget()) break;
        Measured m = measure_host(r, s, [&] {
            std::memcpy(r.out_buf.p, r.in.p, s);
            asm volatile("" ::: "memory");
            return BC_OK;
        });
        r.curves["host-memcpy-1t"][s] = median(m.gbps);
        Json p = Json::object();
        p["bytes"] = s;
        p["gbps"] = median(m.gbps);
        c["points"].push(p);
    }
    r.out["roof_curves"].push(c);
}

#if defined(BC_HAVE_CUDA)
// Device copy, PCIe each way and both at once (pinned, two streams), pageable
// each way; flat at roof_bytes plus a curve over sizes for D2D and for the
// pinned round trip (H2D then D2H, one stream: what a synchronous,
// non-overlapped end-to-end call cannot beat).
void cuda_roofs(Runner& r) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(r.cfg.roof_bytes, r.buf_bytes));
    cudaStream_t s1 = static_cast<cudaStream_t>(r.stream), s2 = nullptr;
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    auto events_copy = [&](uint64_t bytes_per_op, const std::function<void()>& enqueue, bool two_streams) {
        cudaEvent_t e0, e1, e2;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventCreate(&e2);
        auto timed = [&](uint64_t k) {
            cudaEventRecord(e0, s1);
            if (two_streams) cudaStreamWaitEvent(s2, e0, 0);
            for (uint64_t i = 0; i < k; ++i) enqueue();
            if (two_streams) {
                cudaEventRecord(e2, s2);
                cudaStreamWaitEvent(s1, e2, 0);
            }
            cudaEventRecord(e1, s1);
            cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            return std::max(double(ms) * 1e-3, 1e-9);
        };
        timed(1);
        double one = timed(1);
        uint64_t k = static_cast<uint64_t>(std::clamp(r.cfg.batch_s / one, 1.0, 65536.0));
        std::vector<double> v;
        auto t_runs = Clock::now();
        while (v.size() < size_t(r.cfg.runs) || (seconds_since(t_runs) < r.cfg.min_point_s && v.size() < 1000))
            v.push_back(double(bytes_per_op) * double(k) / timed(k) / 1e9);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        cudaEventDestroy(e2);
        return v;
    };
    uint8_t *di = r.dev_in, *dout = r.dev_out, *hi = r.pin_in, *ho = r.pin_out;
    add_roof(r, "cuda-d2d", events_copy(n, [&] { cudaMemcpyAsync(dout, di, n, cudaMemcpyDeviceToDevice, s1); }, false),
             n, "cuda-events", "cudaMemcpyAsync device to device, payload bytes (read + write = 2x)");
    add_roof(r, "pcie-h2d-pinned", events_copy(n, [&] { cudaMemcpyAsync(di, hi, n, cudaMemcpyHostToDevice, s1); }, false),
             n, "cuda-events", "cudaMemcpyAsync from cudaHostAlloc memory");
    add_roof(r, "pcie-d2h-pinned", events_copy(n, [&] { cudaMemcpyAsync(ho, dout, n, cudaMemcpyDeviceToHost, s1); }, false),
             n, "cuda-events", "cudaMemcpyAsync to cudaHostAlloc memory");
    add_roof(r, "pcie-bidir-pinned",
             events_copy(2 * n,
                         [&] {
                             cudaMemcpyAsync(di, hi, n, cudaMemcpyHostToDevice, s1);
                             cudaMemcpyAsync(ho, dout, n, cudaMemcpyDeviceToHost, s2);
                         },
                         true),
             n, "cuda-events", "H2D on one stream and D2H on another at once; bytes of both directions");
    {
        Measured m = measure_host(r, n, [&] {
            return cudaMemcpy(di, r.in.p, n, cudaMemcpyHostToDevice) == cudaSuccess ? BC_OK : BC_ERR_DEVICE;
        });
        add_roof(r, "pcie-h2d-pageable", m.gbps, n, "steady_clock", "cudaMemcpy from malloc'd memory");
        m = measure_host(r, n, [&] {
            return cudaMemcpy(r.out_buf.p, dout, n, cudaMemcpyDeviceToHost) == cudaSuccess ? BC_OK : BC_ERR_DEVICE;
        });
        add_roof(r, "pcie-d2h-pageable", m.gbps, n, "steady_clock", "cudaMemcpy to malloc'd memory");
    }
    // What an overlapped pipeline on pinned memory can reach: every byte goes up and
    // comes back, so the payload rate is bounded by each direction and by half of
    // both at once.
    double pipe = std::min({r.roofs["pcie-h2d-pinned"], r.roofs["pcie-d2h-pinned"], r.roofs["pcie-bidir-pinned"] / 2});
    r.roofs["pcie-end-to-end"] = pipe;
    {
        Json j = Json::object();
        j["name"] = "pcie-end-to-end";
        j["gbps"] = Json::object();
        j["gbps"]["median"] = pipe;
        j["timer"] = "derived";
        j["note"] = "min(H2D, D2H, both-at-once / 2), pinned: the payload roof of host-memory GPU paths";
        r.out["roofs"].push(j);
        r.log("roof %-22s %9.2f GB/s  (derived: min(H2D, D2H, bidir/2))", "pcie-end-to-end", pipe);
    }
    Json cd = Json::object(), cr = Json::object();
    cd["name"] = "cuda-d2d";
    cr["name"] = "pcie-roundtrip-pinned";
    for (uint64_t s = 16; s <= r.cfg.max_bytes && s <= r.buf_bytes; s *= 2) {
        if (r.over_budget()) break;
        const size_t sz = static_cast<size_t>(s);
        double d = median(events_copy(s, [&] { cudaMemcpyAsync(dout, di, sz, cudaMemcpyDeviceToDevice, s1); }, false));
        double t = median(events_copy(s,
                                      [&] {
                                          cudaMemcpyAsync(di, hi, sz, cudaMemcpyHostToDevice, s1);
                                          cudaMemcpyAsync(ho, di, sz, cudaMemcpyDeviceToHost, s1);
                                      },
                                      false));
        r.curves["cuda-d2d"][s] = d;
        r.curves["pcie-roundtrip-pinned"][s] = t;
        Json p = Json::object();
        p["bytes"] = s;
        p["gbps"] = d;
        cd["points"].push(p);
        Json q = Json::object();
        q["bytes"] = s;
        q["gbps"] = t;
        cr["points"].push(q);
    }
    r.out["roof_curves"].push(cd);
    r.out["roof_curves"].push(cr);
    cudaStreamDestroy(s2);
}

// The GPU's 32-bit integer rate: multiprocessors x 64 INT32 lanes x SM clock.
void cuda_int_roof(Runner& r, Json& gpu) {
    int sms = 0, khz = 0, major = 0, minor = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    gpu["multiprocessors"] = sms;
    gpu["sm_clock_max_mhz"] = khz / 1000.0;
    gpu["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
    double ops = double(sms) * 64.0 * double(khz) * 1e3;
    r.roofs["gpu-int32-ops"] = ops;
    Json j = Json::object();
    j["name"] = "gpu-int32-ops";
    j["ops_per_s"] = ops;
    j["timer"] = "derived";
    j["note"] = "multiprocessors x 64 INT32 lanes x maximum SM clock (attribute); a ceiling, not measured";
    r.out["roofs"].push(j);
    r.log("roof %-22s %9.2f T int32 ops/s (%d SMs x 64 x %.0f MHz)", "gpu-int32-ops", ops / 1e12, sms, khz / 1e3);
}
#endif

}  // namespace sweep
