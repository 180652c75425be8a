// The stream-family GPU kernels. Two parts:
//  - Simulation (always runs): the kernels' per-thread bodies (stream_device.h)
//    executed thread by thread on the host for many launch shapes, against the
//    CPU path and poly1305_partial. This checks the grid-stride indexing, the
//    tail handling and the radix-2^26 Poly1305 with powers of r without a GPU.
//  - Device (needs a CUDA device, else GTEST_SKIP): the real kernels on device
//    memory and through host staging, against the CPU path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu/cpu_stream.h"
#include "bulkcrypt/bulkcrypt.h"
#include "backends/cuda/stream_prep.h"
#include "cores/chacha/stream_state.h"
#include "modes/poly1305/poly1305.h"
#include "test_stream_util.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime.h>

#include "backends/cuda/stream_kernels.h"
#endif

using namespace bc_test_stream;

namespace {

bc::ThreadPool& pool2() { static bc::ThreadPool p(2); return p; }

Bytes cpu_stream(const char* name, const Bytes& key, const Bytes& iv, uint64_t off, const Bytes& in) {
    bc::KeyMaterial km;
    km.alg = bc::find_algorithm(name);
    km.raw = bc::SecureBytes(key.data(), key.size());
    Bytes out(in.size());
    bc::CipherOp op;
    op.iv = iv.data(); op.iv_len = iv.size(); op.in = in.data(); op.out = out.data(); op.len = in.size(); op.offset = off;
    EXPECT_TRUE(bc::cpu_stream_cipher(km, op, true, pool2()).is_ok());
    return out;
}

template <int FAM, int ROUNDS, int UNROLL>
void sim_xor(const bcs::XorArgs& a, uint64_t bdim, uint64_t gdim) {
    for (uint64_t b = 0; b < gdim; ++b)
        for (uint64_t t = 0; t < bdim; ++t) bcs::xor_thread<FAM, ROUNDS, UNROLL, false>(a, t, b, bdim, gdim);
}

template <int UNROLL>
void sim_poly(const bcs::PolyArgs& a, uint64_t bdim, uint64_t gdim, uint8_t partial[17]) {
    uint64_t sum[5] = {0, 0, 0, 0, 0};
    for (uint64_t b = 0; b < gdim; ++b)
        for (uint64_t t = 0; t < bdim; ++t) {
            uint32_t acc[5];
            bcs::chachapoly_thread<UNROLL, false>(a, t, b, bdim, gdim, acc);
            for (int i = 0; i < 5; ++i) sum[i] += acc[i];
        }
    bcs::p26_finish(sum, partial);
}

}  // namespace

TEST(StreamCudaSim, XorKernelBodiesMatchCpu) {
    std::mt19937_64 rng(31);
    struct Case { const char* name; int fam; int rounds; };
    const Case cases[] = {{"chacha20", bcs::FAM_CHACHA_IETF, 20}, {"chacha20-djb", bcs::FAM_CHACHA_DJB, 20},
                          {"xchacha20", bcs::FAM_CHACHA_DJB, 20}, {"salsa20", bcs::FAM_SALSA, 20},
                          {"salsa20-12", bcs::FAM_SALSA, 12}, {"salsa20-8", bcs::FAM_SALSA, 8},
                          {"xsalsa20", bcs::FAM_SALSA, 20}};
    for (const Case& c : cases) {
        const bc::Algorithm* alg = bc::find_algorithm(c.name);
        for (int t = 0; t < 12; ++t) {
            size_t len = rng() % 5000;
            Bytes key = random_bytes(rng, 32), iv = random_bytes(rng, alg->iv_size);
            if (std::string(c.name) == "chacha20") iv[0] = iv[1] = iv[2] = 0, iv[3] = 0;  // keep the 32-bit counter small
            Bytes in = random_bytes(rng, len);
            uint64_t first = rng() % 3;  // body starts this many blocks into the keystream
            Bytes expect = cpu_stream(c.name, key, iv, first * 64, in);
            bc::StreamState st;
            ASSERT_TRUE(bc::make_stream_state(*alg, key.data(), key.size(), iv.data(), iv.size(), &st).is_ok());
            bcs::XorArgs a;
            std::memcpy(a.base, st.base, sizeof(a.base));
            if (c.fam == bcs::FAM_SALSA) bc_salsa_add_counter(a.base, first);
            else bc_chacha_add_counter(a.base, st.layout, first);
            Bytes out(len);
            a.in = in.data(); a.out = out.data(); a.nfull = len / 64; a.tail = uint32_t(len % 64);
            uint64_t bdim = 1 + rng() % 9, gdim = 1 + rng() % 5;
            int unroll = 1 << (rng() % 3);
#define BC_SIM(F, R)                                                  \
    if (unroll == 1) sim_xor<F, R, 1>(a, bdim, gdim);                 \
    else if (unroll == 2) sim_xor<F, R, 2>(a, bdim, gdim);            \
    else sim_xor<F, R, 4>(a, bdim, gdim);
            if (c.fam == bcs::FAM_CHACHA_IETF) { BC_SIM(bcs::FAM_CHACHA_IETF, 20) }
            else if (c.fam == bcs::FAM_CHACHA_DJB) { BC_SIM(bcs::FAM_CHACHA_DJB, 20) }
            else if (c.rounds == 20) { BC_SIM(bcs::FAM_SALSA, 20) }
            else if (c.rounds == 12) { BC_SIM(bcs::FAM_SALSA, 12) }
            else { BC_SIM(bcs::FAM_SALSA, 8) }
#undef BC_SIM
            ASSERT_EQ(out, expect) << c.name << " len " << len << " bdim " << bdim << " gdim " << gdim << " unroll " << unroll;
        }
    }
}

