// The C++ wrapper of an installed bulkcrypt (bulkcrypt.hpp), on the CPU: an
// AES-256-GCM seal and open, and a tampered message refused.
#include <cstdio>
#include <vector>

#include <bulkcrypt/bulkcrypt.hpp>

int main() {
    bulkcrypt::Context ctx;
    bulkcrypt::Key key;
    std::vector<uint8_t> k(32), nonce(12, 0x5a), aad(20, 0xa5), message(70001);
    for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<uint8_t>(3 * i + 1);
    for (size_t i = 0; i < message.size(); ++i) message[i] = static_cast<uint8_t>(i % 251);

    if (bulkcrypt::make_context(&ctx, "cpu") != BC_OK ||
        bulkcrypt::make_key(&key, ctx, "aes-256-gcm", k.data(), k.size()) != BC_OK) {
        std::fprintf(stderr, "consumer_cxx: no context or key: %s\n", bc_last_error());
        return 1;
    }
    std::vector<uint8_t> sealed, opened;
    if (bulkcrypt::seal(key, nonce, aad, message, &sealed) != BC_OK || sealed.size() != message.size() + 16 ||
        bulkcrypt::open(key, nonce, aad, sealed, &opened) != BC_OK || opened != message) {
        std::fprintf(stderr, "consumer_cxx: aes-256-gcm round trip failed: %s\n", bc_last_error());
        return 1;
    }
    sealed[sealed.size() / 2] ^= 1;
    if (bulkcrypt::open(key, nonce, aad, sealed, &opened) != BC_ERR_AUTH_FAILED || !opened.empty()) {
        std::fprintf(stderr, "consumer_cxx: a tampered message was not refused\n");
        return 1;
    }
    std::printf("consumer_cxx: aes-256-gcm seal, open and a refused forgery through bulkcrypt.hpp\n");
    return 0;
}
