// The C API alone, timed the way a program calls it: the reference the Python
// package's benchmark (bench/python_bench.py) measures its own overhead against.
//
//   capi_bench --alg ALG --size BYTES [--device D] [--memory host|device] [--runs N]
//              [--seconds S] [--options OPTS]
//
// AEAD algorithms are sealed (bc_aead_seal; in device memory bc_aead_seal_detached, the
// tag on the host), others encrypted (bc_encrypt), into a buffer allocated once. Small sizes: calls in a loop for S seconds a run, the median
// of N runs in ns per call. Either way the median rate in GB/s (1e9 bytes). Device
// memory (--memory device, CUDA builds): cudaMalloc'd buffers on the context's GPU,
// the call waiting for its stream as every C API call does. Prints one JSON object.
#include <bulkcrypt/bulkcrypt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef BC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "capi_bench: %s\n", what.c_str());
    std::exit(2);
}

void check(bc_status st, const char* what) {
    if (st != BC_OK) die(std::string(what) + ": " + bc_status_message(st) + ": " + bc_last_error());
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string alg = "aes-256-gcm", device = "cpu", memory = "host", options;
    size_t size = 64;
    int runs = 5;
    double seconds = 0.5;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) die("missing value after " + a);
            return argv[++i];
        };
        if (a == "--alg") alg = next();
        else if (a == "--size") size = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--device") device = next();
        else if (a == "--memory") memory = next();
        else if (a == "--runs") runs = std::max(1, std::atoi(next().c_str()));
        else if (a == "--seconds") seconds = std::atof(next().c_str());
        else if (a == "--options") options = next();
        else die("usage: capi_bench --alg ALG --size BYTES [--device D] [--memory host|device] [--runs N] "
                 "[--seconds S] [--options OPTS]");
    }
    bc_algorithm_info info{};
    check(bc_algorithm_query(alg.c_str(), &info), "algorithm");
    const bool aead = info.kind == BC_KIND_AEAD;
    bc_context* ctx = nullptr;
    check(bc_context_create(device.c_str(), options.empty() ? nullptr : options.c_str(), &ctx), "context");
    std::vector<uint8_t> key(info.key_size, 0x42), iv(info.iv_size, 0x24);
    bc_key* k = nullptr;
    check(bc_key_create(ctx, alg.c_str(), key.data(), key.size(), &k), "key");

    const size_t out_cap = size + (aead ? info.tag_size : 0);
    bc_params p{};
    uint8_t *in = nullptr, *out = nullptr;
    std::vector<uint8_t> host_in, host_out;
    if (memory == "device") {
#ifdef BC_HAVE_CUDA
        if (cudaMalloc(reinterpret_cast<void**>(&in), size) != cudaSuccess ||
            cudaMalloc(reinterpret_cast<void**>(&out), out_cap) != cudaSuccess)
            die("cudaMalloc failed");
        cudaMemset(in, 0x5a, size);
        cudaDeviceSynchronize();
        p.memory = BC_MEMORY_DEVICE;
#else
        die("--memory device needs a CUDA build");
#endif
    } else {
        host_in.assign(size, 0x5a);
        host_out.assign(out_cap, 0);
        in = host_in.data();
        out = host_out.data();
    }
    // Device memory: the AEAD's detached form, the tag on the host (the C API's rule).
    uint8_t tag[16];
    auto call = [&]() {
        size_t n = 0;
        bc_status st;
        if (aead && p.memory == BC_MEMORY_DEVICE)
            st = bc_aead_seal_detached(k, iv.data(), iv.size(), nullptr, 0, in, size, out, tag, info.tag_size, &p);
        else if (aead)
            st = bc_aead_seal(k, iv.data(), iv.size(), nullptr, 0, in, size, out, out_cap, &n, 0, &p);
        else
            st = bc_encrypt(k, iv.data(), iv.size(), in, size, out, out_cap, &n, &p);
        check(st, "call");
    };
    using clock = std::chrono::steady_clock;
    call();  // warm-up: first-use set-up (kernels, pools) is not a call's cost
    std::vector<double> ns_per_call;
    for (int r = 0; r < runs; ++r) {
        size_t calls = 0;
        const auto t0 = clock::now();
        double elapsed = 0;
        do {
            call();
            ++calls;
            elapsed = std::chrono::duration<double>(clock::now() - t0).count();
        } while (elapsed < seconds);
        ns_per_call.push_back(elapsed * 1e9 / double(calls));
    }
    const double ns = median(ns_per_call);
    std::printf("{\"alg\": \"%s\", \"size\": %zu, \"device\": \"%s\", \"device_name\": \"%s\", \"memory\": \"%s\", "
                "\"runs\": %d, \"ns_per_call\": %.1f, \"gbps\": %.3f}\n",
                alg.c_str(), size, device.c_str(), bc_context_device_name(ctx), memory.c_str(), runs, ns,
                double(size) / ns);
    bc_key_destroy(k);
#ifdef BC_HAVE_CUDA
    if (memory == "device") {
        cudaFree(in);
        cudaFree(out);
    }
#endif
    bc_context_destroy(ctx);
    return 0;
}
