// The C API on the CPU backend, both implementations (libcrypto and portable),
// against OpenSSL's EVP as the oracle: every AES mode, one shot and streaming,
// and the statuses of bad input. (The vector-driven conformance suite lives in
// tests/conformance.)
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "capi/capi_raw.h"

namespace {

using Bytes = std::vector<uint8_t>;

Bytes rnd(size_t n) {
    Bytes v(n);
    if (n) RAND_bytes(v.data(), static_cast<int>(n));
    return v;
}

// OpenSSL one shot for a raw mode, no padding.
Bytes evp_crypt(const std::string& name, bool enc, const Bytes& key, const Bytes& iv, const Bytes& in) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name.c_str(), nullptr);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Bytes out(in.size() + 32);
    int l1 = 0, l2 = 0;
    EXPECT_EQ(1, EVP_CipherInit_ex2(ctx, c, key.data(), iv.empty() ? nullptr : iv.data(), enc, nullptr));
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    EXPECT_EQ(1, EVP_CipherUpdate(ctx, out.data(), &l1, in.data(), static_cast<int>(in.size())));
    EXPECT_EQ(1, EVP_CipherFinal_ex(ctx, out.data() + l1, &l2));
    out.resize(l1 + l2);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    return out;
}

// OpenSSL's AES-GCM seal with a fresh context: ciphertext || 16-byte tag.
Bytes evp_gcm_seal(const char* alg, const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& pt) {
    EVP_CIPHER* ec = EVP_CIPHER_fetch(nullptr, alg, nullptr);
    EVP_CIPHER_CTX* e = EVP_CIPHER_CTX_new();
    const size_t len = pt.size();
    Bytes want(len + 16);
    int l = 0;
    EVP_EncryptInit_ex2(e, ec, nullptr, nullptr, nullptr);
    EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(nonce.size()), nullptr);
    EVP_EncryptInit_ex2(e, nullptr, key.data(), nonce.data(), nullptr);
    if (!aad.empty()) EVP_EncryptUpdate(e, nullptr, &l, aad.data(), static_cast<int>(aad.size()));
    if (len) EVP_EncryptUpdate(e, want.data(), &l, pt.data(), static_cast<int>(len));
    EVP_EncryptFinal_ex(e, want.data() + len, &l);
    EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_GET_TAG, 16, want.data() + len);
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_free(ec);
    return want;
}

struct Ctx {
    bc_context* ctx = nullptr;
    explicit Ctx(const char* opts) { EXPECT_EQ(BC_OK, bc_context_create("cpu", opts, &ctx)) << bc_last_error(); }
    ~Ctx() { bc_context_destroy(ctx); }
};

struct Key {
    bc_key* k = nullptr;
    Key(bc_context* ctx, const char* alg, const Bytes& key) {
        EXPECT_EQ(BC_OK, bc_key_create(ctx, alg, key.data(), key.size(), &k)) << bc_last_error();
    }
    ~Key() { bc_key_destroy(k); }
};

class CpuImpl : public ::testing::TestWithParam<const char*> {};

const size_t kLengths[] = {16, 32, 48, 256, 4080, 4096, 65536 + 16, 3 * 1024 * 1024 + 48};

TEST_P(CpuImpl, EcbCbcMatchOpenSsl) {
    Ctx c(GetParam());
    for (const char* alg : {"aes-128-ecb", "aes-192-cbc", "aes-256-cbc", "aes-256-ecb"}) {
        for (size_t len : kLengths) {
            bc_algorithm_info info;
            ASSERT_EQ(BC_OK, bc_algorithm_query(alg, &info));
            Bytes key = rnd(info.key_size), iv = rnd(info.iv_size), pt = rnd(len);
            Key k(c.ctx, alg, key);
            Bytes ct(len), back(len);
            size_t n = 0;
            ASSERT_EQ(BC_OK, bc_encrypt(k.k, iv.data(), iv.size(), pt.data(), len, ct.data(), ct.size(), &n, nullptr));
            EXPECT_EQ(ct, evp_crypt(alg, true, key, iv, pt)) << alg << " " << len;
            ASSERT_EQ(BC_OK, bc_decrypt(k.k, iv.data(), iv.size(), ct.data(), len, back.data(), back.size(), &n, nullptr));
            EXPECT_EQ(back, pt) << alg << " " << len;
            // In place.
            Bytes buf = ct;
            ASSERT_EQ(BC_OK, bc_decrypt(k.k, iv.data(), iv.size(), buf.data(), len, buf.data(), buf.size(), &n, nullptr));
            EXPECT_EQ(buf, pt) << alg << " in place " << len;
        }
    }
}

