#include "backends/cpu/cpu_evp.h"

#include <openssl/err.h>

#include <algorithm>

namespace bc {
namespace {

struct FreeList {
    std::vector<EVP_CIPHER_CTX*> v;
    ~FreeList() {
        for (auto* c : v) EVP_CIPHER_CTX_free(c);
    }
};

std::vector<EVP_CIPHER_CTX*>& ctx_pool() {
    thread_local FreeList list;
    return list.v;
}

}  // namespace

std::string openssl_error(const char* what) {
    unsigned long e = ERR_get_error();
    char buf[256] = {0};
    if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return std::string(what) + (e ? std::string(": ") + buf : std::string());
}

EvpCtx::EvpCtx() {
    auto& free_list = ctx_pool();
    if (free_list.empty()) {
        c_ = EVP_CIPHER_CTX_new();
    } else {
        c_ = free_list.back();
        free_list.pop_back();
    }
}

EvpCtx::~EvpCtx() {
    if (!c_) return;
    EVP_CIPHER_CTX_reset(c_);
    auto& free_list = ctx_pool();
    if (free_list.size() < 4) free_list.push_back(c_);
    else EVP_CIPHER_CTX_free(c_);
}

bool evp_update(EVP_CIPHER_CTX* c, uint8_t* out, const uint8_t* in, size_t len) {
    constexpr size_t kStep = size_t(1) << 30;
    while (len > 0) {
        int n = static_cast<int>(std::min(len, kStep));
        int outl = 0;
        if (EVP_CipherUpdate(c, out, &outl, in, n) != 1) return false;
        if (out) out += n;
        in += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

size_t piece_size(size_t len, unsigned threads, size_t chunk, size_t granule) {
    constexpr size_t kMinPiece = 64 * 1024;
    size_t p = chunk                ? chunk
               : len <= kMinPiece  ? kMinPiece  // a small job: no division on its path
                                    : std::clamp<size_t>(len / (size_t(threads) * 4), kMinPiece, 4 << 20);
    p = std::max(granule, p / granule * granule);
    return p;
}

}  // namespace bc
