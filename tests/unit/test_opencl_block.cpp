// The generic block-cipher kernels of the OpenCL backend (kernels/block.cl)
// through the public C API on opencl:0: AES with aes=generic against OpenSSL
// (ECB, CBC, CTR at offsets and odd lengths, XTS with several units and
// ciphertext stealing), in place and out of place; then every other block
// cipher of the catalogue with an OpenSSL counterpart (Camellia, SM4: their ECB,
// CBC and CTR, and XTS composed here from OpenSSL's ECB; SEED: its ECB and CBC from
// OpenSSL's legacy provider, CTR and XTS composed from that ECB), and the block
// ciphers OpenSSL lacks (CLEFIA) against the CPU backend's portable core. Sizes stay small: PoCL
// compiles and runs a bitsliced core slowly.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "test_opencl_common.h"

namespace bc {
namespace {

using ocltest::Bytes;

Bytes rnd(size_t n) {
    Bytes v(n);
    if (n) RAND_bytes(v.data(), static_cast<int>(n));
    return v;
}

// OpenSSL's legacy provider (SEED) in a library context of the test's own; nullptr
// when it cannot be loaded.
OSSL_LIB_CTX* legacy_ctx() {
    struct Legacy {
        OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
        OSSL_PROVIDER* legacy = ctx ? OSSL_PROVIDER_load(ctx, "legacy") : nullptr;
        OSSL_PROVIDER* deflt = ctx ? OSSL_PROVIDER_load(ctx, "default") : nullptr;
        ~Legacy() {
            if (legacy) OSSL_PROVIDER_unload(legacy);
            if (deflt) OSSL_PROVIDER_unload(deflt);
            OSSL_LIB_CTX_free(ctx);
        }
    };
    static const Legacy l;
    return l.legacy && l.deflt ? l.ctx : nullptr;
}

// The default context's cipher, else the legacy context's; nullptr when neither has it.
EVP_CIPHER* fetch_cipher(const std::string& name) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name.c_str(), nullptr);
    if (c == nullptr && legacy_ctx() != nullptr) c = EVP_CIPHER_fetch(legacy_ctx(), name.c_str(), nullptr);
    return c;
}

// OpenSSL one shot (no padding); empty when OpenSSL lacks the cipher.
Bytes evp_crypt(const std::string& name, bool enc, const Bytes& key, const uint8_t* iv, const Bytes& in) {
    EVP_CIPHER* c = fetch_cipher(name);
    if (c == nullptr) return {};
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Bytes out(in.size() + 32);
    int l1 = 0, l2 = 0;
    EXPECT_EQ(1, EVP_CipherInit_ex2(ctx, c, key.data(), iv, enc ? 1 : 0, nullptr));
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (!in.empty()) EXPECT_EQ(1, EVP_CipherUpdate(ctx, out.data(), &l1, in.data(), static_cast<int>(in.size())));
    EXPECT_EQ(1, EVP_CipherFinal_ex(ctx, out.data() + l1, &l2));
    out.resize(static_cast<size_t>(l1 + l2));
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    return out;
}

