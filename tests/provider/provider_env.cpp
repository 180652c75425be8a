#include "provider_env.h"

#include <openssl/core_names.h>
#include <openssl/params.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#ifndef BC_PROVIDER_DIR
#error "BC_PROVIDER_DIR must name the folder of the built bulkcrypt.so"
#endif

namespace bcp {

// Where bulkcrypt.so is: the build's folder, or BC_PROVIDER_DIR from the environment (a
// packed copy run elsewhere).
std::string provider_dir() {
    const char* env = std::getenv("BC_PROVIDER_DIR");
    return env && *env ? env : BC_PROVIDER_DIR;
}

ProviderEnv::ProviderEnv(const std::string& settings) {
    char path[] = "/tmp/bc_provider_conf_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        error_ = "cannot create a config file";
        return;
    }
    close(fd);
    config_path_ = path;
    std::ofstream(config_path_) << "openssl_conf = openssl_init\n"
                                   "[openssl_init]\nproviders = provider_sect\n"
                                   "[provider_sect]\ndefault = default_sect\nlegacy = legacy_sect\n"
                                   "bulkcrypt = bulkcrypt_sect\n"
                                   "[default_sect]\nactivate = 1\n[legacy_sect]\nactivate = 1\n"
                                   "[bulkcrypt_sect]\nmodule = "
                                << provider_dir() << "/bulkcrypt.so\nactivate = 1\n"
                                << settings << "\n";
    libctx_ = OSSL_LIB_CTX_new();
    if (!libctx_ || !OSSL_LIB_CTX_load_config(libctx_, config_path_.c_str())) {
        error_ = "the config file did not load (is " + provider_dir() + "/bulkcrypt.so built?)";
        return;
    }
    bulk_ = OSSL_PROVIDER_load(libctx_, "bulkcrypt");  // the activated instance, one more reference
    if (!bulk_) error_ = "bulkcrypt is not among the loaded providers";
}

ProviderEnv::~ProviderEnv() {
    if (bulk_) OSSL_PROVIDER_unload(bulk_);
    OSSL_LIB_CTX_free(libctx_);
    if (!config_path_.empty()) std::remove(config_path_.c_str());
}

uint64_t ProviderEnv::counter(const char* name) const {
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};
    if (!bulk_ || OSSL_PROVIDER_get_params(bulk_, p) != 1 || !OSSL_PARAM_modified(p)) return UINT64_MAX;
    return v;
}

std::string ProviderEnv::text(const char* name) const {
    const char* v = nullptr;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_ptr(name, &v, 0), OSSL_PARAM_END};
    if (!bulk_ || OSSL_PROVIDER_get_params(bulk_, p) != 1 || !v) return "";
    return v;
}

EVP_CIPHER* ProviderEnv::ours(const std::string& name) const {
    return libctx_ ? EVP_CIPHER_fetch(libctx_, name.c_str(), "provider=bulkcrypt") : nullptr;
}

EVP_CIPHER* ProviderEnv::theirs(const std::string& name) const {
    if (!libctx_) return nullptr;
    if (EVP_CIPHER* c = EVP_CIPHER_fetch(libctx_, name.c_str(), "provider=default")) return c;
    return EVP_CIPHER_fetch(libctx_, name.c_str(), "provider=legacy");
}

// bulkcrypt's path runs on the CPU unless BC_PROVIDER_TEST_DEVICE names another device
// ("cuda:0"), so that the same tests check a GPU.
ProviderEnv& bulkcrypt_path() {
    const char* dev = std::getenv("BC_PROVIDER_TEST_DEVICE");
    static ProviderEnv env(std::string("threshold = 0\ndevice = ") + (dev && *dev ? dev : "cpu"));
    return env;
}

ProviderEnv& default_settings() {
    static ProviderEnv env("");
    return env;
}

size_t threshold_of(EVP_CIPHER* ours) {
    size_t t = SIZE_MAX;
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    OSSL_PARAM p[] = {OSSL_PARAM_size_t("bulkcrypt-threshold", &t), OSSL_PARAM_END};
    if (!c || EVP_CipherInit_ex2(c, ours, nullptr, nullptr, 1, nullptr) != 1 || EVP_CIPHER_CTX_get_params(c, p) != 1)
        t = SIZE_MAX;
    EVP_CIPHER_CTX_free(c);
    return t;
}

Bytes random_bytes(size_t n, std::mt19937& rng) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<unsigned char>(rng());
    return b;
}

