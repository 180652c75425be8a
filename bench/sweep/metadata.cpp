// sweep's run metadata: the machine, the build, the library, nvidia-smi.
#include "sweep.h"

namespace sweep {

Json metadata(Runner& r) {
    Json m = Json::object();
    char date[64];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    m["date"] = date;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    m["host"] = host;
    int rc = 0;
    std::string commit = trim(run_command("git rev-parse HEAD 2>/dev/null", &rc));
    if (rc != 0 || commit.empty()) {
        const char* env = std::getenv("BC_GIT_COMMIT");
        commit = env && *env ? env : "unknown";
    }
    m["git_commit"] = commit;
    if (commit != "unknown") {
        std::string dirty = run_command("git status --porcelain --untracked-files=no 2>/dev/null", &rc);
        m["git_dirty"] = rc == 0 ? Json(!trim(dirty).empty()) : Json();
    }
    m["bulkcrypt_version"] = bc_version();
    std::string cpu = "unknown";
    std::ifstream ci("/proc/cpuinfo");
    for (std::string line; std::getline(ci, line);)
        if (line.rfind("model name", 0) == 0) {
            cpu = trim(line.substr(line.find(':') + 1));
            break;
        }
    m["cpu_model"] = cpu;
    m["cpu_cores"] = r.cores;
    m["openssl_library"] = OpenSSL_version(OPENSSL_VERSION);
    std::string cli = trim(run_command("openssl version 2>/dev/null", &rc));
    m["openssl_cli"] = rc == 0 ? Json(cli) : Json("not found");
    m["mode"] = r.cfg.mode;
    m["max_bytes"] = r.cfg.max_bytes;
    m["unit"] = "GB/s = 1e9 bytes of payload per second";
    m["method"] = "one warm-up call, then runs of k calls (k so that a run lasts batch_s); at least runs_min runs; "
                  "median with min..max; host paths timed with std::chrono::steady_clock around synchronous "
                  "calls, device-memory paths with CUDA events on the call's stream";
    m["runs_min"] = r.cfg.runs;
    m["batch_s"] = r.cfg.batch_s;
    m["min_point_s"] = r.cfg.min_point_s;
    m["point_cap_s"] = r.cfg.point_cap_s;
    m["budget_s"] = r.cfg.budget_s;
    return m;
}

// nvidia-smi, when present: name, driver and clocks as it prints them.
Json nvidia_smi() {
    Json j = Json::object();
    int rc = 0;
    std::string q = run_command(
        "nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
        "pcie.link.gen.current,pcie.link.width.current,power.limit,temperature.gpu --format=csv,noheader 2>/dev/null",
        &rc);
    if (rc != 0 || trim(q).empty()) {
        j["status"] = "not available";
        j["reason"] = "nvidia-smi not found or failed";
        return j;
    }
    std::string first = q.substr(0, q.find('\n'));
    std::vector<std::string> f = split(first, ',');
    const char* keys[] = {"name", "driver", "clocks_sm", "clocks_mem", "clocks_max_sm", "clocks_max_mem",
                          "pcie_gen", "pcie_width", "power_limit", "temperature_c"};
    for (size_t i = 0; i < f.size() && i < 10; ++i) j[keys[i]] = f[i];
    j["raw"] = trim(q);
    return j;
}

}  // namespace sweep
