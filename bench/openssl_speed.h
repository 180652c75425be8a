// `openssl speed` on this machine, for the benchmarks that print their figures beside it
// (cpu_bench, gpu_bench, sweep). Machine-readable output (-mr), wall-clock rates
// (-elapsed: without it OpenSSL divides by user CPU time, which some virtual machines
// under-report), GB = 10^9 bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

// The sizes and rates of `openssl speed -mr` output: sizes from "+H:16:64:..." (one process)
// or "Got: +H:..." (-multi children), rates from the "+F:" total line in bytes per second.
// False when the output holds no complete figure.
inline bool parse_openssl_speed_mr(const std::string& out, std::vector<uint64_t>* sizes, std::vector<double>* gbps) {
    auto fields = [](const std::string& s) {
        std::vector<std::string> f;
        std::string cur;
        for (char c : s) {
            if (c == ':') {
                f.push_back(cur);
                cur.clear();
            } else {
                cur += c;
            }
        }
        f.push_back(cur);
        return f;
    };
    sizes->clear();
    gbps->clear();
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        const size_t h = line.find("+H:");
        if (h != std::string::npos && (h == 0 || line.rfind("Got: ", 0) == 0)) {
            std::string f = line.substr(h + 3);
            f = f.substr(0, f.find(' '));
            sizes->clear();
            for (const auto& x : fields(f)) sizes->push_back(std::strtoull(x.c_str(), nullptr, 10));
        } else if (line.rfind("+F:", 0) == 0) {  // the total line (children's start with "Got:")
            const std::vector<std::string> f = fields(line.substr(3));
            gbps->clear();
            for (size_t i = 2; i < f.size(); ++i) gbps->push_back(std::atof(f[i].c_str()) / 1e9);
        }
    }
    return !gbps->empty() && gbps->size() == sizes->size();
}

// `openssl speed -elapsed -mr -multi procs -seconds s -bytes bytes [-decrypt] -evp alg`:
// GB/s at that size, or -1 (why says what OpenSSL printed instead). Ciphers OpenSSL 3
// keeps in its legacy provider (DES, Blowfish, CAST5, SEED) are retried with
// `-provider legacy -provider default`.
inline double openssl_speed_gbps(const std::string& alg, unsigned procs, int seconds, uint64_t bytes, bool decrypt,
                                 std::string* why = nullptr) {
    auto once = [&](const std::string& providers, std::string* out) {
        std::string cmd = "openssl speed -elapsed -mr" + providers + " -seconds " + std::to_string(seconds);
        if (procs > 1) cmd += " -multi " + std::to_string(procs);
        cmd += " -bytes " + std::to_string(bytes) + (decrypt ? " -decrypt" : "") + " -evp " + alg + " 2>&1";
        FILE* f = popen(cmd.c_str(), "r");
        if (!f) return -1;
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out->append(buf, n);
        return pclose(f);
    };
    std::string out;
    int rc = once("", &out);
    if (rc == -1) {
        if (why) *why = "cannot run openssl";
        return -1;
    }
    std::vector<uint64_t> sizes;
    std::vector<double> gbps;
    if (rc != 0 || !parse_openssl_speed_mr(out, &sizes, &gbps)) {
        out.clear();
        rc = once(" -provider legacy -provider default", &out);
        if (rc != 0 || !parse_openssl_speed_mr(out, &sizes, &gbps)) {
            if (why) *why = "openssl speed gave no figure (exit " + std::to_string(rc) + ")";
            return -1;
        }
    }
    return gbps.back();
}

}  // namespace bench
