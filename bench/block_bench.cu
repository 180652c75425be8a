// The generic block-cipher path on a CUDA GPU, through the public C API: every
// algorithm of family Cipher::Block (Camellia, ...) and AES through the generic
// kernels (context option aes=generic) beside AES's own kernels, a cipher's table form
// where it has one (SEED: seed=table, GPU memory only), in GPU memory and
// from pinned host memory, each beside the roof of its path measured in the same run:
//   GPU memory:   a device-to-device copy of the same buffers (payload GB/s);
//   pinned host:  the NO-OP pipeline (the same buffers through the same staging path
//                 with no cipher: algorithm "noop");
// and `openssl speed -multi <cores> -evp <name>` on the same machine (16 KiB buffers)
// where OpenSSL has the algorithm. GCM rows seal (enc) and open (dec) with a 12-byte
// nonce and no AAD.
//
//   block_bench [--size MIB] [--runs N] [--only SUBSTRING[,SUBSTRING...]] [--options OPTS] [--no-openssl]
//               [--json PATH]
// --options: context options for every context (e.g. cuda.xts_layout=tiles).
//
// Each figure: one warm-up call, then the median of N timed calls (wall clock around
// the call: a device-memory call returns when its stream is done).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "catalog/block_cipher.h"
#include "catalog/catalog.h"
#include "openssl_speed.h"

namespace {

#define CK(x)                                                                                         \
    do {                                                                                              \
        cudaError_t e_ = (x);                                                                         \
        if (e_ != cudaSuccess) {                                                                      \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(2);                                                                             \
        }                                                                                             \
    } while (0)

struct Row {
    std::string alg, path, options;
    bool decrypt = false;
    double gbs = 0, roof = 0, openssl = -1;
    std::string openssl_as;  // the OpenSSL cipher measured beside it (its ECB when OpenSSL lacks the mode)
    std::string error;
};

template <class F>
double median_gbs(F&& call, size_t bytes, int runs, std::string* err) {
    std::vector<double> v;
    if (bc_status s = call(); s != BC_OK) {
        *err = bc_last_error();
        return 0;
    }
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        bc_status s = call();
        auto t1 = std::chrono::steady_clock::now();
        if (s != BC_OK) {
            *err = bc_last_error();
            return 0;
        }
        v.push_back(double(bytes) / std::chrono::duration<double>(t1 - t0).count() / 1e9);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The OpenSSL cipher a row is measured beside: its own name, or where OpenSSL lacks the
// mode (CTR over DES, Blowfish, CAST5, SEED; XTS before OpenSSL 3.2) the same cipher's ECB
// at the same key size, the nearest per-block cost a CPU user has. nullptr when OpenSSL
// lacks the cipher (CLEFIA, HIGHT, MISTY1, PRESENT).
const char* openssl_peer(const bc::Algorithm& a) {
    if (a.openssl_name) return a.openssl_name;
    if (!a.block) return nullptr;
    const size_t key = a.mode == bc::Mode::XTS ? a.key_size / 2 : a.key_size;
    for (size_t i = 0; const bc::Algorithm* b = bc::algorithm_at(i); ++i)
        if (b->block == a.block && b->mode == bc::Mode::ECB && b->key_size == key && b->openssl_name)
            return b->openssl_name;
    return nullptr;
}

// --only's filter: a comma-separated list of substrings, any of which selects a name.
bool matches(const std::string& only, const std::string& name) {
    if (only.empty()) return true;
    for (size_t at = 0; at <= only.size();) {
        const size_t comma = std::min(only.find(',', at), only.size());
        if (comma > at && name.find(only.substr(at, comma - at)) != std::string::npos) return true;
        at = comma + 1;
    }
    return false;
}

// One algorithm on one context over the given buffers (device or pinned host memory).
double run_alg(bc_context* ctx, const char* alg, bool decrypt, bc_memory mem, uint8_t* in, uint8_t* out,
               size_t bytes, int runs, std::string* err) {
    const size_t klen = bc_key_size(alg);
    std::vector<uint8_t> key(klen ? klen : 1);
    std::mt19937 rng(7);
    for (auto& b : key) b = uint8_t(rng());
    bc_key* k = nullptr;
    if (bc_key_create(ctx, alg, key.data(), klen, &k) != BC_OK) {
        *err = bc_last_error();
        return 0;
    }
    uint8_t iv[16] = {0};
    const size_t ivlen = bc_iv_size(alg);
    bc_params p{};
    p.memory = mem;
    if (std::strstr(alg, "-xts")) p.data_unit_size = 4096;
    // GCM: seal, and open of what was sealed (the tag checked every time).
    const bool aead = std::strstr(alg, "-gcm") != nullptr;
    uint8_t tag[16] = {0};
    if (aead && decrypt && bc_aead_seal_detached(k, iv, 12, nullptr, 0, in, bytes, in, tag, 16, &p) != BC_OK) {
        *err = bc_last_error();
        bc_key_destroy(k);
        return 0;
    }
    double r = median_gbs(
        [&] {
            size_t n = 0;
            if (aead)
                return decrypt ? bc_aead_open_detached(k, iv, 12, nullptr, 0, in, bytes, tag, 16, out, &p)
                               : bc_aead_seal_detached(k, iv, 12, nullptr, 0, in, bytes, out, tag, 16, &p);
            return decrypt ? bc_decrypt(k, ivlen ? iv : nullptr, ivlen, in, bytes, out, bytes, &n, &p)
                           : bc_encrypt(k, ivlen ? iv : nullptr, ivlen, in, bytes, out, bytes, &n, &p);
        },
        bytes, runs, err);
    bc_key_destroy(k);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    size_t mib = 1024;
    int runs = 7;
    bool use_openssl = true;
    std::string only, json, options;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size" && i + 1 < argc) mib = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else if (a == "--options" && i + 1 < argc) options = argv[++i];
        else if (a == "--no-openssl") use_openssl = false;
        else if (a == "--json" && i + 1 < argc) json = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--size MIB] [--runs N] [--only SUBSTRING[,...]] [--options OPTS] [--no-openssl] "
                         "[--json PATH]\n",
                         argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        std::printf("skipped: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const size_t bytes = mib << 20;

    // Buffers: GPU memory (random plaintext), pinned host memory.
    uint8_t *din = nullptr, *dout = nullptr, *hin = nullptr, *hout = nullptr;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dout, bytes));
    CK(cudaMallocHost(&hin, bytes));
    CK(cudaMallocHost(&hout, bytes));
    std::mt19937_64 rng(1);
    for (size_t i = 0; i < bytes / 8; ++i) reinterpret_cast<uint64_t*>(hin)[i] = rng();
    CK(cudaMemcpy(din, hin, bytes, cudaMemcpyHostToDevice));