TEST_P(CpuImpl, Pkcs7PaddingRoundTripsAndRejectsBadPadding) {
    Ctx c(GetParam());
    Bytes key = rnd(16), iv = rnd(16);
    Key k(c.ctx, "aes-128-cbc", key);
    bc_params p{};
    p.flags = BC_FLAG_PAD_PKCS7;
    for (size_t len : {0, 1, 15, 16, 17, 100}) {
        Bytes pt = rnd(len), ct(len + 16), back(len + 16);
        size_t n = 0, m = 0;
        ASSERT_EQ(BC_OK, bc_encrypt(k.k, iv.data(), 16, pt.data(), len, ct.data(), ct.size(), &n, &p)) << bc_last_error();
        EXPECT_EQ(n, (len / 16 + 1) * 16);
        ASSERT_EQ(BC_OK, bc_decrypt(k.k, iv.data(), 16, ct.data(), n, back.data(), back.size(), &m, &p));
        EXPECT_EQ(Bytes(back.begin(), back.begin() + m), pt);
        // Flip the pad byte itself through CBC's XOR (the IV when there is one block):
        // p ^ 0x5a > 16 for every valid p, so this padding is always malformed.
        Bytes bad_iv = iv;
        if (n == 16) bad_iv[15] ^= 0x5a;
        else ct[n - 17] ^= 0x5a;
        Bytes poisoned(n, 0xee);
        EXPECT_EQ(BC_ERR_BAD_PADDING, bc_decrypt(k.k, bad_iv.data(), 16, ct.data(), n, poisoned.data(), poisoned.size(), &m, &p));
        EXPECT_EQ(m, 0u);
        EXPECT_EQ(poisoned, Bytes(n, 0)) << "the output is wiped after bad padding";
    }
}

TEST_P(CpuImpl, CtrAnyOffsetAndCarry) {
    Ctx c(GetParam());
    Bytes key = rnd(32), iv = rnd(16);
    // A low 64-bit word about to carry into the high word.
    for (int i = 8; i < 16; ++i) iv[i] = 0xff;
    iv[15] = 0xfd;
    Key k(c.ctx, "aes-256-ctr", key);
    Bytes pt = rnd(100000), ct(pt.size());
    size_t n = 0;
    ASSERT_EQ(BC_OK, bc_encrypt(k.k, iv.data(), 16, pt.data(), pt.size(), ct.data(), ct.size(), &n, nullptr));
    EXPECT_EQ(ct, evp_crypt("aes-256-ctr", true, key, iv, pt));
    for (uint64_t off : {1ull, 15ull, 16ull, 17ull, 4097ull}) {
        bc_params p{};
        p.offset = off;
        Bytes part(pt.size() - off);
        ASSERT_EQ(BC_OK, bc_encrypt(k.k, iv.data(), 16, pt.data() + off, part.size(), part.data(), part.size(), &n, &p));
        EXPECT_TRUE(std::equal(part.begin(), part.end(), ct.begin() + off)) << "offset " << off;
    }
}

TEST_P(CpuImpl, XtsDataUnitsMatchOpenSslPerUnit) {
    Ctx c(GetParam());
    for (const char* alg : {"aes-128-xts", "aes-256-xts"}) {
        bc_algorithm_info info;
        ASSERT_EQ(BC_OK, bc_algorithm_query(alg, &info));
        Bytes key = rnd(info.key_size), tweak = rnd(16);
        Key k(c.ctx, alg, key);
        for (size_t unit : {512, 4096}) {
            for (size_t len : {unit, 7 * unit, 5 * unit + 100}) {
                Bytes pt = rnd(len), ct(len);
                bc_params p{};
                p.data_unit_size = unit;
                size_t n = 0;
                ASSERT_EQ(BC_OK, bc_encrypt(k.k, tweak.data(), 16, pt.data(), len, ct.data(), len, &n, &p)) << bc_last_error();
                Bytes t = tweak;
                for (size_t off = 0, u = 0; off < len; off += unit, ++u) {
                    Bytes piece(pt.begin() + off, pt.begin() + std::min(len, off + unit));
                    Bytes want = evp_crypt(alg, true, key, t, piece);
                    EXPECT_TRUE(std::equal(want.begin(), want.end(), ct.begin() + off)) << alg << " unit " << u;
                    for (int i = 0; i < 16 && ++t[i] == 0; ++i) {}  // 128-bit little-endian increment
                }
                Bytes back(len);
                ASSERT_EQ(BC_OK, bc_decrypt(k.k, tweak.data(), 16, ct.data(), len, back.data(), len, &n, &p));
                EXPECT_EQ(back, pt);
            }
        }
        // Whole input one data unit, with ciphertext stealing.
        for (size_t len : {16, 17, 31, 33, 1000}) {
            Bytes pt = rnd(len), ct(len);
            size_t n = 0;
            ASSERT_EQ(BC_OK, bc_encrypt(k.k, tweak.data(), 16, pt.data(), len, ct.data(), len, &n, nullptr));
            EXPECT_EQ(ct, evp_crypt(alg, true, key, tweak, pt)) << alg << " " << len;
        }
    }
}

