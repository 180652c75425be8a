// C API: statuses, the catalogue, contexts and keys.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "backends/device_desc.h"
#include "capi/capi_internal.h"
#include "catalog/block_cipher.h"
#include "engine/engine_backend.h"
#include "modes/gcm/gcm.h"

using namespace bc;

// Factories and device lists of the backends this build lacks. (Not weak symbols: a weak
// definition in a static archive stops the linker from pulling the real one.)
namespace bc {
#if !defined(BC_HAVE_CUDA)
Status make_cuda_backend(int, const ContextOptions&, std::unique_ptr<Backend>*) {
    return Status(BC_ERR_NO_DEVICE, "this build of bulkcrypt has no CUDA backend (nvcc was not found at build time)");
}
int cuda_device_count() { return 0; }
Status cuda_device_desc(int, DeviceDesc*) { return Status(BC_ERR_NO_DEVICE, "this build of bulkcrypt has no CUDA backend"); }
#endif
#if !defined(BC_HAVE_OPENCL)
Status make_opencl_backend(int, const ContextOptions&, std::unique_ptr<Backend>*) {
    return Status(BC_ERR_NO_DEVICE, "this build of bulkcrypt has no OpenCL backend (no OpenCL ICD loader at build time)");
}
Status opencl_device_descs(std::vector<DeviceDesc>* out) {
    out->clear();
    return Status(BC_ERR_NO_DEVICE, "this build of bulkcrypt has no OpenCL backend");
}
#endif
}  // namespace bc

extern "C" {

const char* bc_status_message(bc_status status) {
    switch (status) {
    case BC_OK: return "success";
    case BC_ERR_NULL_POINTER: return "a required pointer was NULL";
    case BC_ERR_INVALID_ARGUMENT: return "invalid argument";
    case BC_ERR_UNKNOWN_ALGORITHM: return "unknown algorithm";
    case BC_ERR_KEY_SIZE: return "wrong key size for the algorithm";
    case BC_ERR_IV_SIZE: return "wrong IV, nonce or tweak size for the algorithm";
    case BC_ERR_TAG_SIZE: return "tag size not allowed for the algorithm";
    case BC_ERR_INPUT_LENGTH: return "input length not allowed by the mode";
    case BC_ERR_MESSAGE_TOO_LONG: return "message longer than the mode allows";
    case BC_ERR_COUNTER_OVERFLOW: return "the counter would wrap around";
    case BC_ERR_OVERLAP: return "input and output partially overlap";
    case BC_ERR_OUTPUT_TOO_SMALL: return "output buffer too small";
    case BC_ERR_AUTH_FAILED: return "authentication failed: the tag does not match";
    case BC_ERR_BAD_PADDING: return "bad padding";
    case BC_ERR_NOT_SUPPORTED: return "not supported here";
    case BC_ERR_BAD_DEVICE: return "malformed device string";
    case BC_ERR_NO_DEVICE: return "no such device";
    case BC_ERR_DEVICE: return "the device failed";
    case BC_ERR_OUT_OF_MEMORY: return "out of memory";
    case BC_ERR_BAD_STATE: return "call out of order for this stream";
    case BC_ERR_BAD_OPTION: return "bad option";
    case BC_ERR_INTERNAL: return "internal error in bulkcrypt";
    }
    return "unknown status";
}

const char* bc_last_error(void) { return last_error(); }

#ifndef BC_VERSION_STRING
#error "BC_VERSION_STRING comes from CMakeLists.txt (the project's version)"
#endif
const char* bc_version(void) { return BC_VERSION_STRING; }

bc_status bc_algorithm_query(const char* name, bc_algorithm_info* info) {
    return api_call([&]() -> Status {
        if (!name || !info) return Status(BC_ERR_NULL_POINTER, "name and info are required");
        const Algorithm* a = find_public_algorithm(name);
        if (!a) return Status(BC_ERR_UNKNOWN_ALGORITHM, std::string("unknown algorithm '") + name + "'");
        bc_algorithm_info i{};
        i.name = a->name;
        i.kind = a->kind;
        i.key_size = a->key_size;
        i.key_size_min = key_min_bytes(*a);
        i.key_size_max = key_max_bytes(*a);
        i.iv_size = a->iv_size;
        i.iv_size_min = a->iv_min;
        i.iv_size_max = a->iv_max;
        i.tag_size = a->tag_size;
        i.tag_size_min = a->tag_min;
        i.tag_size_max = a->tag_max;
        i.block_size = a->block_size;
        i.max_message_size = a->max_message;
        *info = i;
        return Status::ok();
    });
}

const char* bc_algorithm_name(size_t index) {
    const Algorithm* a = public_algorithm_at(index);
    return a ? a->name : nullptr;
}

size_t bc_key_size(const char* algorithm) {
    const Algorithm* a = find_public_algorithm(algorithm);
    return a ? a->key_size : 0;
}
size_t bc_iv_size(const char* algorithm) {
    const Algorithm* a = find_public_algorithm(algorithm);
    return a ? a->iv_size : 0;
}
size_t bc_tag_size(const char* algorithm) {
    const Algorithm* a = find_public_algorithm(algorithm);
    return a ? a->tag_size : 0;
}
uint64_t bc_max_message_size(const char* algorithm) {
    const Algorithm* a = find_public_algorithm(algorithm);
    return a ? a->max_message : 0;
}

}  // extern "C"