// IEEE 1619 XTS of one data unit composed from OpenSSL's ECB of the cipher
// (ecb: e.g. "CAMELLIA-128-ECB"), ciphertext stealing included.
Bytes xts_ref(const std::string& ecb, bool enc, const Bytes& k1, const Bytes& k2, const Bytes& tweak,
              const Bytes& in) {
    Bytes t = evp_crypt(ecb, true, k2, nullptr, tweak);
    auto mul_x = [&t] {
        int carry = 0;
        for (int i = 0; i < 16; ++i) {
            const int c = t[i] >> 7;
            t[i] = static_cast<uint8_t>((t[i] << 1) | carry);
            carry = c;
        }
        if (carry) t[0] ^= 0x87;
    };
    auto block = [&](bool e, const Bytes& tw, const uint8_t* src, uint8_t* dst) {
        Bytes x(16);
        for (int i = 0; i < 16; ++i) x[i] = src[i] ^ tw[i];
        x = evp_crypt(ecb, e, k1, nullptr, x);
        for (int i = 0; i < 16; ++i) dst[i] = x[i] ^ tw[i];
    };
    Bytes out = in;
    const size_t m = in.size() / 16, tail = in.size() % 16;
    const size_t plain = tail ? m - 1 : m;
    for (size_t j = 0; j < plain; ++j, mul_x()) block(enc, t, in.data() + 16 * j, out.data() + 16 * j);
    if (tail) {
        Bytes t_prev = t;
        mul_x();
        Bytes t_last = t, cc(16), pp(16);
        uint8_t* last = out.data() + 16 * (m - 1);
        uint8_t* part = out.data() + 16 * m;
        block(enc, enc ? t_prev : t_last, in.data() + 16 * (m - 1), cc.data());
        std::memcpy(pp.data(), in.data() + 16 * m, tail);
        std::memcpy(pp.data() + tail, cc.data() + tail, 16 - tail);
        std::memcpy(part, cc.data(), tail);
        block(enc, enc ? t_last : t_prev, pp.data(), last);
    }
    return out;
}

// A context on opencl:0 with options; skips the test when there is no device.
struct Ctx {
    bc_context* ctx = nullptr;
    bc_status st = BC_OK;
    explicit Ctx(const char* opts) { st = bc_context_create("opencl:0", opts, &ctx); }
    ~Ctx() { bc_context_destroy(ctx); }
};

#define OPEN_CONTEXT(c, opts)                                                                  \
    Ctx c(opts);                                                                               \
    if (c.st == BC_ERR_NO_DEVICE) GTEST_SKIP() << "skipped: no OpenCL device (" << bc_last_error() << ")"; \
    ASSERT_EQ(BC_OK, c.st) << bc_last_error()

struct Key {
    bc_key* k = nullptr;
    Key(bc_context* ctx, const char* alg, const Bytes& key) {
        EXPECT_EQ(BC_OK, bc_key_create(ctx, alg, key.data(), key.size(), &k)) << alg << ": " << bc_last_error();
    }
    ~Key() { bc_key_destroy(k); }
};

bool has_algorithm(const std::string& name) {
    bc_algorithm_info info;
    return bc_algorithm_query(name.c_str(), &info) == BC_OK;
}

// One call, out of place or in place.
Bytes run(bc_key* k, bool enc, const uint8_t* iv, const Bytes& in, bool in_place, const bc_params* p = nullptr) {
    Bytes out = in_place ? in : Bytes(in.size());
    size_t n = 0;
    const uint8_t* src = in_place ? out.data() : in.data();
    const bc_status st = enc ? bc_encrypt(k, iv, iv ? 16 : 0, src, in.size(), out.data(), out.size(), &n, p)
                             : bc_decrypt(k, iv, iv ? 16 : 0, src, in.size(), out.data(), out.size(), &n, p);
    EXPECT_EQ(BC_OK, st) << bc_last_error();
    EXPECT_EQ(n, in.size());
    return out;
}

// The name prefixes of cipher `c` with their key sizes in bits: "<c>-128-" and
// "<c>-256-", and "<c>-" for a cipher of one key size, named without it ("sm4-ecb").
std::vector<std::pair<std::string, int>> name_prefixes(const std::string& c) {
    std::vector<std::pair<std::string, int>> p = {{c + "-128-", 128}, {c + "-256-", 256}};
    bc_algorithm_info info;
    if (bc_algorithm_query((c + "-ecb").c_str(), &info) == BC_OK) p.push_back({c + "-", static_cast<int>(8 * info.key_size)});
    return p;
}

