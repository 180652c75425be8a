// The CUDA backend's generic block-cipher kernels (block_kernels_impl.cuh, cuda_block.cpp)
// against OpenSSL: AES through them (aes=generic) and every Cipher::Block algorithm
// of the catalogue (Camellia: OpenSSL's camellia-*-ecb/cbc/ctr; its XTS, which
// OpenSSL lacks, against the generic host modes; SEED: OpenSSL's legacy provider for
// ECB and CBC, the generic host modes for CTR and XTS; CLEFIA, which OpenSSL lacks
// entirely, against the generic host modes in every mode). Each mode in place and out of
// place, in host and device memory, at misaligned addresses, with lengths around
// the kernels' item (32 blocks) and group (32 x 32 blocks) edges. Without a CUDA
// device the tests that need one are skipped and say so.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "catalog/block_cipher.h"
#include "catalog/catalog.h"
#include "modes/block/host_modes.h"
#include "xts_test_util.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "backends/cuda/block_kernels.h"
#endif

namespace {

using Bytes = std::vector<uint8_t>;

bool have_cuda_device() {
#if defined(BC_HAVE_CUDA)
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return n > 0;
#else
    return false;
#endif
}

#define REQUIRE_CUDA()                                                      \
    do {                                                                    \
        if (!have_cuda_device()) GTEST_SKIP() << "skipped: no CUDA device"; \
    } while (0)

Bytes random_bytes(size_t n, std::mt19937& rng) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<uint8_t>(rng());
    return b;
}

// OpenSSL's cipher of that name: the default context's, else the legacy provider's
// (SEED) through a library context of the test's own.
EVP_CIPHER* fetch_cipher(const char* name) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
    if (c) return c;
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
    return l.legacy && l.deflt ? EVP_CIPHER_fetch(l.ctx, name, nullptr) : nullptr;
}

// One EVP pass (no padding) of the algorithm's OpenSSL cipher.
Bytes evp(const char* name, bool enc, const Bytes& key, const uint8_t* iv, const Bytes& in) {
    EVP_CIPHER* c = fetch_cipher(name);
    EXPECT_NE(nullptr, c) << name;
    Bytes out(in.size() + 32);
    if (!c) return out;
    EVP_CIPHER_CTX* x = EVP_CIPHER_CTX_new();
    int l1 = 0, l2 = 0;
    EXPECT_EQ(1, EVP_CipherInit_ex(x, c, nullptr, key.data(), iv, enc ? 1 : 0)) << name;
    EXPECT_EQ(1, EVP_CIPHER_CTX_set_padding(x, 0));
    EXPECT_EQ(1, EVP_CipherUpdate(x, out.data(), &l1, in.data(), int(in.size()))) << name;
    EXPECT_EQ(1, EVP_CipherFinal_ex(x, out.data() + l1, &l2)) << name;
    EVP_CIPHER_CTX_free(x);
    EVP_CIPHER_free(c);
    out.resize(size_t(l1 + l2));
    return out;
}

// The reference encryption of one call (ECB, CBC from iv, CTR from counter iv):
// OpenSSL's cipher where the catalogue names one, else the generic host modes over
// the descriptor's portable core (CLEFIA; the core is checked against its standard's
// vectors in its own unit test).
Bytes reference(const bc::Algorithm* alg, const Bytes& key, const uint8_t* iv, const Bytes& in) {
    if (alg->openssl_name) return evp(alg->openssl_name, true, key, iv, in);
    bc::HostBlockSchedule h;
    EXPECT_TRUE(h.expand(alg->block, key.data(), key.size())) << alg->name;
    const size_t bb = alg->block->block_bytes;
    Bytes out(in.size());
    if (alg->mode == bc::Mode::ECB) {
        bc::block_ecb(h.key(), true, in.data(), out.data(), in.size() / bb);
    } else if (alg->mode == bc::Mode::CBC) {
        Bytes chain(iv, iv + bb);
        bc::block_cbc_encrypt(h.key(), chain.data(), in.data(), out.data(), in.size() / bb);
    } else {
        bc::block_ctr(h.key(), iv, 0, false, in.data(), out.data(), in.size());
    }
    return out;
}

// The algorithms the generic path serves here: AES under aes=generic, and every
// Cipher::Block row of the catalogue in `mode`.
struct Case {
    const bc::Algorithm* alg;
    bool aes_generic;
    bool table_form = false;  // <cipher>=table: the cipher's table form (SEED)
};
std::vector<Case> cases(bc::Mode mode) {
    std::vector<Case> v;
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i) {
        if (a->mode != mode || a->block == nullptr) continue;
        if (a->cipher == bc::Cipher::AES && (mode == bc::Mode::XTS || a->key_size != 24)) v.push_back({a, true});
        if (a->cipher == bc::Cipher::Block) v.push_back({a, false});
        if (a->cipher == bc::Cipher::Block && bc::find_block_cipher((std::string(a->block->name) + "_table").c_str()))
            v.push_back({a, false, true});
    }
    return v;
}