TEST_P(CpuImpl, GcmMatchesOpenSslAndRejectsTampering) {
    Ctx c(GetParam());
    std::mt19937 rng(3);
    for (int trial = 0; trial < 40; ++trial) {
        Bytes key = rnd(16 + 8 * (trial % 3));
        const char* alg = key.size() == 16 ? "aes-128-gcm" : key.size() == 24 ? "aes-192-gcm" : "aes-256-gcm";
        size_t len = trial < 35 ? rng() % 2000 : 3 * 1024 * 1024 + rng() % 100;
        Bytes nonce = rnd(trial % 5 == 0 ? 1 + rng() % 30 : 12), aad = rnd(rng() % 50), pt = rnd(len);
        Key k(c.ctx, alg, key);
        const Bytes want = evp_gcm_seal(alg, key, nonce, aad, pt);

        Bytes ct(len + 16);
        size_t n = 0;
        ASSERT_EQ(BC_OK, bc_aead_seal(k.k, nonce.data(), nonce.size(), aad.data(), aad.size(), pt.data(), len,
                                      ct.data(), ct.size(), &n, 0, nullptr)) << bc_last_error();
        ASSERT_EQ(n, len + 16);
        EXPECT_EQ(ct, want) << "trial " << trial << " len " << len;
        Bytes back(len);
        ASSERT_EQ(BC_OK, bc_aead_open(k.k, nonce.data(), nonce.size(), aad.data(), aad.size(), ct.data(), n,
                                      back.data(), back.size(), &n, 0, nullptr));
        EXPECT_EQ(back, pt);
        ct[rng() % ct.size()] ^= 1;
        Bytes poisoned(len, 0xee);
        EXPECT_EQ(BC_ERR_AUTH_FAILED, bc_aead_open(k.k, nonce.data(), nonce.size(), aad.data(), aad.size(), ct.data(),
                                                   ct.size(), poisoned.data(), poisoned.size(), &n, 0, nullptr));
        EXPECT_EQ(poisoned, Bytes(len, 0)) << "no plaintext may remain after a failed open";
    }
}

// One key, nonces of changing lengths: a keyed context reused from the key's pool
// must not keep the previous message's IV length (12-byte nonces skip setting it),
// nor after a refused open.
TEST_P(CpuImpl, GcmKeyReusedAcrossNonceLengths) {
    Ctx c(GetParam());
    const Bytes key = rnd(32), aad = rnd(20), pt = rnd(4096);
    Key k(c.ctx, "aes-256-gcm", key);
    for (size_t nonce_len : {12, 16, 12, 1, 12, 8, 60, 12, 13, 12}) {
        SCOPED_TRACE("nonce " + std::to_string(nonce_len));
        const Bytes nonce = rnd(nonce_len);
        const Bytes want = evp_gcm_seal("aes-256-gcm", key, nonce, aad, pt);
        Bytes ct(pt.size() + 16), back(pt.size());
        size_t n = 0;
        ASSERT_EQ(BC_OK, bc_aead_seal(k.k, nonce.data(), nonce.size(), aad.data(), aad.size(), pt.data(), pt.size(),
                                      ct.data(), ct.size(), &n, 0, nullptr)) << bc_last_error();
        EXPECT_EQ(ct, want);
        ct[7] ^= 1;
        EXPECT_EQ(BC_ERR_AUTH_FAILED, bc_aead_open(k.k, nonce.data(), nonce.size(), aad.data(), aad.size(), ct.data(),
                                                   ct.size(), back.data(), back.size(), &n, 0, nullptr));
        ct[7] ^= 1;
        ASSERT_EQ(BC_OK, bc_aead_open(k.k, nonce.data(), nonce.size(), aad.data(), aad.size(), ct.data(), ct.size(),
                                      back.data(), back.size(), &n, 0, nullptr)) << bc_last_error();
        EXPECT_EQ(back, pt);
    }
}

