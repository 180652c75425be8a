// OpenSSL's own cipher (the default or legacy provider's), called through that provider's
// dispatch table rather than through EVP. The small-message path runs every call of a
// message here: going through EVP a second time cost ~57 instructions of a 16-byte
// AES-128-CTR update's ~400 (OpenSSL alone: ~290; bench/notes/provider.md).
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/types.h>

#include <cstddef>

namespace bc_provider {

// The functions of one of OpenSSL's cipher implementations, and its provider's context.
struct OpenSslCipher {
    void* provctx = nullptr;
    OSSL_FUNC_cipher_newctx_fn* newctx = nullptr;
    OSSL_FUNC_cipher_freectx_fn* freectx = nullptr;
    OSSL_FUNC_cipher_encrypt_init_fn* encrypt_init = nullptr;
    OSSL_FUNC_cipher_decrypt_init_fn* decrypt_init = nullptr;
    OSSL_FUNC_cipher_update_fn* update = nullptr;
    OSSL_FUNC_cipher_final_fn* final = nullptr;
    OSSL_FUNC_cipher_get_ctx_params_fn* get_ctx_params = nullptr;
    OSSL_FUNC_cipher_set_ctx_params_fn* set_ctx_params = nullptr;
};

// The implementation behind a fetched cipher, found by the cipher's name in its provider's
// algorithm table; false when the provider does not show it or lacks one of the functions.
bool resolve_openssl_cipher(const EVP_CIPHER* e, OpenSslCipher* out);

// One context of an OpenSSL cipher. Freed (and its key schedule cleansed by OpenSSL) by reset.
struct OpenSslCtx {
    const OpenSslCipher* fn = nullptr;
    void* ctx = nullptr;

    explicit operator bool() const { return ctx != nullptr; }
    bool create(const OpenSslCipher* cipher);
    void reset();
    // EVP_CipherInit_ex2's call: key may be null (the key in place stays), iv too.
    bool init(bool enc, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen) const;
    bool set_size(const char* key, size_t value) const;
    bool set_uint(const char* key, unsigned value) const;
    bool set_octets(const char* key, const unsigned char* data, size_t len) const;
    // Reads an octet string into buf, len bytes (as EVP_CIPHER_CTX_ctrl does: some of
    // OpenSSL's ciphers fill a tag without setting its return size).
    bool get_octets(const char* key, unsigned char* buf, size_t len) const;
};

}  // namespace bc_provider