TEST(StreamCudaSim, ChaChaPolyKernelBodiesMatchCpu) {
    std::mt19937_64 rng(32);
    for (int t = 0; t < 120; ++t) {
        size_t len = t < 20 ? size_t(t * 7) : rng() % 20000;
        Bytes key = random_bytes(rng, 32), r = random_bytes(rng, 16), in = random_bytes(rng, len);
        if (t % 9 == 0) { std::fill(in.begin(), in.end(), 0xff); std::fill(r.begin(), r.end(), 0xff); }
        uint8_t ctr[16];
        for (auto& b : ctr) b = uint8_t(rng());
        ctr[3] = 0;  // keep the counter far from wrapping
        int mode = int(rng() % 3);
        // CPU reference.
        Bytes expect(len);
        uint8_t expect_partial[17];
        if (mode == bcs::POLY_MAC_ONLY) {
            expect = Bytes(len);
            bc::poly1305_partial(r.data(), in.data(), len, expect_partial);
        } else {
            bc::KeyMaterial km;
            km.alg = bc::find_algorithm("chacha20-poly1305");
            km.raw = bc::SecureBytes(key.data(), key.size());
            bc::AeadChunkOp op;
            op.dir = mode == bcs::POLY_DECRYPT ? bc::Dir::Decrypt : bc::Dir::Encrypt;
            std::memcpy(op.ctr, ctr, 16);
            uint8_t mk[32] = {0};
            std::memcpy(mk, r.data(), 16);
            op.mac_key = mk; op.in = in.data(); op.out = expect.data(); op.len = len;
            ASSERT_TRUE(bc::cpu_chachapoly_chunk(km, op, true, pool2()).is_ok());
            std::memcpy(expect_partial, op.partial, 17);
        }
        uint64_t bdim = 1 + rng() % 9, gdim = 1 + rng() % 6;
        int unroll = 1 << (rng() % 2);
        bcs::PolyArgs a;
        std::memset(&a, 0, sizeof(a));
        bc_chacha_set_key(a.x.base, key.data(), 32);
        bc_chacha_set_words12(a.x.base, ctr);
        Bytes out(len);
        a.x.in = in.data(); a.x.out = mode == bcs::POLY_MAC_ONLY ? nullptr : out.data();
        a.x.nfull = len / 64; a.x.tail = uint32_t(len % 64);
        a.mode = mode;
        a.q = (a.x.tail + 15) / 16;
        bc::stream_prep_poly(r.data(), bdim, gdim, unroll, &a);
        uint8_t got[17];
        if (unroll == 1) sim_poly<1>(a, bdim, gdim, got);
        else sim_poly<2>(a, bdim, gdim, got);
        EXPECT_EQ(to_hex(got, 17), to_hex(expect_partial, 17)) << "len " << len << " mode " << mode << " bdim " << bdim
                                                               << " gdim " << gdim << " unroll " << unroll;
        if (mode != bcs::POLY_MAC_ONLY) ASSERT_EQ(out, expect) << "len " << len;
    }
}

#if defined(BC_HAVE_CUDA)