// Streaming in random pieces gives the one-shot result, for every mode.
TEST_P(CpuImpl, StreamingEqualsOneShot) {
    Ctx c(GetParam());
    std::mt19937 rng(11);
    struct Case { const char* alg; uint32_t flags; uint64_t unit; };
    for (Case cs : {Case{"aes-128-ctr", 0, 0}, Case{"aes-256-cbc", 0, 0}, Case{"aes-128-cbc", BC_FLAG_PAD_PKCS7, 0},
                    Case{"aes-128-ecb", BC_FLAG_PAD_PKCS7, 0}, Case{"aes-256-xts", 0, 512}, Case{"aes-128-gcm", 0, 0},
                    Case{"aes-256-gcm", 0, 0}}) {
        bc_algorithm_info info;
        ASSERT_EQ(BC_OK, bc_algorithm_query(cs.alg, &info));
        for (int dir = 0; dir < 2; ++dir) {
            Bytes key = rnd(info.key_size), iv = rnd(info.iv_size);
            Key k(c.ctx, cs.alg, key);
            size_t len = info.kind == BC_KIND_BLOCK_MODE && !cs.flags ? 16 * (rng() % 500)
                       : info.kind == BC_KIND_XTS ? 512 * (1 + rng() % 20) + rng() % 500 + 16
                       : rng() % 9000;
            bc_params p{};
            p.flags = cs.flags;
            p.data_unit_size = cs.unit;
            Bytes in = rnd(len), want(len + 16), tag(16);
            size_t want_len = 0;
            const bool aead = info.kind == BC_KIND_AEAD;
            if (aead && dir == 1) {  // make a real ciphertext to decrypt
                Bytes pt = in;
                ASSERT_EQ(BC_OK, bc_aead_seal_detached(k.k, iv.data(), iv.size(), nullptr, 0, pt.data(), len, in.data(), tag.data(), 16, nullptr));
            }
            if (!aead && dir == 1 && cs.flags) {
                Bytes pt = in, ct(len + 16);
                size_t m = 0;
                ASSERT_EQ(BC_OK, bc_encrypt(k.k, iv.data(), iv.size(), pt.data(), len, ct.data(), ct.size(), &m, &p));
                in.assign(ct.begin(), ct.begin() + m);
                len = m;
                want.resize(len + 16);
            }
            if (aead) {
                Bytes t2(16);
                bc_status st = dir == 0 ? bc_aead_seal_detached(k.k, iv.data(), iv.size(), nullptr, 0, in.data(), len, want.data(), t2.data(), 16, nullptr)
                                        : bc_aead_open_detached(k.k, iv.data(), iv.size(), nullptr, 0, in.data(), len, tag.data(), 16, want.data(), nullptr);
                ASSERT_EQ(BC_OK, st) << bc_last_error();
                want_len = len;
                if (dir == 0) tag = t2;
            } else {
                bc_status st = dir == 0 ? bc_encrypt(k.k, iv.data(), iv.size(), in.data(), len, want.data(), want.size(), &want_len, &p)
                                        : bc_decrypt(k.k, iv.data(), iv.size(), in.data(), len, want.data(), want.size(), &want_len, &p);
                ASSERT_EQ(BC_OK, st) << cs.alg << " " << bc_last_error();
            }
            want.resize(want_len);

            bc_stream* s = nullptr;
            ASSERT_EQ(BC_OK, bc_stream_create(k.k, dir == 0 ? BC_ENCRYPT : BC_DECRYPT, iv.data(), iv.size(), &p, &s)) << bc_last_error();
            Bytes got;
            size_t pos = 0;
            while (pos < len) {
                size_t piece = std::min<size_t>(len - pos, rng() % 1500);
                Bytes out(piece + 4096 + 64);
                size_t n = 0;
                ASSERT_EQ(BC_OK, bc_stream_update(s, in.data() + pos, piece, out.data(), out.size(), &n)) << cs.alg << " " << bc_last_error();
                got.insert(got.end(), out.begin(), out.begin() + n);
                pos += piece;
            }
            if (aead && dir == 1) ASSERT_EQ(BC_OK, bc_stream_set_tag(s, tag.data(), 16));
            Bytes out(4096 + 64);
            size_t n = 0;
            ASSERT_EQ(BC_OK, bc_stream_final(s, out.data(), out.size(), &n)) << cs.alg << " " << bc_last_error();
            got.insert(got.end(), out.begin(), out.begin() + n);
            if (aead && dir == 0) {
                Bytes t(16);
                ASSERT_EQ(BC_OK, bc_stream_get_tag(s, t.data(), 16));
                EXPECT_EQ(t, tag) << cs.alg;
            }
            bc_stream_destroy(s);
            EXPECT_EQ(got, want) << cs.alg << " dir " << dir << " len " << len;
        }
    }
}

