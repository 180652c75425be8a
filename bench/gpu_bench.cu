// GPU AES benchmark: payload GB/s (1 GB = 1e9 bytes) of the CUDA backend on data
// already in GPU memory (out of place: reads plaintext, writes ciphertext),
// beside the device-to-device copy roof measured in the same run and, for each
// algorithm and direction, `openssl speed -multi <cores>` on the same machine
// (16 KiB buffers, after the GPU figures; --no-openssl or --quick skip it).
//
//   gpu_bench [--quick] [--variants] [--no-openssl] [--only ALG] [--size MIB] [--runs N] [--device N] [--json PATH]
//
// --only ALG: that algorithm's rows alone (both directions), e.g. under a profiler.
// --variants: the bitsliced core once per variant of cuda_kernels.h
// (kAesBsVariants: "plain", "fk", "fk-cs", "cl", "cle", "pair", "pair-cc", "pair-dec"), each row with its kernel's registers and
// local-memory (spill) bytes and the variant's predicted rate (bench/NOTES.md);
// without it, the default variant (aes_bs_variant()) and the table variant. Then the
// "generic" rows: AES through the generic block-cipher kernels (aes=generic) and every
// Cipher::Block algorithm of the catalogue (block_kernels.h).
//
// Each figure: warm-up call, then the median of N timed calls (CUDA events on
// the call's stream; each call is one backend call as a user would make it).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/block_kernels.h"
#include "backends/cuda/cuda_kernels.h"
#include "catalog/catalog.h"
#include "openssl_speed.h"

namespace {

struct Result {
    std::string alg, variant, note;
    bool decrypt = false;
    double gbs = 0, predicted = 0, openssl = -1;
    int regs = -1, local = -1;
    bool ok = false;
    std::string error;
};

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(2);                                                                  \
        }                                                                                  \
    } while (0)

