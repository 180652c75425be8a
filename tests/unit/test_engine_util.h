// Shared by the engine tests: wrapping any Backend into a bc_context, and the
// differential check of every algorithm of the catalogue against a reference
// context (the CPU backend), through the C API, for sizes that straddle chunk
// boundaries, in place and out of place.
#pragma once

#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "bulkcrypt/bulkcrypt.h"
#include "capi/capi_internal.h"
#include "catalog/catalog.h"
#include "engine/engine_backend.h"

namespace bc_test {

using Bytes = std::vector<uint8_t>;

inline Bytes rnd(size_t n) {
    Bytes v(n);
    if (n) RAND_bytes(v.data(), int(n));
    return v;
}

// A bc_context around a backend made here (the C API's object, built by hand).
struct WrappedCtx {
    bc_context* ctx = nullptr;
    WrappedCtx(std::unique_ptr<bc::Backend> b, const char* name) {
        ctx = new bc_context();
        ctx->device = name;
        ctx->backend = std::move(b);
    }
    ~WrappedCtx() { bc_context_destroy(ctx); }
    bc::Backend& backend() { return *ctx->backend; }
};

// A worker that hands every call to another backend (not aead_oneshot: such a worker
// splits AEADs into chunks); tests override what they change.
class ForwardingBackend : public bc::Backend {
public:
    explicit ForwardingBackend(std::unique_ptr<bc::Backend> b) : b_(std::move(b)) {}
    const char* name() const override { return b_->name(); }
    std::string device_name() const override { return b_->device_name(); }
    bool supports(const bc::Algorithm& a) const override { return b_->supports(a); }
    bool supports_memory(bc_memory m) const override { return b_->supports_memory(m); }
    bool is_cpu() const override { return b_->is_cpu(); }
    bc::Status prepare_key(const bc::KeyMaterial& k, std::unique_ptr<bc::BackendKey>* out) override {
        return b_->prepare_key(k, out);
    }
    bc::Status cipher(const bc::KeyMaterial& k, const bc::BackendKey& bk, const bc::CipherOp& op) override {
        return b_->cipher(k, bk, op);
    }
    bc::Status aead_chunk(const bc::KeyMaterial& k, const bc::BackendKey& bk, bc::AeadChunkOp& op) override {
        return b_->aead_chunk(k, bk, op);
    }
    bc::Status mac(const bc::KeyMaterial& k, const bc::BackendKey& bk, bc::MacOp& op) override {
        return b_->mac(k, bk, op);
    }
    bc::Status wipe(void* p, size_t n, bc_memory m, void* s) override { return b_->wipe(p, n, m, s); }

protected:
    std::unique_ptr<bc::Backend> b_;
};

struct CKey {
    bc_key* k = nullptr;
    CKey(bc_context* ctx, const char* alg, const Bytes& key) {
        if (std::strcmp(alg, "noop") == 0) bc::allow_benchmark_algorithms(true);  // the engine tests' baseline
        EXPECT_EQ(BC_OK, bc_key_create(ctx, alg, key.empty() ? nullptr : key.data(), key.size(), &k))
            << alg << ": " << bc_last_error();
    }
    ~CKey() { bc_key_destroy(k); }
};

// The lengths to try around chunk size c (every one of them crosses or touches a boundary).
inline std::vector<size_t> straddling_sizes(size_t c) {
    return {0, 1, 15, 16, 17, 63, 64, 65, c - 1, c, c + 1, 2 * c + 16, 3 * c - 15, 5 * c + 77, 17 * c + 3};
}

struct DiffOptions {
    size_t chunk = 4096;            // the engine's chunk, for the sizes
    bool in_place = true;           // also run in place
    std::vector<size_t> extra_sizes;
    const char* only = nullptr;     // one algorithm only
};

// Raw mode: the test context's output equals the reference's; decryption inverts it.
inline void check_raw(bc_context* ref, bc_context* test, const bc::Algorithm& a, size_t len, uint64_t data_unit,
                      uint64_t offset, bool in_place) {
    SCOPED_TRACE(std::string(a.name) + " len=" + std::to_string(len) + " unit=" + std::to_string(data_unit) +
                 " offset=" + std::to_string(offset) + (in_place ? " in place" : ""));
    Bytes key = rnd(a.key_size), iv = rnd(a.iv_size), pt = rnd(len);
    if (a.mode == bc::Mode::Stream && a.iv_size == 16) std::memset(iv.data(), 0, 4);  // keep 32-bit counters far from wrapping
    if (a.kind == BC_KIND_XTS && key.size() >= 32) key[key.size() / 2] ^= 1;           // distinct halves
    CKey kr(ref, a.name, key), kt(test, a.name, key);
    if (!kr.k || !kt.k) return;
    bc_params p = {};
    p.data_unit_size = data_unit;
    p.offset = offset;
    Bytes want(len + 16), got(len + 16), back(len + 16);
    size_t nw = 0, ng = 0, nb = 0;
    const bc_status sr = bc_encrypt(kr.k, iv.data(), iv.size(), pt.data(), len, want.data(), want.size(), &nw, &p);
    if (in_place) {
        std::memcpy(got.data(), pt.data(), len);
        const bc_status st = bc_encrypt(kt.k, iv.data(), iv.size(), got.data(), len, got.data(), got.size(), &ng, &p);
        ASSERT_EQ(sr, st) << bc_last_error();
    } else {
        const bc_status st = bc_encrypt(kt.k, iv.data(), iv.size(), pt.data(), len, got.data(), got.size(), &ng, &p);
        ASSERT_EQ(sr, st) << bc_last_error();
    }
    if (sr != BC_OK) return;
    ASSERT_EQ(nw, ng);
    ASSERT_EQ(0, std::memcmp(want.data(), got.data(), nw)) << "ciphertext differs from the reference";
    ASSERT_EQ(BC_OK, bc_decrypt(kt.k, iv.data(), iv.size(), got.data(), ng, back.data(), back.size(), &nb, &p))
        << bc_last_error();
    ASSERT_EQ(len, nb);
    ASSERT_EQ(0, std::memcmp(pt.data(), back.data(), len)) << "decryption does not invert";
}

inline void check_aead(bc_context* ref, bc_context* test, const bc::Algorithm& a, size_t len, size_t aad_len,
                       bool in_place) {
    SCOPED_TRACE(std::string(a.name) + " len=" + std::to_string(len) + " aad=" + std::to_string(aad_len) +
                 (in_place ? " in place" : ""));
    Bytes key = rnd(a.key_size), nonce = rnd(a.iv_size), aad = rnd(aad_len), pt = rnd(len);
    CKey kr(ref, a.name, key), kt(test, a.name, key);
    if (!kr.k || !kt.k) return;
    Bytes want(len + 16), got(len + 16), back(len + 16);
    size_t nw = 0, ng = 0, nb = 0;
    ASSERT_EQ(BC_OK, bc_aead_seal(kr.k, nonce.data(), nonce.size(), aad.data(), aad_len, pt.data(), len, want.data(),
                                  want.size(), &nw, 0, nullptr))
        << bc_last_error();
    if (in_place) {
        std::memcpy(got.data(), pt.data(), len);
        ASSERT_EQ(BC_OK, bc_aead_seal(kt.k, nonce.data(), nonce.size(), aad.data(), aad_len, got.data(), len,
                                      got.data(), got.size(), &ng, 0, nullptr))
            << bc_last_error();
    } else {
        ASSERT_EQ(BC_OK, bc_aead_seal(kt.k, nonce.data(), nonce.size(), aad.data(), aad_len, pt.data(), len,
                                      got.data(), got.size(), &ng, 0, nullptr))
            << bc_last_error();
    }
    ASSERT_EQ(nw, ng);
    ASSERT_EQ(0, std::memcmp(want.data(), got.data(), nw)) << "ciphertext or tag differs from the reference";
    ASSERT_EQ(BC_OK, bc_aead_open(kt.k, nonce.data(), nonce.size(), aad.data(), aad_len, got.data(), ng, back.data(),
                                  back.size(), &nb, 0, nullptr))
        << bc_last_error();
    ASSERT_EQ(len, nb);
    ASSERT_EQ(0, std::memcmp(pt.data(), back.data(), len));
    got[ng - 1] ^= 0x40;
    ASSERT_EQ(BC_ERR_AUTH_FAILED, bc_aead_open(kt.k, nonce.data(), nonce.size(), aad.data(), aad_len, got.data(), ng,
                                               back.data(), back.size(), &nb, 0, nullptr));
}

// Every algorithm both contexts take, every straddling size. Returns how many
// algorithms were compared (those the test context lacks are listed in skipped).
inline size_t diff_all(bc_context* ref, bc_context* test, const DiffOptions& o, std::string* skipped = nullptr) {
    size_t compared = 0;
    std::vector<size_t> sizes = straddling_sizes(o.chunk);
    sizes.insert(sizes.end(), o.extra_sizes.begin(), o.extra_sizes.end());
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i) {
        if (o.only && std::strcmp(o.only, a->name) != 0) continue;
        if (!ref->backend->supports(*a) || !test->backend->supports(*a)) {
            if (skipped) *skipped += std::string(a->name) + " ";
            continue;
        }
        ++compared;
        for (size_t len : sizes) {
            switch (a->kind) {
            case BC_KIND_BLOCK_MODE:
                check_raw(ref, test, *a, len - len % 16, 0, 0, false);
                if (o.in_place) check_raw(ref, test, *a, len - len % 16, 0, 0, true);
                break;
            case BC_KIND_STREAM:
                check_raw(ref, test, *a, len, 0, 0, false);
                if (o.in_place) check_raw(ref, test, *a, len, 0, 0, true);
                if (len > 64) check_raw(ref, test, *a, len, 0, 37, false);
                break;
            case BC_KIND_XTS: {
                if (len < 16) break;
                if (len <= (size_t(16) << 20)) check_raw(ref, test, *a, len, 0, 0, false);
                for (uint64_t unit : {uint64_t(512), uint64_t(528), uint64_t(520)}) {
                    size_t l = len;
                    if (l % unit && l % unit < 16) l += 16;
                    check_raw(ref, test, *a, l, unit, 0, false);
                    if (o.in_place) check_raw(ref, test, *a, l, unit, 0, true);
                }
                break;
            }
            case BC_KIND_AEAD:
                check_aead(ref, test, *a, len, 0, false);
                if (o.in_place) check_aead(ref, test, *a, len, 13, true);
                if (len == o.chunk + 1) check_aead(ref, test, *a, len, 3 * o.chunk + 5, false);  // split AAD
                break;
            default:
                break;
            }
            if (::testing::Test::HasFatalFailure()) return compared;
        }
    }
    return compared;
}

}  // namespace bc_test
