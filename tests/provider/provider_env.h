// What the provider's tests share: a library context holding OpenSSL's default and legacy
// providers and bulkcrypt's, the way a user's openssl.cnf would (a generated config file,
// with the provider settings a test asks for), and one message driven through EVP.
#pragma once

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bcp {

using Bytes = std::vector<unsigned char>;

// The threshold the provider applies to a cipher (its context parameter
// "bulkcrypt-threshold"): messages whose first piece is shorter run on OpenSSL's cipher.
size_t threshold_of(EVP_CIPHER* ours);

class ProviderEnv {
public:
    // settings: lines of the provider's config section ("threshold = 0\ndevice = cpu").
    explicit ProviderEnv(const std::string& settings);
    ~ProviderEnv();
    ProviderEnv(const ProviderEnv&) = delete;
    ProviderEnv& operator=(const ProviderEnv&) = delete;

    OSSL_LIB_CTX* libctx() const { return libctx_; }
    bool loaded() const { return bulk_ != nullptr; }
    const std::string& error() const { return error_; }  // why loading failed
    uint64_t counter(const char* name) const;            // a provider parameter (uint64)
    std::string text(const char* name) const;            // a provider parameter (UTF-8)
    // A cipher of bulkcrypt's (provider=bulkcrypt) or of OpenSSL's (its default or legacy
    // provider); nullptr when the provider has no such cipher.
    EVP_CIPHER* ours(const std::string& name) const;
    EVP_CIPHER* theirs(const std::string& name) const;

private:
    OSSL_LIB_CTX* libctx_ = nullptr;
    OSSL_PROVIDER* bulk_ = nullptr;
    std::string error_, config_path_;
};

// The two settings every suite runs under: everything on bulkcrypt's own path (threshold
// 0, all cores), and the shipped default (OpenSSL's cipher below the threshold).
ProviderEnv& bulkcrypt_path();
ProviderEnv& default_settings();

// How a message's data is handed to EVP.
enum class Feed { kWhole, kRandomPieces };

struct Message {
    bool enc = true;
    Bytes key, iv, aad, in;
    Bytes tag;  // decryption: the tag to check; encryption: the tag's length (filled on return)
    bool set_tag_late = false;  // decryption: the tag given after the data, before final
    bool padding = true;        // ECB and CBC: EVP's PKCS#7 padding (vector files run without)
};

// What EVP did with one message.
struct Outcome {
    bool init_ok = false, update_ok = false, final_ok = false;
    Bytes out, tag;
    Bytes next_iv;  // EVP_CIPHER_CTX_get_updated_iv after final
    bool ok() const { return init_ok && update_ok && final_ok; }
};

// One message through EVP_CipherInit_ex2 / EVP_CipherUpdate / EVP_CipherFinal_ex. AAD first
// (random pieces when feeding in pieces); data whole or in random pieces (XTS: whole, one
// data unit an update); the first piece at least min_first bytes when the data is.
Outcome run_message(EVP_CIPHER* cipher, const Message& m, Feed feed, std::mt19937& rng, size_t min_first = 0);

Bytes random_bytes(size_t n, std::mt19937& rng);

}  // namespace bcp