// ---- contexts ---------------------------------------------------------------------

namespace {

bool parse_size(const std::string& s, size_t* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0') return false;
    *out = static_cast<size_t>(v);
    return true;
}

Status parse_options(const char* text, ContextOptions* o) {
    if (!text) return Status::ok();
    std::string all(text);
    size_t pos = 0;
    while (pos <= all.size()) {
        size_t comma = all.find(',', pos);
        std::string item = all.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? all.size() + 1 : comma + 1;
        if (item.empty()) continue;
        size_t eq = item.find('=');
        if (eq == std::string::npos) return Status(BC_ERR_BAD_OPTION, "option '" + item + "' is not key=value");
        std::string k = item.substr(0, eq), v = item.substr(eq + 1);
        size_t n = 0;
        if (k == "threads" && parse_size(v, &n) && n <= 4096) o->threads = static_cast<unsigned>(n);
        else if (k == "cpu.impl" && (v == "evp" || v == "portable")) o->cpu_portable = v == "portable";
        else if (k == "aes" && (v == "bitsliced" || v == "table" || v == "generic")) {
            o->aes_table = v == "table";
            o->aes_generic = v == "generic";
        }
        else if (k == "chunk" && parse_size(v, &n) && n >= 64 && n % 64 == 0) o->chunk = n, o->tuning.chunk = n;
        else if ((v == "table" || v == "bitsliced") && find_block_cipher(k.c_str()) != nullptr &&
                 find_block_cipher((k + "_table").c_str()) != nullptr) {
            auto& t = o->table_forms;
            t.erase(std::remove(t.begin(), t.end(), k), t.end());
            if (v == "table") t.push_back(k);
        }
        else {
            bool known = false;
            std::string why;
            if (!tuning::parse_option(k, v, &o->tuning, &known, &why))
                return Status(BC_ERR_BAD_OPTION, "option '" + item + "': " + why);
            if (!known) return Status(BC_ERR_BAD_OPTION, "option '" + item + "' is unknown or has a bad value");
        }
    }
    return Status::ok();
}

// "cuda:3" -> 3; false when malformed.
bool parse_index(const std::string& s, size_t prefix, int* index) {
    if (s.size() <= prefix) return false;
    for (size_t i = prefix; i < s.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    if (s.size() - prefix > 4) return false;
    *index = std::atoi(s.c_str() + prefix);
    return true;
}

}  // namespace

extern "C" {

bc_status bc_context_create(const char* device, const char* options, bc_context** ctx) {
    return api_call([&]() -> Status {
        if (!ctx) return Status(BC_ERR_NULL_POINTER, "ctx is required");
        *ctx = nullptr;
        auto c = std::make_unique<bc_context>();
        BC_TRY(parse_options(options, &c->options));
        std::string dev = device ? device : "auto";
        int index = 0;
        if (dev == "auto") {
            // The best devices present: the CPU and every GPU (CUDA, and OpenCL GPUs that CUDA
            // does not drive) through the engine, else the CPU. Never an OpenCL CPU device.
            if (make_device_engine(true, c->options, &c->backend).is_ok()) {
                c->device = "hybrid";
            } else {
                BC_TRY(make_cpu_backend(c->options, &c->backend));
                c->device = "cpu";
            }
        } else if (dev == "hybrid" || dev == "cuda:all") {
            // src/engine: one queue of chunks for the CPU and every GPU ("hybrid") or every CUDA GPU.
            BC_TRY(make_device_engine(dev == "hybrid", c->options, &c->backend));
            c->device = dev;
        } else if (dev == "cpu") {
            BC_TRY(make_cpu_backend(c->options, &c->backend));
            c->device = dev;
        } else if (dev.rfind("cuda:", 0) == 0) {
            if (!parse_index(dev, 5, &index)) return Status(BC_ERR_BAD_DEVICE, "device '" + dev + "': expected cuda:N");
            BC_TRY(make_cuda_backend(index, c->options, &c->backend));
            c->device = dev;
        } else if (dev.rfind("opencl:", 0) == 0) {
            if (!parse_index(dev, 7, &index)) return Status(BC_ERR_BAD_DEVICE, "device '" + dev + "': expected opencl:N");
            BC_TRY(make_opencl_backend(index, c->options, &c->backend));
            c->device = dev;
        } else {
            return Status(BC_ERR_BAD_DEVICE, "device '" + dev + "': expected auto, cpu, hybrid, cuda:all, cuda:N or opencl:N");
        }
        *ctx = c.release();
        return Status::ok();
    });
}

void bc_context_destroy(bc_context* ctx) { delete ctx; }

const char* bc_context_device_name(const bc_context* ctx) {
    if (!ctx) return "";
    thread_local std::string name;
    name = ctx->device + ": " + ctx->backend->device_name();
    return name.c_str();
}

const char* bc_context_backend(const bc_context* ctx) { return ctx ? ctx->backend->name() : ""; }

size_t bc_context_cpu_threshold(const bc_context* ctx) { return ctx ? engine_cpu_threshold(*ctx->backend) : 0; }

// ---- keys -------------------------------------------------------------------------

bc_status bc_key_create(bc_context* ctx, const char* algorithm, const uint8_t* key, size_t key_len,
                        bc_key** out) {
    return api_call([&]() -> Status {
        if (!out) return Status(BC_ERR_NULL_POINTER, "out is required");
        *out = nullptr;
        if (!ctx || !algorithm || (!key && key_len))
            return Status(BC_ERR_NULL_POINTER, "ctx, algorithm and key are required");
        const Algorithm* alg = find_public_algorithm(algorithm);
        if (!alg) return Status(BC_ERR_UNKNOWN_ALGORITHM, std::string("unknown algorithm '") + algorithm + "'");
        return key_create(ctx, alg, key, key_len, out);
    });
}

void bc_key_destroy(bc_key* key) { delete key; }

const char* bc_key_algorithm(const bc_key* key) { return key ? key->material.alg->name : ""; }

}  // extern "C"

namespace bc {

Status key_create(bc_context* ctx, const Algorithm* alg, const uint8_t* key, size_t key_len, bc_key** out) {
    *out = nullptr;
    if (!key_length_ok(*alg, key_len)) {
        const size_t lo = key_min_bytes(*alg), hi = key_max_bytes(*alg);
        const std::string takes = lo == hi ? "a " + std::to_string(lo) + "-byte key"
                                           : "a key of " + std::to_string(lo) + " to " + std::to_string(hi) + " bytes";
        return Status(BC_ERR_KEY_SIZE, std::string(alg->name) + " takes " + takes + ", not " + std::to_string(key_len));
    }
    if (!ctx->backend->supports(*alg))
        return Status(BC_ERR_NOT_SUPPORTED, std::string(alg->name) + " is not available on the " +
                                                ctx->backend->name() + " backend");
    auto k = std::make_unique<bc_key>();
    k->ctx = ctx;
    k->material.alg = alg;
    k->material.raw = SecureBytes(key, key_len);
    if (alg->mode == Mode::GCM) {
        const bool expanded = alg->cipher == Cipher::AES ? aes_expand_key(key, key_len, &k->host_aes)
                                                         : alg->block && k->host_block.expand(alg->block, key, key_len);
        if (!expanded) return Status(BC_ERR_KEY_SIZE, std::string(alg->name) + ": key length not accepted by the cipher");
        k->gcm_h = gcm_hash_subkey(k->gcm_cipher());
    }
    BC_TRY(ctx->backend->prepare_key(k->material, &k->backend_key));
    *out = k.release();
    return Status::ok();
}

}  // namespace bc

bc_key::~bc_key() {
    backend_key.reset();  // wipes device copies
    aes_wipe(&host_aes);
    secure_wipe_object(gcm_h);
}