namespace {

// Splits n bytes into the pieces one message is fed in.
std::vector<size_t> pieces(size_t n, Feed feed, std::mt19937& rng, size_t min_first) {
    std::vector<size_t> v;
    if (feed == Feed::kWhole) {
        v.push_back(n);
        return v;
    }
    size_t pos = 0;
    while (pos < n) {
        // mostly short pieces, some empty, some long; sizes not multiples of any block
        const unsigned kind = rng() % 8;
        size_t piece = kind == 0 ? 0 : kind < 5 ? 1 + rng() % 40 : 1 + rng() % (n / 2 + 1);
        if (pos == 0 && n >= min_first) piece = std::max(piece, min_first);
        piece = std::min(piece, n - pos);
        v.push_back(piece);
        pos += piece;
    }
    return v;
}

}  // namespace

Outcome run_message(EVP_CIPHER* cipher, const Message& m, Feed feed, std::mt19937& rng, size_t min_first) {
    Outcome o;
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    const bool aead = EVP_CIPHER_get_flags(cipher) & EVP_CIPH_FLAG_AEAD_CIPHER;
    const bool xts = EVP_CIPHER_get_mode(cipher) == EVP_CIPH_XTS_MODE;
    const int enc = m.enc ? 1 : 0;
    const int taglen = static_cast<int>(m.tag.empty() ? 16 : m.tag.size());
    o.init_ok = c && EVP_CipherInit_ex2(c, cipher, nullptr, nullptr, enc, nullptr) == 1;
    if (o.init_ok && aead && m.iv.size() != static_cast<size_t>(EVP_CIPHER_get_iv_length(cipher)))
        o.init_ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(m.iv.size()), nullptr) > 0;
    // evp_test's order: the expected tag before the key and IV, unless it comes late
    if (o.init_ok && aead && !m.enc && !m.set_tag_late)
        o.init_ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, taglen, const_cast<unsigned char*>(m.tag.data())) > 0;
    if (o.init_ok && m.key.size() != static_cast<size_t>(EVP_CIPHER_get_key_length(cipher)))
        o.init_ok = EVP_CIPHER_CTX_set_key_length(c, static_cast<int>(m.key.size())) == 1;
    if (o.init_ok && !m.padding && EVP_CIPHER_get_block_size(cipher) > 1) o.init_ok = EVP_CIPHER_CTX_set_padding(c, 0) == 1;
    if (o.init_ok) {
        o.init_ok = EVP_CipherInit_ex2(c, nullptr, m.key.data(), m.iv.empty() ? nullptr : m.iv.data(), enc, nullptr) == 1;
    }
    int l = 0;
    o.update_ok = o.init_ok;
    size_t at = 0;
    for (size_t piece : pieces(m.aad.size(), feed, rng, 0)) {
        if (!o.update_ok || !aead) break;
        o.update_ok = EVP_CipherUpdate(c, nullptr, &l, m.aad.data() + at, static_cast<int>(piece)) == 1;
        at += piece;
    }
    o.out.assign(m.in.size() + 64, 0);
    size_t written = 0;
    at = 0;
    for (size_t piece : pieces(m.in.size(), xts ? Feed::kWhole : feed, rng, min_first)) {
        if (!o.update_ok) break;
        o.update_ok = EVP_CipherUpdate(c, o.out.data() + written, &l, m.in.data() + at, static_cast<int>(piece)) == 1;
        at += piece;
        written += static_cast<size_t>(l);
    }
    if (o.update_ok && aead && !m.enc && m.set_tag_late)
        o.update_ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, taglen, const_cast<unsigned char*>(m.tag.data())) > 0;
    o.final_ok = o.update_ok && EVP_CipherFinal_ex(c, o.out.data() + written, &l) == 1;
    if (o.final_ok) written += static_cast<size_t>(l);
    o.out.resize(written);
    if (o.final_ok && aead && m.enc) {
        o.tag.assign(static_cast<size_t>(taglen), 0);
        o.final_ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, taglen, o.tag.data()) > 0;
    }
    if (o.final_ok && EVP_CIPHER_CTX_get_iv_length(c) > 0) {
        o.next_iv.assign(static_cast<size_t>(EVP_CIPHER_CTX_get_iv_length(c)), 0);
        if (!EVP_CIPHER_CTX_get_updated_iv(c, o.next_iv.data(), o.next_iv.size())) o.next_iv.clear();
    }
    EVP_CIPHER_CTX_free(c);
    return o;
}

}  // namespace bcp