#if defined(BC_HAVE_CUDA)
struct Env {
    std::unique_ptr<bc::Backend> be;
    bc::KeyMaterial km;
    std::unique_ptr<bc::BackendKey> bk;
    Bytes key;
};

// xts_layout: the context option cuda.xts_layout= (-1: the tuning entry's).
Env make_env(const Case& c, std::mt19937& rng, int xts_layout = -1) {
    Env e;
    bc::ContextOptions opt;
    opt.aes_generic = c.aes_generic;
    opt.tuning.xts_layout = xts_layout;
    if (c.table_form) opt.table_forms.push_back(c.alg->block->name);
    bc::Status s = bc::make_cuda_backend(0, opt, &e.be);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    e.km.alg = c.alg;
    e.key = random_bytes(c.alg->key_size, rng);
    e.km.raw = bc::SecureBytes(e.key.data(), e.key.size());
    EXPECT_TRUE(e.be->supports(*c.alg)) << c.alg->name;
    s = e.be->prepare_key(e.km, &e.bk);
    EXPECT_TRUE(s.is_ok()) << c.alg->name << ": " << s.detail;
    return e;
}

// Runs op with the data in host or device memory, in place or not, `mis` bytes
// into the allocation (misalignment).
Bytes run_cipher(Env& e, bc::CipherOp op, const Bytes& in, bool device, bool in_place, size_t mis) {
    Bytes out(in.size());
    if (!device) {
        Bytes bin(in.size() + mis), bout(in.size() + mis + 3);
        std::memcpy(bin.data() + mis, in.data(), in.size());
        op.in = bin.data() + mis;
        op.out = in_place ? bin.data() + mis : bout.data() + mis + 3;
        op.len = in.size();
        op.memory = BC_MEMORY_HOST;
        bc::Status s = e.be->cipher(e.km, *e.bk, op);
        EXPECT_TRUE(s.is_ok()) << s.detail;
        std::memcpy(out.data(), op.out, in.size());
        return out;
    }
    uint8_t *din = nullptr, *dout = nullptr;
    EXPECT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&din), in.size() + mis + 16));
    EXPECT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&dout), in.size() + mis + 16));
    if (!din || !dout) return out;
    cudaMemcpy(din + mis, in.data(), in.size(), cudaMemcpyHostToDevice);
    op.in = din + mis;
    op.out = in_place ? din + mis : dout + mis;
    op.len = in.size();
    op.memory = BC_MEMORY_DEVICE;
    bc::Status s = e.be->cipher(e.km, *e.bk, op);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    cudaMemcpy(out.data(), op.out, in.size(), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    return out;
}
#endif

// Lengths in blocks around an item (32), a group (1024) and the pipeline's chunks.
const size_t kBlocks[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 4097, 70001};

}  // namespace

// Every block cipher of the catalogue has a row of generic kernels that agrees with
// its descriptor. No device needed.
TEST(CudaBlock, EveryBlockCipherHasKernels) {
#if !defined(BC_HAVE_CUDA)
    GTEST_SKIP() << "skipped: built without CUDA";
#else
    size_t n = 0;
    for (size_t i = 0; const bc::BlockCipher* c = bc::block_cipher_at(i); ++i, ++n) {
        const bc::cuda::BlockKernels* k = bc::cuda::find_block_kernels(c->name);
        ASSERT_NE(nullptr, k) << c->name;
        EXPECT_EQ(c->block_bytes, k->block_bytes) << c->name;
        EXPECT_EQ(c->ks_words, k->ks_words) << c->name;
        EXPECT_EQ(c->batch_blocks, k->batch) << c->name;
        EXPECT_EQ(c->block_bytes == 16, k->xts != nullptr) << c->name;
    }
    EXPECT_GE(n, 1u);
    EXPECT_NE(nullptr, bc::cuda::find_block_kernels("AES"));
    EXPECT_EQ(nullptr, bc::cuda::find_block_kernels("no-such-cipher"));
#endif
}

#if defined(BC_HAVE_CUDA)

