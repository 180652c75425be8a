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

struct ProviderContext {
    const OSSL_CORE_HANDLE* handle = nullptr;
    OSSL_LIB_CTX* fallback_libctx = nullptr;  // owned: the default and legacy providers
    OSSL_PROVIDER* fallback_default = nullptr;
    OSSL_PROVIDER* fallback_legacy = nullptr;
    bc_context* ctx = nullptr;                // the device bulkcrypt runs on: opened at its first message
    std::once_flag ctx_once;
    std::string ctx_device;                   // the string bc_context_create takes ("cuda:0")
    std::string device = "auto";              // as configured: auto, cpu, cuda, opencl, or a full device string
    std::string device_kind = "auto";         // the bulkcrypt.device property: auto, cpu, cuda or opencl
    size_t threshold = 0;                     // bytes: calls below run on OpenSSL's own implementation
    std::atomic<uint64_t> device_calls{0};    // messages run by bulkcrypt
    std::atomic<uint64_t> fallback_calls{0};  // messages run by OpenSSL's implementation
    std::string stats_file;                   // config `stats`: counters appended here at unload
    CipherTable* ciphers = nullptr;           // made by the first cipher_algorithms call
};

// bulkcrypt's context, opened on first use (a process whose messages all stay under the
// threshold, such as a TLS server, never starts a GPU); nullptr when it cannot be opened.
bc_context* device_context(ProviderContext* p);

// The algorithm table for OSSL_OP_CIPHER (built on the first query, kept in p->ciphers).
const OSSL_ALGORITHM* cipher_algorithms(ProviderContext* p);
// Puts a message (printf format) on OpenSSL's error queue through the core.
void raise_error(const ProviderContext* p, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Frees p->ciphers (provider teardown).
void free_cipher_table(ProviderContext* p);

// The provider's default threshold, bytes: an estimate (not yet measured) at the size where
// bulkcrypt's CPU pool starts splitting a call over its threads; `threshold` in the
// provider's config section overrides it.
constexpr size_t kDefaultThreshold = 64 * 1024;

}  // namespace bc_provider
