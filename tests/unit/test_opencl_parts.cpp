// The OpenCL programs are built in parts, on first use (opencl_kernels.h): a key
// builds the parts of the kernels its mode launches and no other (CTR alone for
// AES-128-CTR; GCM adds GHASH; ECB both directions; the generic block path likewise
// per cipher), and its calls build nothing more, but for XTS's stealing kernel, built
// for the first unit that needs it. A failed part is remembered and leaves the others
// working. Each test opens a backend of its own, so that the shared one's parts do not
// count.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "backends/opencl/cl_embedded.h"
#include "backends/opencl/ocl_backend_impl.h"
#include "backends/opencl/opencl_kernels.h"
#include "test_opencl_common.h"

namespace bc {
namespace {

using namespace ocltest;
using Names = std::vector<std::string>;

#define OPEN_FRESH(be, opt)                                                                    \
    std::unique_ptr<Backend> be;                                                               \
    do {                                                                                       \
        Status s_ = make_opencl_backend(0, opt, &be);                                          \
        if (s_.code == BC_ERR_NO_DEVICE) GTEST_SKIP() << "skipped: no OpenCL device (" << s_.detail << ")"; \
        ASSERT_TRUE(s_.is_ok()) << s_.detail;                                                  \
    } while (0)

OpenClBackend& as_ocl(const std::unique_ptr<Backend>& be) { return static_cast<OpenClBackend&>(*be); }

// The parts built so far, in the order of first use; every one built without failure.
Names parts(const std::unique_ptr<Backend>& be) {
    Names n;
    for (const OpenClPart& p : as_ocl(be).program_parts()) {
        EXPECT_TRUE(p.ok) << p.name << " failed:\n" << as_ocl(be).build_report();
        n.push_back(p.name);
    }
    return n;
}

// OpenSSL one shot, no padding.
Bytes openssl(const char* name, bool enc, const Bytes& key, const Bytes& iv, const Bytes& in) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
    EXPECT_NE(c, nullptr) << name;
    Bytes out(in.size() + 32);
    int n = 0, m = 0;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    EXPECT_EQ(EVP_CipherInit_ex(ctx, c, nullptr, key.data(), iv.empty() ? nullptr : iv.data(), enc ? 1 : 0), 1);
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    EXPECT_EQ(EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size())), 1);
    EXPECT_EQ(EVP_CipherFinal_ex(ctx, out.data() + n, &m), 1);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    out.resize(static_cast<size_t>(n + m));
    return out;
}

// A key of `alg` (random, from the algorithm's name) on the backend.
struct Keyed {
    Bytes key, iv;
    KeyMaterial km;
    std::unique_ptr<BackendKey> bk;
};
Keyed keyed(const std::unique_ptr<Backend>& be, const char* alg) {
    Keyed k;
    const Algorithm* a = find_algorithm(alg);
    EXPECT_NE(a, nullptr) << alg;
    if (a == nullptr) return k;
    std::mt19937_64 rng(std::hash<std::string>()(alg));
    k.key = random_bytes(rng, a->key_size);
    k.iv = random_bytes(rng, a->iv_size);
    if (a->cipher == Cipher::ChaCha20) k.iv[3] = 0;  // OpenSSL's 32-bit block counter does not wrap
    k.km = key_material(alg, k.key);
    Status s = be->prepare_key(k.km, &k.bk);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    return k;
}

// One raw-mode call in place, against OpenSSL's `ossl` (data_unit 0: one XTS unit);
// unless `builds`, the call finds every part it needs built.
void check_call(const std::unique_ptr<Backend>& be, const Keyed& k, const char* ossl, Dir dir, const Bytes& in,
                bool builds = false) {
    ASSERT_NE(k.bk, nullptr);
    const size_t before = as_ocl(be).program_parts().size();
    Bytes data = in;
    CipherOp op;
    op.dir = dir;
    op.iv = k.iv.empty() ? nullptr : k.iv.data();
    op.iv_len = k.iv.size();
    op.in = op.out = data.data();
    op.len = data.size();
    Status s = be->cipher(k.km, *k.bk, op);
    ASSERT_TRUE(s.is_ok()) << s.detail;
    EXPECT_EQ(data, openssl(ossl, dir == Dir::Encrypt, k.key, k.iv, in)) << k.km.alg->name;
    if (!builds) EXPECT_EQ(as_ocl(be).program_parts().size(), before) << k.km.alg->name << ": the call built a part";
}

// The lines of build_report that name a part (the others, indented, its kernels).
Names report_parts(const std::string& report) {
    Names n;
    size_t start = 0;
    while (start < report.size()) {
        size_t nl = report.find('\n', start);
        if (nl == std::string::npos) nl = report.size();
        const std::string line = report.substr(start, nl - start);
        if (!line.empty() && line[0] != ' ') {
            EXPECT_TRUE(line.find(": compiled in ") != std::string::npos ||
                        line.find(": cached binary in ") != std::string::npos)
                << line;
            n.push_back(line.substr(0, line.find(':')));
        }
        start = nl + 1;
    }
    return n;
}