// CTR, stream ciphers and AEADs give every byte back at the update that brings it (an
// OpenSSL provider's contract for ciphers of block size 1): each update's count equals
// its input, final writes nothing, and the bytes equal the one-shot call's, for pieces
// of 0 to 200 bytes (across GCM's 16-byte and the ChaCha20 AEADs' 64-byte MAC granules),
// in place too. A changed tag still fails at final.
TEST_P(CpuImpl, StreamingGivesEveryByteAtOnce) {
    Ctx c(GetParam());
    std::mt19937 rng(31);
    auto random_bytes = [&rng](size_t n) {
        Bytes b(n);
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        return b;
    };
    for (const char* alg : {"aes-256-gcm", "chacha20-poly1305", "xchacha20-poly1305", "aes-128-ctr", "chacha20"}) {
        bc_algorithm_info info;
        ASSERT_EQ(BC_OK, bc_algorithm_query(alg, &info));
        const bool aead = info.kind == BC_KIND_AEAD;
        Key k(c.ctx, alg, random_bytes(info.key_size));
        for (size_t len : {size_t(1), size_t(15), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(70000)})
            for (int dir = 0; dir < 2; ++dir)
                for (int in_place = 0; in_place < 2; ++in_place) {
                    const Bytes iv = random_bytes(info.iv_size);
                    Bytes in = random_bytes(len);
                    Bytes want(len), tag(16);
                    size_t wl = 0;
                    if (aead) {
                        ASSERT_EQ(BC_OK, bc_aead_seal_detached(k.k, iv.data(), iv.size(), nullptr, 0, in.data(), len,
                                                               want.data(), tag.data(), 16, nullptr));
                        if (dir == 1) std::swap(in, want);  // open what was sealed: the plaintext comes back
                    } else {
                        ASSERT_EQ(BC_OK, bc_encrypt(k.k, iv.data(), iv.size(), in.data(), len, want.data(), len, &wl, nullptr));
                    }
                    for (int bad = 0; bad < (aead && dir == 1 ? 2 : 1); ++bad) {
                        bc_stream* s = nullptr;
                        ASSERT_EQ(BC_OK, bc_stream_create(k.k, dir == 0 ? BC_ENCRYPT : BC_DECRYPT, iv.data(), iv.size(),
                                                          nullptr, &s));
                        Bytes buf = in, got(len + 1, 0xA5);
                        size_t pos = 0;
                        while (pos < len) {
                            const size_t piece = std::min<size_t>(len - pos, rng() % 201);
                            size_t n = 99;
                            uint8_t* dst = in_place ? buf.data() + pos : got.data() + pos;
                            ASSERT_EQ(BC_OK, bc_stream_update(s, buf.data() + pos, piece, dst, piece, &n))
                                << alg << " " << bc_last_error();
                            ASSERT_EQ(piece, n) << alg << " len " << len;
                            pos += piece;
                        }
                        if (aead && dir == 1) {
                            Bytes t = tag;
                            t[0] ^= uint8_t(bad);
                            ASSERT_EQ(BC_OK, bc_stream_set_tag(s, t.data(), 16));
                        }
                        size_t n = 99;
                        const bc_status fin = bc_stream_final(s, nullptr, 0, &n);
                        EXPECT_EQ(bad ? BC_ERR_AUTH_FAILED : BC_OK, fin) << alg << " " << bc_last_error();
                        EXPECT_EQ(0u, n);
                        if (aead && dir == 0) {
                            Bytes t(16);
                            ASSERT_EQ(BC_OK, bc_stream_get_tag(s, t.data(), 16));
                            EXPECT_EQ(tag, t) << alg << " len " << len;
                        }
                        bc_stream_destroy(s);
                        if (in_place) std::memcpy(got.data(), buf.data(), len);
                        got.resize(len);
                        EXPECT_EQ(want, got) << alg << " len " << len << " dir " << dir << " in place " << in_place;
                    }
                }
    }
}

INSTANTIATE_TEST_SUITE_P(Both, CpuImpl, ::testing::Values("cpu.impl=evp", "cpu.impl=portable,threads=3"),
                         [](const auto& info) { return std::string(info.index == 0 ? "libcrypto" : "portable"); });

