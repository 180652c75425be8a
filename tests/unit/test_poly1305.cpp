// Poly1305 partials and ChaCha20-Poly1305 on the CPU: the partial against an
// independent BIGNUM evaluation, split/combine properties, the AEAD vectors of
// Wycheproof, OpenSSL (pyca) and Botan assembled from setup + chunk pieces + AAD
// partial + combine + finish exactly as the C API does, and OpenSSL's
// chacha20-poly1305 at random lengths.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <openssl/bn.h>
#include <openssl/evp.h>

#include <cstring>

#include "backends/cpu/cpu_stream.h"
#include "modes/poly1305/poly1305.h"
#include "test_stream_util.h"

using namespace bc_test_stream;

namespace {

bc::ThreadPool& pool1() { static bc::ThreadPool p(1); return p; }
bc::ThreadPool& pool4() { static bc::ThreadPool p(4); return p; }

BIGNUM* bn_le(const uint8_t* p, size_t n) { return BN_lebin2bn(p, (int)n, nullptr); }

// sum m_i r^(n-i+1) mod 2^130-5 over zero-padded blocks with 2^128 added, by BIGNUM.
Bytes reference_partial(const uint8_t r_raw[16], const Bytes& data) {
    uint8_t rc[16];
    std::memcpy(rc, r_raw, 16);
    for (int i : {3, 7, 11, 15}) rc[i] &= 15;
    for (int i : {4, 8, 12}) rc[i] &= 252;
    BN_CTX* ctx = BN_CTX_new();
    BIGNUM *r = bn_le(rc, 16), *p = BN_new(), *h = BN_new(), *two128 = BN_new();
    BN_set_word(p, 0);
    BN_set_bit(p, 130);
    BN_sub_word(p, 5);
    BN_zero(h);
    BN_set_word(two128, 0);
    BN_set_bit(two128, 128);
    for (size_t i = 0; i < data.size(); i += 16) {
        uint8_t blk[16] = {0};
        std::memcpy(blk, data.data() + i, std::min<size_t>(16, data.size() - i));
        BIGNUM* m = bn_le(blk, 16);
        BN_add(m, m, two128);
        BN_add(h, h, m);
        BN_mod_mul(h, h, r, p, ctx);
        BN_free(m);
    }
    Bytes out(17, 0);
    BN_bn2lebinpad(h, out.data(), 17);
    BN_free(r); BN_free(p); BN_free(h); BN_free(two128);
    BN_CTX_free(ctx);
    return out;
}

struct AeadResult { bc::Status status; Bytes out, tag; };

// The C API's flow, with the body cut into pieces of multiples of 64 bytes.
AeadResult aead(const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& in, bc::Dir dir,
                bool portable, bc::ThreadPool& pool, std::mt19937_64* rng) {
    AeadResult res;
    uint8_t subkey[32], mac_key[32], ctr[16];
    bool use_subkey = false;
    bc::chachapoly_setup(key.data(), nonce.data(), nonce.size(), subkey, &use_subkey, mac_key, ctr);
    bc::KeyMaterial km;
    km.alg = bc::find_algorithm(nonce.size() == 24 ? "xchacha20-poly1305" : "chacha20-poly1305");
    km.raw = bc::SecureBytes(key.data(), key.size());
    uint8_t acc[17] = {0};
    bc::MacOp mac;
    mac.mac_key = mac_key;
    mac.data = aad.data();
    mac.len = aad.size();
    res.status = bc::cpu_poly1305_mac(mac);
    if (!res.status.is_ok()) return res;
    bc::poly1305_combine(acc, mac.partial, 0, mac_key);  // acc = 0 * 1 + partial
    res.out.assign(in.size(), 0);
    size_t pos = 0;
    uint32_t counter = ctr[0] | ctr[1] << 8 | ctr[2] << 16 | uint32_t(ctr[3]) << 24;
    while (pos < in.size() || (pos == 0 && in.empty())) {
        size_t n = in.size() - pos;
        if (rng && n > 64) n = std::min(n, 64 * size_t((*rng)() % 2000));
        bc::AeadChunkOp op;
        op.dir = dir;
        std::memcpy(op.ctr, ctr, 16);
        uint32_t c = counter + uint32_t(pos / 64);
        for (int i = 0; i < 4; ++i) op.ctr[i] = uint8_t(c >> (8 * i));
        op.mac_key = mac_key;
        op.subkey = use_subkey ? subkey : nullptr;
        op.in = in.data() + pos;
        op.out = res.out.data() + pos;
        op.len = n;
        res.status = bc::cpu_chachapoly_chunk(km, op, portable, pool);
        if (!res.status.is_ok()) return res;
        bc::poly1305_combine(acc, op.partial, (n + 15) / 16, mac_key);
        pos += n;
        if (in.empty()) break;
    }
    uint8_t lens[16], partial[17], tag[16];
    for (int i = 0; i < 8; ++i) { lens[i] = uint8_t(uint64_t(aad.size()) >> (8 * i)); lens[8 + i] = uint8_t(uint64_t(in.size()) >> (8 * i)); }
    bc::poly1305_partial(mac_key, lens, 16, partial);
    bc::poly1305_combine(acc, partial, 1, mac_key);
    bc::poly1305_finish(acc, mac_key + 16, tag);
    res.tag.assign(tag, tag + 16);
    return res;
}

}  // namespace

