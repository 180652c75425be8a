// bulkcrypt devices, bulkcrypt list.
#include "info.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.h"
#include "container.h"

namespace bcli {

namespace {

struct CpuInfo {
    std::string model;
    std::vector<std::string> features;  // the ones that matter to ciphers, in a fixed order
    unsigned threads = 0;
};

CpuInfo read_cpuinfo() {
    CpuInfo ci;
    ci.threads = std::thread::hardware_concurrency();
    std::ifstream f("/proc/cpuinfo");
    std::string line, flags;
    while (std::getline(f, line)) {
        auto value = [&line]() {
            size_t colon = line.find(':');
            return colon == std::string::npos ? std::string() : line.substr(colon + 2 <= line.size() ? colon + 2 : colon + 1);
        };
        if (ci.model.empty() && line.rfind("model name", 0) == 0) ci.model = value();
        if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) flags = value();
        if (!ci.model.empty() && !flags.empty()) break;
    }
    if (ci.model.empty()) ci.model = "unknown CPU";
    std::istringstream fs(flags);
    std::vector<std::string> have;
    for (std::string w; fs >> w;) have.push_back(w);
    // x86 names as /proc/cpuinfo spells them; Arm's "aes", "pmull", "sha2" too.
    static const char* wanted[] = {"aes", "pclmulqdq", "avx", "avx2", "avx512f", "avx512bw",
                                   "avx512vl", "vaes", "vpclmulqdq", "gfni", "sha_ni", "pmull",
                                   "sha2", "neon", "asimd"};
    for (const char* w : wanted)
        for (const std::string& h : have)
            if (h == w) {
                ci.features.emplace_back(w);
                break;
            }
    return ci;
}

struct Probe {
    std::string device;   // "cpu", "cuda:0", ...
    bool ok = false;
    std::string name;     // bc_context_device_name
    std::string backend;
    bc_status status = BC_OK;
    std::string detail;
};

Probe probe(const std::string& device) {
    Probe p;
    p.device = device;
    bc_context* ctx = nullptr;
    p.status = bc_context_create(device.c_str(), nullptr, &ctx);
    if (p.status == BC_OK) {
        p.ok = true;
        p.name = bc_context_device_name(ctx);
        p.backend = bc_context_backend(ctx);
        bc_context_destroy(ctx);
    } else {
        p.detail = bc_last_error();
        if (p.detail.empty()) p.detail = bc_status_message(p.status);
    }
    return p;
}

// Every cuda:N / opencl:N until the first that is not there. Returns the
// found ones plus, when none was found, the probe that says why.
std::vector<Probe> probe_family(const char* family, Probe& why_none) {
    std::vector<Probe> found;
    for (int i = 0; i < 64; ++i) {
        Probe p = probe(fmt::format("{}:{}", family, i));
        if (!p.ok) {
            if (i == 0) why_none = p;
            break;
        }
        found.push_back(p);
    }
    return found;
}

std::string absent_text(const Probe& p) {
    if (p.status == BC_ERR_NOT_SUPPORTED) return "not built into this bulkcrypt";
    if (p.status == BC_ERR_NO_DEVICE) return "no device found";
    return fmt::format("unavailable: {}", p.detail);
}

}  // namespace

int cmd_devices(bool json) {
    const CpuInfo ci = read_cpuinfo();
    const Probe cpu = probe("cpu");
    Probe no_cuda, no_opencl;
    const std::vector<Probe> cuda = probe_family("cuda", no_cuda);
    const std::vector<Probe> opencl = probe_family("opencl", no_opencl);
    const Probe best = probe("auto");

    if (json) {
        nlohmann::json j;
        nlohmann::json c;
        c["device"] = "cpu";
        c["model"] = ci.model;
        c["threads"] = ci.threads;
        c["features"] = ci.features;
        c["available"] = cpu.ok;
        c["name"] = cpu.ok ? cpu.name : "";
        if (!cpu.ok) c["error"] = cpu.detail;
        j["cpu"] = c;
        auto family = [](const std::vector<Probe>& v, const Probe& why) {
            nlohmann::json a = nlohmann::json::array();
            for (const Probe& p : v) a.push_back({{"device", p.device}, {"name", p.name}, {"backend", p.backend}});
            nlohmann::json f;
            f["devices"] = a;
            if (v.empty()) f["why_none"] = absent_text(why);
            return f;
        };
        j["cuda"] = family(cuda, no_cuda);
        j["opencl"] = family(opencl, no_opencl);
        j["auto"] = best.ok ? best.name : "";
        j["library_version"] = bc_version();
        std::puts(j.dump(2).c_str());
        return kExitOk;
    }
    fmt::print("bulkcrypt {} devices (pass one to --device):\n\n", bc_version());
    fmt::print("  cpu        {}, {} threads\n", ci.model, ci.threads);
    std::string feats;
    for (const std::string& f : ci.features) feats += (feats.empty() ? "" : " ") + f;
    fmt::print("             features: {}\n", feats.empty() ? "(none of the cipher-relevant ones)" : feats);
    if (cpu.ok) fmt::print("             backend: {}\n", cpu.name);
    else fmt::print("             backend: unavailable: {}\n", cpu.detail);
    for (const Probe& p : cuda) fmt::print("  {:<10} {}\n", p.device, p.name);
    if (cuda.empty()) fmt::print("  cuda       {}\n", absent_text(no_cuda));
    for (const Probe& p : opencl) fmt::print("  {:<10} {}\n", p.device, p.name);
    if (opencl.empty()) fmt::print("  opencl     {}\n", absent_text(no_opencl));
    fmt::print("\n  auto       = {}\n", best.ok ? best.name : "unavailable: " + best.detail);
    return kExitOk;
}

