// libcrypto helpers shared by the CPU backend's paths (AES's own, and every block
// cipher's through cpu_block): recycled EVP contexts, int-sized updates, error
// text, and the size of the pieces a call is split into over the thread pool.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bc {

// what, followed by libcrypto's latest error (which is cleared).
std::string openssl_error(const char* what);

// EVP contexts are recycled per thread: creating one per call costs more than a
// small message's encryption. Released contexts are reset, which wipes their keys.
class EvpCtx {
public:
    EvpCtx();
    ~EvpCtx();
    EvpCtx(const EvpCtx&) = delete;
    EvpCtx& operator=(const EvpCtx&) = delete;
    EVP_CIPHER_CTX* get() const { return c_; }
    explicit operator bool() const { return c_ != nullptr; }

private:
    EVP_CIPHER_CTX* c_;
};

// EVP takes int lengths: feeds large pieces in steps. out may be nullptr (AAD).
bool evp_update(EVP_CIPHER_CTX* c, uint8_t* out, const uint8_t* in, size_t len);

// Piece size: enough pieces to balance the pool, large enough to amortise set-up;
// chunk (when nonzero) forces it. A multiple of granule.
size_t piece_size(size_t len, unsigned threads, size_t chunk, size_t granule);

}  // namespace bc
