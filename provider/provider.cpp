// Provider entry point, context and parameters. Configuration (openssl.cnf, in the
// provider's section): device = auto | cpu | cuda | opencl | a bulkcrypt device string
// ("cuda:0"), threshold = bytes under which a message runs on OpenSSL's own cipher,
// stats = a file to which the provider appends one line of its counters when it unloads
// (so that an administrator can see that a program's ciphers ran through bulkcrypt).
#include "provider.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace bc_provider {

namespace {
OSSL_FUNC_core_new_error_fn* core_new_error = nullptr;
OSSL_FUNC_core_vset_error_fn* core_vset_error = nullptr;
}  // namespace

void raise_error(const ProviderContext* p, const char* fmt, ...) {
    if (!p || !core_new_error || !core_vset_error) return;
    core_new_error(p->handle);
    va_list args;
    va_start(args, fmt);
    core_vset_error(p->handle, 1, fmt, args);
    va_end(args);
}

namespace {

// A size in bytes, with an optional K, M or G (binary multiples): "65536", "64K", "1M".
bool parse_size(const char* text, size_t* out) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || errno != 0 || *text == '-') return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, ++end;
    else if (*end == 'M' || *end == 'm') shift = 20, ++end;
    else if (*end == 'G' || *end == 'g') shift = 30, ++end;
    if (*end != '\0' || v > (~0ull >> shift)) return false;
    *out = static_cast<size_t>(v << shift);
    return true;
}

// The device string bc_context_create takes for a configured device, and its property
// word; false for a string no bulkcrypt device has (checked here: the context itself is
// opened at the first message).
bool resolve_device(const std::string& dev, std::string* ctx_device, std::string* kind) {
    *ctx_device = dev == "cuda" ? "cuda:0" : dev == "opencl" ? "opencl:0" : dev;
    const std::string d = *ctx_device;
    auto indexed = [&](const char* prefix) {
        const size_t n = std::strlen(prefix);
        return d.size() > n && d.compare(0, n, prefix) == 0 &&
               d.find_first_not_of("0123456789", n) == std::string::npos;
    };
    if (d != "auto" && d != "cpu" && d != "hybrid" && d != "cuda:all" && !indexed("cuda:") && !indexed("opencl:"))
        return false;
    *kind = d.rfind("cuda", 0) == 0 ? "cuda" : d.rfind("opencl", 0) == 0 ? "opencl" : d == "cpu" ? "cpu" : "auto";
    return true;
}

void free_context(ProviderContext* p) {
    if (!p) return;
    free_cipher_table(p);  // its ciphers before the library context they came from
    for (LazyContext* l : {&p->configured, &p->cpu, &p->gpu}) bc_context_destroy(l->ctx);
    if (p->fallback_legacy) OSSL_PROVIDER_unload(p->fallback_legacy);
    if (p->fallback_default) OSSL_PROVIDER_unload(p->fallback_default);
    OSSL_LIB_CTX_free(p->fallback_libctx);
    delete p;
}

void write_stats(const ProviderContext* p) {
    if (p->stats_file.empty()) return;
    if (std::FILE* f = std::fopen(p->stats_file.c_str(), "a")) {
        std::fprintf(f,
                     "bulkcrypt provider: pid %ld device \"%s\" threshold %zu/%zu device-calls %llu fallback-calls %llu\n",
                     static_cast<long>(getpid()), devices_in_use(p).c_str(), threshold_for(p, "aes-"), threshold_for(p, ""),
                     static_cast<unsigned long long>(p->device_calls.load()),
                     static_cast<unsigned long long>(p->fallback_calls.load()));
        std::fclose(f);
    }
}

void teardown(void* provctx) {
    write_stats(static_cast<ProviderContext*>(provctx));
    free_context(static_cast<ProviderContext*>(provctx));
}

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-device", OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-threshold-fast", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-threshold-other", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-device-calls", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-fallback-calls", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_END};

const OSSL_PARAM* gettable_params(void*) { return kGettable; }

// The bulkcrypt-device parameter: the devices opened so far, or, before any, those the
// setting names (auto: the CPU pool, and cuda:0 for the ciphers OpenSSL has no instructions for).
const char* device_name_param(const ProviderContext* p) {
    thread_local std::string name;
    name = devices_in_use(p);
    if (name == "(none opened)") name = p->configured.device == "auto" ? "auto (cpu + cuda:0 when present; not opened yet)"
                                                                       : p->configured.device + " (not opened yet)";
    return name.c_str();
}

int get_params(void* provctx, OSSL_PARAM params[]) {
    auto* p = static_cast<ProviderContext*>(provctx);
    OSSL_PARAM* q;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) && !OSSL_PARAM_set_utf8_ptr(q, "bulkcrypt")) return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) && !OSSL_PARAM_set_utf8_ptr(q, bc_version())) return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) && !OSSL_PARAM_set_utf8_ptr(q, bc_version())) return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) && !OSSL_PARAM_set_int(q, 1)) return 0;
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-device")) &&
        !OSSL_PARAM_set_utf8_ptr(q, device_name_param(p)))
        return 0;
    // the thresholds of the two classes (fast_on_cpu): equal when the config sets one
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-threshold-fast")) && !OSSL_PARAM_set_size_t(q, threshold_for(p, "aes-")))
        return 0;
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-threshold-other")) && !OSSL_PARAM_set_size_t(q, threshold_for(p, "")))
        return 0;
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-device-calls")) && !OSSL_PARAM_set_uint64(q, p->device_calls.load()))
        return 0;
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-fallback-calls")) &&
        !OSSL_PARAM_set_uint64(q, p->fallback_calls.load()))
        return 0;
    return 1;
}

