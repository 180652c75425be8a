// sweep's latency study: context, key, first and warm call per device.
#include "sweep.h"

namespace sweep {

std::vector<std::string> latency(Runner& r, std::vector<std::string> devices) {
    const std::vector<std::string> algs = {"aes-128-ctr", "aes-256-gcm", "chacha20"};
    std::vector<std::string> opencl;
    devices.push_back("opencl:0");
    for (size_t di = 0; di < devices.size(); ++di) {
        const std::string dev = devices[di];
        const bool is_opencl = dev.rfind("opencl:", 0) == 0;
        Json d = Json::object();
        d["device"] = dev;
        bc_context* c = nullptr;
        auto t0 = Clock::now();
        bc_status st = bc_context_create(dev.c_str(), nullptr, &c);
        double first = seconds_since(t0);
        if (is_opencl) {
            if (st != BC_OK) {
                if (opencl.empty()) {
                    r.out["meta"]["opencl"] = status_text(st, bc_last_error());
                    r.log("opencl: none (%s)", status_text(st, bc_last_error()).c_str());
                }
                break;  // the end of the OpenCL devices
            }
            opencl.push_back(dev);
            r.out["meta"]["opencl_devices"].push(std::string(bc_context_device_name(c)));
            if (opencl.size() < 16) devices.push_back("opencl:" + std::to_string(opencl.size()));
        }
        if (r.over_budget()) {
            bc_context_destroy(c);
            continue;
        }
        if (st != BC_OK) {
            d["status"] = "skipped";
            d["reason"] = status_text(st, bc_last_error());
            r.out["latency"].push(d);
            r.log("latency %s: skipped (%s)", dev.c_str(), status_text(st, bc_last_error()).c_str());
            continue;
        }
        bc_context_destroy(c);
        t0 = Clock::now();
        st = bc_context_create(dev.c_str(), nullptr, &c);
        double second = seconds_since(t0);
        if (st != BC_OK) {
            d["status"] = "skipped";
            d["reason"] = "second context: " + status_text(st, bc_last_error());
            r.out["latency"].push(d);
            continue;
        }
        d["status"] = "ok";
        d["device_name"] = bc_context_device_name(c);
        d["context_create_first_s"] = first;
        d["context_create_second_s"] = second;
        r.log("latency %s (%s): context %.3f ms first, %.3f ms second", dev.c_str(), bc_context_device_name(c),
              first * 1e3, second * 1e3);
        for (const std::string& name : algs) {
            AlgSpec a;
            std::string why;
            if (!make_alg(name, &a, &why)) continue;
            Json e = Json::object();
            e["algorithm"] = name;
            if (is_opencl && !r.opencl_runs(name)) {
                e["status"] = "skipped";
                e["reason"] = "not in --opencl-algs (the mode keeps run-time kernel compilation short)";
                d["algorithms"].push(e);
                continue;
            }
            std::vector<uint8_t> key(a.info.key_size);
            fill_pattern(key.data(), key.size(), 7);
            bc_key* k = nullptr;
            t0 = Clock::now();
            st = bc_key_create(c, name.c_str(), key.data(), key.size(), &k);
            double key_first = seconds_since(t0);
            if (st != BC_OK) {
                e["status"] = "skipped";
                e["reason"] = status_text(st, bc_last_error());
                d["algorithms"].push(e);
                continue;
            }
            std::vector<double> key_times;
            for (int i = 0; i < 5; ++i) {
                bc_key* k2 = nullptr;
                t0 = Clock::now();
                if (bc_key_create(c, name.c_str(), key.data(), key.size(), &k2) != BC_OK) break;
                key_times.push_back(seconds_since(t0));
                bc_key_destroy(k2);
            }
            e["key_create_first_s"] = key_first;
            e["key_create_s"] = spread(key_times);
            // The smallest job: 16 bytes (one block), host memory. First call (kernel
            // load, compile or cache read happen here), then warm calls.
            uint8_t tag[16];
            const uint64_t sizes[] = {16, uint64_t(1) << 20};
            for (uint64_t n : sizes) {
                if (n > r.buf_bytes) continue;
                Json s = Json::object();
                s["bytes"] = n;
                t0 = Clock::now();
                st = call_alg(a, k, r.in.p, r.out_buf.p, n, BC_MEMORY_HOST, nullptr, tag);
                double fc = seconds_since(t0);
                if (st != BC_OK) {
                    s["status"] = "failed";
                    s["reason"] = status_text(st, bc_last_error());
                    e["calls"].push(s);
                    continue;
                }
                std::vector<double> warm;
                auto tw = Clock::now();
                while (warm.size() < 20 || (seconds_since(tw) < 0.05 && warm.size() < 10000)) {
                    t0 = Clock::now();
                    if (call_alg(a, k, r.in.p, r.out_buf.p, n, BC_MEMORY_HOST, nullptr, tag) != BC_OK) break;
                    warm.push_back(seconds_since(t0));
                }
                s["first_call_s"] = fc;
                s["warm_call_s"] = spread(warm);
                e["calls"].push(s);
                r.log("latency %s %s %s: first call %.3f ms, warm %.3f ms (median of %zu)", dev.c_str(), name.c_str(),
                      human_bytes(n).c_str(), fc * 1e3, median(warm) * 1e3, warm.size());
            }
            bc_key_destroy(k);
            d["algorithms"].push(e);
        }
        bc_context_destroy(c);
        r.out["latency"].push(d);
    }
    return opencl;
}

}  // namespace sweep