static const char* kind_name(bc_kind k) {
    switch (k) {
    case BC_KIND_BLOCK_MODE: return "block";
    case BC_KIND_STREAM: return "stream";
    case BC_KIND_XTS: return "xts";
    case BC_KIND_AEAD: return "aead";
    }
    return "?";
}

int cmd_list(bool json) {
    // One context per backend family that is present, to ask which accept each algorithm.
    std::vector<std::pair<std::string, bc_context*>> ctxs;
    for (const char* d : {"cpu", "cuda:0", "opencl:0"}) {
        bc_context* c = nullptr;
        if (bc_context_create(d, nullptr, &c) == BC_OK) ctxs.emplace_back(d, c);
    }
    nlohmann::json arr = nlohmann::json::array();
    if (!json)
        fmt::print("{:<22} {:<6} {:>9} {:>9} {:>7} {:>5}  {:<9}  {}\n", "algorithm", "kind", "key", "iv",
                   "tag", "block", "container", "backends");
    for (size_t i = 0;; ++i) {
        const char* name = bc_algorithm_name(i);
        if (name == nullptr) break;
        bc_algorithm_info info{};
        if (bc_algorithm_query(name, &info) != BC_OK) continue;
        std::vector<std::string> backends;
        std::vector<uint8_t> key(info.key_size);
        for (size_t b = 0; b < key.size(); ++b) key[b] = static_cast<uint8_t>(b * 7 + 1);
        for (auto& [dev, c] : ctxs) {
            bc_key* k = nullptr;
            if (bc_key_create(c, name, key.data(), key.size(), &k) == BC_OK) {
                backends.push_back(dev.substr(0, dev.find(':')));
                bc_key_destroy(k);
            }
        }
        const bool in_container = container_algorithm_id(name) != 0;
        // 64-bit blocks: for legacy data only (2^32 blocks a message, never in the container)
        const bool legacy = info.block_size == 8;
        const std::string keys = info.key_size_min == info.key_size_max
                                     ? fmt::format("{}", info.key_size)
                                     : fmt::format("{}({}-{})", info.key_size, info.key_size_min, info.key_size_max);
        std::string iv = info.iv_size_min == info.iv_size_max
                             ? fmt::format("{}", info.iv_size)
                             : fmt::format("{}({}-{})", info.iv_size, info.iv_size_min, info.iv_size_max);
        std::string tag = info.tag_size == 0 ? "-"
                          : info.tag_size_min == info.tag_size_max
                              ? fmt::format("{}", info.tag_size)
                              : fmt::format("{}({}-{})", info.tag_size, info.tag_size_min, info.tag_size_max);
        if (json) {
            nlohmann::json j;
            j["name"] = info.name ? info.name : name;
            j["kind"] = kind_name(info.kind);
            j["key_size"] = info.key_size;
            j["iv_size"] = info.iv_size;
            j["iv_size_min"] = info.iv_size_min;
            j["iv_size_max"] = info.iv_size_max;
            j["tag_size"] = info.tag_size;
            j["tag_size_min"] = info.tag_size_min;
            j["tag_size_max"] = info.tag_size_max;
            j["block_size"] = info.block_size;
            if (info.max_message_size == UINT64_MAX) j["max_message_size"] = nullptr;
            else j["max_message_size"] = info.max_message_size;
            j["key_size_min"] = info.key_size_min;
            j["key_size_max"] = info.key_size_max;
            j["container"] = in_container;
            j["legacy"] = legacy;
            j["backends"] = backends;
            arr.push_back(j);
        } else {
            std::string be;
            for (const std::string& s : backends) be += (be.empty() ? "" : ",") + s;
            fmt::print("{:<22} {:<6} {:>9} {:>9} {:>7} {:>5}  {:<9}  {}\n", name, kind_name(info.kind), keys, iv,
                       tag, info.block_size, in_container ? "yes" : legacy ? "legacy" : "-",
                       be.empty() ? "(none here)" : be);
        }
    }
    for (auto& [dev, c] : ctxs) bc_context_destroy(c);
    if (json) std::puts(arr.dump(2).c_str());
    else
        fmt::print("\nSizes in bytes; key: the default length (the range it may take). container: usable by "
                   "`bulkcrypt encrypt` (the others in --raw mode); legacy: a 64-bit block cipher, for "
                   "existing data only (a message is at most 2^32 blocks, the birthday bound of its block). "
                   "backends: those present here that accept the key.\n");
    return kExitOk;
}

}  // namespace bcli
