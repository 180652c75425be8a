// AES on the OpenCL device against OpenSSL: ECB, CBC, CTR (any offset, carries
// across 64 bits), XTS (many data units, ciphertext stealing, a shorter last
// unit), GCM chunks and AAD MACs folded into OpenSSL's tag, ChaCha20-Poly1305
// likewise, and the device Poly1305 partial against the host's. In place, random sizes, pieces small enough to cross boundaries.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <string>

#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"
#include "test_opencl_common.h"
#include "tuning/tuning.h"

namespace bc {
namespace {

using namespace ocltest;

const EVP_CIPHER* evp(const char* name) {
    static thread_local std::string last;
    last = name;
    for (auto& c : last) c = static_cast<char>(toupper(c));
    return EVP_get_cipherbyname(last.c_str());
}

// One OpenSSL call over the whole input (no padding).
Bytes openssl_run(const char* name, bool enc, const Bytes& key, const uint8_t* iv, const Bytes& in) {
    const EVP_CIPHER* c = evp(name);
    EXPECT_NE(c, nullptr) << name;
    Bytes out(in.size() + 32);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0;
    EXPECT_EQ(EVP_CipherInit_ex(ctx, c, nullptr, key.data(), iv, enc ? 1 : 0), 1);
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (!in.empty()) EXPECT_EQ(EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size())), 1);
    EXPECT_EQ(EVP_CipherFinal_ex(ctx, out.data() + n, &m), 1);
    EVP_CIPHER_CTX_free(ctx);
    out.resize(static_cast<size_t>(n + m));
    return out;
}

Status run_op(Backend* b, const char* alg, const Bytes& key, Dir dir, const uint8_t* iv, size_t iv_len, Bytes* data,
              uint64_t offset = 0, uint64_t data_unit = 0) {
    KeyMaterial km = key_material(alg, key);
    std::unique_ptr<BackendKey> bk;
    BC_TRY(b->prepare_key(km, &bk));
    CipherOp op;
    op.dir = dir;
    op.iv = iv;
    op.iv_len = iv_len;
    op.in = data->data();
    op.out = data->data();
    op.len = data->size();
    op.offset = offset;
    op.data_unit = data_unit;
    return b->cipher(km, *bk, op);
}

std::vector<Backend*> backends() { return {shared().be.get(), shared().small.get()}; }

TEST(OpenClAes, EcbAllKeySizes) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(1);
    for (const char* alg : {"aes-128-ecb", "aes-192-ecb", "aes-256-ecb"})
        for (Backend* b : backends())
            for (size_t n : test_sizes(rng)) {
                n -= n % 16;
                Bytes key = random_bytes(rng, find_algorithm(alg)->key_size), data = random_bytes(rng, n);
                Bytes want = openssl_run(alg, true, key, nullptr, data), orig = data;
                Status s = run_op(b, alg, key, Dir::Encrypt, nullptr, 0, &data);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                EXPECT_EQ(data, want) << alg << " n=" << n;
                s = run_op(b, alg, key, Dir::Decrypt, nullptr, 0, &data);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                EXPECT_EQ(data, orig) << alg << " n=" << n;
            }
}

TEST(OpenClAes, Cbc) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(2);
    for (const char* alg : {"aes-128-cbc", "aes-256-cbc"})
        for (Backend* b : backends())
            for (size_t n : test_sizes(rng)) {
                n -= n % 16;
                Bytes key = random_bytes(rng, find_algorithm(alg)->key_size), iv = random_bytes(rng, 16);
                Bytes data = random_bytes(rng, n);
                Bytes ct = openssl_run(alg, true, key, iv.data(), data);
                Bytes dec = ct;
                Status s = run_op(b, alg, key, Dir::Decrypt, iv.data(), 16, &dec);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                EXPECT_EQ(dec, data) << alg << " decrypt n=" << n;
                // Encryption walks one chain on one work-item: keep it short.
                if (n <= 70000) {
                    Bytes enc = data;
                    s = run_op(b, alg, key, Dir::Encrypt, iv.data(), 16, &enc);
                    ASSERT_TRUE(s.is_ok()) << s.detail;
                    EXPECT_EQ(enc, ct) << alg << " encrypt n=" << n;
                }
            }
}