// ---- bad input: each a distinct status, nothing written -----------------------------

TEST(CapiBadInput, DistinctStatuses) {
    Ctx c(nullptr);
    bc_key* k = nullptr;
    Bytes key = rnd(16), buf(64), out(64);
    size_t n = 0;
    EXPECT_EQ(BC_ERR_UNKNOWN_ALGORITHM, bc_key_create(c.ctx, "aes-128-nope", key.data(), 16, &k));
    EXPECT_EQ(BC_ERR_KEY_SIZE, bc_key_create(c.ctx, "aes-256-ctr", key.data(), 16, &k));
    EXPECT_EQ(BC_ERR_NULL_POINTER, bc_key_create(c.ctx, "aes-128-ctr", key.data(), 16, nullptr));
    EXPECT_NE(std::string(bc_last_error()), "");
    EXPECT_EQ(BC_ERR_BAD_DEVICE, bc_context_create("gpu0", nullptr, nullptr) == BC_ERR_NULL_POINTER ? BC_ERR_BAD_DEVICE : BC_OK);
    bc_context* other = nullptr;
    EXPECT_EQ(BC_ERR_BAD_DEVICE, bc_context_create("gpu0", nullptr, &other));
    EXPECT_EQ(BC_ERR_BAD_OPTION, bc_context_create("cpu", "thread=4", &other));

    Key ctr(c.ctx, "aes-128-ctr", key);
    Bytes iv(16, 0xff);
    EXPECT_EQ(BC_ERR_IV_SIZE, bc_encrypt(ctr.k, iv.data(), 12, buf.data(), 64, out.data(), 64, &n, nullptr));
    EXPECT_EQ(BC_ERR_COUNTER_OVERFLOW, bc_encrypt(ctr.k, iv.data(), 16, buf.data(), 17, out.data(), 64, &n, nullptr));
    EXPECT_EQ(BC_OK, bc_encrypt(ctr.k, iv.data(), 16, buf.data(), 16, out.data(), 64, &n, nullptr));
    iv[15] = 0xfe;  // 2^128 - 2: two blocks left, and the halves' order matters
    EXPECT_EQ(BC_OK, bc_encrypt(ctr.k, iv.data(), 16, buf.data(), 32, out.data(), 64, &n, nullptr));
    EXPECT_EQ(BC_ERR_COUNTER_OVERFLOW, bc_encrypt(ctr.k, iv.data(), 16, buf.data(), 33, out.data(), 64, &n, nullptr));
    EXPECT_EQ(BC_ERR_OVERLAP, bc_encrypt(ctr.k, Bytes(16).data(), 16, buf.data(), 32, buf.data() + 1, 32, &n, nullptr));
    EXPECT_EQ(BC_ERR_OUTPUT_TOO_SMALL, bc_encrypt(ctr.k, Bytes(16).data(), 16, buf.data(), 64, out.data(), 63, &n, nullptr));
    EXPECT_EQ(BC_ERR_NULL_POINTER, bc_encrypt(ctr.k, Bytes(16).data(), 16, nullptr, 64, out.data(), 64, &n, nullptr));

    Key xts(c.ctx, "aes-128-xts", rnd(32));
    EXPECT_EQ(BC_ERR_INPUT_LENGTH, bc_encrypt(xts.k, iv.data(), 16, buf.data(), 15, out.data(), 64, &n, nullptr));
    Key ecb(c.ctx, "aes-128-ecb", key);
    EXPECT_EQ(BC_ERR_INPUT_LENGTH, bc_encrypt(ecb.k, nullptr, 0, buf.data(), 17, out.data(), 64, &n, nullptr));

    Key gcm(c.ctx, "aes-128-gcm", key);
    Bytes tag(16);
    EXPECT_EQ(BC_ERR_TAG_SIZE, bc_aead_seal_detached(gcm.k, iv.data(), 12, nullptr, 0, buf.data(), 16, out.data(), tag.data(), 3, nullptr));
    EXPECT_EQ(BC_ERR_IV_SIZE, bc_aead_seal_detached(gcm.k, iv.data(), 0, nullptr, 0, buf.data(), 16, out.data(), tag.data(), 16, nullptr));
    EXPECT_EQ(BC_ERR_MESSAGE_TOO_LONG, bc_aead_seal_detached(gcm.k, iv.data(), 12, nullptr, 0, buf.data(), size_t(1) << 37, out.data(), tag.data(), 16, nullptr));
    EXPECT_EQ(BC_ERR_AUTH_FAILED, bc_aead_open_detached(gcm.k, iv.data(), 12, nullptr, 0, buf.data(), 16, tag.data(), 16, out.data(), nullptr));
    EXPECT_EQ(BC_ERR_NOT_SUPPORTED, bc_encrypt(gcm.k, iv.data(), 12, buf.data(), 16, out.data(), 64, &n, nullptr));
    bc_params dev{};
    dev.memory = BC_MEMORY_DEVICE;
    EXPECT_EQ(BC_ERR_NOT_SUPPORTED, bc_encrypt(ctr.k, Bytes(16).data(), 16, buf.data(), 16, out.data(), 64, &n, &dev));

    // Distinct messages for distinct statuses.
    EXPECT_STRNE(bc_status_message(BC_ERR_AUTH_FAILED), bc_status_message(BC_ERR_BAD_PADDING));
}