namespace {
bool have_cuda_device() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
}  // namespace

TEST(StreamCuda, StreamCiphersMatchCpu) {
    if (!have_cuda_device()) GTEST_SKIP() << "skipped: no CUDA device";
    std::mt19937_64 rng(41);
    const char* names[] = {"chacha20", "chacha20-djb", "xchacha20", "salsa20", "salsa20-128",
                           "salsa20-12", "salsa20-8", "xsalsa20"};
    for (const char* name : names) {
        const bc::Algorithm* alg = bc::find_algorithm(name);
        std::vector<size_t> lens = {0, 1, 63, 64, 65, 4096 + 7, 3 * 1024 * 1024 + 11};
        for (int t = 0; t < 6; ++t) lens.push_back(rng() % 1000000);
        for (size_t len : lens) {
            Bytes key = random_bytes(rng, alg->key_size), iv = random_bytes(rng, alg->iv_size);
            if (std::string(name) == "chacha20") iv[3] = 0;
            Bytes in = random_bytes(rng, len);
            uint64_t off = rng() % 1000;
            Bytes expect = cpu_stream(name, key, iv, off, in);
            bc::KeyMaterial km;
            km.alg = alg;
            km.raw = bc::SecureBytes(key.data(), key.size());
            for (int where = 0; where < 3; ++where) {  // host staging; device; device unaligned
                Bytes out(len);
                bc::CipherOp op;
                op.iv = iv.data(); op.iv_len = iv.size(); op.len = len; op.offset = off;
                if (where == 0) {
                    op.in = in.data(); op.out = out.data();
                    ASSERT_TRUE(bc::cuda_stream_cipher(km, op).is_ok()) << name;
                } else {
                    size_t shift = where == 2 ? 3 : 0;
                    uint8_t *din = nullptr, *dout = nullptr;
                    ASSERT_EQ(cudaMalloc(&din, len + 16), cudaSuccess);
                    ASSERT_EQ(cudaMalloc(&dout, len + 16), cudaSuccess);
                    if (len) ASSERT_EQ(cudaMemcpy(din + shift, in.data(), len, cudaMemcpyHostToDevice), cudaSuccess);
                    op.in = din + shift; op.out = dout + shift; op.memory = BC_MEMORY_DEVICE;
                    ASSERT_TRUE(bc::cuda_stream_cipher(km, op).is_ok()) << name;
                    if (len) ASSERT_EQ(cudaMemcpy(out.data(), dout + shift, len, cudaMemcpyDeviceToHost), cudaSuccess);
                    cudaFree(din);
                    cudaFree(dout);
                }
                ASSERT_EQ(out, expect) << name << " len " << len << " off " << off << " where " << where;
            }
        }
    }
}

// A call on device memory returns when its work is done, the stream ciphers' as every
// other mode's: the output, read at once on another non-blocking stream, is complete.
TEST(StreamCuda, DeviceMemoryCallsReturnWhenDone) {
    if (!have_cuda_device()) GTEST_SKIP() << "skipped: no CUDA device";
    std::mt19937_64 rng(43);
    const size_t len = size_t(256) << 20;  // long enough for a copy to overtake a running kernel
    Bytes in = random_bytes(rng, len), key = random_bytes(rng, 32), iv = random_bytes(rng, 12);
    iv[0] = iv[1] = iv[2] = iv[3] = 0;
    bc_context* cpu = nullptr;
    bc_context* gpu = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", nullptr, &cpu)) << bc_last_error();
    ASSERT_EQ(BC_OK, bc_context_create("cuda:0", nullptr, &gpu)) << bc_last_error();
    for (const char* name : {"chacha20", "salsa20", "aes-256-ctr"}) {
        const bc::Algorithm* alg = bc::find_algorithm(name);
        ASSERT_NE(nullptr, alg);
        bc_key *kc = nullptr, *kg = nullptr;
        ASSERT_EQ(BC_OK, bc_key_create(cpu, name, key.data(), alg->key_size, &kc)) << bc_last_error();
        ASSERT_EQ(BC_OK, bc_key_create(gpu, name, key.data(), alg->key_size, &kg)) << bc_last_error();
        Bytes want(len), got(len);
        Bytes nonce(alg->iv_size, 0);
        std::memcpy(nonce.data(), iv.data(), std::min(nonce.size(), iv.size()));
        size_t n = 0;
        ASSERT_EQ(BC_OK, bc_encrypt(kc, nonce.data(), nonce.size(), in.data(), len, want.data(), len, &n, nullptr));
        uint8_t *din = nullptr, *dout = nullptr;
        ASSERT_EQ(cudaSuccess, cudaMalloc(&din, len));
        ASSERT_EQ(cudaSuccess, cudaMalloc(&dout, len));
        ASSERT_EQ(cudaSuccess, cudaMemcpy(din, in.data(), len, cudaMemcpyHostToDevice));
        ASSERT_EQ(cudaSuccess, cudaMemset(dout, 0, len));
        cudaStream_t work = nullptr, reader = nullptr;
        ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
        ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
        bc_params p{};
        p.memory = BC_MEMORY_DEVICE;
        p.stream = work;
        ASSERT_EQ(BC_OK, bc_encrypt(kg, nonce.data(), nonce.size(), din, len, dout, len, &n, &p)) << bc_last_error();
        ASSERT_EQ(cudaSuccess, cudaMemcpyAsync(got.data(), dout, len, cudaMemcpyDeviceToHost, reader));
        ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(reader));
        EXPECT_TRUE(got == want) << name << ": the output was read before the call's work had finished";
        cudaStreamSynchronize(work);
        cudaStreamDestroy(work);
        cudaStreamDestroy(reader);
        cudaFree(din);
        cudaFree(dout);
        bc_key_destroy(kc);
        bc_key_destroy(kg);
    }
    bc_context_destroy(cpu);
    bc_context_destroy(gpu);
}

