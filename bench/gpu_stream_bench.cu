// GPU benchmark of the stream-cipher family on data already in GPU memory:
// ChaCha20, Salsa20/20, Salsa20/12, Salsa20/8, ChaCha20-Poly1305 (encrypt with
// the Poly1305 partial on the GPU), each beside a device-to-device copy measured
// in the same run (the memory roof). CUDA events, median of the runs.
//
//   gpu_stream_bench [out.json] [MiB=1024] [runs=9]
//
// Prints Markdown; writes JSON to out.json when given. Also sweeps the launch
// shape (threads per block, blocks per SM, unroll) and reports the best found.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cuda/stream_kernels.h"
#include "cores/chacha/stream_state.h"
#include "catalog/catalog.h"

namespace {

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(2);                                                                  \
        }                                                                                  \
    } while (0)

struct Result {
    std::string name;
    double gbps = 0, ms = 0;
    bc::StreamLaunch lp;
    double target = 0, study = 0, openssl = 0;
};

template <class F>
double median_ms(F f, int runs, cudaStream_t s) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    f();  // warm-up
    CK(cudaStreamSynchronize(s));
    std::vector<float> t;
    for (int i = 0; i < runs; ++i) {
        CK(cudaEventRecord(a, s));
        f();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const char* json = argc > 1 ? argv[1] : nullptr;
    size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024;
    int runs = argc > 3 ? std::max(5, std::atoi(argv[3])) : 9;
    size_t n = mib << 20;
    int dev = 0;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    uint8_t *din, *dout;
    unsigned long long* scratch;
    uint8_t* partial;
    CK(cudaMalloc(&din, n));
    CK(cudaMalloc(&dout, n));
    CK(cudaMalloc(&scratch, 64));
    CK(cudaMalloc(&partial, 32));
    CK(cudaMemset(din, 0x5a, n));

    auto gbps = [&](double ms) { return double(n) / (ms * 1e-3) / 1e9; };
    double copy_ms = median_ms([&] { CK(cudaMemcpyAsync(dout, din, n, cudaMemcpyDeviceToDevice, s)); }, runs, s);
    double copy_gbps = gbps(copy_ms);

    std::vector<bc::StreamLaunch> shapes;
    for (int tpb : {128, 256, 512})
        for (int bps : {4, 8, 16})
            for (int u : {1, 2, 4}) shapes.push_back(bc::StreamLaunch{tpb, bps, u});

    uint8_t key[32], iv[24], r[16], ctr[16] = {1, 0, 0, 0};
    for (int i = 0; i < 32; ++i) key[i] = uint8_t(i * 7 + 1);
    for (int i = 0; i < 24; ++i) iv[i] = uint8_t(i * 13 + 5);
    for (int i = 0; i < 16; ++i) r[i] = uint8_t(i * 29 + 3);
    std::memcpy(ctr + 4, iv, 12);

    struct Alg { const char* label; const char* name; double target, study, openssl; };
    // study: the Salsa20 GPU paper on a GTX 590 (no transfers); openssl: DESIGN.md, 16 cores of the H100 host.
    const Alg algs[] = {{"ChaCha20", "chacha20", 1000, 0, 70},
                        {"Salsa20/20", "salsa20", 0, 27.65, 0},
                        {"Salsa20/12", "salsa20-12", 1200, 43.44, 0},
                        {"Salsa20/8", "salsa20-8", 0, 51.55, 0}};
    std::vector<Result> results;
    for (const Alg& a : algs) {
        const bc::Algorithm* alg = bc::find_algorithm(a.name);
        bc::StreamState st;
        uint8_t ivb[16] = {0};
        std::memcpy(ivb + 4, iv, 12);
        const uint8_t* use_iv = alg->iv_size == 16 ? ivb : iv;
        if (!bc::make_stream_state(*alg, key, alg->key_size, use_iv, alg->iv_size, &st).is_ok()) return 3;
        Result best;
        best.name = a.label;
        for (const auto& lp : shapes) {
            double ms = median_ms([&] { bc::cuda_stream_xor_device(st, 0, din, dout, n, s, lp); }, runs, s);
            if (best.ms == 0 || ms < best.ms) { best.ms = ms; best.lp = lp; }
        }
        best.gbps = gbps(best.ms);
        best.target = a.target; best.study = a.study; best.openssl = a.openssl;
        results.push_back(best);
    }
    {
        Result best;
        best.name = "ChaCha20-Poly1305 (encrypt + GPU Poly1305)";
        for (const auto& lp : shapes) {
            if (lp.unroll == 4) continue;
            double ms = median_ms([&] {
                bc::cuda_chachapoly_device(key, ctr, r, bcs::POLY_ENCRYPT, din, dout, n, partial, scratch, s, lp);
            }, runs, s);
            if (best.ms == 0 || ms < best.ms) { best.ms = ms; best.lp = lp; }
        }
        best.gbps = gbps(best.ms);
        best.target = 600; best.openssl = 40;
        results.push_back(best);
        Result mac;
        mac.name = "Poly1305 partial only";
        double ms = median_ms([&] {
            bc::cuda_chachapoly_device(nullptr, ctr, r, bcs::POLY_MAC_ONLY, din, nullptr, n, partial, scratch, s, best.lp);
        }, runs, s);
        mac.ms = ms; mac.gbps = gbps(ms); mac.lp = best.lp;
        results.push_back(mac);
    }
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));

    std::printf("## GPU stream ciphers, data in GPU memory (%s, %d SMs)\n\n", prop.name, prop.multiProcessorCount);
    std::printf("%zu MiB per call, out of place, median of %d runs (CUDA events); best launch shape of %zu tried.\n\n",
                mib, runs, shapes.size());
    std::printf("| algorithm | GB/s | ms | %% of copy roof | target | study (GTX 590) | OpenSSL 16 cores (DESIGN.md) | tpb/bps/unroll |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    std::printf("| device copy (roof) | %.1f | %.3f | 100 | | | | |\n", copy_gbps, copy_ms);
    for (const Result& r2 : results) {
        std::printf("| %s | %.1f | %.3f | %.0f | %s | %s | %s | %d/%d/%d |\n", r2.name.c_str(), r2.gbps, r2.ms,
                    100.0 * r2.gbps / copy_gbps, r2.target ? std::to_string(int(r2.target)).c_str() : "",
                    r2.study ? std::to_string(r2.study).substr(0, 5).c_str() : "",
                    r2.openssl ? std::to_string(int(r2.openssl)).c_str() : "", r2.lp.threads_per_block,
                    r2.lp.blocks_per_sm, r2.lp.unroll);
    }
    if (json) {
        FILE* f = std::fopen(json, "w");
        if (!f) { std::perror(json); return 4; }
        std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"bytes\": %zu,\n  \"runs\": %d,\n  \"copy_gbps\": %.3f,\n  \"results\": [\n",
                     prop.name, n, runs, copy_gbps);
        for (size_t i = 0; i < results.size(); ++i) {
            const Result& x = results[i];
            std::fprintf(f, "    {\"name\": \"%s\", \"gbps\": %.3f, \"ms\": %.4f, \"roof_fraction\": %.4f, \"target_gbps\": %.0f, "
                            "\"study_gbps\": %.2f, \"openssl_gbps\": %.0f, \"threads_per_block\": %d, \"blocks_per_sm\": %d, \"unroll\": %d}%s\n",
                         x.name.c_str(), x.gbps, x.ms, x.gbps / copy_gbps, x.target, x.study, x.openssl,
                         x.lp.threads_per_block, x.lp.blocks_per_sm, x.lp.unroll, i + 1 < results.size() ? "," : "");
        }
        std::fprintf(f, "  ]\n}\n");
        std::fclose(f);
    }
    cudaFree(din);
    cudaFree(dout);
    cudaFree(scratch);
    cudaFree(partial);
    cudaStreamDestroy(s);
    return 0;
}
