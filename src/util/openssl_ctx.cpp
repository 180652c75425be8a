#include "util/openssl_ctx.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/provider.h>

namespace bc {
namespace {

struct Ctx {
    OSSL_LIB_CTX* ctx = nullptr;
    bool legacy = false;
    Ctx() {
        ctx = OSSL_LIB_CTX_new();
        if (!ctx) return;
        // Kept loaded until exit: ciphers fetched from the context may live as long.
        if (!OSSL_PROVIDER_load(ctx, "default")) {
            OSSL_LIB_CTX_free(ctx);
            ctx = nullptr;
            return;
        }
        legacy = OSSL_PROVIDER_load(ctx, "legacy") != nullptr;
        ERR_clear_error();  // a missing legacy module is not an error of the caller's
    }
};

const Ctx& shared() {
    static const Ctx* c = new Ctx;  // never freed: objects freed at exit may still hold its ciphers
    return *c;
}

}  // namespace

OSSL_LIB_CTX* openssl_ctx() { return shared().ctx; }
bool openssl_legacy_loaded() { return shared().legacy; }

}  // namespace bc