TEST(Poly1305, PartialMatchesBignum) {
    std::mt19937_64 rng(21);
    for (int t = 0; t < 300; ++t) {
        Bytes r = random_bytes(rng, 16);
        size_t len = t < 40 ? size_t(t) : rng() % 3000;
        Bytes data = random_bytes(rng, len);
        if (t % 7 == 0) std::fill(data.begin(), data.end(), 0xff);  // limb carries at their largest
        if (t % 11 == 0) std::fill(r.begin(), r.end(), 0xff);
        uint8_t got[17];
        bc::poly1305_partial(r.data(), data.data(), data.size(), got);
        EXPECT_EQ(to_hex(got, 17), to_hex(reference_partial(r.data(), data))) << "len " << len;
    }
}

TEST(Poly1305, AnySplitGivesTheSameValue) {
    std::mt19937_64 rng(22);
    for (int t = 0; t < 200; ++t) {
        Bytes r = random_bytes(rng, 16);
        Bytes data = random_bytes(rng, rng() % 5000);
        uint8_t whole[17];
        bc::poly1305_partial(r.data(), data.data(), data.size(), whole);
        // Pieces at random 16-byte boundaries; only the last may be short.
        uint8_t acc[17] = {0};
        size_t pos = 0;
        while (pos < data.size()) {
            size_t n = std::min(data.size() - pos, 16 * size_t(rng() % 40));
            if (n == 0) continue;
            uint8_t part[17];
            bc::poly1305_partial(r.data(), data.data() + pos, n, part);
            bc::poly1305_combine(acc, part, (n + 15) / 16, r.data());
            pos += n;
        }
        EXPECT_EQ(to_hex(acc, 17), to_hex(whole, 17));
        // Combining an empty piece changes nothing; combine(0, P, n) = P.
        uint8_t zero[17] = {0}, acc2[17];
        std::memcpy(acc2, acc, 17);
        bc::poly1305_combine(acc2, zero, 0, r.data());
        EXPECT_EQ(to_hex(acc2, 17), to_hex(acc, 17));
    }
}

TEST(Poly1305, FullyReducedEdgeValues) {
    // Values >= p fed to combine come back reduced: p itself -> 0, p + 1 -> 1.
    uint8_t r[16] = {1};  // r = 1 after clamping
    uint8_t p[17], acc[17] = {0}, zero[17] = {0};
    std::memset(p, 0xff, 16);
    p[0] = 0xfb;
    p[16] = 3;  // 2^130 - 5
    std::memcpy(acc, p, 17);
    bc::poly1305_combine(acc, zero, 1, r);
    EXPECT_EQ(to_hex(acc, 17), to_hex(zero, 17));
    std::memcpy(acc, p, 17);
    acc[0] += 1;
    bc::poly1305_combine(acc, zero, 3, r);
    uint8_t one[17] = {1};
    EXPECT_EQ(to_hex(acc, 17), to_hex(one, 17));
    // finish: (acc + s) mod 2^128 with a carry out of the low word.
    uint8_t a[17] = {0}, s[16] = {0}, tag[16];
    std::memset(a, 0xff, 8);
    s[0] = 1;
    bc::poly1305_finish(a, s, tag);
    uint8_t expect[16] = {0};
    expect[8] = 1;
    EXPECT_EQ(to_hex(tag, 16), to_hex(expect, 16));
}