template <class F>
double median_gbs(F&& call, size_t bytes, int runs, cudaStream_t s, std::string* err) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> v;
    bc::Status st = call();  // warm-up
    if (!st.is_ok()) {
        *err = st.detail;
        return 0;
    }
    for (int i = 0; i < runs; ++i) {
        CK(cudaEventRecord(a, s));
        st = call();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        if (!st.is_ok()) {
            *err = st.detail;
            return 0;
        }
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        v.push_back(double(bytes) / (double(ms) * 1e-3) / 1e9);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    size_t mib = 1024;
    int runs = 7, device = 0;
    std::string json, only;
    bool quick = false, variants = false, openssl = true;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--variants") variants = true;
        else if (a == "--no-openssl") openssl = false;
        else if (a == "--size" && i + 1 < argc) mib = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (a == "--device" && i + 1 < argc) device = std::atoi(argv[++i]);
        else if (a == "--json" && i + 1 < argc) json = argv[++i];
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else if (a.size() > 5 && a.substr(a.size() - 5) == ".json") json = a;
        else {
            std::fprintf(stderr, "usage: %s [--quick] [--variants] [--no-openssl] [--only ALG] [--size MIB] [--runs N] [--device N] [--json PATH]\n",
                         argv[0]);
            return 1;
        }
    }
    if (quick) {
        mib = std::min<size_t>(mib, 64);
        runs = std::max(5, std::min(runs, 5));
        openssl = false;
    }
    if (runs < 5) runs = 5;
    const size_t bytes = mib << 20;

    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count <= device) {
        std::printf("skipped: no CUDA device\n");
        return 0;
    }
    CK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, device));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint8_t *din = nullptr, *dout = nullptr;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dout, bytes));
    {
        std::vector<uint8_t> h(bytes);
        std::mt19937_64 rng(42);
        for (size_t i = 0; i + 8 <= bytes; i += 8) {
            uint64_t r = rng();
            std::memcpy(&h[i], &r, 8);
        }
        CK(cudaMemcpy(din, h.data(), bytes, cudaMemcpyHostToDevice));
    }

    // The roof: a device-to-device copy of the same payload.
    std::string err;
    const double roof = median_gbs(
        [&]() {
            cudaError_t e = cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice, s);
            return e == cudaSuccess ? bc::Status::ok() : bc::Status(BC_ERR_DEVICE, cudaGetErrorString(e));
        },
        bytes, runs, s, &err);

    struct Case {
        const char* alg;
        bool decrypt;
        uint64_t unit;
        const char* kernel;        // aes_kernel_resources name
        double pred_bs[bc::cuda::kAesBsVariants], pred_tab;  // predicted GB/s on an H100 (bench/NOTES.md)
    };
    const Case cases[] = {
                // plain = measured 2026-11 (H100, 64 MiB); fk, fk-cs, cl and GHASH "planes": bench/NOTES.md;
                // cle = cl's measured encryption and fk-cs's measured CBC decryption (2026-11-22);
                // pair and pair-cc = measured with unguarded whole tiles (session 14, 2026-11-23), ECB on
                // pairs after the review (session 15); XTS on coalesced tiles and CBC decryption's
                // ciphertext in shared memory: the session-15 predictions (bench/NOTES.md); measured
                // 373 / 307 (XTS / XTS dec) and 309-323 (CBC dec); pair-dec: session 19's predictions
                // (decryption on pairs at the pair kernels' issue rate, bench/NOTES.md)
        {"aes-128-ctr", false, 0, "ctr", {225, 246, 255, 300, 284, 410, 444, 444}, 230},    {"aes-256-ctr", false, 0, "ctr", {198, 216, 224, 250, 224, 306, 329, 329}, 207},
        {"aes-128-ecb", false, 0, "ecb", {242, 246, 246, 290, 287, 417, 417, 417}, 219},    {"aes-128-cbc", true, 0, "cbc-dec", {114, 170, 170, 210, 335, 335, 335, 412}, 150},
        {"aes-128-xts", false, 4096, "xts", {135, 137, 137, 150, 264, 380, 380, 397}, 280}, {"aes-256-gcm", false, 0, "ctr32", {130, 138, 141, 151, 159, 208, 211, 236}, 134},
        // decryption of the parallel modes (session 13: CBC decryption's rates without its shuffles)
        {"aes-128-ecb", true, 0, "ecb-dec", {195, 195, 195, 170, 195, 345, 345, 425}, 150}, {"aes-128-xts", true, 4096, "xts-dec", {185, 185, 185, 165, 330, 330, 330, 395}, 275},
    };
    // what to run: impl (0 bitsliced, 1 table), bitsliced variant, GHASH variant, GCM rows only
    struct Run {
        int impl, bs, ghash;
        bool gcm_only;
    };
    std::vector<Run> runs_of;
    const int bs_default = bc::cuda::aes_bs_variant(), gh_default = bc::cuda::ghash_variant();
    if (variants) {
        for (int v = 0; v < bc::cuda::kAesBsVariants; ++v) runs_of.push_back({0, v, gh_default, false});
        for (int g = 0; g < bc::cuda::kGhashVariants; ++g)
            if (g != gh_default) runs_of.push_back({0, bs_default, g, true});
    } else {
        runs_of.push_back({0, bs_default, gh_default, false});
    }
    runs_of.push_back({1, -1, gh_default, false});
    std::vector<Result> results;
    const uint8_t iv[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0, 1};
    for (const auto& rv : runs_of) {
        const int variant = rv.impl;
        if (variant == 0) bc::cuda::set_aes_bs_variant(rv.bs);
        bc::cuda::set_ghash_variant(rv.ghash);
        bc::ContextOptions opt;
        opt.aes_table = variant == 1;
        std::unique_ptr<bc::Backend> be;
        bc::Status st = bc::make_cuda_backend(device, opt, &be);
        if (!st.is_ok()) {
            std::printf("cannot open cuda:%d: %s\n", device, st.detail.c_str());
            return 1;
        }
        for (const auto& c : cases) {
            if (!only.empty() && only != c.alg) continue;
            if (rv.gcm_only && std::strstr(c.alg, "gcm") == nullptr) continue;
            Result r;
            r.alg = c.alg;
            r.decrypt = c.decrypt;
            r.variant = variant ? std::string("table")
                        : variants ? std::string("bitsliced/") + bc::cuda::aes_bs_variant_name(rv.bs)
                                   : std::string("bitsliced");
            r.predicted = variant ? c.pred_tab : c.pred_bs[rv.bs];
            if (std::strstr(c.alg, "gcm") && rv.ghash == 0) r.predicted = variant ? 115 : 119;  // old GHASH layout
            // the pair variant runs aligned CTR, CTR32, ECB and XTS encryption in kernels of their
            // own; aligned XTS with units of 32 k blocks otherwise runs on k_ecb's tiles
            const bool pair = !variant && rv.bs >= bc::cuda::kAesBsPairVariant;
            const bool pair_dec = !variant && rv.bs >= bc::cuda::kAesBsPairDecVariant;
            std::string kname = c.kernel;
            if ((kname == "xts" && pair) || (kname == "xts-dec" && pair_dec)) kname += "-pair";
            else if (kname.rfind("xts", 0) == 0) kname += "-tiles";
            else if (pair && (kname.find("ctr") != std::string::npos || kname == "ecb")) kname += "-pair";
            else if (pair_dec && (kname == "ecb-dec" || kname == "cbc-dec")) kname += "-pair";
            if (bc::cuda::aes_kernel_resources(kname.c_str(), variant ? bc::cuda::AesImpl::Table : bc::cuda::AesImpl::Bitsliced,
                                               &r.regs, &r.local) != cudaSuccess)
                r.regs = r.local = -1;
            bc::KeyMaterial km;
            km.alg = bc::find_algorithm(c.alg);
            if (!km.alg) {
                r.error = "unknown algorithm";
                results.push_back(r);
                continue;
            }
            std::vector<uint8_t> key(km.alg->key_size);
            for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i * 7 + 1);
            km.raw = bc::SecureBytes(key.data(), key.size());
            std::unique_ptr<bc::BackendKey> bk;
            st = be->prepare_key(km, &bk);
            if (!st.is_ok()) {
                r.error = st.detail;
                results.push_back(r);
                continue;
            }
            if (km.alg->mode == bc::Mode::GCM) {
                r.note = std::string("CTR32 + GHASH (") + bc::cuda::ghash_variant_name(bc::cuda::ghash_variant()) + "), encrypt";
                r.gbs = median_gbs(
                    [&]() {
                        bc::AeadChunkOp op;
                        std::memcpy(op.ctr, iv, 16);
                        op.in = din;
                        op.out = dout;
                        op.len = bytes;
                        op.memory = BC_MEMORY_DEVICE;
                        op.stream = s;
                        return be->aead_chunk(km, *bk, op);
                    },
                    bytes, runs, s, &r.error);
            } else {
                if (c.unit) r.note = "data unit " + std::to_string(c.unit) + " B";
                r.note += c.decrypt ? (r.note.empty() ? "decrypt" : ", decrypt") : "";
                r.gbs = median_gbs(
                    [&]() {
                        bc::CipherOp op;
                        op.dir = c.decrypt ? bc::Dir::Decrypt : bc::Dir::Encrypt;
                        op.iv = km.alg->mode == bc::Mode::ECB ? nullptr : iv;
                        op.iv_len = 16;
                        op.in = din;
                        op.out = dout;
                        op.len = bytes;
                        op.data_unit = c.unit;
                        op.memory = BC_MEMORY_DEVICE;
                        op.stream = s;
                        return be->cipher(km, *bk, op);
                    },
                    bytes, runs, s, &r.error);
            }
            r.ok = r.error.empty();
            results.push_back(r);
            std::fprintf(stderr, "  %s %s: %.1f GB/s%s%s\n", r.alg.c_str(), r.variant.c_str(), r.gbs,
                         r.ok ? "" : " ERROR ", r.error.c_str());
        }
    }

    // The generic block-cipher kernels (block_kernels_impl.cuh): AES through them (aes=generic) and
    // every Cipher::Block algorithm of the catalogue; registers and spills from the kernels'
    // own row. No predictions yet.
    {
        struct GenericCase {
            const bc::Algorithm* alg;
            bool decrypt;
        };
        std::vector<GenericCase> gen;
        for (const char* a : {"aes-128-ctr", "aes-128-ecb", "aes-128-cbc", "aes-128-xts"}) {
            const bc::Algorithm* alg = bc::find_algorithm(a);
            if (alg) gen.push_back({alg, alg->mode != bc::Mode::CTR});
            if (alg && (alg->mode == bc::Mode::ECB || alg->mode == bc::Mode::XTS)) gen.push_back({alg, false});
        }
        for (size_t i = 0; const bc::Algorithm* alg = bc::algorithm_at(i); ++i) {
            if (alg->cipher != bc::Cipher::Block || alg->mode == bc::Mode::GCM) continue;
            if (alg->mode != bc::Mode::CTR) gen.push_back({alg, true});    // CBC: decryption only (encryption is serial)
            if (alg->mode != bc::Mode::CBC) gen.push_back({alg, false});
        }
        bc::ContextOptions opt;
        opt.aes_generic = true;
        std::unique_ptr<bc::Backend> be;
        bc::Status st = bc::make_cuda_backend(device, opt, &be);
        for (const auto& c : gen) {
            if (!st.is_ok()) break;
            if (!only.empty() && only != c.alg->name) continue;
            Result r;
            r.alg = c.alg->name;
            r.decrypt = c.decrypt;
            r.variant = "generic";
            const bc::Mode m = c.alg->mode;
            const bool xts = m == bc::Mode::XTS;
            const char* kname = m == bc::Mode::CTR ? "ctr" : m == bc::Mode::CBC ? "cbc-dec"
                                : xts ? (c.decrypt ? "xts-dec" : "xts") : (c.decrypt ? "ecb-dec" : "ecb");
            const bc::cuda::BlockKernels* kr = c.alg->block ? bc::cuda::find_block_kernels(c.alg->block->name) : nullptr;
            if (!kr || kr->resources(kname, &r.regs, &r.local) != cudaSuccess) r.regs = r.local = -1;
            if (xts) r.note = "data unit 4096 B";
            r.note += c.decrypt ? (r.note.empty() ? "decrypt" : ", decrypt") : "";
            bc::KeyMaterial km;
            km.alg = c.alg;
            std::vector<uint8_t> key(km.alg->key_size);
            for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i * 7 + 1);
            km.raw = bc::SecureBytes(key.data(), key.size());
            std::unique_ptr<bc::BackendKey> bk;
            bc::Status kst = be->prepare_key(km, &bk);
            if (!kst.is_ok()) {
                r.error = kst.detail;
                results.push_back(r);
                continue;
            }
            r.gbs = median_gbs(
                [&]() {
                    bc::CipherOp op;
                    op.dir = c.decrypt ? bc::Dir::Decrypt : bc::Dir::Encrypt;
                    op.iv = m == bc::Mode::ECB ? nullptr : iv;
                    op.iv_len = km.alg->block_size;
                    op.in = din;
                    op.out = dout;
                    op.len = bytes;
                    op.data_unit = xts ? 4096 : 0;
                    op.memory = BC_MEMORY_DEVICE;
                    op.stream = s;
                    return be->cipher(km, *bk, op);
                },
                bytes, runs, s, &r.error);
            r.ok = r.error.empty();
            results.push_back(r);
            std::fprintf(stderr, "  %s %s: %.1f GB/s%s%s\n", r.alg.c_str(), r.variant.c_str(), r.gbs,
                         r.ok ? "" : " ERROR ", r.error.c_str());
        }
    }

    // The CPU figure of each algorithm and direction on this machine, once each, after the GPU
    // runs (openssl speed loads every core).
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (openssl) {
        std::map<std::pair<std::string, bool>, double> cpu;
        for (auto& r : results) {
            const auto k = std::make_pair(r.alg, r.decrypt);
            if (!cpu.count(k)) {
                std::string why;
                cpu[k] = bench::openssl_speed_gbps(r.alg, cores, 3, 16384, r.decrypt, &why);
                std::fprintf(stderr, "  openssl speed -multi %u %s%s: %.1f GB/s %s\n", cores, r.alg.c_str(),
                             r.decrypt ? " -decrypt" : "", cpu[k], why.c_str());
            }
            r.openssl = cpu[k];
        }
    }
    auto cpu_cell = [](const Result& r) {
        char b[32] = "-";
        if (r.openssl > 0) std::snprintf(b, sizeof b, "%.1f", r.openssl);
        return std::string(b);
    };
    auto times_cell = [](const Result& r) {
        char b[32] = "-";
        if (r.openssl > 0 && r.ok) std::snprintf(b, sizeof b, "%.1fx", r.gbs / r.openssl);
        return std::string(b);
    };

    std::printf("\n## bulkcrypt GPU AES, data in GPU memory (out of place)\n\n");
    std::printf("device: %s (sm_%d%d, %d SMs), payload %zu MiB, median of %d runs after warm-up\n\n", prop.name,
                prop.major, prop.minor, prop.multiProcessorCount, mib, runs);
    std::printf("| algorithm | variant | GB/s | predicted GB/s | %% of copy roof | openssl speed -multi %u, GB/s | vs openssl "
                "| regs | local B | note |\n", cores);
    std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    std::printf("| device copy (roof) | - | %.1f | 1510 | 100 | - | - | - | - | cudaMemcpy D2D, payload bytes |\n", roof);
    for (const auto& r : results) {
        if (r.ok)
            std::printf("| %s | %s | %.1f | %.0f | %.1f | %s | %s | %d | %d | %s |\n", r.alg.c_str(), r.variant.c_str(), r.gbs,
                        r.predicted, 100.0 * r.gbs / roof, cpu_cell(r).c_str(), times_cell(r).c_str(), r.regs, r.local,
                        r.note.c_str());
        else
            std::printf("| %s | %s | error | %.0f | - | %s | - | %d | %d | %s |\n", r.alg.c_str(), r.variant.c_str(),
                        r.predicted, cpu_cell(r).c_str(), r.regs, r.local, r.error.c_str());
    }
    if (!json.empty()) {
        FILE* f = std::fopen(json.c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "cannot write %s\n", json.c_str());
            return 1;
        }
        std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"sm\": \"%d%d\",\n  \"payload_bytes\": %zu,\n  \"runs\": %d,\n",
                     prop.name, prop.major, prop.minor, bytes, runs);
        std::fprintf(f,
                     "  \"unit\": \"GB/s (1e9 bytes per second, payload)\",\n  \"copy_roof_gbs\": %.3f,\n"
                     "  \"openssl_speed\": \"openssl speed -elapsed -mr -multi %u -seconds 3 -bytes 16384 [-decrypt] -evp ALG "
                     "(-1: not run)\",\n  \"results\": [\n",
                     roof, cores);
        for (size_t i = 0; i < results.size(); ++i) {
            const auto& r = results[i];
            std::fprintf(f,
                         "    {\"algorithm\": \"%s\", \"variant\": \"%s\", \"decrypt\": %s, \"gbs\": %.3f, "
                         "\"predicted_gbs\": %.0f, \"openssl_speed_gbs\": %.3f, \"regs\": %d, \"local_bytes\": %d, "
                         "\"ok\": %s, \"note\": \"%s\", \"error\": \"%s\"}%s\n",
                         r.alg.c_str(), r.variant.c_str(), r.decrypt ? "true" : "false", r.gbs, r.predicted, r.openssl, r.regs,
                         r.local, r.ok ? "true" : "false", r.note.c_str(), r.error.c_str(), i + 1 < results.size() ? "," : "");
        }
        std::fprintf(f, "  ]\n}\n");
        std::fclose(f);
        std::printf("\nJSON written to %s\n", json.c_str());
    }
    cudaFree(din);
    cudaFree(dout);
    cudaStreamDestroy(s);
    bool all_ok = std::all_of(results.begin(), results.end(), [](const Result& r) { return r.ok; });
    return all_ok ? 0 : 3;
}
