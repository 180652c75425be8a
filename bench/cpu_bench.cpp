// CPU backend throughput beside `openssl speed -multi <cores>` measured in the
// same run, on the same machine.
//
//   cpu_bench [--alg aes-256-gcm] [--size BYTES] [--runs N] [--threads N]
//             [--options "cpu.impl=portable"] [--json FILE] [--no-openssl]
//
// Two shapes are timed, because they answer different questions:
//   one large message  -> one bc_aead_seal / bc_encrypt split over every core
//                         (the backend's own parallelism: GHASH partials etc.)
//   16 KiB messages    -> one caller thread per core, each sealing 16 KiB
//                         messages with the shared key: the shape of
//                         `openssl speed -multi` (-bytes 16384), so the two
//                         figures compare like for like.
// GB = 1e9 bytes. Each figure is the median of --runs runs after one warm-up.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"

#include "openssl_speed.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
    std::string alg = "aes-256-gcm";
    size_t size = size_t(256) << 20;
    int runs = 7;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::string options;
    std::string json;
    bool openssl = true;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void die(const char* what, bc_status s) {
    std::fprintf(stderr, "cpu_bench: %s: %s (%s)\n", what, bc_status_message(s), bc_last_error());
    std::exit(1);
}

// One call over `len` bytes with whatever the algorithm is.
bc_status run_once(bc_key* key, const bc_algorithm_info& info, const uint8_t* in, uint8_t* out, size_t len,
                   uint8_t* tag) {
    static const uint8_t iv[32] = {1, 2, 3};
    size_t n = 0;
    bc_params p{};
    if (info.kind == BC_KIND_AEAD)
        return bc_aead_seal_detached(key, iv, info.iv_size, nullptr, 0, in, len, out, tag, info.tag_size, nullptr);
    if (info.kind == BC_KIND_XTS) p.data_unit_size = 4096;
    return bc_encrypt(key, iv, info.iv_size, in, len, out, len, &n, &p);
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) { std::fprintf(stderr, "cpu_bench: %s needs a value\n", s.c_str()); std::exit(2); }
            return argv[++i];
        };
        if (s == "--alg") a.alg = next();
        else if (s == "--size") a.size = std::strtoull(next().c_str(), nullptr, 10);
        else if (s == "--runs") a.runs = std::atoi(next().c_str());
        else if (s == "--threads") a.threads = static_cast<unsigned>(std::atoi(next().c_str()));
        else if (s == "--options") a.options = next();
        else if (s == "--json") a.json = next();
        else if (s == "--no-openssl") a.openssl = false;
        else { std::fprintf(stderr, "usage: cpu_bench [--alg A] [--size N] [--runs N] [--threads N] [--options O] [--json F] [--no-openssl]\n"); return 2; }
    }
    bc_algorithm_info info;
    bc_status st = bc_algorithm_query(a.alg.c_str(), &info);
    if (st) die("algorithm", st);
    std::string opts = "threads=" + std::to_string(a.threads) + (a.options.empty() ? "" : "," + a.options);
    bc_context* ctx = nullptr;
    if ((st = bc_context_create("cpu", opts.c_str(), &ctx))) die("context", st);
    std::vector<uint8_t> key(info.key_size, 0x42);
    bc_key* k = nullptr;
    if ((st = bc_key_create(ctx, a.alg.c_str(), key.data(), key.size(), &k))) die("key", st);

    // One large message over every core.
    std::vector<uint8_t> in(a.size, 0x5a), out(a.size);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 131 + 7);
    uint8_t tag[16];
    if ((st = run_once(k, info, in.data(), out.data(), a.size, tag))) die("warm-up", st);
    std::vector<double> big;
    for (int r = 0; r < a.runs; ++r) {
        auto t0 = Clock::now();
        if ((st = run_once(k, info, in.data(), out.data(), a.size, tag))) die("run", st);
        big.push_back(a.size / std::chrono::duration<double>(Clock::now() - t0).count() / 1e9);
    }

    // 16 KiB messages, one caller per core, for ~1 s per run.
    const size_t msg = 16384;
    std::vector<double> small;
    bc_context* ctx1 = nullptr;  // each call single-threaded inside: the callers are the parallelism
    if ((st = bc_context_create("cpu", ("threads=1" + (a.options.empty() ? std::string() : "," + a.options)).c_str(), &ctx1))) die("context", st);
    bc_key* k1 = nullptr;
    if ((st = bc_key_create(ctx1, a.alg.c_str(), key.data(), key.size(), &k1))) die("key", st);
    for (int r = 0; r < a.runs + 1; ++r) {
        std::vector<uint64_t> counts(a.threads);
        std::vector<std::thread> ts;
        auto t0 = Clock::now();
        auto until = t0 + std::chrono::milliseconds(1000);
        for (unsigned t = 0; t < a.threads; ++t)
            ts.emplace_back([&, t] {
                std::vector<uint8_t> i(msg, 1), o(msg);
                uint8_t tg[16];
                uint64_t c = 0;
                while (Clock::now() < until) {
                    for (int j = 0; j < 16; ++j) (void)run_once(k1, info, i.data(), o.data(), msg, tg);
                    c += 16;
                }
                counts[t] = c;
            });
        for (auto& t : ts) t.join();
        double secs = std::chrono::duration<double>(Clock::now() - t0).count();
        uint64_t total = 0;
        for (auto c : counts) total += c;
        if (r > 0) small.push_back(total * double(msg) / secs / 1e9);  // run 0 is the warm-up
    }

    // 16 KiB buffers in `threads` processes, 3 s: the shape of the "16 KiB messages" row
    const double ossl = a.openssl ? bench::openssl_speed_gbps(a.alg, a.threads, 3, 16384, false) : -1;
    double big_m = median(big), small_m = median(small);
    auto minmax = [](const std::vector<double>& v) { return std::make_pair(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())); };
    auto bmm = minmax(big), smm = minmax(small);

    std::printf("| shape | %s on %s | GB/s (median) | min..max | vs openssl speed -multi %u |\n", a.alg.c_str(),
                bc_context_device_name(ctx), a.threads);
    std::printf("|---|---|---|---|---|\n");
    std::printf("| one %zu-byte message | bulkcrypt | %.2f | %.2f..%.2f | %s |\n", a.size, big_m, bmm.first, bmm.second,
                ossl > 0 ? (std::to_string(int(100 * big_m / ossl)) + "%").c_str() : "n/a");
    std::printf("| 16 KiB messages, %u callers | bulkcrypt | %.2f | %.2f..%.2f | %s |\n", a.threads, small_m, smm.first,
                smm.second, ossl > 0 ? (std::to_string(int(100 * small_m / ossl)) + "%").c_str() : "n/a");
    if (ossl > 0) std::printf("| 16 KiB, %u processes | openssl speed | %.2f | | 100%% |\n", a.threads, ossl);
    else if (a.openssl) std::printf("(openssl speed gave no figure for %s)\n", a.alg.c_str());

    if (!a.json.empty()) {
        std::ofstream j(a.json);
        j << "{\n  \"algorithm\": \"" << a.alg << "\",\n  \"device\": \"" << bc_context_device_name(ctx)
          << "\",\n  \"threads\": " << a.threads << ",\n  \"options\": \"" << opts << "\",\n  \"unit\": \"GB/s (1e9 B/s)\",\n"
          << "  \"large_message_bytes\": " << a.size << ",\n  \"large_message_gbps\": [";
        for (size_t i = 0; i < big.size(); ++i) j << (i ? ", " : "") << big[i];
        j << "],\n  \"small_message_bytes\": " << msg << ",\n  \"small_message_gbps\": [";
        for (size_t i = 0; i < small.size(); ++i) j << (i ? ", " : "") << small[i];
        j << "],\n  \"openssl_speed_multi_gbps\": " << ossl << "\n}\n";
    }
    bc_key_destroy(k);
    bc_key_destroy(k1);
    bc_context_destroy(ctx);
    bc_context_destroy(ctx1);
    return 0;
}
