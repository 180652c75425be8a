#include "openssl_cipher.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstring>
#include <string>

namespace bc_provider {

namespace {

// Whether a provider's "NAME1:NAME2:..." list holds name (case-insensitive, as OpenSSL's).
bool names_hold(const char* list, const char* name) {
    const size_t n = std::strlen(name);
    for (const char* p = list; p && *p;) {
        const char* end = std::strchr(p, ':');
        const size_t len = end ? static_cast<size_t>(end - p) : std::strlen(p);
        if (len == n && OPENSSL_strncasecmp(p, name, n) == 0) return true;
        p = end ? end + 1 : nullptr;
    }
    return false;
}

}  // namespace

bool resolve_openssl_cipher(const EVP_CIPHER* e, OpenSslCipher* out) {
    const OSSL_PROVIDER* prov = EVP_CIPHER_get0_provider(e);
    if (!prov) return false;
    int no_cache = 0;
    const OSSL_ALGORITHM* algs = OSSL_PROVIDER_query_operation(prov, OSSL_OP_CIPHER, &no_cache);
    const OSSL_ALGORITHM* found = nullptr;
    for (const OSSL_ALGORITHM* a = algs; a && a->algorithm_names && !found; ++a)
        if (names_hold(a->algorithm_names, EVP_CIPHER_get0_name(e))) found = a;
    OpenSslCipher c;
    c.provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    for (const OSSL_DISPATCH* d = found ? found->implementation : nullptr; d && d->function_id; ++d) {
        switch (d->function_id) {
            case OSSL_FUNC_CIPHER_NEWCTX: c.newctx = OSSL_FUNC_cipher_newctx(d); break;
            case OSSL_FUNC_CIPHER_FREECTX: c.freectx = OSSL_FUNC_cipher_freectx(d); break;
            case OSSL_FUNC_CIPHER_ENCRYPT_INIT: c.encrypt_init = OSSL_FUNC_cipher_encrypt_init(d); break;
            case OSSL_FUNC_CIPHER_DECRYPT_INIT: c.decrypt_init = OSSL_FUNC_cipher_decrypt_init(d); break;
            case OSSL_FUNC_CIPHER_UPDATE: c.update = OSSL_FUNC_cipher_update(d); break;
            case OSSL_FUNC_CIPHER_FINAL: c.final = OSSL_FUNC_cipher_final(d); break;
            case OSSL_FUNC_CIPHER_GET_CTX_PARAMS: c.get_ctx_params = OSSL_FUNC_cipher_get_ctx_params(d); break;
            case OSSL_FUNC_CIPHER_SET_CTX_PARAMS: c.set_ctx_params = OSSL_FUNC_cipher_set_ctx_params(d); break;
            default: break;
        }
    }
    // The table is the provider's own, valid while it is loaded (the fetched cipher holds it)
    OSSL_PROVIDER_unquery_operation(prov, OSSL_OP_CIPHER, algs);
    if (!c.newctx || !c.freectx || !c.encrypt_init || !c.decrypt_init || !c.update || !c.final ||
        !c.get_ctx_params || !c.set_ctx_params)
        return false;
    *out = c;
    return true;
}

bool OpenSslCtx::create(const OpenSslCipher* cipher) {
    reset();
    fn = cipher;
    ctx = fn->newctx(fn->provctx);
    return ctx != nullptr;
}

void OpenSslCtx::reset() {
    if (ctx) fn->freectx(ctx);
    ctx = nullptr;
}

bool OpenSslCtx::init(bool enc, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen) const {
    auto* f = enc ? fn->encrypt_init : fn->decrypt_init;
    return f(ctx, key, key ? keylen : 0, iv, iv ? ivlen : 0, nullptr) != 0;
}

bool OpenSslCtx::set_size(const char* key, size_t value) const {
    const OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(key, &value), OSSL_PARAM_construct_end()};
    return fn->set_ctx_params(ctx, p) != 0;
}

bool OpenSslCtx::set_uint(const char* key, unsigned value) const {
    const OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(key, &value), OSSL_PARAM_construct_end()};
    return fn->set_ctx_params(ctx, p) != 0;
}

bool OpenSslCtx::set_octets(const char* key, const unsigned char* data, size_t len) const {
    const OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(key, const_cast<unsigned char*>(data), len),
                            OSSL_PARAM_construct_end()};
    return fn->set_ctx_params(ctx, p) != 0;
}

bool OpenSslCtx::get_octets(const char* key, unsigned char* buf, size_t len) const {
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(key, buf, len), OSSL_PARAM_construct_end()};
    return fn->get_ctx_params(ctx, p) != 0;
}

}  // namespace bc_provider