// The CPU backend keeps keyed OpenSSL contexts per key in shards of calling threads: a
// shard's first thread owns a slot it swaps without locked instructions, the others share
// an exchanged slot and a locked list. 24 threads (more than the 16 shards: owners and
// non-owners of one shard at once) seal small messages on two shared keys, alternating
// keys, each output checked against OpenSSL: two threads on one context would garble them.
TEST(CpuKeyedContexts, ManyThreadsOnSharedKeysKeepTheirContextsApart) {
    Ctx c(nullptr);
    const Bytes k16 = rnd(16), k32 = rnd(32);
    Key ctr(c.ctx, "aes-128-ctr", k16), gcm(c.ctx, "aes-256-gcm", k32);
    std::atomic<int> wrong{0}, failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 24; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 60; ++i) {
                const size_t len = 16 * (1 + (t * 7 + i * 13) % 256);
                const Bytes pt = rnd(len), iv = rnd(16), nonce = rnd(12);
                Bytes out(len), tag(16);
                size_t n = 0;
                if (bc_encrypt(ctr.k, iv.data(), 16, pt.data(), len, out.data(), len, &n, nullptr) != BC_OK) ++failed;
                else if (out != evp_crypt("AES-128-CTR", true, k16, iv, pt)) ++wrong;
                if (bc_aead_seal_detached(gcm.k, nonce.data(), 12, nullptr, 0, pt.data(), len, out.data(), tag.data(), 16,
                                          nullptr) != BC_OK) {
                    ++failed;
                } else {
                    Bytes got(out);
                    got.insert(got.end(), tag.begin(), tag.end());
                    if (got != evp_gcm_seal("AES-256-GCM", k32, nonce, {}, pt)) ++wrong;
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(0, failed.load());
    EXPECT_EQ(0, wrong.load());
}

// bc_last_error: the detail of the thread's latest failure, "" once a call succeeds, and
// per thread (a failure on another thread leaves this one's alone).
TEST(CapiBadInput, LastErrorFollowsTheLatestCallOnItsThread) {
    Ctx c(nullptr);
    Key ctr(c.ctx, "aes-128-ctr", rnd(16));
    Bytes iv(16), buf(64), out(64);
    size_t n = 0;
    ASSERT_EQ(BC_ERR_IV_SIZE, bc_encrypt(ctr.k, iv.data(), 12, buf.data(), 64, out.data(), 64, &n, nullptr));
    const std::string iv_detail = bc_last_error();
    EXPECT_NE(iv_detail, "");
    EXPECT_EQ(BC_ERR_OUTPUT_TOO_SMALL, bc_encrypt(ctr.k, iv.data(), 16, buf.data(), 64, out.data(), 63, &n, nullptr));
    EXPECT_NE(std::string(bc_last_error()), iv_detail);  // the latest failure's, not the first's
    std::thread([&] {
        EXPECT_STREQ("", bc_last_error());  // a new thread has no failure yet
        EXPECT_EQ(BC_ERR_IV_SIZE, bc_encrypt(ctr.k, iv.data(), 12, buf.data(), 64, out.data(), 64, &n, nullptr));
        EXPECT_EQ(iv_detail, bc_last_error());
    }).join();
    EXPECT_NE(std::string(bc_last_error()), iv_detail);  // untouched by the other thread
    ASSERT_EQ(BC_OK, bc_encrypt(ctr.k, iv.data(), 16, buf.data(), 64, out.data(), 64, &n, nullptr));
    EXPECT_STREQ("", bc_last_error());
    EXPECT_EQ(BC_ERR_IV_SIZE, bc_encrypt(ctr.k, iv.data(), 12, buf.data(), 64, out.data(), 64, &n, nullptr));
    EXPECT_EQ(iv_detail, bc_last_error());  // a failure after a success shows again
}

// The one-shot raw calls' usual-call path (plain compares, then straight to the backend)
// against the detailed checks alone: over good and bad IVs, lengths, buffer layouts, output
// sizes, parameters and counters near the wrap, every call gives the same status, out_len,
// output bytes and error message either way.
TEST(CapiBadInput, UsualCallPathMatchesTheDetailedChecks) {
    Ctx c(nullptr);
    struct Alg { const char* name; size_t key; };
    const Alg algs[] = {{"aes-128-ecb", 16}, {"aes-256-cbc", 32}, {"aes-128-ctr", 16}, {"chacha20", 32},
                        {"aes-128-xts", 32}};
    const size_t lens[] = {0, 1, 15, 16, 33, 256};
    const size_t iv_lens[] = {0, 12, 16, 17};
    size_t calls = 0, fast_ok = 0;
    for (const Alg& alg : algs) {
        Key k(c.ctx, alg.name, rnd(alg.key));
        for (int variant = 0; variant < 7; ++variant) {  // the bc_params
            bc_params p{};
            const bc_params* pp = &p;
            if (variant == 0) pp = nullptr;
            if (variant == 2) p.flags = BC_FLAG_PAD_PKCS7;
            if (variant == 3) p.offset = 16;
            if (variant == 4) p.data_unit_size = 32;
            if (variant == 5) p.memory = BC_MEMORY_DEVICE;
            if (variant == 6) p.flags = 0x80;
            for (size_t iv_len : iv_lens)
                for (int wrap = 0; wrap < 2; ++wrap)
                    for (size_t len : lens)
                        for (int layout = 0; layout < 4; ++layout)  // disjoint, in place, overlapping, NULL out
                            for (int cap = -1; cap <= 16; cap += 17) {
                                Bytes iv(32, 0x5a);
                                if (wrap) std::fill(iv.begin(), iv.begin() + 16, 0xff);
                                const Bytes in = rnd(len + 64);
                                const size_t out_cap = cap < 0 ? (len ? len - 1 : 0) : len + size_t(cap);
                                Bytes res[2];
                                bc_status st[2];
                                size_t out_len[2];
                                std::string msg[2];
                                for (int fast = 0; fast < 2; ++fast) {
                                    bc::set_raw_usual_call_enabled(fast == 1);
                                    Bytes buf = in, out(len + 64, 0xee);
                                    const uint8_t* src = buf.data();
                                    uint8_t* dst = layout == 0 ? out.data() : layout == 1 ? buf.data()
                                                 : layout == 2 ? buf.data() + 1 : nullptr;
                                    out_len[fast] = 12345;
                                    st[fast] = bc_encrypt(k.k, iv_len ? iv.data() : nullptr, iv_len, src, len, dst,
                                                          out_cap, &out_len[fast], pp);
                                    msg[fast] = bc_last_error();
                                    res[fast] = layout == 0 ? out : buf;
                                }
                                bc::set_raw_usual_call_enabled(true);
                                ++calls;
                                fast_ok += st[1] == BC_OK;
                                const std::string what = std::string(alg.name) + " params " + std::to_string(variant) +
                                                         " iv_len " + std::to_string(iv_len) + " wrap " +
                                                         std::to_string(wrap) + " len " + std::to_string(len) +
                                                         " layout " + std::to_string(layout) + " cap " +
                                                         std::to_string(out_cap);
                                ASSERT_EQ(st[0], st[1]) << what;
                                ASSERT_EQ(out_len[0], out_len[1]) << what;
                                ASSERT_EQ(msg[0], msg[1]) << what;
                                ASSERT_EQ(res[0], res[1]) << what;
                            }
        }
    }
    // the comparison covered both outcomes
    EXPECT_GT(fast_ok, 100u);
    EXPECT_GT(calls - fast_ok, 1000u);
}

TEST(CapiBadInput, RefusedCallWritesNothing) {
    Ctx c(nullptr);
    Key ctr(c.ctx, "aes-128-ctr", rnd(16));
    Bytes buf = rnd(64), copy = buf;
    size_t n = 0;
    // Partial overlap: refused before anything is written; the input survives.
    EXPECT_EQ(BC_ERR_OVERLAP, bc_encrypt(ctr.k, Bytes(16).data(), 16, buf.data(), 32, buf.data() + 8, 40, &n, nullptr));
    EXPECT_EQ(buf, copy);
}

}  // namespace