// ---- the table ---------------------------------------------------------------------

// Every kernel has one part, and each part's root has its define. (Whether the
// define keeps the part's kernels, some named by token pasting, is for the build:
// the tests that run each mode look every kernel up.)
TEST(OpenClParts, TableMatchesTheKernelFiles) {
    auto check = [](const auto& table) {
        std::set<std::string> kernels, names;
        for (const ocl::PartSpec& p : table) {
            EXPECT_TRUE(names.insert(p.name).second) << "part " << p.name << " twice";
            std::string src;
            ASSERT_TRUE(ocl::assemble_source(p.root, &src).is_ok()) << p.root;
            EXPECT_NE(src.find(std::string("#if ") + p.define + "\n"), std::string::npos) << p.name;
            ASSERT_NE(p.kernels[0], nullptr) << p.name;
            for (const char* const* k = p.kernels; *k; ++k) {
                EXPECT_TRUE(kernels.insert(*k).second) << *k << " in two parts";
                EXPECT_EQ(ocl::part_of(table, *k), &p) << *k;
            }
        }
    };
    check(ocl::kParts);
    check(ocl::kBlockParts);
    EXPECT_EQ(ocl::part_of(ocl::kParts, "bc_block_ctr"), nullptr);
}

// ---- what a call builds -------------------------------------------------------------

TEST(OpenClParts, AesKeysBuildTheirModesPartsOnly) {
    OPEN_FRESH(be, ContextOptions{});
    EXPECT_TRUE(parts(be).empty());
    EXPECT_EQ(as_ocl(be).kernel_work_group_limit(), 0u);
    EXPECT_EQ(as_ocl(be).build_report(), "");
    std::mt19937_64 rng(11);
    const Bytes pt = random_bytes(rng, 16 * 70 + 5);

    const Keyed ctr = keyed(be, "aes-128-ctr");
    EXPECT_EQ(parts(be), Names({"aes/ctr"}));
    check_call(be, ctr, "AES-128-CTR", Dir::Encrypt, pt);
    EXPECT_GT(as_ocl(be).kernel_work_group_limit(), 0u);
    const std::string report = as_ocl(be).build_report();
    EXPECT_EQ(report_parts(report), Names({"aes/ctr"})) << report;
    EXPECT_NE(report.find("\n  bc_aes_ctr: max group "), std::string::npos) << report;

    // GCM: its keystream is CTR's kernel (inc32); GHASH is a part of its own.
    {
        Keyed k = keyed(be, "aes-128-gcm");
        ASSERT_NE(k.bk, nullptr);
        EXPECT_EQ(parts(be), Names({"aes/ctr", "ghash"}));
        Bytes ctr = random_bytes(rng, 16);
        ctr[12] = ctr[13] = ctr[14] = 0;  // the 32-bit counter does not wrap: plain CTR's keystream
        Bytes data = pt;
        AeadChunkOp op;
        op.dir = Dir::Encrypt;
        std::memcpy(op.ctr, ctr.data(), 16);
        op.in = op.out = data.data();
        op.len = data.size();
        Status s = be->aead_chunk(k.km, *k.bk, op);
        ASSERT_TRUE(s.is_ok()) << s.detail;
        EXPECT_EQ(data, openssl("AES-128-CTR", true, k.key, ctr, pt));
    }
    EXPECT_EQ(parts(be), Names({"aes/ctr", "ghash"}));

    // ECB: a part per direction, both built by the key.
    const Keyed ecb = keyed(be, "aes-128-ecb");
    EXPECT_EQ(parts(be), Names({"aes/ctr", "ghash", "aes/ecb-enc", "aes/ecb-dec"}));
    const Bytes blocks(pt.begin(), pt.begin() + 16 * 70);
    check_call(be, ecb, "AES-128-ECB", Dir::Encrypt, blocks);
    check_call(be, ecb, "AES-128-ECB", Dir::Decrypt, blocks);
    EXPECT_EQ(parts(be), Names({"aes/ctr", "ghash", "aes/ecb-enc", "aes/ecb-dec"}));
    EXPECT_EQ(report_parts(as_ocl(be).build_report()), parts(be));

    // A stream cipher: its own variant, none of the others; its AEAD adds Poly1305.
    check_call(be, keyed(be, "chacha20"), "ChaCha20", Dir::Encrypt, pt);
    EXPECT_EQ(parts(be), Names({"aes/ctr", "ghash", "aes/ecb-enc", "aes/ecb-dec", "stream/chacha20"}));
    EXPECT_NE(keyed(be, "chacha20-poly1305").bk, nullptr);
    EXPECT_EQ(parts(be), Names({"aes/ctr", "ghash", "aes/ecb-enc", "aes/ecb-dec", "stream/chacha20", "poly1305"}));
    EXPECT_GT(as_ocl(be).kernel_work_group_limit(), 0u);
}