// Checks ECB, CBC (both directions), CTR (offsets, odd lengths) and XTS (several
// units, stealing) of cipher `c` ("aes", "camellia", "sm4") against OpenSSL, on a
// context made with `opts`. xts_composed: XTS against xts_ref instead of OpenSSL's XTS.
void check_cipher(bc_context* ctx, const std::string& c, bool xts_composed) {
    const bool in_place_modes[] = {false, true};
    for (const auto& prefix : name_prefixes(c)) {
        const std::string pre = prefix.first;
        const int bits = prefix.second;
        const Bytes key = rnd(bits / 8), iv = rnd(16);
        // ECB and CBC: whole blocks, sizes across batch (32 blocks) and tile edges.
        for (const char* mode : {"ecb", "cbc"}) {
            const std::string alg = pre + mode;
            if (!has_algorithm(alg)) continue;
            Key k(ctx, alg.c_str(), key);
            const uint8_t* v = std::strcmp(mode, "cbc") == 0 ? iv.data() : nullptr;
            for (size_t blocks : {1, 31, 33, 1025, 3000}) {
                const Bytes pt = rnd(16 * blocks);
                const Bytes want = evp_crypt(alg, true, key, v, pt);
                ASSERT_FALSE(want.empty()) << "OpenSSL lacks " << alg;
                for (bool ip : in_place_modes) {
                    EXPECT_EQ(run(k.k, true, v, pt, ip), want) << alg << " encrypt " << blocks << (ip ? " in place" : "");
                    EXPECT_EQ(run(k.k, false, v, want, ip), pt) << alg << " decrypt " << blocks << (ip ? " in place" : "");
                }
            }
        }
        // CTR: odd lengths, and keystream offsets inside and across blocks.
        {
            const std::string alg = pre + "ctr";
            if (has_algorithm(alg)) {
                Key k(ctx, alg.c_str(), key);
                Bytes ctr = iv;
                for (int i = 8; i < 15; ++i) ctr[i] = 0xff;  // a carry out of the low 64 bits
                const Bytes pt = rnd(40000 + 13);
                const Bytes want = evp_crypt(alg, true, key, ctr.data(), pt);
                for (size_t len : {size_t(1), size_t(15), size_t(17), size_t(531), pt.size()}) {
                    const Bytes p(pt.begin(), pt.begin() + len);
                    for (bool ip : in_place_modes)
                        EXPECT_EQ(run(k.k, true, ctr.data(), p, ip), Bytes(want.begin(), want.begin() + len))
                            << alg << " " << len << (ip ? " in place" : "");
                }
                for (uint64_t off : {1ull, 15ull, 16ull, 17ull, 4097ull}) {
                    bc_params prm{};
                    prm.offset = off;
                    const Bytes p(pt.begin() + off, pt.end());
                    EXPECT_TRUE(std::equal(want.begin() + off, want.end(), run(k.k, true, ctr.data(), p, true, &prm).begin()))
                        << alg << " offset " << off;
                }
            }
        }
        // XTS: several data units, a shorter last one, units with a partial block.
        {
            const std::string alg = pre + "xts";
            if (has_algorithm(alg)) {
                const Bytes xkey = rnd(bits / 4), tweak = rnd(16);
                const Bytes k1(xkey.begin(), xkey.begin() + bits / 8), k2(xkey.begin() + bits / 8, xkey.end());
                Key k(ctx, alg.c_str(), xkey);
                auto expect_unit = [&](const Bytes& t, const Bytes& p) {
                    return xts_composed ? xts_ref(pre + "ecb", true, k1, k2, t, p) : evp_crypt(alg, true, xkey, t.data(), p);
                };
                struct Case { size_t unit, len; };
                for (Case cs : {Case{512, 512 * 5}, Case{4096, 4096 * 3 + 16 * 40 + 7}, Case{528, 528 * 4 + 100},
                                Case{0, 17}, Case{0, 16 * 70 + 9}, Case{0, 4096}}) {
                    const Bytes pt = rnd(cs.len);
                    bc_params prm{};
                    prm.data_unit_size = cs.unit;
                    const size_t unit = cs.unit ? cs.unit : cs.len;
                    Bytes want;
                    Bytes t = tweak;
                    for (size_t off = 0; off < cs.len; off += unit) {
                        const Bytes piece(pt.begin() + off, pt.begin() + std::min(cs.len, off + unit));
                        const Bytes w = expect_unit(t, piece);
                        want.insert(want.end(), w.begin(), w.end());
                        for (int i = 0; i < 16 && ++t[i] == 0; ++i) {}  // 128-bit little-endian increment
                    }
                    for (bool ip : in_place_modes) {
                        EXPECT_EQ(run(k.k, true, tweak.data(), pt, ip, &prm), want)
                            << alg << " unit " << cs.unit << " len " << cs.len << (ip ? " in place" : "");
                        EXPECT_EQ(run(k.k, false, tweak.data(), want, ip, &prm), pt)
                            << alg << " decrypt unit " << cs.unit << " len " << cs.len << (ip ? " in place" : "");
                    }
                }
            }
        }
    }
}