TEST(CudaBlock, EcbMatchesOpenSsl) {
    REQUIRE_CUDA();
    std::mt19937 rng(11);
    for (const Case& c : cases(bc::Mode::ECB)) {
        Env e = make_env(c, rng);
        const size_t bb = c.alg->block_size;
        for (size_t nb : kBlocks)
            for (int mem = 0; mem < 4; ++mem) {
                const bool device = mem & 1, in_place = mem & 2;
                Bytes pt = random_bytes(bb * nb, rng);
                Bytes ct = reference(c.alg, e.key, nullptr, pt);
                bc::CipherOp op;
                op.dir = bc::Dir::Encrypt;
                ASSERT_EQ(ct, run_cipher(e, op, pt, device, in_place, nb % 4))
                    << c.alg->name << " enc nb=" << nb << " mem=" << mem;
                op.dir = bc::Dir::Decrypt;
                ASSERT_EQ(pt, run_cipher(e, op, ct, device, in_place, (nb + 1) % 4))
                    << c.alg->name << " dec nb=" << nb << " mem=" << mem;
            }
    }
}

TEST(CudaBlock, CbcMatchesOpenSsl) {
    REQUIRE_CUDA();
    std::mt19937 rng(12);
    for (const Case& c : cases(bc::Mode::CBC)) {
        Env e = make_env(c, rng);
        const size_t bb = c.alg->block_size;
        for (size_t nb : kBlocks)
            for (int mem = 0; mem < 4; ++mem) {
                const bool device = mem & 1, in_place = mem & 2;
                Bytes pt = random_bytes(bb * nb, rng), iv = random_bytes(bb, rng);
                Bytes ct = reference(c.alg, e.key, iv.data(), pt);
                bc::CipherOp op;
                op.iv = iv.data();
                op.iv_len = bb;
                op.dir = bc::Dir::Decrypt;
                ASSERT_EQ(pt, run_cipher(e, op, ct, device, in_place, nb % 4))
                    << c.alg->name << " dec nb=" << nb << " mem=" << mem;
                op.dir = bc::Dir::Encrypt;
                ASSERT_EQ(ct, run_cipher(e, op, pt, device, in_place, 1))
                    << c.alg->name << " enc nb=" << nb << " mem=" << mem;
            }
    }
}

// CTR at keystream offsets that start inside a block, odd lengths, and a counter whose
// low 64 bits carry into the high 64 inside the job.
TEST(CudaBlock, CtrMatchesOpenSslAtOffsets) {
    REQUIRE_CUDA();
    std::mt19937 rng(13);
    for (const Case& c : cases(bc::Mode::CTR)) {
        Env e = make_env(c, rng);
        const size_t bb = c.alg->block_size;
        const size_t lens[] = {1, 15, 16, 17, 511, 512, 513, 16 * 1024 + 7, 16 * 33 * 1024 + 5, 1000003};
        const uint64_t offsets[] = {0, 1, 15, 16, 4096 + 3, 16 * 1024 * 5 + 9};
        int it = 0;
        for (size_t len : lens)
            for (uint64_t off : offsets) {
                const int mem = it++ % 4;
                const bool device = mem & 1, in_place = mem & 2;
                Bytes ctr = random_bytes(bb, rng), data = random_bytes(len, rng);
                if (it % 3 == 0)  // low 64 bits near the top: the carry into the high half
                    for (size_t q = bb - 8; q < bb - 1; ++q) ctr[q] = 0xff;
                // the reference: OpenSSL's keystream from the counter over off + len bytes;
                // where OpenSSL lacks the cipher's CTR (SEED), the generic host CTR.
                Bytes zeros(off + len, 0);
                Bytes ks = reference(c.alg, e.key, ctr.data(), zeros);
                Bytes want(len);
                for (size_t i = 0; i < len; ++i) want[i] = data[i] ^ ks[off + i];
                bc::CipherOp op;
                op.iv = ctr.data();
                op.iv_len = bb;
                op.offset = off;
                op.dir = bc::Dir::Encrypt;
                ASSERT_EQ(want, run_cipher(e, op, data, device, in_place, len % 4))
                    << c.alg->name << " len=" << len << " off=" << off << " mem=" << mem;
            }
    }
}