    // The device copy roof, median of the runs.
    std::vector<double> copies;
    for (int i = 0; i <= runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        CK(cudaMemcpy(dout, din, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaDeviceSynchronize());
        auto t1 = std::chrono::steady_clock::now();
        if (i) copies.push_back(double(bytes) / std::chrono::duration<double>(t1 - t0).count() / 1e9);
    }
    std::sort(copies.begin(), copies.end());
    const double copy_roof = copies[copies.size() / 2];

    bc_context *plain = nullptr, *generic = nullptr;
    auto with = [&](const std::string& o) {
        return options.empty() ? o : o.empty() ? options : options + "," + o;
    };
    if (bc_context_create("cuda:0", options.empty() ? nullptr : options.c_str(), &plain) != BC_OK) {
        std::fprintf(stderr, "cuda:0: %s\n", bc_last_error());
        return 1;
    }
    if (bc_context_create("cuda:0", with("aes=generic").c_str(), &generic) != BC_OK) {
        std::printf("AES through the generic kernels not measured: %s\n", bc_last_error());
        generic = nullptr;
    }

    // The algorithms: every Cipher::Block row, and AES in each mode (own kernels and generic).
    std::vector<std::pair<std::string, bc_context*>> algs;
    std::map<std::string, bc_context*> tables;  // contexts with <cipher>=table
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i) {
        if (!a->block) continue;
        if (!matches(only, a->name)) continue;
        if (a->cipher == bc::Cipher::AES) {
            if (a->mode == bc::Mode::GCM) {  // AES-GCM's own kernels are gpu_bench's; here the generic path
                if (generic && (a->key_size == 16 || a->key_size == 32)) algs.push_back({a->name, generic});
                continue;
            }
            if (a->key_size != 16 && a->key_size != 32) continue;  // AES-128 and AES-256 (XTS: 2x128) suffice
            algs.push_back({a->name, plain});
            if (generic) algs.push_back({a->name, generic});
        } else {
            algs.push_back({a->name, plain});
            // a cipher with a table form (not constant time) is measured in it too
            const std::string form = std::string(a->block->name) + "_table";
            if (bc::find_block_cipher(form.c_str()) != nullptr && a->mode != bc::Mode::GCM) {
                bc_context*& t = tables[a->block->name];
                const std::string opt = std::string(a->block->name) + "=table";
                if (t == nullptr && bc_context_create("cuda:0", with(opt).c_str(), &t) != BC_OK) {
                    std::printf("%s not measured: %s\n", opt.c_str(), bc_last_error());
                    t = nullptr;
                }
                if (t) algs.push_back({a->name, t});
            }
        }
    }
    auto label = [&](bc_context* ctx) -> std::string {
        if (ctx == generic) return "generic";
        for (const auto& [name, t] : tables)
            if (t == ctx) return "table";
        return "own";
    };