TEST(OpenClBlock, AesThroughGenericKernelsMatchesOpenSsl) {
    const auto t0 = std::chrono::steady_clock::now();
    OPEN_CONTEXT(c, "aes=generic");
    check_cipher(c.ctx, "aes", false);
    std::printf("[ info ] aes through the generic kernels: %.1f s (program build included)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// The generic path is what ran: the backend built block parts for AES, none of AES's own.
TEST(OpenClBlock, AesGenericOptionBuildsTheBlockProgram) {
    ContextOptions opt;
    opt.aes_generic = true;
    std::unique_ptr<Backend> be;
    Status s = make_opencl_backend(0, opt, &be);
    if (s.code == BC_ERR_NO_DEVICE) GTEST_SKIP() << "skipped: no OpenCL device (" << s.detail << ")";
    ASSERT_TRUE(s.is_ok()) << s.detail;
    const Bytes key = rnd(16), pt = rnd(16 * 40);
    KeyMaterial km;
    km.alg = find_algorithm("aes-128-ecb");
    km.raw = SecureBytes(key.data(), key.size());
    std::unique_ptr<BackendKey> bk;
    ASSERT_TRUE(be->prepare_key(km, &bk).is_ok());
    Bytes out(pt.size());
    CipherOp op;
    op.dir = Dir::Encrypt;
    op.in = pt.data();
    op.out = out.data();
    op.len = pt.size();
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(be->cipher(km, *bk, op).is_ok());
    const double first_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(out, evp_crypt("aes-128-ecb", true, key, nullptr, pt));
    const std::string report = static_cast<OpenClBackend&>(*be).build_report();
    const std::vector<OpenClPart> parts = static_cast<OpenClBackend&>(*be).program_parts();
    ASSERT_FALSE(parts.empty()) << report;
    for (const OpenClPart& p : parts) EXPECT_EQ(p.name.rfind("block/aes/", 0), 0u) << "not a block part:\n" << report;
    std::printf("[ info ] block/aes: %.2f s to the first call (build or cache)\n%s", first_s, report.c_str());
}

// Every other block cipher of the catalogue with OpenSSL counterparts.
TEST(OpenClBlock, OtherBlockCiphersMatchOpenSsl) {
    OPEN_CONTEXT(c, nullptr);
    int checked = 0;
    for (size_t i = 0; const BlockCipher* bc = block_cipher_at(i); ++i) {
        const std::string name = bc->name;
        if (name == "aes" || bc->block_bytes != 16) continue;
        const std::string ecb = has_algorithm(name + "-128-ecb") ? name + "-128-ecb" : name + "-ecb";
        if (!has_algorithm(ecb)) continue;
        EVP_CIPHER* e = EVP_CIPHER_fetch(nullptr, ecb.c_str(), nullptr);
        if (e == nullptr) continue;
        EVP_CIPHER_free(e);
        const auto t0 = std::chrono::steady_clock::now();
        check_cipher(c.ctx, name, true);
        std::printf("[ info ] %s through the generic kernels: %.1f s (program build included)\n", name.c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "skipped: no block cipher besides AES in the catalogue with an OpenSSL counterpart";
}

// SEED (one key size, names without it): ECB and CBC against OpenSSL's legacy
// SEED-ECB/CBC, CTR (which OpenSSL lacks) against a keystream of SEED-ECB over the
// counter blocks, XTS against xts_ref over SEED-ECB.
TEST(OpenClBlock, SeedMatchesOpenSslLegacy) {
    if (!has_algorithm("seed-ecb")) GTEST_SKIP() << "skipped: no SEED in the catalogue";
    EVP_CIPHER* e = fetch_cipher("SEED-ECB");
    if (e == nullptr) GTEST_SKIP() << "skipped: OpenSSL's legacy provider (SEED-ECB) is not available";
    EVP_CIPHER_free(e);
    OPEN_CONTEXT(c, nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    const Bytes key = rnd(16), iv = rnd(16);
    for (const char* mode : {"ecb", "cbc"}) {
        const std::string alg = std::string("seed-") + mode;
        Key k(c.ctx, alg.c_str(), key);
        const uint8_t* v = std::strcmp(mode, "cbc") == 0 ? iv.data() : nullptr;
        for (size_t blocks : {1, 31, 33, 1025, 3000}) {
            const Bytes pt = rnd(16 * blocks);
            const Bytes want = evp_crypt(alg, true, key, v, pt);
            ASSERT_EQ(pt.size(), want.size()) << alg;
            for (bool ip : {false, true}) {
                EXPECT_EQ(run(k.k, true, v, pt, ip), want) << alg << " encrypt " << blocks << (ip ? " in place" : "");
                EXPECT_EQ(run(k.k, false, v, want, ip), pt) << alg << " decrypt " << blocks << (ip ? " in place" : "");
            }
        }
    }
    {
        Key k(c.ctx, "seed-ctr", key);
        Bytes ctr = iv;
        for (int i = 8; i < 15; ++i) ctr[i] = 0xff;  // a carry out of the low 64 bits
        const Bytes pt = rnd(40000 + 13);
        const size_t nblocks = (pt.size() + 15) / 16;
        Bytes counters;
        Bytes cb = ctr;
        for (size_t b = 0; b < nblocks; ++b) {
            counters.insert(counters.end(), cb.begin(), cb.end());
            for (int i = 15; i >= 0 && ++cb[i] == 0; --i) {}  // 128-bit big-endian increment
        }
        const Bytes ks = evp_crypt("seed-ecb", true, key, nullptr, counters);
        ASSERT_EQ(counters.size(), ks.size());
        Bytes want = pt;
        for (size_t i = 0; i < pt.size(); ++i) want[i] ^= ks[i];
        for (size_t len : {size_t(1), size_t(15), size_t(17), size_t(531), pt.size()}) {
            const Bytes p(pt.begin(), pt.begin() + len);
            for (bool ip : {false, true})
                EXPECT_EQ(run(k.k, true, ctr.data(), p, ip), Bytes(want.begin(), want.begin() + len))
                    << "seed-ctr " << len << (ip ? " in place" : "");
        }
        for (uint64_t off : {1ull, 15ull, 16ull, 17ull, 4097ull}) {
            bc_params prm{};
            prm.offset = off;
            const Bytes p(pt.begin() + off, pt.end());
            EXPECT_TRUE(std::equal(want.begin() + off, want.end(), run(k.k, true, ctr.data(), p, true, &prm).begin()))
                << "seed-ctr offset " << off;
        }
    }
    {
        const Bytes xkey = rnd(32), tweak = rnd(16);
        const Bytes k1(xkey.begin(), xkey.begin() + 16), k2(xkey.begin() + 16, xkey.end());
        Key k(c.ctx, "seed-128-xts", xkey);
        struct Case { size_t unit, len; };
        for (Case cs : {Case{512, 512 * 5}, Case{528, 528 * 4 + 100}, Case{0, 17}, Case{0, 16 * 70 + 9}}) {
            const Bytes pt = rnd(cs.len);
            bc_params prm{};
            prm.data_unit_size = cs.unit;
            const size_t unit = cs.unit ? cs.unit : cs.len;
            Bytes want;
            Bytes t = tweak;
            for (size_t off = 0; off < cs.len; off += unit) {
                const Bytes piece(pt.begin() + off, pt.begin() + std::min(cs.len, off + unit));
                const Bytes w = xts_ref("seed-ecb", true, k1, k2, t, piece);
                want.insert(want.end(), w.begin(), w.end());
                for (int i = 0; i < 16 && ++t[i] == 0; ++i) {}  // 128-bit little-endian increment
            }
            for (bool ip : {false, true}) {
                EXPECT_EQ(run(k.k, true, tweak.data(), pt, ip, &prm), want)
                    << "seed-128-xts unit " << cs.unit << " len " << cs.len << (ip ? " in place" : "");
                EXPECT_EQ(run(k.k, false, tweak.data(), want, ip, &prm), pt)
                    << "seed-128-xts decrypt unit " << cs.unit << " len " << cs.len << (ip ? " in place" : "");
            }
        }
    }
    std::printf("[ info ] seed through the generic kernels: %.1f s (program build included)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// Block ciphers of the catalogue that OpenSSL lacks (CLEFIA): every mode on opencl:0
// against the CPU backend, which runs the generic host modes over the cipher's
// portable core (checked against its standard's vectors in the core's unit test).
TEST(OpenClBlock, BlockCiphersWithoutOpenSslMatchTheCpuBackend) {
    OPEN_CONTEXT(c, nullptr);
    bc_context* cpu = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", nullptr, &cpu)) << bc_last_error();
    int checked = 0;
    for (size_t i = 0; const BlockCipher* bc = block_cipher_at(i); ++i) {
        const std::string name = bc->name;
        if (name == "aes" || bc->block_bytes != 16 || !has_algorithm(name + "-128-ecb")) continue;
        EVP_CIPHER* e = EVP_CIPHER_fetch(nullptr, (name + "-128-ecb").c_str(), nullptr);
        if (e != nullptr) {  // checked against OpenSSL above
            EVP_CIPHER_free(e);
            continue;
        }
        for (int bits : {128, 256}) {
            for (const char* mode : {"ecb", "cbc", "ctr", "xts"}) {
                const std::string alg = name + "-" + std::to_string(bits) + "-" + mode;
                if (!has_algorithm(alg)) continue;
                const bool xts = std::string(mode) == "xts", ctr = std::string(mode) == "ctr";
                const Bytes key = rnd(xts ? bits / 4 : bits / 8), iv = rnd(16);
                Key kg(c.ctx, alg.c_str(), key), kc(cpu, alg.c_str(), key);
                const uint8_t* ivp = std::string(mode) == "ecb" ? nullptr : iv.data();
                for (size_t len : {size_t(16), size_t(16 * 33), size_t(16 * 1025), size_t(16 * 3000)}) {
                    const size_t l = ctr ? len - 5 : xts ? len + 7 : len;
                    const Bytes pt = rnd(l);
                    bc_params p = {};
                    if (xts) p.data_unit_size = 512;
                    const bc_params* pp = xts ? &p : nullptr;
                    for (bool ip : {false, true}) {
                        const Bytes want = run(kc.k, true, ivp, pt, false, pp);
                        EXPECT_EQ(want, run(kg.k, true, ivp, pt, ip, pp)) << alg << " enc len=" << l << " ip=" << ip;
                        EXPECT_EQ(pt, run(kg.k, false, ivp, want, ip, pp)) << alg << " dec len=" << l << " ip=" << ip;
                    }
                }
            }
        }
        ++checked;
    }
    bc_context_destroy(cpu);
    if (checked == 0) GTEST_SKIP() << "skipped: every block cipher of the catalogue has an OpenSSL counterpart";
}

}  // namespace
}  // namespace bc
