// The OpenCL backend on whatever OpenCL device this machine has (PoCL on CPUs in
// CI): discovery, source embedding, the binary cache, build errors, and every
// mode against OpenSSL or the portable host cores at random sizes and offsets,
// in place. Skips, saying so, when there is no OpenCL device.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backends/opencl/cl_embedded.h"
#include "test_opencl_common.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_kernels.h"
#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "catalog/catalog.h"
#include "modes/gcm/gcm.h"

namespace bc {
namespace {

using namespace ocltest;

// ---- infrastructure ---------------------------------------------------------------

TEST(OpenClInfra, EmbeddedSourcesAssembleWithoutIncludesLeft) {
    for (const ocl::PartSpec& p : ocl::kParts) {
        std::string src;
        Status s = ocl::assemble_source(p.root, &src);
        ASSERT_TRUE(s.is_ok()) << s.detail;
        EXPECT_EQ(src.find("#include \""), std::string::npos);
        EXPECT_NE(src.find("dialect/bc_dialect.h"), std::string::npos);  // via #line
    }
    std::string src;
    EXPECT_EQ(ocl::assemble_source("no/such/file.cl", &src).code, BC_ERR_INTERNAL);
}

TEST(OpenClInfra, DiscoveryAndBadIndex) {
    REQUIRE_OPENCL();
    std::vector<std::string> names;
    ASSERT_TRUE(opencl_device_list(&names).is_ok());
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names[0].rfind("opencl:0 ", 0), 0u);
    EXPECT_FALSE(shared().be->device_name().empty());
    EXPECT_STREQ(shared().be->name(), "opencl");
    std::unique_ptr<Backend> none;
    Status s = make_opencl_backend(1000, ContextOptions{}, &none);
    EXPECT_EQ(s.code, BC_ERR_NO_DEVICE);
    EXPECT_NE(s.detail.find("opencl:1000"), std::string::npos);
    EXPECT_FALSE(shared().be->supports_memory(BC_MEMORY_DEVICE));
}

TEST(OpenClInfra, BuildFailureCarriesTheLogAndBinariesAreCached) {
    REQUIRE_OPENCL();
    const ocl::DeviceInfo& dev = ocl_backend().device();
    char tmpl[] = "/tmp/bc_ocl_cache_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    setenv("BULKCRYPT_CACHE_DIR", tmpl, 1);

    ocl::ProgramHandle p;
    ocl::BuildResult r;
    Status s = ocl::build_program(ocl_backend().cl_ctx(), dev, "__kernel void broken(__global int* p) { p[0] = ; }",
                                  "", &p, &r);
    EXPECT_EQ(s.code, BC_ERR_DEVICE);
    EXPECT_NE(s.detail.find("build log"), std::string::npos) << s.detail;

    const std::string ok = "__kernel void twice(__global int* p) { p[get_global_id(0)] *= 2; }";
    ASSERT_TRUE(ocl::build_program(ocl_backend().cl_ctx(), dev, ok, "-DX=1", &p, &r).is_ok());
    EXPECT_FALSE(r.from_cache);
    EXPECT_FALSE(r.cache_path.empty());
    ASSERT_TRUE(ocl::build_program(ocl_backend().cl_ctx(), dev, ok, "-DX=1", &p, &r).is_ok());
    EXPECT_TRUE(r.from_cache);
    // A damaged cache file is rebuilt from source, not trusted.
    {
        FILE* f = std::fopen(r.cache_path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fputs("not a program binary", f);
        std::fclose(f);
    }
    ASSERT_TRUE(ocl::build_program(ocl_backend().cl_ctx(), dev, ok, "-DX=1", &p, &r).is_ok());
    EXPECT_FALSE(r.from_cache);
    ASSERT_TRUE(ocl::build_program(ocl_backend().cl_ctx(), dev, ok, "-DX=1", &p, &r).is_ok());
    EXPECT_TRUE(r.from_cache);
    // Other options are another binary.
    ASSERT_TRUE(ocl::build_program(ocl_backend().cl_ctx(), dev, ok, "-DX=2", &p, &r).is_ok());
    EXPECT_FALSE(r.from_cache);
    unsetenv("BULKCRYPT_CACHE_DIR");
    std::string cmd = std::string("rm -rf ") + tmpl;
    EXPECT_EQ(std::system(cmd.c_str()), 0);
}

// ---- GHASH --------------------------------------------------------------------------

TEST(OpenClGhash, DevicePartialMatchesHost) {
    REQUIRE_OPENCL();
    std::mt19937_64 rng(11);
    for (Backend* b : {shared().be.get(), shared().small.get()}) {
        auto& o = static_cast<OpenClBackend&>(*b);
        for (size_t n : test_sizes(rng)) {
            Bytes data = random_bytes(rng, n);
            bc_gf128 h{rng(), rng()};
            bc_gf128 dev{0, 0};
            Status s = o.ghash_partial(h, data.data(), n, &dev);
            ASSERT_TRUE(s.is_ok()) << s.detail;
            bc_gf128 host = bc::ghash_partial(h, data.data(), n);
            EXPECT_EQ(dev.hi, host.hi) << "n=" << n;
            EXPECT_EQ(dev.lo, host.lo) << "n=" << n;
        }
    }
}

// ---- stream ciphers --------------------------------------------------------------------

// OpenSSL's ChaCha20 from keystream byte `offset` (its IV: le32 counter || nonce).
Bytes openssl_chacha20(const Bytes& key, const uint8_t iv[16], uint64_t offset, const Bytes& in) {
    Bytes pre(offset + in.size(), 0);
    std::memcpy(pre.data() + offset, in.data(), in.size());
    Bytes out(pre.size());
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int n = 0;
    EXPECT_EQ(EVP_EncryptInit_ex(c, EVP_chacha20(), nullptr, key.data(), iv), 1);
    if (!pre.empty()) EXPECT_EQ(EVP_EncryptUpdate(c, out.data(), &n, pre.data(), static_cast<int>(pre.size())), 1);
    EVP_CIPHER_CTX_free(c);
    return Bytes(out.begin() + static_cast<long>(offset), out.end());
}

// The portable cores on the host, as the reference for the ciphers OpenSSL lacks.
Bytes host_stream(const char* alg_name, const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in) {
    const Algorithm* alg = find_algorithm(alg_name);
    uint32_t st[16];
    Bytes out(in);
    int layout = BC_CHACHA_LAYOUT_DJB;
    bool chacha = alg->cipher == Cipher::ChaCha20 || alg->cipher == Cipher::XChaCha20;
    if (alg->cipher == Cipher::XChaCha20) {
        uint8_t sub[32];
        bc_hchacha20(key.data(), iv.data(), sub);
        bc_chacha_set_key(st, sub, 32);
        bc_chacha_set_djb(st, 0, iv.data() + 16);
    } else if (alg->cipher == Cipher::ChaCha20) {
        bc_chacha_set_key(st, key.data(), 32);
        if (iv.size() == 16) bc_chacha_set_djb(st, bc_load_le64(iv.data()), iv.data() + 8);
        else bc_chacha_set_djb(st, 0, iv.data());
    } else if (alg->cipher == Cipher::XSalsa20) {
        uint8_t sub[32];
        bc_hsalsa20(key.data(), iv.data(), sub);
        bc_salsa_set_key(st, sub, 32);
        bc_salsa_set_nonce(st, iv.data() + 16, 0);
    } else {
        bc_salsa_set_key(st, key.data(), static_cast<int>(key.size()));
        bc_salsa_set_nonce(st, iv.data(), 0);
    }
    if (chacha) bc_chacha_xor_g(st, layout, alg->rounds, offset, out.data(), out.data(), out.size());
    else bc_salsa_xor_g(st, alg->rounds, offset, out.data(), out.data(), out.size());
    return out;
}

void check_stream(const char* alg_name, size_t iv_len) {
    std::mt19937_64 rng(std::hash<std::string>()(alg_name));
    const Algorithm* alg = find_algorithm(alg_name);
    ASSERT_NE(alg, nullptr);
    Bytes key = random_bytes(rng, alg->key_size);
    KeyMaterial km = key_material(alg_name, key);
    for (Backend* b : {shared().be.get(), shared().small.get()}) {
        ASSERT_TRUE(b->supports(*alg)) << alg_name;
        std::unique_ptr<BackendKey> bk;
        Status s = b->prepare_key(km, &bk);
        ASSERT_TRUE(s.is_ok()) << s.detail;
        for (size_t n : test_sizes(rng)) {
            Bytes iv = random_bytes(rng, iv_len);
            if (std::strcmp(alg_name, "chacha20") == 0) iv[3] = 0;  // keep the 32-bit counter from wrapping
            uint64_t offset = rng() % 5000;
            Bytes data = random_bytes(rng, n);
            Bytes want = std::strcmp(alg_name, "chacha20") == 0 ? openssl_chacha20(key, iv.data(), offset, data)
                                                                 : host_stream(alg_name, key, iv, offset, data);
            CipherOp op;
            op.iv = iv.data();
            op.iv_len = iv.size();
            op.in = data.data();
            op.out = data.data();  // in place
            op.len = n;
            op.offset = offset;
            s = b->cipher(km, *bk, op);
            ASSERT_TRUE(s.is_ok()) << s.detail;
            EXPECT_EQ(data, want) << alg_name << " n=" << n << " offset=" << offset;
        }
    }
}

TEST(OpenClStream, ChaCha20VsOpenSSL) { REQUIRE_OPENCL(); check_stream("chacha20", 16); }
TEST(OpenClStream, ChaCha20DjbVsHostCore) {
    REQUIRE_OPENCL();
    check_stream("chacha20-djb", 8);
    check_stream("chacha20-djb", 16);
}
TEST(OpenClStream, XChaCha20VsHostCore) { REQUIRE_OPENCL(); check_stream("xchacha20", 24); }
TEST(OpenClStream, Salsa20FamilyVsHostCore) {
    REQUIRE_OPENCL();
    for (const char* a : {"salsa20", "salsa20-128", "salsa20-12", "salsa20-12-128", "salsa20-8", "salsa20-8-128"})
        check_stream(a, 8);
}
TEST(OpenClStream, XSalsa20VsHostCore) { REQUIRE_OPENCL(); check_stream("xsalsa20", 24); }

// Calls from several threads at once on one backend and one key (the C API's
// promise for one-shot calls) give each caller its own right answer.
TEST(OpenClStream, ConcurrentCallersOnOneKey) {
    REQUIRE_OPENCL();
    Bytes key(32, 7);
    KeyMaterial km = key_material("chacha20", key);
    std::unique_ptr<BackendKey> bk;
    ASSERT_TRUE(shared().small->prepare_key(km, &bk).is_ok());
    constexpr int kThreads = 4;
    std::vector<Bytes> data(kThreads), want(kThreads);
    std::vector<Status> got(kThreads);
    uint8_t iv[16] = {0};
    std::mt19937_64 rng(9);
    for (int t = 0; t < kThreads; ++t) {
        data[t] = random_bytes(rng, 150000 + 1000 * t);
        want[t] = openssl_chacha20(key, iv, 64 * t, data[t]);
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            CipherOp op;
            op.iv = iv;
            op.iv_len = 16;
            op.in = op.out = data[t].data();
            op.len = data[t].size();
            op.offset = 64 * t;
            got[t] = shared().small->cipher(km, *bk, op);
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_TRUE(got[t].is_ok()) << got[t].detail;
        EXPECT_EQ(data[t], want[t]) << "thread " << t;
    }
}

}  // namespace
}  // namespace bc