// CTR on b over test_sizes against OpenSSL: random offsets, and now and then a low half
// close to a 64-bit carry.
void check_ctr(Backend* b, const char* alg, std::mt19937_64& rng) {
    for (size_t n : test_sizes(rng)) {
        Bytes key = random_bytes(rng, find_algorithm(alg)->key_size), iv = random_bytes(rng, 16);
        if (rng() % 2) for (int i = 8; i < 15; ++i) iv[i] = 0xff;
        uint64_t offset = rng() % 3000;
        Bytes data = random_bytes(rng, n);
        Bytes pre(offset + n, 0);
        std::copy(data.begin(), data.end(), pre.begin() + static_cast<long>(offset));
        Bytes want = openssl_run(alg, true, key, iv.data(), pre);
        want.erase(want.begin(), want.begin() + static_cast<long>(offset));
        Status s = run_op(b, alg, key, Dir::Encrypt, iv.data(), 16, &data, offset);
        ASSERT_TRUE(s.is_ok()) << s.detail;
        EXPECT_EQ(data, want) << alg << " n=" << n << " offset=" << offset;
    }
}

TEST(OpenClAes, CtrAnyOffsetAndCarry) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(3);
    for (const char* alg : {"aes-128-ctr", "aes-192-ctr", "aes-256-ctr"})
        for (Backend* b : backends()) check_ctr(b, alg, rng);
}

// The lane-pair CTR kernel (opencl.aes_variant=pair): counters with carries across 64 bits
// and across a pair's 16-block stride, any offset, tails of partial tiles, and a grid cap
// small enough that each work-item walks several tiles in turns. Off NVIDIA its exchange runs
// through local memory, so PoCL checks the same index arithmetic the shuffles use.
std::unique_ptr<Backend> pair_backend(const char* work_group, const char* groups, size_t chunk) {
    ContextOptions o;
    o.chunk = chunk;
    bool known = false;
    std::string why;
    EXPECT_TRUE(tuning::parse_option("opencl.aes_variant", "pair", &o.tuning, &known, &why)) << why;
    EXPECT_TRUE(tuning::parse_option("opencl.aes_work_group", work_group, &o.tuning, &known, &why)) << why;
    if (groups) EXPECT_TRUE(tuning::parse_option("opencl.aes_groups_per_unit", groups, &o.tuning, &known, &why)) << why;
    std::unique_ptr<Backend> be;
    Status s = make_opencl_backend(0, o, &be);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    return be;
}

bool built_part(Backend& b, const std::string& prefix) {
    for (const OpenClPart& p : static_cast<OpenClBackend&>(b).program_parts())
        if (p.name.compare(0, prefix.size(), prefix) == 0) return true;
    return false;
}

TEST(OpenClAes, PairKernelCtrMatchesOpenSsl) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(13);
    std::unique_ptr<Backend> wide = pair_backend("64", nullptr, 0), capped = pair_backend("32", "1", 64 << 10);
    ASSERT_TRUE(wide && capped);
    for (const char* alg : {"aes-128-ctr", "aes-256-ctr"})
        for (Backend* b : {wide.get(), capped.get()}) check_ctr(b, alg, rng);
    // the pair part ran, not the batch kernel
    EXPECT_TRUE(built_part(*wide, "aes/ctr-pair"));
    for (const OpenClPart& p : static_cast<OpenClBackend&>(*wide).program_parts()) EXPECT_NE(p.name, "aes/ctr");
}