// XTS over several data units, whole blocks and ciphertext stealing, units smaller
// and larger than a group of 1024 blocks (every item layout), a short last unit; each
// in every small-unit layout (cuda.xts_layout=interleaved, tiles and interleaved-smem),
// whichever the cipher's tuning entry picks.
TEST(CudaBlock, XtsManyUnitsMatchesReference) {
    REQUIRE_CUDA();
    std::mt19937 rng(14);
    struct Shape {
        size_t len, unit;
    };
    const Shape shapes[] = {{16, 0},           {17, 0},          {512, 512},        {4096 * 9, 512},
                            {4096 * 9 + 100, 4096}, {4096 * 33, 4096}, {16 * 70001 + 5, 0}, {520 * 7, 520},
                            {16 * 1025, 0},    {16384 * 5 + 16 * 3 + 7, 16384}, {16 * 8192 * 3, 16 * 8192},
                            {16 * 9000 * 2 + 48, 16 * 9000}};
    for (const Case& c : cases(bc::Mode::XTS))
        for (int layout : {0, 1, 2}) {
            Env e = make_env(c, rng, layout);
            const size_t half = e.key.size() / 2;
            bc::HostBlockSchedule h1, h2;
            ASSERT_TRUE(h1.expand(c.alg->block, e.key.data(), half));
            ASSERT_TRUE(h2.expand(c.alg->block, e.key.data() + half, half));
            for (const auto& sh : shapes)
                for (int mem = 0; mem < 4; ++mem) {
                    Bytes pt = random_bytes(sh.len, rng), want(sh.len), tw = random_bytes(16, rng);
                    auto unit_ref = [&](const uint8_t* t, size_t off, size_t l) {
                        if (!c.alg->openssl_name)
                            return bc::block_xts_unit(h1.key(), h2.key(), true, t, pt.data() + off,
                                                      want.data() + off, l);
                        Bytes piece(pt.begin() + off, pt.begin() + off + l);
                        Bytes r = evp(c.alg->openssl_name, true, e.key, t, piece);
                        std::memcpy(want.data() + off, r.data(), l);
                        return true;
                    };
                    ASSERT_TRUE(for_each_xts_unit(sh.len, sh.unit, tw.data(), unit_ref));
                    bc::CipherOp op = xts_op(tw.data(), sh.unit);
                    ASSERT_EQ(want, run_cipher(e, op, pt, mem & 1, mem & 2, mem))
                        << c.alg->name << " len=" << sh.len << " unit=" << sh.unit << " mem=" << mem
                        << " layout=" << layout;
                    op.dir = bc::Dir::Decrypt;
                    ASSERT_EQ(pt, run_cipher(e, op, want, mem & 1, mem & 2, 3 - mem))
                        << c.alg->name << " dec len=" << sh.len << " unit=" << sh.unit << " mem=" << mem
                        << " layout=" << layout;
                }
        }
}

