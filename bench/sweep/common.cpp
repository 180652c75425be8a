// sweep's small helpers, the modes' algorithm lists and size grids, and one call of an
// algorithm through the C API.
#include "sweep.h"

namespace sweep {

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

std::string run_command(const std::string& cmd, int* rc) {
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) {
        if (rc) *rc = -1;
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    int st = pclose(f);
    if (rc) *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!trim(cur).empty()) v.push_back(trim(cur));
    return v;
}

std::string human_bytes(uint64_t n) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = double(n);
    while (v >= 1024 && u < 4 && std::fmod(v, 1024) == 0) { v /= 1024; ++u; }
    char b[32];
    if (std::floor(v) == v) std::snprintf(b, sizeof b, "%.0f %s", v, unit[u]);
    else std::snprintf(b, sizeof b, "%" PRIu64 " B", n);
    return b;
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Input data is never zeros: xorshift bytes.
void fill_pattern(uint8_t* p, size_t n, uint64_t seed) {
    uint64_t x = seed | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(p + i, &x, 8);
    }
    for (; i < n; ++i) p[i] = static_cast<uint8_t>(x >> (8 * (i % 8)));
}

// The algorithms a mode sweeps, in order of importance (a budget cut loses the tail).
// "name:decrypt" measures decryption (CBC's parallel direction).
std::vector<std::string> mode_algorithms(const std::string& mode) {
    if (mode == "smoke") return {"aes-128-ctr", "aes-256-gcm", "chacha20", "salsa20-8"};
    std::vector<std::string> v = {"aes-128-ctr", "aes-256-gcm", "chacha20", "chacha20-poly1305", "salsa20-12",
                                  "aes-128-xts", "aes-128-ecb", "aes-128-cbc:decrypt", "aes-256-ctr",
                                  "aes-128-gcm", "salsa20", "salsa20-8"};
    if (mode == "full") {
        for (const char* a : {"aes-192-ctr", "aes-192-gcm", "aes-256-xts", "aes-256-ecb", "aes-192-ecb",
                              "aes-256-cbc:decrypt", "aes-192-cbc:decrypt", "aes-128-cbc", "xchacha20",
                              "xchacha20-poly1305", "xsalsa20", "salsa20-128", "salsa20-12-128", "salsa20-8-128",
                              "chacha20-djb"})
            v.push_back(a);
    }
    return v;
}

std::vector<SizePoint> sizes_for(const std::string& alg, const bc_algorithm_info& info, uint64_t max_bytes) {
    std::map<uint64_t, std::vector<std::string>> m;
    for (uint64_t s = 16; s <= max_bytes; s *= 2) m[s].push_back("pow2");
    const bool aes = alg.rfind("aes-", 0) == 0;
    if (aes && (alg.find("-ctr") != std::string::npos || alg.find("-gcm") != std::string::npos ||
                alg.find("-ecb") != std::string::npos))
        for (uint64_t s = 4096; s <= (uint64_t(4) << 20) && s <= max_bytes; s *= 2) m[s].push_back("ocl-lib");
    if (aes && (alg.find("-ecb") != std::string::npos || alg.find("-ctr") != std::string::npos))
        for (uint64_t s = 16; s <= (uint64_t(1) << 27) && s <= max_bytes; s *= 2) m[s].push_back("embedded");
    if (alg.find("salsa") != std::string::npos)
        for (uint64_t s = 1; s <= uint64_t(1000000000) && s <= max_bytes; s *= 10) m[s].push_back("salsa");
    std::vector<SizePoint> v;
    for (auto& kv : m) {
        uint64_t b = kv.first;
        if (info.kind == BC_KIND_BLOCK_MODE || info.kind == BC_KIND_XTS) {
            if (b < 16 || b % 16) continue;  // whole blocks only; the decades are for stream ciphers
        }
        if (info.max_message_size != UINT64_MAX && b > info.max_message_size) continue;
        v.push_back({b, kv.second});
    }
    return v;
}

// Integer operations per payload byte for the ciphers whose count is simple, so a
// GPU figure can be printed beside the integer ceiling (SMs x 64 lanes x clock).
// Counted per 64-byte block: quarter round = 4 add + 4 xor + 4 rotate (one funnel
// shift each); + 16 feed-forward adds + 16 xors with the data. Address arithmetic,
// loads and stores are not counted, so the ceiling is optimistic.
double ops_per_byte(const std::string& alg) {
    auto rounds_ops = [](int rounds) { return (rounds * 4.0 * 12.0 + 32.0) / 64.0; };
    if (alg.rfind("chacha20", 0) == 0 || alg.rfind("xchacha20", 0) == 0) return rounds_ops(20);
    if (alg.rfind("salsa20-12", 0) == 0) return rounds_ops(12);
    if (alg.rfind("salsa20-8", 0) == 0) return rounds_ops(8);
    if (alg.rfind("salsa20", 0) == 0 || alg.rfind("xsalsa20", 0) == 0) return rounds_ops(20);
    return 0;
}

Json spread(const std::vector<double>& v) {
    Json j = Json::object();
    j["median"] = median(v);
    j["min"] = v.empty() ? NAN : *std::min_element(v.begin(), v.end());
    j["max"] = v.empty() ? NAN : *std::max_element(v.begin(), v.end());
    j["runs"] = v.size();
    return j;
}

bool make_alg(const std::string& spec, AlgSpec* a, std::string* why) {
    a->spec = spec;
    a->name = spec;
    size_t colon = spec.find(':');
    if (colon != std::string::npos) {
        a->name = spec.substr(0, colon);
        std::string dir = spec.substr(colon + 1);
        if (dir != "decrypt" && dir != "encrypt") {
            *why = "direction must be encrypt or decrypt";
            return false;
        }
        a->decrypt = dir == "decrypt";
    }
    bc_status st = bc_algorithm_query(a->name.c_str(), &a->info);
    if (st != BC_OK) {
        *why = std::string(bc_status_message(st)) + " (" + bc_last_error() + ")";
        return false;
    }
    if (a->decrypt && a->info.kind == BC_KIND_AEAD) {
        *why = "AEAD decryption is not swept (a tag check of random data fails)";
        return false;
    }
    for (size_t i = 0; i < sizeof a->iv; ++i) a->iv[i] = static_cast<uint8_t>(0xa5 ^ (i * 29));
    // Counters start low so no message of the sweep comes near a wrap.
    if (a->name == "chacha20") std::memset(a->iv, 0, 4);
    if (a->name == "chacha20-djb" && a->info.iv_size == 16) std::memset(a->iv, 0, 8);
    if (a->name.find("-ctr") != std::string::npos) std::memset(a->iv + 8, 0, 8);
    return true;
}

bc_status call_alg(const AlgSpec& a, bc_key* k, const uint8_t* in, uint8_t* out, uint64_t n, bc_memory mem,
                   void* stream, uint8_t* tag) {
    bc_params p{};
    p.memory = mem;
    p.stream = stream;
    if (a.info.kind == BC_KIND_AEAD)
        return bc_aead_seal_detached(k, a.iv, a.info.iv_size, nullptr, 0, in, n, out, tag, a.info.tag_size, &p);
    if (a.info.kind == BC_KIND_XTS && n >= 4096 && n % 4096 == 0) p.data_unit_size = 4096;
    size_t len = 0;
    return (a.decrypt ? bc_decrypt : bc_encrypt)(k, a.iv, a.info.iv_size, in, n, out, n, &len, &p);
}

std::string status_text(bc_status st, const std::string& detail) {
    std::string s = bc_status_message(st);
    if (!detail.empty()) s += ": " + detail;
    return s;
}

}  // namespace sweep
