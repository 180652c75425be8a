// What a small call costs through a provider: `openssl speed -evp`'s loop, N times, with
// the cipher fetched from one provider. Run under callgrind twice (N1 and N2 calls) and
// the difference over N2 - N1 is the instructions of one call, process start and set-up
// cancelled (scripts/provider_instructions.sh). Timings of calls this small move ±10 %
// from run to run on a shared machine; instruction counts do not.
//   provider_calls PROVIDER_DIR PROVIDER CIPHER BYTES N
// PROVIDER: "default" (OpenSSL's default and legacy providers) or "bulkcrypt" (loaded from
// PROVIDER_DIR with the default provider beside it, its cipher fetched by provider=bulkcrypt).
// Each call as speed makes it: ECB, CBC, CTR and stream ciphers one EVP_EncryptUpdate on a
// context keyed once; AEADs a whole message (IV length, key and IV, 13 bytes of AAD, the
// data, final), as speed re-keys every message.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: provider_calls PROVIDER_DIR default|bulkcrypt CIPHER BYTES N\n");
        return 2;
    }
    const std::string provider = argv[2];
    const int bytes = std::atoi(argv[4]);
    const long calls = std::atol(argv[5]);
    OSSL_PROVIDER_set_default_search_path(nullptr, argv[1]);
    OSSL_PROVIDER* deflt = OSSL_PROVIDER_load(nullptr, "default");
    OSSL_PROVIDER* legacy = OSSL_PROVIDER_load(nullptr, "legacy");  // DES, Blowfish, CAST5, SEED
    OSSL_PROVIDER* ours = provider == "bulkcrypt" ? OSSL_PROVIDER_load(nullptr, "bulkcrypt") : nullptr;
    if (!deflt || (provider == "bulkcrypt" && !ours)) {
        std::fprintf(stderr, "provider_calls: cannot load the %s provider\n", provider.c_str());
        return 1;
    }
    const std::string query = provider == "bulkcrypt" ? "provider=bulkcrypt" : "provider!=bulkcrypt";
    EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, argv[3], query.c_str());
    if (!cipher || bytes <= 0 || calls <= 0) {
        std::fprintf(stderr, "provider_calls: no cipher %s from %s\n", argv[3], provider.c_str());
        return 1;
    }
    const bool aead = (EVP_CIPHER_get_flags(cipher) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    std::vector<unsigned char> key(EVP_CIPHER_get_key_length(cipher), 0x5a), iv(16, 0x3c), aad(13, 0x11);
    std::vector<unsigned char> buf(static_cast<size_t>(bytes) + 64, 0x77);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (!EVP_EncryptInit_ex2(ctx, cipher, key.data(), iv.data(), nullptr)) return 1;
    int outl = 0;
    for (long i = 0; i < calls; ++i) {
        if (!aead) {
            if (!EVP_EncryptUpdate(ctx, buf.data(), &outl, buf.data(), bytes)) return 1;
            continue;
        }
        if (!EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr) ||
            !EVP_CipherInit_ex(ctx, nullptr, nullptr, key.data(), iv.data(), -1) ||
            !EVP_EncryptUpdate(ctx, nullptr, &outl, aad.data(), static_cast<int>(aad.size())) ||
            !EVP_EncryptUpdate(ctx, buf.data(), &outl, buf.data(), bytes) || !EVP_EncryptFinal_ex(ctx, buf.data(), &outl))
            return 1;
    }
    std::printf("%s %s %d %ld %02x\n", provider.c_str(), argv[3], bytes, calls, buf[0]);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(cipher);
    if (ours) OSSL_PROVIDER_unload(ours);
    if (legacy) OSSL_PROVIDER_unload(legacy);
    OSSL_PROVIDER_unload(deflt);
    return 0;
}
