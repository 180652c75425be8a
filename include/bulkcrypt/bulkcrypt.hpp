// bulkcrypt for C++: RAII ownership of the C API's handles, nothing more.
// Every call still returns a bc_status (errors are values; no exceptions), and
// the C calls remain available on .get() for anything not wrapped here.
#ifndef BULKCRYPT_BULKCRYPT_HPP
#define BULKCRYPT_BULKCRYPT_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"

namespace bulkcrypt {

struct ContextDeleter { void operator()(bc_context* c) const noexcept { bc_context_destroy(c); } };
struct KeyDeleter { void operator()(bc_key* k) const noexcept { bc_key_destroy(k); } };
struct StreamDeleter { void operator()(bc_stream* s) const noexcept { bc_stream_destroy(s); } };

using Context = std::unique_ptr<bc_context, ContextDeleter>;
using Key = std::unique_ptr<bc_key, KeyDeleter>;
using Stream = std::unique_ptr<bc_stream, StreamDeleter>;

inline bc_status make_context(Context* out, const char* device = "auto", const char* options = nullptr) {
    bc_context* c = nullptr;
    bc_status s = bc_context_create(device, options, &c);
    out->reset(c);
    return s;
}

// The key must not outlive the context it was made in.
inline bc_status make_key(Key* out, const Context& ctx, const std::string& algorithm, const uint8_t* key,
                          size_t key_len) {
    bc_key* k = nullptr;
    bc_status s = bc_key_create(ctx.get(), algorithm.c_str(), key, key_len, &k);
    out->reset(k);
    return s;
}

inline bc_status make_stream(Stream* out, const Key& key, bc_direction dir, const uint8_t* iv, size_t iv_len,
                             const bc_params* params = nullptr) {
    bc_stream* s = nullptr;
    bc_status st = bc_stream_create(key.get(), dir, iv, iv_len, params, &s);
    out->reset(s);
    return st;
}

// AEAD seal into a vector (ciphertext || tag), resized to what was written.
inline bc_status seal(const Key& key, const std::vector<uint8_t>& nonce, const std::vector<uint8_t>& aad,
                      const std::vector<uint8_t>& plaintext, std::vector<uint8_t>* out, size_t tag_len = 0) {
    size_t tag = tag_len ? tag_len : bc_tag_size(bc_key_algorithm(key.get()));
    out->resize(plaintext.size() + tag);
    size_t n = 0;
    bc_status s = bc_aead_seal(key.get(), nonce.data(), nonce.size(), aad.data(), aad.size(), plaintext.data(),
                               plaintext.size(), out->data(), out->size(), &n, tag_len, nullptr);
    out->resize(n);
    return s;
}

// AEAD open from ciphertext || tag; on failure *out is empty.
inline bc_status open(const Key& key, const std::vector<uint8_t>& nonce, const std::vector<uint8_t>& aad,
                      const std::vector<uint8_t>& sealed, std::vector<uint8_t>* out, size_t tag_len = 0) {
    out->resize(sealed.size());
    size_t n = 0;
    bc_status s = bc_aead_open(key.get(), nonce.data(), nonce.size(), aad.data(), aad.size(), sealed.data(),
                               sealed.size(), out->data(), out->size(), &n, tag_len, nullptr);
    out->resize(n);
    return s;
}

}  // namespace bulkcrypt

#endif  // BULKCRYPT_BULKCRYPT_HPP
