// Provider entry point, context and parameters. Configuration (openssl.cnf, in the
// provider's section): device = auto | cpu | cuda | opencl | a bulkcrypt device string
// ("cuda:0"), threshold = bytes under which a message runs on OpenSSL's own cipher.
#include "provider.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace bc_provider {
namespace {

// The device string bc_context_create takes for a configured device, and its property word.
void resolve_device(const std::string& dev, std::string* ctx_device, std::string* kind) {
    *ctx_device = dev == "cuda" ? "cuda:0" : dev == "opencl" ? "opencl:0" : dev;
    const std::string d = *ctx_device;
    *kind = d.rfind("cuda", 0) == 0 ? "cuda" : d.rfind("opencl", 0) == 0 ? "opencl" : d == "cpu" ? "cpu" : "auto";
}

void free_context(ProviderContext* p) {
    if (!p) return;
    free_cipher_table(p);  // its ciphers before the library context they came from
    bc_context_destroy(p->ctx);
    if (p->fallback_legacy) OSSL_PROVIDER_unload(p->fallback_legacy);
    if (p->fallback_default) OSSL_PROVIDER_unload(p->fallback_default);
    OSSL_LIB_CTX_free(p->fallback_libctx);
    delete p;
}

void teardown(void* provctx) { free_context(static_cast<ProviderContext*>(provctx)); }

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-device", OSSL_PARAM_UTF8_PTR, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-threshold", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-device-calls", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_DEFN("bulkcrypt-fallback-calls", OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0),
    OSSL_PARAM_END};

const OSSL_PARAM* gettable_params(void*) { return kGettable; }

int get_params(void* provctx, OSSL_PARAM params[]) {
    auto* p = static_cast<ProviderContext*>(provctx);
    OSSL_PARAM* q;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) && !OSSL_PARAM_set_utf8_ptr(q, "bulkcrypt")) return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) && !OSSL_PARAM_set_utf8_ptr(q, bc_version())) return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) && !OSSL_PARAM_set_utf8_ptr(q, bc_version())) return 0;
    if ((q = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) && !OSSL_PARAM_set_int(q, 1)) return 0;
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-device")) &&
        !OSSL_PARAM_set_utf8_ptr(q, bc_context_device_name(p->ctx)))
        return 0;
    if ((q = OSSL_PARAM_locate(params, "bulkcrypt-threshold")) && !OSSL_PARAM_set_size_t(q, p->threshold)) return 0;
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

using namespace bc_provider;

extern "C" __attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                                         const OSSL_DISPATCH* in,
                                                                         const OSSL_DISPATCH** out, void** provctx) {
    OSSL_FUNC_core_get_params_fn* core_get_params = nullptr;
    for (; in && in->function_id != 0; ++in)
        if (in->function_id == OSSL_FUNC_CORE_GET_PARAMS) core_get_params = OSSL_FUNC_core_get_params(in);
    auto* p = new (std::nothrow) ProviderContext;
    if (!p) return 0;
    p->handle = handle;
    p->threshold = kDefaultThreshold;
    // The provider's configuration: its section of the config file, or defaults.
    char* device = nullptr;
    char* threshold = nullptr;
    OSSL_PARAM cfg[] = {OSSL_PARAM_utf8_ptr("device", &device, 0), OSSL_PARAM_utf8_ptr("threshold", &threshold, 0),
                        OSSL_PARAM_END};
    if (core_get_params && core_get_params(handle, cfg)) {
        if (device && *device) p->device = device;
        if (threshold && *threshold) {
            char* end = nullptr;
            const unsigned long long v = std::strtoull(threshold, &end, 10);
            if (end && *end == '\0') p->threshold = static_cast<size_t>(v);
        }
    }
    std::string ctx_device;
    resolve_device(p->device, &ctx_device, &p->device_kind);
    // OpenSSL's own implementations for small messages, in a library context of ours.
    p->fallback_libctx = OSSL_LIB_CTX_new();
    if (p->fallback_libctx) {
        p->fallback_default = OSSL_PROVIDER_load(p->fallback_libctx, "default");
        p->fallback_legacy = OSSL_PROVIDER_load(p->fallback_libctx, "legacy");  // may be absent: SEED, DES, ... then run here
    }
    if (!p->fallback_libctx || !p->fallback_default || bc_context_create(ctx_device.c_str(), nullptr, &p->ctx) != BC_OK) {
        free_context(p);
        return 0;
    }
    *out = kProviderDispatch;
    *provctx = p;
    return 1;
}