    std::vector<Row> rows;
    std::printf("block ciphers on %s, %zu MiB a call, median of %d (GB = 1e9 bytes); device copy roof %.1f GB/s\n",
                prop.name, mib, runs, copy_roof);
    std::printf("%-20s %-8s %-12s %-4s %9s %9s %7s\n", "algorithm", "kernels", "memory", "dir", "GB/s", "roof", "%roof");
    auto print = [](const Row& r) {
        if (!r.error.empty()) {
            std::printf("%-20s %-8s %-12s %-4s  error: %s\n", r.alg.c_str(), r.options.c_str(), r.path.c_str(),
                        r.decrypt ? "dec" : "enc", r.error.c_str());
            return;
        }
        std::printf("%-20s %-8s %-12s %-4s %9.1f %9.1f %6.1f%%\n", r.alg.c_str(), r.options.c_str(), r.path.c_str(),
                    r.decrypt ? "dec" : "enc", r.gbs, r.roof, 100 * r.gbs / r.roof);
        std::fflush(stdout);
    };
    // GPU memory, both directions. CBC encryption is serial and runs on the host (the GPU
    // path copies the data out and back): not a GPU figure, so not timed here.
    for (const auto& [name, ctx] : algs) {
        for (int dec = 0; dec < 2; ++dec) {
            if (!dec && name.find("-cbc") != std::string::npos) continue;
            Row r;
            r.alg = name;
            r.path = "gpu-memory";
            r.options = label(ctx);
            r.decrypt = dec;
            r.roof = copy_roof;
            r.gbs = run_alg(ctx, name.c_str(), dec, BC_MEMORY_DEVICE, din, dout, bytes, runs, &r.error);
            print(r);
            rows.push_back(r);
        }
    }
    // Pinned host memory beside the NO-OP pipeline, measured in turns.
    std::string err;
    const double noop = run_alg(plain, "noop", false, BC_MEMORY_HOST, hin, hout, bytes, runs, &err);
    for (const auto& [name, ctx] : algs) {
        if (name.find("-cbc") != std::string::npos) continue;                    // serial on the host
        if (ctx == generic && name.find("-ctr") == std::string::npos) continue;  // pinned: CTR suffices
        if (label(ctx) == "table") continue;                                     // a GPU-memory comparison
        Row r;
        r.alg = name;
        r.path = "pinned-host";
        r.options = label(ctx);
        r.roof = noop;
        r.gbs = run_alg(ctx, name.c_str(), false, BC_MEMORY_HOST, hin, hout, bytes, runs, &r.error);
        print(r);
        rows.push_back(r);
    }
    std::printf("NO-OP pipeline (pinned host memory): %.1f GB/s%s%s\n", noop, err.empty() ? "" : " error: ",
                err.c_str());

    // openssl speed on all cores, for the algorithms OpenSSL has (once per name).
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (use_openssl) {
        std::printf("openssl speed -multi %u, 16 KiB buffers:\n", cores);
        std::vector<std::string> done;
        for (Row& r : rows) {
            const bc::Algorithm* a = bc::find_algorithm(r.alg.c_str());
            if (!a || r.path != "gpu-memory") continue;
            const char* name = openssl_peer(*a);
            if (!name) continue;
            const std::string key = std::string(name) + (r.decrypt ? "/dec" : "/enc");
            std::string why;
            if (std::find(done.begin(), done.end(), key) == done.end()) {
                done.push_back(key);
                const double g = bench::openssl_speed_gbps(name, cores, 2, 16384, r.decrypt, &why);
                std::printf("  %-20s %s %8.2f GB/s  (%s)%s%s\n", a->name, r.decrypt ? "dec" : "enc", g, name,
                            why.empty() ? "" : "  ", why.c_str());
                for (Row& o : rows) {
                    const bc::Algorithm* b = bc::find_algorithm(o.alg.c_str());
                    if (b && o.decrypt == r.decrypt && openssl_peer(*b) && std::string(openssl_peer(*b)) == name) {
                        o.openssl = g;
                        o.openssl_as = name;
                    }
                }
            }
        }
    }

    if (!json.empty()) {
        FILE* f = std::fopen(json.c_str(), "w");
        if (f) {
            std::fprintf(f, "{\"device\": \"%s\", \"mib\": %zu, \"runs\": %d, \"copy_roof_gbs\": %.2f, "
                            "\"noop_pinned_gbs\": %.2f, \"openssl_procs\": %u, \"options\": \"%s\", \"rows\": [\n",
                         prop.name, mib, runs, copy_roof, noop, cores, options.c_str());
            for (size_t i = 0; i < rows.size(); ++i) {
                const Row& r = rows[i];
                std::fprintf(f,
                             "  {\"algorithm\": \"%s\", \"kernels\": \"%s\", \"memory\": \"%s\", \"decrypt\": %s, "
                             "\"gbs\": %.2f, \"roof_gbs\": %.2f, \"openssl_gbs\": %.2f, \"openssl_as\": \"%s\", "
                             "\"error\": \"%s\"}%s\n",
                             r.alg.c_str(), r.options.c_str(), r.path.c_str(), r.decrypt ? "true" : "false", r.gbs,
                             r.roof, r.openssl, r.openssl_as.c_str(), r.error.c_str(), i + 1 < rows.size() ? "," : "");
            }
            std::fprintf(f, "]}\n");
            std::fclose(f);
        }
    }
    bc_context_destroy(plain);
    if (generic) bc_context_destroy(generic);
    for (auto& [name, t] : tables) bc_context_destroy(t);
    cudaFree(din);
    cudaFree(dout);
    cudaFreeHost(hin);
    cudaFreeHost(hout);
    return 0;
}