// The kernels that stage whole tiles of 32 * batch blocks in shared memory run on
// aligned data: CTR and CBC decryption over several tiles and a tail (the per-item
// kernels finish it), CTR from a counter inside the job, XTS over small units back to
// back with a short last unit. Aligned buffers (mis = 0), both memories, in place or not.
TEST(CudaBlock, StagedTilesMatchReference) {
    REQUIRE_CUDA();
    std::mt19937 rng(15);
    for (const Case& c : cases(bc::Mode::CTR)) {
        Env e = make_env(c, rng);
        const size_t bb = c.alg->block_size, tile = 32 * c.alg->block->batch_blocks * bb;
        for (size_t len : {tile, 3 * tile, 5 * tile + bb, 2 * tile + 7})
            for (int mem = 0; mem < 4; ++mem) {
                const bool device = mem & 1, in_place = mem & 2;
                Bytes ctr = random_bytes(bb, rng), data = random_bytes(len, rng);
                const size_t off = mem * bb;  // keystream from block mem of the counter
                Bytes zeros(off + len, 0);
                Bytes ks = reference(c.alg, e.key, ctr.data(), zeros);
                Bytes want(len);
                for (size_t i = 0; i < len; ++i) want[i] = data[i] ^ ks[off + i];
                bc::CipherOp op;
                op.iv = ctr.data();
                op.iv_len = bb;
                op.offset = off;
                op.dir = bc::Dir::Encrypt;
                ASSERT_EQ(want, run_cipher(e, op, data, device, in_place, 0))
                    << c.alg->name << " len=" << len << " mem=" << mem;
            }
    }
    for (const Case& c : cases(bc::Mode::CBC)) {
        Env e = make_env(c, rng);
        const size_t bb = c.alg->block_size, tile_blocks = 32 * c.alg->block->batch_blocks;
        for (size_t nb : {tile_blocks, 4 * tile_blocks, 3 * tile_blocks + 5})
            for (int mem = 0; mem < 4; ++mem) {
                const bool device = mem & 1, in_place = mem & 2;
                Bytes pt = random_bytes(bb * nb, rng), iv = random_bytes(bb, rng);
                Bytes ct = reference(c.alg, e.key, iv.data(), pt);
                bc::CipherOp op;
                op.iv = iv.data();
                op.iv_len = bb;
                op.dir = bc::Dir::Decrypt;
                ASSERT_EQ(pt, run_cipher(e, op, ct, device, in_place, 0))
                    << c.alg->name << " dec nb=" << nb << " mem=" << mem;
            }
    }
    for (const Case& c : cases(bc::Mode::XTS)) {
        Env e = make_env(c, rng);
        const size_t half = e.key.size() / 2;
        bc::HostBlockSchedule h1, h2;
        ASSERT_TRUE(h1.expand(c.alg->block, e.key.data(), half));
        ASSERT_TRUE(h2.expand(c.alg->block, e.key.data() + half, half));
        struct Shape {
            size_t len, unit;
        };
        // 512-byte units staged in tiles; units of 2, 3, 8 and 16 batches interleaved
        for (const Shape sh : {Shape{4096 * 8, 4096}, Shape{4096 * 13 + 512, 4096}, Shape{512 * 70, 512},
                               Shape{4096 * 12 + 100, 4096}, Shape{1024 * 37 + 48, 1024}, Shape{1536 * 21, 1536},
                               Shape{8192 * 9 + 4096, 8192}})
            for (int mem = 0; mem < 4; ++mem) {
                const bool device = mem & 1, in_place = mem & 2;
                Bytes pt = random_bytes(sh.len, rng), want(sh.len), tw = random_bytes(16, rng);
                auto unit_ref = [&](const uint8_t* t, size_t off, size_t l) {
                    return bc::block_xts_unit(h1.key(), h2.key(), true, t, pt.data() + off, want.data() + off, l);
                };
                ASSERT_TRUE(for_each_xts_unit(sh.len, sh.unit, tw.data(), unit_ref));
                bc::CipherOp op = xts_op(tw.data(), sh.unit);
                ASSERT_EQ(want, run_cipher(e, op, pt, device, in_place, 0))
                    << c.alg->name << " len=" << sh.len << " unit=" << sh.unit << " mem=" << mem;
                op.dir = bc::Dir::Decrypt;
                ASSERT_EQ(pt, run_cipher(e, op, want, device, in_place, 0))
                    << c.alg->name << " dec len=" << sh.len << " unit=" << sh.unit << " mem=" << mem;
            }
    }
}

// The generic path reports AES as generic only when asked: the default AES keys stay
// on AES's own kernels; under aes=generic every AES mode, GCM included, runs generic.
TEST(CudaBlock, AesGenericIsAnOption) {
    REQUIRE_CUDA();
    std::unique_ptr<bc::Backend> plain, generic;
    bc::ContextOptions opt;
    ASSERT_TRUE(bc::make_cuda_backend(0, opt, &plain).is_ok());
    opt.aes_generic = true;
    ASSERT_TRUE(bc::make_cuda_backend(0, opt, &generic).is_ok());
    EXPECT_NE(std::string::npos, generic->device_name().find("aes=generic"));
    EXPECT_EQ(std::string::npos, plain->device_name().find("aes=generic"));
    for (const char* name : {"aes-128-gcm", "aes-256-ctr", "aes-128-xts"}) {
        const bc::Algorithm* a = bc::find_algorithm(name);
        ASSERT_NE(nullptr, a);
        EXPECT_TRUE(generic->supports(*a)) << name;
    }
}

// Registers and local memory (spills) of every generic kernel, per cipher; a kernel
// that needs local memory is reported, one that cannot be queried fails.
TEST(CudaBlock, KernelResources) {
    REQUIRE_CUDA();
    for (size_t i = 0; const bc::cuda::BlockKernels* k = bc::cuda::block_kernels_at(i); ++i)
        for (const char* what : {"ecb", "ecb-dec", "ctr", "ctr32", "cbc-dec", "xts", "xts-dec", "ecb-u", "ctr-u",
                                 "cbc-dec-u", "xts-u", "ctr-tiles", "cbc-dec-tiles", "xts-tiles"}) {
            if (!k->xts && std::strncmp(what, "xts", 3) == 0) continue;
            int regs = 0, local = 0;
            ASSERT_EQ(cudaSuccess, k->resources(what, &regs, &local)) << k->name << " " << what;
            EXPECT_GT(regs, 0);
            std::printf("  %s %-10s %3d registers, %5d bytes local\n", k->name, what, regs, local);
        }
    int regs = 0, local = 0;
    EXPECT_EQ(cudaErrorInvalidValue, bc::cuda::find_block_kernels("aes")->resources("nope", &regs, &local));
}

#endif  // BC_HAVE_CUDA