// XTS: the tweaks and the units' kernels; the stealing kernel once a unit has a partial block.
TEST(OpenClParts, XtsBuildsItsStealingPartOnlyWhenAUnitNeedsIt) {
    OPEN_FRESH(be, ContextOptions{});
    std::mt19937_64 rng(12);
    const Keyed k = keyed(be, "aes-128-xts");
    EXPECT_EQ(parts(be), Names({"aes/xts-tweaks", "aes/xts-enc", "aes/xts-dec"}));
    check_call(be, k, "AES-128-XTS", Dir::Encrypt, random_bytes(rng, 512));
    check_call(be, k, "AES-128-XTS", Dir::Encrypt, random_bytes(rng, 520), true);
    EXPECT_EQ(parts(be), Names({"aes/xts-tweaks", "aes/xts-enc", "aes/xts-dec", "aes/xts-steal-enc"}));
}

// The generic block path (AES under aes=generic): parts per cipher, XTS's tweaks
// encrypted with ECB encryption's part.
TEST(OpenClParts, GenericBlockKeysBuildTheirCiphersModeParts) {
    ContextOptions opt;
    opt.aes_generic = true;
    OPEN_FRESH(be, opt);
    std::mt19937_64 rng(13);
    check_call(be, keyed(be, "aes-128-ctr"), "AES-128-CTR", Dir::Encrypt, random_bytes(rng, 16 * 40 + 3));
    EXPECT_EQ(parts(be), Names({"block/aes/ctr"}));
    check_call(be, keyed(be, "aes-128-xts"), "AES-128-XTS", Dir::Encrypt, random_bytes(rng, 512));
    EXPECT_EQ(parts(be), Names({"block/aes/ctr", "block/aes/xts-tweaks", "block/aes/ecb-enc", "block/aes/xts-enc",
                                "block/aes/xts-dec"}));
}

// ---- failures -----------------------------------------------------------------------

// A part that fails (to assemble or to build) is remembered, not retried, and the
// parts beside it build and run as before.
TEST(OpenClParts, AFailedPartIsRememberedAndKeepsOthersWorking) {
    REQUIRE_OPENCL();
    ocl::Parts set(ocl_backend().cl_ctx(), ocl_backend().device(), "");
    int assembled = 0;
    auto text = [&](const char* t) {
        return [&assembled, t](std::string* out) {
            ++assembled;
            *out = t;
            return Status::ok();
        };
    };
    const char* const broken[] = {"broken", nullptr};
    const char* const twice[] = {"twice", nullptr};
    cl_kernel k = nullptr;
    for (int i = 0; i < 2; ++i) {
        Status s = set.kernel("bad", broken, text("__kernel void broken(__global int* p) { p[0] = ; }"), "broken", &k);
        EXPECT_EQ(s.code, BC_ERR_DEVICE);
        EXPECT_EQ(s.detail.rfind("bad: ", 0), 0u) << s.detail;
    }
    EXPECT_EQ(assembled, 1) << "a failed part was built again";
    Status s = set.kernel("unassembled", twice,
                          [&](std::string*) {
                              ++assembled;
                              return Status(BC_ERR_INTERNAL, "no source");
                          },
                          "twice", &k);
    EXPECT_EQ(s.code, BC_ERR_INTERNAL);
    EXPECT_EQ(set.kernel("unassembled", twice, text(""), "twice", &k).code, BC_ERR_INTERNAL);
    EXPECT_EQ(assembled, 2);

    const char* good = "__kernel void twice(__global int* p) { p[get_global_id(0)] *= 2; }";
    s = set.kernel("good", twice, text(good), "twice", &k);
    ASSERT_TRUE(s.is_ok()) << s.detail;
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(set.kernel("good", twice, text(good), "absent", &k).code, BC_ERR_INTERNAL);
    EXPECT_EQ(assembled, 3);

    // The good part's kernel runs.
    cl_int err = CL_SUCCESS;
    int v[4] = {1, 2, 3, 4};
    ASSERT_TRUE(set.kernel("good", twice, text(good), "twice", &k).is_ok());
    ocl::MemHandle m(clCreateBuffer(ocl_backend().cl_ctx(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, v, &err));
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem mem = m.get();
    ASSERT_EQ(clSetKernelArg(k, 0, sizeof mem, &mem), CL_SUCCESS);
    const size_t global = 4;
    cl_command_queue q = ocl_backend().cl_queue();
    ASSERT_EQ(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, sizeof v, v, 0, nullptr, nullptr), CL_SUCCESS);
    EXPECT_EQ(v[3], 8);

    const std::vector<OpenClPart> list = set.list();
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].name, "bad");
    EXPECT_FALSE(list[0].ok);
    EXPECT_FALSE(list[1].ok);
    EXPECT_EQ(list[2].name, "good");
    EXPECT_TRUE(list[2].ok);
    EXPECT_GT(set.work_group_limit(), 0u);
    const std::string report = set.report();
    EXPECT_EQ(report.rfind("bad: failed in ", 0), 0u) << report;
    EXPECT_NE(report.find("\nunassembled: failed in "), std::string::npos) << report;
    EXPECT_NE(report.find("\n  twice: max group "), std::string::npos) << report;
}

}  // namespace
}  // namespace bc