const OSSL_ALGORITHM* query_operation(void* provctx, int operation_id, int* no_cache) {
    *no_cache = 0;
    if (operation_id == OSSL_OP_CIPHER) return cipher_algorithms(static_cast<ProviderContext*>(provctx));
    return nullptr;
}

const OSSL_DISPATCH kProviderDispatch[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, reinterpret_cast<void (*)(void)>(teardown)},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, reinterpret_cast<void (*)(void)>(gettable_params)},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, reinterpret_cast<void (*)(void)>(get_params)},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, reinterpret_cast<void (*)(void)>(query_operation)},
    {0, nullptr}};

}  // namespace
}  // namespace bc_provider

namespace bc_provider {
namespace {

bc_context* open_lazy(ProviderContext* p, LazyContext& l, bool quiet) {
    std::call_once(l.once, [&] {
        if (bc_context_create(l.device.c_str(), nullptr, &l.ctx) != BC_OK) {
            if (!quiet) raise_error(p, "bulkcrypt provider: device '%s' did not open: %s", l.device.c_str(), bc_last_error());
            l.ctx = nullptr;
        }
    });
    return l.ctx;
}

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

bool fast_on_cpu(const std::string& a) {
    return starts(a, "aes-") || starts(a, "chacha20") || starts(a, "xchacha20") || starts(a, "salsa20");
}

size_t threshold_for(const ProviderContext* p, const std::string& algorithm) {
    if (p->threshold_set) return p->threshold;
    return fast_on_cpu(algorithm) ? kDefaultThresholdFast : kDefaultThresholdOther;
}

bc_context* device_context(ProviderContext* p, const std::string& algorithm) {
    if (p->configured.device != "auto") return open_lazy(p, p->configured, false);
    if (!fast_on_cpu(algorithm))
        if (bc_context* g = open_lazy(p, p->gpu, true)) return g;  // no GPU: the CPU pool
    return open_lazy(p, p->cpu, false);
}

std::string devices_in_use(const ProviderContext* p) {
    std::string s;
    for (const LazyContext* l : {&p->configured, &p->cpu, &p->gpu})
        if (l->ctx) s += (s.empty() ? "" : " + ") + std::string(bc_context_device_name(l->ctx));
    return s.empty() ? "(none opened)" : s;
}

}  // namespace bc_provider

using namespace bc_provider;

extern "C" __attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                                         const OSSL_DISPATCH* in,
                                                                         const OSSL_DISPATCH** out, void** provctx) {
    OSSL_FUNC_core_get_params_fn* core_get_params = nullptr;
    for (; in && in->function_id != 0; ++in) {
        if (in->function_id == OSSL_FUNC_CORE_GET_PARAMS) core_get_params = OSSL_FUNC_core_get_params(in);
        if (in->function_id == OSSL_FUNC_CORE_NEW_ERROR) core_new_error = OSSL_FUNC_core_new_error(in);
        if (in->function_id == OSSL_FUNC_CORE_VSET_ERROR) core_vset_error = OSSL_FUNC_core_vset_error(in);
    }
    auto* p = new (std::nothrow) ProviderContext;
    if (!p) return 0;
    p->handle = handle;
    // The provider's configuration: its section of the config file, or defaults.
    char* device = nullptr;
    char* threshold = nullptr;
    char* stats = nullptr;
    OSSL_PARAM cfg[] = {OSSL_PARAM_utf8_ptr("device", &device, 0), OSSL_PARAM_utf8_ptr("threshold", &threshold, 0),
                        OSSL_PARAM_utf8_ptr("stats", &stats, 0), OSSL_PARAM_END};
    if (core_get_params && core_get_params(handle, cfg)) {
        if (device && *device) p->device = device;
        if (stats && *stats) p->stats_file = stats;
        p->threshold_set = threshold && *threshold;
        if (p->threshold_set && !parse_size(threshold, &p->threshold)) {
            raise_error(p, "bulkcrypt provider: threshold = '%s': expected bytes, optionally with K, M or G", threshold);
            free_context(p);
            return 0;
        }
    }
    p->cpu.device = "cpu";
    p->gpu.device = "cuda:0";
    if (!resolve_device(p->device, &p->configured.device, &p->device_kind)) {
        raise_error(p, "bulkcrypt provider: device = '%s': expected auto, cpu, hybrid, cuda, cuda:N, cuda:all, opencl or opencl:N",
                    p->device.c_str());
        free_context(p);
        return 0;
    }
    // OpenSSL's own implementations for small messages, in a library context of ours.
    p->fallback_libctx = OSSL_LIB_CTX_new();
    if (p->fallback_libctx) {
        p->fallback_default = OSSL_PROVIDER_load(p->fallback_libctx, "default");
        p->fallback_legacy = OSSL_PROVIDER_load(p->fallback_libctx, "legacy");  // may be absent: SEED, DES, ... then run here
    }
    if (!p->fallback_libctx || !p->fallback_default) {
        raise_error(p, "bulkcrypt provider: OpenSSL's default provider did not load");
        free_context(p);
        return 0;
    }

    *out = kProviderDispatch;
    *provctx = p;
    return 1;
}
