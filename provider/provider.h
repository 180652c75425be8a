// The bulkcrypt OpenSSL 3 provider ("bulkcrypt", module bulkcrypt.so): a thin layer over
// the C API (include/bulkcrypt/bulkcrypt.h). provider.cpp holds the provider context and
// its parameters; cipher.cpp the cipher dispatch of every catalogue algorithm.
//
// A call whose first piece is under the threshold runs on OpenSSL's own implementation,
// fetched from the default or legacy provider in a library context the provider owns (the
// application's configuration stays untouched), so small messages such as TLS records never
// pay a device round trip; the others go to bulkcrypt's context.
#pragma once

#include <openssl/core.h>
#include <openssl/types.h>

#include <atomic>
#include <mutex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"

namespace bc_provider {

struct CipherTable;  // cipher.cpp: the algorithm table and OpenSSL's own ciphers

// A bulkcrypt context opened at its first use (a process whose messages all stay under the
// threshold, such as a TLS server, never starts a GPU).
struct LazyContext {
    std::once_flag once;
    bc_context* ctx = nullptr;
    std::string device;  // the string bc_context_create takes ("cpu", "cuda:0")
};

struct ProviderContext {
    const OSSL_CORE_HANDLE* handle = nullptr;
    OSSL_LIB_CTX* fallback_libctx = nullptr;  // owned: the default and legacy providers
    OSSL_PROVIDER* fallback_default = nullptr;
    OSSL_PROVIDER* fallback_legacy = nullptr;
    std::string device = "auto";              // as configured: auto, cpu, cuda, opencl, or a full device string
    std::string device_kind = "auto";         // the bulkcrypt.device property: auto, cpu, cuda or opencl
    LazyContext configured;                   // the configured device, when it is not auto
    LazyContext cpu, gpu;                     // auto: the CPU pool, and cuda:0 when there is one
    bool threshold_set = false;               // `threshold` in the config: one threshold for all
    size_t threshold = 0;                     // bytes: calls below run on OpenSSL's own implementation
    std::atomic<uint64_t> device_calls{0};    // messages run by bulkcrypt
    std::atomic<uint64_t> fallback_calls{0};  // messages run by OpenSSL's implementation
    std::string stats_file;                   // config `stats`: counters appended here at unload
    CipherTable* ciphers = nullptr;           // made by the first cipher_algorithms call
};

// Ciphers that OpenSSL runs with the CPU's own instructions (AES-NI, SIMD ChaCha): under
// device auto they go to the CPU pool, the others to the GPU (measured: see
// bench/results/2026-11-27-provider/).
bool fast_on_cpu(const std::string& algorithm);

// The threshold of an algorithm: the configured one, else the measured default of its class.
size_t threshold_for(const ProviderContext* p, const std::string& algorithm);

// The bulkcrypt context an algorithm runs on (opened on first use); nullptr when it cannot
// be opened (the reason is on OpenSSL's error queue).
bc_context* device_context(ProviderContext* p, const std::string& algorithm);
// The devices opened so far, for the provider's parameter and stats line.
std::string devices_in_use(const ProviderContext* p);

// The algorithm table for OSSL_OP_CIPHER (built on the first query, kept in p->ciphers).
const OSSL_ALGORITHM* cipher_algorithms(ProviderContext* p);
// Puts a message (printf format) on OpenSSL's error queue through the core.
void raise_error(const ProviderContext* p, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Frees p->ciphers (provider teardown).
void free_cipher_table(ProviderContext* p);

// The default thresholds (bytes): the call size from which bulkcrypt's path beats
// OpenSSL's one core, measured with openssl speed -elapsed on an H100 host (16 Xeon
// threads; bench/results/2026-11-27-provider/). AES-256-GCM on the CPU pool: 0.43x at
// 256 KiB, 1.7x at 1 MiB (AES-128-CTR and ChaCha20-Poly1305 cross at 256 KiB). DES-EDE3,
// Camellia-128-CTR, SEED on the GPU: 1.2-5.4x at 16 KiB, 4-20x at 64 KiB. `threshold` in
// the provider's config section overrides both.
constexpr size_t kDefaultThresholdFast = size_t(1) << 20;    // AES, ChaCha20: on the CPU pool
constexpr size_t kDefaultThresholdOther = size_t(64) << 10;  // table and bitsliced ciphers: on the GPU

}  // namespace bc_provider