TEST(Poly1305, ChunkPartialIsOverTheCiphertext) {
    std::mt19937_64 rng(23);
    Bytes key = random_bytes(rng, 32), nonce = random_bytes(rng, 12);
    for (size_t len : {size_t(1), size_t(64), size_t(1000), size_t(700000)}) {
        Bytes pt = random_bytes(rng, len);
        for (bool portable : {true, false}) {
            AeadResult enc = aead(key, nonce, {}, pt, bc::Dir::Encrypt, portable, pool4(), nullptr);
            ASSERT_TRUE(enc.status.is_ok());
            AeadResult dec = aead(key, nonce, {}, enc.out, bc::Dir::Decrypt, portable, pool4(), nullptr);
            ASSERT_TRUE(dec.status.is_ok());
            EXPECT_EQ(dec.out, pt);
            EXPECT_EQ(dec.tag, enc.tag);
        }
    }
}

TEST(Poly1305, ChunkCounterWrapRefused) {
    Bytes key(32, 1);
    uint8_t mac_key[32] = {0};
    bc::KeyMaterial km;
    km.alg = bc::find_algorithm("chacha20-poly1305");
    km.raw = bc::SecureBytes(key.data(), key.size());
    Bytes in(129), out(129);
    bc::AeadChunkOp op;
    std::memset(op.ctr, 0, 16);
    op.ctr[0] = 0xfe; op.ctr[1] = 0xff; op.ctr[2] = 0xff; op.ctr[3] = 0xff;  // 2^32 - 2
    op.mac_key = mac_key;
    op.in = in.data();
    op.out = out.data();
    op.len = 128;
    EXPECT_TRUE(bc::cpu_chachapoly_chunk(km, op, true, pool1()).is_ok());
    op.len = 129;
    EXPECT_EQ(bc::cpu_chachapoly_chunk(km, op, true, pool1()).code, BC_ERR_COUNTER_OVERFLOW);
}

namespace {

void run_wycheproof(const char* file, size_t nonce_size, size_t expect_valid) {
    std::string text;
    ASSERT_TRUE(read_text(file, &text)) << file;
    auto j = nlohmann::json::parse(text);
    std::mt19937_64 rng(24);
    size_t valid = 0, invalid = 0, skipped_nonce = 0;
    for (const auto& g : j["testGroups"]) {
        for (const auto& t : g["tests"]) {
            Bytes key = hex(t["key"]), iv = hex(t["iv"]), aad = hex(t["aad"]), msg = hex(t["msg"]),
                  ct = hex(t["ct"]), tag = hex(t["tag"]);
            std::string result = t["result"];
            if (iv.size() != nonce_size || key.size() != 32) {  // the C API refuses these sizes
                EXPECT_NE(result, "valid") << "tcId " << t["tcId"];
                ++skipped_nonce;
                continue;
            }
            bool portable = (t["tcId"].get<int>() % 2) == 0;
            AeadResult enc = aead(key, iv, aad, msg, bc::Dir::Encrypt, portable, pool4(), &rng);
            AeadResult dec = aead(key, iv, aad, ct, bc::Dir::Decrypt, !portable, pool4(), &rng);
            ASSERT_TRUE(enc.status.is_ok() && dec.status.is_ok());
            if (result == "valid") {
                EXPECT_EQ(to_hex(enc.out), to_hex(ct)) << "tcId " << t["tcId"];
                EXPECT_EQ(to_hex(enc.tag), to_hex(tag)) << "tcId " << t["tcId"];
                EXPECT_EQ(to_hex(dec.out), to_hex(msg)) << "tcId " << t["tcId"];
                EXPECT_EQ(to_hex(dec.tag), to_hex(tag)) << "tcId " << t["tcId"];
                ++valid;
            } else {
                EXPECT_NE(to_hex(dec.tag), to_hex(tag)) << "invalid tcId " << t["tcId"] << " would verify";
                ++invalid;
            }
        }
    }
    EXPECT_EQ(valid, expect_valid);
    EXPECT_GT(invalid, 0u);
    EXPECT_GT(skipped_nonce, 0u);
}

}  // namespace

TEST(ChaChaPolyVectors, WycheproofChaCha20Poly1305) {
    run_wycheproof("wycheproof/testvectors_v1/chacha20_poly1305_test.json", 12, 256);
}
TEST(ChaChaPolyVectors, WycheproofXChaCha20Poly1305) {
    run_wycheproof("wycheproof/testvectors_v1/xchacha20_poly1305_test.json", 24, 246);
}