// GCM's counter (inc32: the low 32 bits wrap, the rest stays) through the pair kernel,
// against OpenSSL's ECB of the counter blocks.
TEST(OpenClAes, PairKernelGcmCounterWrapsIn32Bits) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(14);
    std::unique_ptr<Backend> b = pair_backend("64", "1", 0);
    ASSERT_TRUE(b);
    const char* alg = "aes-128-gcm";
    for (size_t n : {size_t(1), size_t(16 * 511 + 3), size_t(16 * 4096), size_t(200000)}) {
        Bytes key = random_bytes(rng, 16), pt = random_bytes(rng, n);
        uint8_t ctr[16];
        for (auto& x : ctr) x = static_cast<uint8_t>(rng());
        const uint32_t low = 0xffffffffu - static_cast<uint32_t>(rng() % 3000);  // wraps inside the call
        for (int i = 0; i < 4; ++i) ctr[12 + i] = static_cast<uint8_t>(low >> (24 - 8 * i));
        Bytes blocks((n + 15) / 16 * 16);
        for (size_t i = 0; i < blocks.size() / 16; ++i) {
            std::memcpy(&blocks[16 * i], ctr, 16);
            gcm_inc32(&blocks[16 * i], i);
        }
        Bytes ks = openssl_run("aes-128-ecb", true, key, nullptr, blocks);
        Bytes want = pt;
        for (size_t i = 0; i < n; ++i) want[i] ^= ks[i];

        KeyMaterial km = key_material(alg, key);
        std::unique_ptr<BackendKey> bk;
        Status s = b->prepare_key(km, &bk);
        ASSERT_TRUE(s.is_ok()) << s.detail;
        Bytes data = pt;
        AeadChunkOp op;
        op.dir = Dir::Encrypt;
        std::memcpy(op.ctr, ctr, 16);
        op.in = data.data();
        op.out = data.data();
        op.len = data.size();
        s = b->aead_chunk(km, *bk, op);
        ASSERT_TRUE(s.is_ok()) << s.detail;
        EXPECT_EQ(data, want) << "n=" << n << " low=" << low;
    }
    EXPECT_TRUE(built_part(*b, "aes/ctr-pair"));
}

// OpenSSL's XTS, one call per data unit; unit k uses tweak + k (little-endian).
Bytes openssl_xts(const char* alg, bool enc, const Bytes& key, const Bytes& tweak, const Bytes& in, size_t unit) {
    Bytes out;
    uint8_t t[16];
    std::memcpy(t, tweak.data(), 16);
    for (size_t pos = 0; pos < in.size(); pos += unit) {
        Bytes piece(in.begin() + static_cast<long>(pos), in.begin() + static_cast<long>(std::min(in.size(), pos + unit)));
        Bytes r = openssl_run(alg, enc, key, t, piece);
        out.insert(out.end(), r.begin(), r.end());
        add_le128(t, 1);
    }
    return out;
}

TEST(OpenClAes, XtsUnitsAndStealing) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(4);
    struct Case {
        size_t unit, len;
    };
    // unit 0: the whole input is one data unit.
    const Case cases[] = {{512, 512 * 40},  {4096, 4096 * 9}, {4100, 4100 * 5}, {17, 17 * 70},
                          {16, 16 * 33},   {1000, 1000 * 3 + 400}, {0, 16}, {0, 31},
                          {0, 100000},     {0, 100007},       {520, 520 * 130}};
    for (const char* alg : {"aes-128-xts", "aes-256-xts"})
        for (Backend* b : backends())
            for (const Case& c : cases) {
                Bytes key = random_bytes(rng, find_algorithm(alg)->key_size), tweak = random_bytes(rng, 16);
                if (rng() % 2) for (int i = 0; i < 8; ++i) tweak[i] = 0xff;  // carry into the high half
                Bytes data = random_bytes(rng, c.len);
                const size_t unit = c.unit ? c.unit : c.len;
                Bytes ct = openssl_xts(alg, true, key, tweak, data, unit);
                Bytes enc = data;
                Status s = run_op(b, alg, key, Dir::Encrypt, tweak.data(), 16, &enc, 0, c.unit);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                EXPECT_EQ(enc, ct) << alg << " unit=" << c.unit << " len=" << c.len;
                s = run_op(b, alg, key, Dir::Decrypt, tweak.data(), 16, &enc, 0, c.unit);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                EXPECT_EQ(enc, data) << alg << " decrypt unit=" << c.unit << " len=" << c.len;
            }
}

