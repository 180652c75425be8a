#include "evp.h"

#include <memory>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

namespace conf {

namespace {

struct CtxFree {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
struct CipherFree {
    void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
};

std::string ossl_error(const std::string& what) {
    unsigned long e = ERR_get_error();
    char buf[256] = "";
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return what + (e ? std::string(": ") + buf : "");
}

// OpenSSL 3 keeps some ciphers (SEED) in its legacy provider only. The suite loads it
// into a library context of its own, as bulkcrypt's CPU backend does, so the default
// context stays as the application (here: the test) left it.
class LegacyContext {
public:
    LegacyContext() {
        ctx_ = OSSL_LIB_CTX_new();
        if (!ctx_) return;
        legacy_ = OSSL_PROVIDER_load(ctx_, "legacy");
        deflt_ = OSSL_PROVIDER_load(ctx_, "default");
        ERR_clear_error();
    }
    ~LegacyContext() {
        if (legacy_) OSSL_PROVIDER_unload(legacy_);
        if (deflt_) OSSL_PROVIDER_unload(deflt_);
        OSSL_LIB_CTX_free(ctx_);
    }
    OSSL_LIB_CTX* get() const { return legacy_ && deflt_ ? ctx_ : nullptr; }

private:
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* legacy_ = nullptr;
    OSSL_PROVIDER* deflt_ = nullptr;
};

// The default context's cipher, else the legacy context's.
EVP_CIPHER* fetch(const std::string& name) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name.c_str(), nullptr);
    if (c) return c;
    static const LegacyContext legacy;
    if (!legacy.get()) return nullptr;
    c = EVP_CIPHER_fetch(legacy.get(), name.c_str(), nullptr);
    if (c) ERR_clear_error();  // the default context's refusal
    return c;
}

}  // namespace

bool evp_cipher(const std::string& name, bool encrypt, const Bytes& key, const Bytes& iv, const Bytes& in, bool pad,
                Bytes* out, std::string* err) {
    std::unique_ptr<EVP_CIPHER, CipherFree> cipher(fetch(name));
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!cipher || !ctx) {
        *err = ossl_error("EVP_CIPHER_fetch(" + name + ")");
        return false;
    }
    // A key of another length than the cipher's default (Blowfish, CAST5 take a range):
    // OpenSSL must be told the length before the key, or it reads only its default.
    const int klen = static_cast<int>(key.size());
    const bool set_len = klen != EVP_CIPHER_get_key_length(cipher.get());
    if (set_len &&
        (EVP_CipherInit_ex2(ctx.get(), cipher.get(), nullptr, nullptr, encrypt ? 1 : 0, nullptr) != 1 ||
         EVP_CIPHER_CTX_set_key_length(ctx.get(), klen) != 1)) {
        *err = ossl_error("EVP_CIPHER_CTX_set_key_length(" + name + ", " + std::to_string(klen) + ")");
        return false;
    }
    if (EVP_CipherInit_ex2(ctx.get(), set_len ? nullptr : cipher.get(), key.data(), iv.empty() ? nullptr : iv.data(),
                           encrypt ? 1 : 0, nullptr) != 1) {
        *err = ossl_error("EVP_CipherInit_ex2(" + name + ")");
        return false;
    }
    EVP_CIPHER_CTX_set_padding(ctx.get(), pad ? 1 : 0);
    out->assign(in.size() + 32, 0);
    int n = 0, m = 0;
    if (EVP_CipherUpdate(ctx.get(), out->data(), &n, in.data(), static_cast<int>(in.size())) != 1 ||
        EVP_CipherFinal_ex(ctx.get(), out->data() + n, &m) != 1) {
        *err = ossl_error("EVP_Cipher(" + name + ")");
        return false;
    }
    out->resize(static_cast<size_t>(n + m));
    return true;
}

bool evp_aead_seal(const std::string& name, const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& pt,
                   size_t tag_len, Bytes* ct, Bytes* tag, std::string* err) {
    std::unique_ptr<EVP_CIPHER, CipherFree> cipher(fetch(name));
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!cipher || !ctx) {
        *err = ossl_error("EVP_CIPHER_fetch(" + name + ")");
        return false;
    }
    int n = 0;
    if (EVP_EncryptInit_ex2(ctx.get(), cipher.get(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(iv.size()), nullptr) != 1 ||
        EVP_EncryptInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), nullptr) != 1) {
        *err = ossl_error("EVP init (" + name + ", " + std::to_string(iv.size()) + "-byte IV)");
        return false;
    }
    if (!aad.empty() && EVP_EncryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) {
        *err = ossl_error("EVP AAD");
        return false;
    }
    ct->assign(pt.size() + 16, 0);
    int m = 0;
    if (EVP_EncryptUpdate(ctx.get(), ct->data(), &n, pt.data(), static_cast<int>(pt.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), ct->data() + n, &m) != 1) {
        *err = ossl_error("EVP encrypt");
        return false;
    }
    ct->resize(static_cast<size_t>(n + m));
    tag->assign(tag_len, 0);
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_len), tag->data()) != 1) {
        *err = ossl_error("EVP get tag");
        return false;
    }
    return true;
}

}  // namespace conf