TEST(StreamCuda, ChaChaPolyChunkAndMacMatchCpu) {
    if (!have_cuda_device()) GTEST_SKIP() << "skipped: no CUDA device";
    std::mt19937_64 rng(42);
    std::vector<size_t> lens = {0, 1, 16, 17, 64, 100, 4096, 1 << 20, 16 * 1024 * 1024 + 37};
    for (int t = 0; t < 8; ++t) lens.push_back(rng() % 3000000);
    bc::KeyMaterial km;
    km.alg = bc::find_algorithm("chacha20-poly1305");
    for (size_t len : lens) {
        Bytes key = random_bytes(rng, 32), in = random_bytes(rng, len);
        km.raw = bc::SecureBytes(key.data(), key.size());
        uint8_t mk[32], ctr[16];
        for (auto& b : mk) b = uint8_t(rng());
        for (auto& b : ctr) b = uint8_t(rng());
        ctr[3] = 0;
        for (bc::Dir dir : {bc::Dir::Encrypt, bc::Dir::Decrypt}) {
            Bytes expect(len), out(len);
            bc::AeadChunkOp ref;
            ref.dir = dir; std::memcpy(ref.ctr, ctr, 16); ref.mac_key = mk; ref.in = in.data(); ref.out = expect.data(); ref.len = len;
            ASSERT_TRUE(bc::cpu_chachapoly_chunk(km, ref, true, pool2()).is_ok());
            uint8_t *din = nullptr;
            ASSERT_EQ(cudaMalloc(&din, len + 1), cudaSuccess);
            if (len) ASSERT_EQ(cudaMemcpy(din, in.data(), len, cudaMemcpyHostToDevice), cudaSuccess);
            bc::AeadChunkOp op;
            op.dir = dir; std::memcpy(op.ctr, ctr, 16); op.mac_key = mk; op.in = din; op.out = din; op.len = len;
            op.memory = BC_MEMORY_DEVICE;
            bc::Status s = bc::cuda_chachapoly_chunk(km, op);
            ASSERT_TRUE(s.is_ok()) << s.detail;
            if (len) ASSERT_EQ(cudaMemcpy(out.data(), din, len, cudaMemcpyDeviceToHost), cudaSuccess);
            cudaFree(din);
            ASSERT_EQ(out, expect) << "len " << len;
            ASSERT_EQ(to_hex(op.partial, 17), to_hex(ref.partial, 17)) << "len " << len;
        }
        // MAC only, host memory (staged).
        bc::MacOp m;
        m.mac_key = mk; m.data = in.data(); m.len = len;
        ASSERT_TRUE(bc::cuda_poly1305_mac(m).is_ok());
        uint8_t expect_p[17];
        bc::poly1305_partial(mk, in.data(), len, expect_p);
        ASSERT_EQ(to_hex(m.partial, 17), to_hex(expect_p, 17));
    }
}

#endif  // BC_HAVE_CUDA