// ---- AEAD: chunks and MACs folded exactly as the engine does -----------------------

struct Sealed {
    Bytes ct, tag;
};

Sealed openssl_aead(const char* alg, const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& pt) {
    const EVP_CIPHER* c = evp(alg);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Sealed r;
    r.ct.resize(pt.size() + 16);
    r.tag.resize(16);
    int n = 0;
    EXPECT_EQ(EVP_EncryptInit_ex(ctx, c, nullptr, nullptr, nullptr), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce.size()), nullptr), 1);
    EXPECT_EQ(EVP_EncryptInit_ex(ctx, nullptr, nullptr, key.data(), nonce.data()), 1);
    if (!aad.empty()) EXPECT_EQ(EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())), 1);
    int len = 0;
    if (!pt.empty()) EXPECT_EQ(EVP_EncryptUpdate(ctx, r.ct.data(), &len, pt.data(), static_cast<int>(pt.size())), 1);
    EXPECT_EQ(EVP_EncryptFinal_ex(ctx, r.ct.data() + len, &n), 1);
    r.ct.resize(pt.size());
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()), 1);
    EVP_CIPHER_CTX_free(ctx);
    return r;
}

TEST(OpenClAead, GcmChunksAndMacFoldToOpenSSLsTag) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(5);
    for (const char* alg : {"aes-128-gcm", "aes-256-gcm"})
        for (Backend* b : backends())
            for (size_t n : test_sizes(rng)) {
                const Algorithm* a = find_algorithm(alg);
                Bytes key = random_bytes(rng, a->key_size), nonce = random_bytes(rng, 12);
                Bytes aad = random_bytes(rng, rng() % 2 ? rng() % 40 : 5000 + rng() % 70000);
                Bytes pt = random_bytes(rng, n);
                Sealed want = openssl_aead(alg, key, nonce, aad, pt);

                KeyMaterial km = key_material(alg, key);
                std::unique_ptr<BackendKey> bk;
                Status s = b->prepare_key(km, &bk);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                Bytes zero(16, 0);
                Bytes hb = openssl_run(std::strcmp(alg, "aes-128-gcm") == 0 ? "aes-128-ecb" : "aes-256-ecb", true, key,
                                       nullptr, zero);
                bc_gf128 h = bc_gf128_load(hb.data());
                uint8_t j0[16];
                gcm_j0(h, nonce.data(), nonce.size(), j0);

                MacOp mac;
                mac.data = aad.data();
                mac.len = aad.size();
                s = b->mac(km, *bk, mac);
                ASSERT_TRUE(s.is_ok()) << s.detail;

                for (Dir dir : {Dir::Encrypt, Dir::Decrypt}) {
                    Bytes data = dir == Dir::Encrypt ? pt : want.ct;
                    AeadChunkOp op;
                    op.dir = dir;
                    std::memcpy(op.ctr, j0, 16);
                    gcm_inc32(op.ctr, 1);
                    op.in = data.data();
                    op.out = data.data();
                    op.len = data.size();
                    s = b->aead_chunk(km, *bk, op);
                    ASSERT_TRUE(s.is_ok()) << s.detail;
                    EXPECT_EQ(data, dir == Dir::Encrypt ? want.ct : pt) << alg << " n=" << n;
                    bc_gf128 acc = bc_gf128_load(mac.partial);
                    acc = ghash_fold(acc, bc_gf128_load(op.partial), (n + 15) / 16, h);
                    bc_gf128 sum = gcm_finish(acc, h, aad.size(), n);
                    uint8_t tag[16];
                    bc_gf128_store(tag, sum);
                    Bytes ekj0 = openssl_run(std::strcmp(alg, "aes-128-gcm") == 0 ? "aes-128-ecb" : "aes-256-ecb", true,
                                             key, nullptr, Bytes(j0, j0 + 16));
                    for (int i = 0; i < 16; ++i) tag[i] ^= ekj0[i];
                    EXPECT_EQ(Bytes(tag, tag + 16), want.tag) << alg << " n=" << n << " aad=" << aad.size();
                }
            }
}