TEST(ChaChaPolyVectors, PycaOpenssl) {
    std::string text;
    ASSERT_TRUE(read_text("pyca-cryptography/ciphers/ChaCha20Poly1305/openssl.txt", &text));
    size_t ok = 0, fail = 0;
    for (const auto& r : parse_nist(text)) {
        AeadResult enc = aead(hex(r.get("KEY")), hex(r.get("IV")), hex(r.get("AAD")), hex(r.get("PLAINTEXT")),
                              bc::Dir::Encrypt, true, pool1(), nullptr);
        ASSERT_TRUE(enc.status.is_ok());
        EXPECT_EQ(to_hex(enc.out), to_hex(hex(r.get("CIPHERTEXT"))));
        if (r.get("RESULT") == "CIPHERFINAL_ERROR") {
            EXPECT_NE(to_hex(enc.tag), to_hex(hex(r.get("TAG"))));
            ++fail;
        } else {
            EXPECT_EQ(to_hex(enc.tag), to_hex(hex(r.get("TAG"))));
            ++ok;
        }
    }
    EXPECT_EQ(ok, 4u);
    EXPECT_EQ(fail, 1u);
}

TEST(ChaChaPolyVectors, BotanChaCha20Poly1305) {
    std::string text;
    ASSERT_TRUE(read_text("botan/src/tests/data/aead/chacha20poly1305.vec", &text));
    std::mt19937_64 rng(25);
    size_t n12 = 0, n24 = 0, n8 = 0;
    for (const auto& r : parse_botan_vec(text)) {
        Bytes nonce = hex(r.get("Nonce")), out = hex(r.get("Out"));
        if (nonce.size() == 8) { ++n8; continue; }  // draft-agl construction: not offered
        ASSERT_TRUE(nonce.size() == 12 || nonce.size() == 24);
        AeadResult enc = aead(hex(r.get("Key")), nonce, hex(r.get("AD")), hex(r.get("In")), bc::Dir::Encrypt,
                              (n12 + n24) % 2 == 0, pool4(), &rng);
        ASSERT_TRUE(enc.status.is_ok());
        Bytes got = enc.out;
        got.insert(got.end(), enc.tag.begin(), enc.tag.end());
        EXPECT_EQ(to_hex(got), to_hex(out)) << "key " << r.get("Key") << " nonce " << r.get("Nonce");
        (nonce.size() == 12 ? n12 : n24)++;
    }
    EXPECT_EQ(n12, 140u);
    EXPECT_EQ(n24, 1569u);
    EXPECT_EQ(n8, 1u);
}

TEST(ChaChaPolyDifferential, AgainstOpenSsl) {
    std::mt19937_64 rng(26);
    EVP_CIPHER* evp = EVP_CIPHER_fetch(nullptr, "ChaCha20-Poly1305", nullptr);
    ASSERT_NE(evp, nullptr);
    std::vector<size_t> lens = {0, 1, 15, 16, 17, 63, 64, 65, 4096, 65536 + 3, 1 << 20, 5 * 1024 * 1024 + 17};
    for (int t = 0; t < 30; ++t) lens.push_back(rng() % 300000);
    for (size_t len : lens) {
        Bytes key = random_bytes(rng, 32), nonce = random_bytes(rng, 12);
        Bytes aad = random_bytes(rng, rng() % 100), pt = random_bytes(rng, len);
        Bytes ct(len);
        uint8_t tag[16];
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        int outl = 0;
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx, evp, key.data(), nonce.data(), nullptr), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx, nullptr, &outl, aad.data(), (int)aad.size()), 1);
        if (len) ASSERT_EQ(EVP_EncryptUpdate(ctx, ct.data(), &outl, pt.data(), (int)len), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx, ct.data() + len, &outl), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag), 1);
        EVP_CIPHER_CTX_free(ctx);
        for (bool portable : {true, false}) {
            AeadResult enc = aead(key, nonce, aad, pt, bc::Dir::Encrypt, portable, pool4(), &rng);
            ASSERT_TRUE(enc.status.is_ok());
            ASSERT_EQ(enc.out, ct) << "len " << len;
            ASSERT_EQ(to_hex(enc.tag), to_hex(tag, 16)) << "len " << len << " portable " << portable;
            AeadResult dec = aead(key, nonce, aad, ct, bc::Dir::Decrypt, portable, pool1(), &rng);
            ASSERT_EQ(dec.out, pt);
            ASSERT_EQ(to_hex(dec.tag), to_hex(tag, 16));
        }
    }
    EVP_CIPHER_free(evp);
}