TEST(OpenClAead, ChaChaPolyChunksFoldToOpenSSLsTag) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(6);
    for (Backend* b : backends())
        for (size_t n : test_sizes(rng)) {
            Bytes key = random_bytes(rng, 32), nonce = random_bytes(rng, 12);
            Bytes aad = random_bytes(rng, rng() % 2 ? rng() % 100 : 5000 + rng() % 70000), pt = random_bytes(rng, n);
            Sealed want = openssl_aead("chacha20-poly1305", key, nonce, aad, pt);
            KeyMaterial km = key_material("chacha20-poly1305", key);
            std::unique_ptr<BackendKey> bk;
            Status s = b->prepare_key(km, &bk);
            ASSERT_TRUE(s.is_ok()) << s.detail;
            uint8_t subkey[32], mac_key[32], ctr[16];
            bool use_subkey = false;
            chachapoly_setup(key.data(), nonce.data(), nonce.size(), subkey, &use_subkey, mac_key, ctr);
            MacOp mac;
            mac.mac_key = mac_key;
            mac.data = aad.data();
            mac.len = aad.size();
            ASSERT_TRUE(b->mac(km, *bk, mac).is_ok());
            for (Dir dir : {Dir::Encrypt, Dir::Decrypt}) {
                Bytes data = dir == Dir::Encrypt ? pt : want.ct;
                AeadChunkOp op;
                op.dir = dir;
                std::memcpy(op.ctr, ctr, 16);
                op.mac_key = mac_key;
                op.in = data.data();
                op.out = data.data();
                op.len = data.size();
                s = b->aead_chunk(km, *bk, op);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                EXPECT_EQ(data, dir == Dir::Encrypt ? want.ct : pt) << "n=" << n;
                uint8_t acc[17];
                std::memcpy(acc, mac.partial, 17);
                poly1305_combine(acc, op.partial, (n + 15) / 16, mac_key);
                uint8_t lens[16];
                bc_store_le64(lens, aad.size());
                bc_store_le64(lens + 8, n);
                uint8_t lp[17];
                poly1305_partial(mac_key, lens, 16, lp);
                poly1305_combine(acc, lp, 1, mac_key);
                uint8_t tag[16];
                poly1305_finish(acc, mac_key + 16, tag);
                EXPECT_EQ(Bytes(tag, tag + 16), want.tag) << "n=" << n;
            }
        }
}

TEST(OpenClAead, DevicePoly1305PartialMatchesHost) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(7);
    for (Backend* b : backends()) {
        auto& o = static_cast<OpenClBackend&>(*b);
        for (size_t n : test_sizes(rng)) {
            Bytes r = random_bytes(rng, 16), data = random_bytes(rng, n);
            if (n % 3 == 0) std::fill(data.begin(), data.end(), 0xff);  // largest limbs
            uint8_t dev[17], host[17];
            Status s = o.poly1305_partial_device(r.data(), data.data(), n, dev);
            ASSERT_TRUE(s.is_ok()) << s.detail;
            poly1305_partial(r.data(), data.data(), n, host);
            EXPECT_EQ(Bytes(dev, dev + 17), Bytes(host, host + 17)) << "n=" << n;
        }
    }
}

}  // namespace
}  // namespace bc
