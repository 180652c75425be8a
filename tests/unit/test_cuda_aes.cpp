// The CUDA backend against the portable host cores (src/modes, src/cores/aes)
// for every AES mode, both variants, host and device memory, in place and out
// of place, random sizes and misaligned offsets. Without a CUDA device every
// test is skipped and says so.
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <vector>

#include "backends/backend.h"
#include "catalog/catalog.h"
#include "modes/gcm/gcm.h"

#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "xts_test_util.h"
#include "dialect/bc_dialect.h"
#include "cores/aes/aes_bitsliced.h"

#if defined(BC_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_kernels.h"
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

#define REQUIRE_CUDA()                                                   \
    do {                                                                 \
        if (!have_cuda_device()) GTEST_SKIP() << "skipped: no CUDA device"; \
    } while (0)

struct Env {
    std::unique_ptr<bc::Backend> be;
    bc::KeyMaterial km;
    std::unique_ptr<bc::BackendKey> bk;
    bc::AesKeySchedule k1{}, k2{};
    bc::HostBlockSchedule g1, g2;  // the same keys for the generic host modes (AES's descriptor)
};

Env make_env(const char* alg, bool table, std::mt19937& rng) {
    Env e;
    bc::ContextOptions opt;
    opt.aes_table = table;
    bc::Status s = bc::make_cuda_backend(0, opt, &e.be);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    e.km.alg = bc::find_algorithm(alg);
    EXPECT_NE(nullptr, e.km.alg) << alg;
    Bytes key(e.km.alg->key_size);
    for (auto& c : key) c = static_cast<uint8_t>(rng());
    e.km.raw = bc::SecureBytes(key.data(), key.size());
    const bool xts = e.km.alg->mode == bc::Mode::XTS;
    const size_t half = xts ? key.size() / 2 : key.size();
    bc::aes_expand_key(key.data(), half, &e.k1);
    if (xts) bc::aes_expand_key(key.data() + half, half, &e.k2);
    e.g1.expand(e.km.alg->block, key.data(), half);
    if (xts) e.g2.expand(e.km.alg->block, key.data() + half, half);
    s = e.be->prepare_key(e.km, &e.bk);
    EXPECT_TRUE(s.is_ok()) << s.detail;
    return e;
}

Bytes random_bytes(size_t n, std::mt19937& rng) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<uint8_t>(rng());
    return b;
}

#if defined(BC_HAVE_CUDA)
// Runs op on the backend with the data in host or device memory, in place or
// not, at a byte offset `mis` inside the allocation (misalignment).
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

// Every kernel variant: the bitsliced core's run-time variants (cuda_kernels.h,
// set_aes_bs_variant; bs < 0: the default) and the table variant.
struct Variant {
    bool table;
    const char* name;
    int bs;
};
const Variant kVariants[] = {
    {false, "bitsliced/plain", 0}, {false, "bitsliced/fk", 1}, {false, "bitsliced/fk-cs", 2},
    {false, "bitsliced/cl", 3},    {false, "bitsliced/cle", 4}, {false, "bitsliced/pair", 5},
    {false, "bitsliced/pair-cc", 6}, {false, "bitsliced/pair-dec", 7}, {true, "table", -1}};

Env make_env(const char* alg, const Variant& v, std::mt19937& rng) {
#if defined(BC_HAVE_CUDA)
    bc::cuda::set_aes_bs_variant(v.bs);
#endif
    return make_env(alg, bool(v.table), rng);
}
// sizes in blocks around the kernels' tile (1024 blocks) and thread (32) edges
const size_t kBlocks[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 4097, 70001};

// The folded-key encryption core (variant "fk") against the plain core, on the
// host: no device needed.
// Runs body(ks, pt, what) for 8 random keys of each size, each with a random 32-block batch.
template <class F>
void for_random_batches(unsigned seed, F&& body) {
    std::mt19937 rng(seed);
    for (size_t kl : {16u, 24u, 32u})
        for (int it = 0; it < 8; ++it) {
            Bytes key = random_bytes(kl, rng), pt = random_bytes(512, rng);
            bc::AesKeySchedule ks;
            ASSERT_TRUE(bc::aes_expand_key(key.data(), kl, &ks));
            body(ks, pt, "key bytes " + std::to_string(kl) + " it " + std::to_string(it));
        }
}

TEST(CudaAesCore, FoldedMasksMatchPlainCore) {
    for_random_batches(11, [](const bc::AesKeySchedule& ks, const Bytes& pt, const std::string& what) {
        Bytes want(512), got(512);
        std::vector<uint32_t> fk(15 * 128);
        bc_aes_bs_fold_masks(ks.bs, ks.rounds, fk.data());
        uint32_t s[128], t[128];
        bc_aes_bs_pack(s, pt.data(), 32);
        std::memcpy(t, s, sizeof s);
        bc_aes_bs_encrypt(s, ks.bs, ks.rounds);
        bc_aes_bs_unpack(s, want.data(), 32);
        bc_aes_bs_encrypt_fk(t, fk.data(), ks.rounds);
        bc_aes_bs_unpack(t, got.data(), 32);
        ASSERT_EQ(want, got) << what;
        Bytes ref(512);
        bc::aes_encrypt_blocks(ks, pt.data(), ref.data(), 32);
        ASSERT_EQ(ref, got) << what;
    });
}

// Both halves of a lane pair on the host: the exchange the kernel does with a shuffle
// (recv[h]: the partner's bytes BC_AES_BS_PAIR_SENT), and rounds r0..rounds after it.
void pair_exchange_host(const uint32_t half[2][64], uint32_t recv[2][32]) {
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 4; ++i)
            for (int b = 0; b < 8; ++b) recv[h][8 * i + b] = half[1 - h][8 * BC_AES_BS_PAIR_SENT(i) + b];
}

void pair_rounds_host(uint32_t half[2][64], const bc::AesKeySchedule& ks, int r0) {
    for (int r = r0; r <= ks.rounds; ++r) {
        uint32_t recv[2][32];
        for (int h = 0; h < 2; ++h) bc_aes_bs_pair_sub(half[h]);
        pair_exchange_host(half, recv);
        for (int h = 0; h < 2; ++h) {
            if (r < ks.rounds) bc_aes_bs_pair_mix(half[h], recv[h], ks.bs + 128 * r, h);
            else bc_aes_bs_pair_last(half[h], recv[h], ks.bs + 128 * r, h);
        }
    }
}

// A 32-block batch as a lane pair holds it: half h has words 2h and 2h + 1 of each block,
// bitsliced (as the kernels load and transpose them); and back.
void pair_halves_from(const Bytes& blocks, uint32_t half[2][64]) {
    for (int h = 0; h < 2; ++h) {
        for (int j = 0; j < 32; ++j) {
            half[h][j] = bc_load_le32(&blocks[16 * j + 8 * h]);
            half[h][32 + j] = bc_load_le32(&blocks[16 * j + 8 * h + 4]);
        }
        bc_aes_bs_transpose32(half[h]);
        bc_aes_bs_transpose32(half[h] + 32);
    }
}
Bytes pair_halves_to_bytes(uint32_t half[2][64]) {
    Bytes out(512);
    for (int h = 0; h < 2; ++h) {
        bc_aes_bs_transpose32(half[h]);
        bc_aes_bs_transpose32(half[h] + 32);
        for (int j = 0; j < 32; ++j) {
            bc_store_le32(&out[16 * j + 8 * h], half[h][j]);
            bc_store_le32(&out[16 * j + 8 * h + 4], half[h][32 + j]);
        }
    }
    return out;
}

// The lane-pair core (variant "pair": two lanes share a batch, each with half the bytes)
// against the plain core and the reference AES, on the host: both halves run in step.
TEST(CudaAesCore, PairLayoutMatchesPlainCore) {
    for_random_batches(13, [](const bc::AesKeySchedule& ks, const Bytes& pt, const std::string& what) {
        Bytes want(512);
        uint32_t half[2][64];
        pair_halves_from(pt, half);
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 64; ++i) half[h][i] ^= ks.bs[64 * h + i];
        pair_rounds_host(half, ks, 1);
        const Bytes got = pair_halves_to_bytes(half);
        bc::aes_encrypt_blocks(ks, pt.data(), want.data(), 32);
        ASSERT_EQ(want, got) << what;
    });
}

// The lane-pair decryption core (variant "pair-dec": the equivalent inverse cipher's masks,
// bc_aes_bs_pair_inv_*) against the reference AES on the host, both halves in step; the
// exchange sends BC_AES_BS_PAIR_INV_SENT.
TEST(CudaAesCore, PairDecryptionMatchesReference) {
    for_random_batches(17, [](const bc::AesKeySchedule& ks, const Bytes& ct, const std::string& what) {
        std::vector<uint32_t> dk(15 * 128);
        bc_aes_bs_dec_fold_masks(ks.bs, ks.rounds, dk.data());
        Bytes want(512);
        uint32_t half[2][64];
        pair_halves_from(ct, half);
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 64; ++i) half[h][i] ^= dk[128 * ks.rounds + 64 * h + i];
        for (int r = ks.rounds - 1; r >= 0; --r) {
            uint32_t recv[2][32];
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_inv_sub(half[h]);
            for (int h = 0; h < 2; ++h)
                for (int i = 0; i < 4; ++i)
                    for (int b = 0; b < 8; ++b) recv[h][8 * i + b] = half[1 - h][8 * BC_AES_BS_PAIR_INV_SENT(i) + b];
            for (int h = 0; h < 2; ++h) {
                if (r > 0) bc_aes_bs_pair_inv_mix(half[h], recv[h], dk.data() + 128 * r, h);
                else bc_aes_bs_pair_inv_last(half[h], recv[h], dk.data(), h);
            }
        }
        const Bytes got = pair_halves_to_bytes(half);
        bc::aes_decrypt_blocks(ks, ct.data(), want.data(), 32);
        ASSERT_EQ(want, got) << what;
    });
}

// Counters built straight in bitsliced form (variant "fk-cs") against packing
// and slicing the same counter blocks, with carries through every word.
// 32 counter blocks A + stride * j (big-endian; wrap: only the low 32 bits count), a[0..3]
// the little-endian words of A, least significant first.
Bytes counter_blocks(const uint32_t a[4], int wrap, uint32_t stride) {
    Bytes blk(512);
    for (int j = 0; j < 32; ++j) {
        uint32_t v[4] = {a[0], a[1], a[2], a[3]};
        if (wrap) {
            v[0] += stride * j;
        } else {
            uint64_t c = uint64_t(stride) * j;
            for (int k = 0; k < 4; ++k) {
                const uint64_t t = uint64_t(v[k]) + c;
                v[k] = uint32_t(t);
                c = t >> 32;
            }
        }
        for (int q = 0; q < 16; ++q) {
            const int i = 8 * (15 - q);
            blk[16 * j + q] = uint8_t(v[i >> 5] >> (i & 31));
        }
    }
    return blk;
}

// Random counter starts, with runs of ones that carry through the words.
void random_counter(std::mt19937& rng, int it, uint32_t a[4]) {
    for (int k = 0; k < 4; ++k) a[k] = static_cast<uint32_t>(rng());
    if (it % 3 == 0) a[0] |= 0xfffffc00u;
    if (it % 5 == 0) a[1] = 0xffffffffu;
    if (it % 7 == 0) a[2] = a[3] = 0xffffffffu;
    if (it % 11 == 0) a[0] &= ~0x3e0u;
}

TEST(CudaAesCore, CtrSliceMatchesPackedCounters) {
    std::mt19937 rng(12);
    for (int it = 0; it < 3000; ++it)
        for (int wrap = 0; wrap < 2; ++wrap) {
            uint32_t a[4];
            random_counter(rng, it, a);
            const Bytes blk = counter_blocks(a, wrap, 32);
            uint32_t want[128], got[128];
            bc_aes_bs_pack(want, blk.data(), 32);
            bc_aes_bs_ctr_slice(got, a, wrap);
            ASSERT_EQ(0, std::memcmp(want, got, sizeof want)) << "it " << it << " wrap " << wrap;
        }
}

// The lane-pair kernel's counters (stride 16, half the bytes each) likewise: half h of the
// packed state is words 64h..64h+63.
TEST(CudaAesCore, PairCtrSliceMatchesPackedCounters) {
    std::mt19937 rng(14);
    for (int it = 0; it < 3000; ++it)
        for (int wrap = 0; wrap < 2; ++wrap) {
            uint32_t a[4];
            random_counter(rng, it, a);
            if (it % 13 == 0) a[0] |= 0xfffffe00u;  // a carry out of bits 0-8 in some blocks
            const Bytes blk = counter_blocks(a, wrap, 16);
            uint32_t want[128];
            bc_aes_bs_pack(want, blk.data(), 32);
            for (int h = 0; h < 2; ++h) {
                uint32_t got[64];
                bc_aes_bs_ctr_slice_pair(got, a, wrap, h);
                ASSERT_EQ(0, std::memcmp(want + 64 * h, got, sizeof got)) << "it " << it << " wrap " << wrap << " h " << h;
            }
        }
}

// Counter-mode caching on lane pairs (variant "pair-cc"): rounds 1-2 of a batch from the
// constants of its tile's counter bytes 0-13, then the usual rounds, against the reference
// AES of the same counter blocks. The constants come from another pair of the tile (the
// kernel takes pair 0's), tiles end at most at the 2^16 edge, carries run through the words.
TEST(CudaAesCore, PairCounterCacheMatchesReference) {
    std::mt19937 rng(15);
    for (int it = 0; it < 900; ++it)
        for (int wrap = 0; wrap < 2; ++wrap) {
            const size_t kl = 16 + 8 * (it % 3);
            const Bytes key = random_bytes(kl, rng);
            bc::AesKeySchedule ks;
            ASSERT_TRUE(bc::aes_expand_key(key.data(), kl, &ks));
            uint32_t t0[4];  // the tile's first counter: its 512 blocks stay below the next 2^16
            random_counter(rng, it, t0);
            const uint32_t low = it % 4 == 0 ? 0x10000u - 512 : static_cast<uint32_t>(rng() % (0x10000u - 511));
            t0[0] = (t0[0] & 0xffff0000u) | low;
            const uint32_t pair = rng() % 16, a[4] = {t0[0] + pair, t0[1], t0[2], t0[3]};
            uint32_t st[2][64], recv[2][32], c[2][BC_AES_BS_CC_WORDS];
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_cc_round1(st[h], t0, ks.bs, h);
            pair_exchange_host(st, recv);
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_mix(st[h], recv[h], ks.bs + 128, h);
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_cc_f(st[0], c[h], h);
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_cc_round2(st[h], h);
            pair_exchange_host(st, recv);
            for (int h = 0; h < 2; ++h) {
                bc_aes_bs_pair_mix(st[h], recv[h], ks.bs + 256, h);
                std::memcpy(c[h] + 32, st[h], sizeof st[h]);
            }
            uint32_t y[2][8];
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_cc_head(y[h], a, wrap, ks.bs, h);
            for (int h = 0; h < 2; ++h) bc_aes_bs_pair_cc_rounds12(st[h], y[h], y[1 - h], c[h], h);
            pair_rounds_host(st, ks, 3);
            const Bytes blk = counter_blocks(a, wrap, 16);
            Bytes ks_bytes(512);
            bc::aes_encrypt_blocks(ks, blk.data(), ks_bytes.data(), 32);
            uint32_t want[128];
            bc_aes_bs_pack(want, ks_bytes.data(), 32);
            for (int h = 0; h < 2; ++h)
                ASSERT_EQ(0, std::memcmp(want + 64 * h, st[h], sizeof st[h]))
                    << "it " << it << " wrap " << wrap << " h " << h << " key bytes " << kl << " low " << low;
        }
}

TEST(CudaAes, NoDeviceIsAStatusNotACrash) {
    if (have_cuda_device()) {
        std::unique_ptr<bc::Backend> b;
        bc::Status s = bc::make_cuda_backend(9999, bc::ContextOptions{}, &b);
        EXPECT_EQ(BC_ERR_NO_DEVICE, s.code);
        EXPECT_FALSE(s.detail.empty());
        return;
    }
    std::unique_ptr<bc::Backend> b;
    bc::Status s = bc::make_cuda_backend(0, bc::ContextOptions{}, &b);
    EXPECT_EQ(BC_ERR_NO_DEVICE, s.code) << s.detail;
    GTEST_SKIP() << "skipped: no CUDA device (checked that make_cuda_backend answers BC_ERR_NO_DEVICE)";
}

#if defined(BC_HAVE_CUDA)

TEST(CudaAes, EcbMatchesHostCore) {
    REQUIRE_CUDA();
    std::mt19937 rng(1);
    for (const auto& v : kVariants)
        for (const char* alg : {"aes-128-ecb", "aes-192-ecb", "aes-256-ecb"}) {
            Env e = make_env(alg, v, rng);
            for (size_t nb : kBlocks)
                for (int mem = 0; mem < 4; ++mem) {
                    Bytes pt = random_bytes(16 * nb, rng), want(pt.size());
                    bc::block_ecb(e.g1.key(), true, pt.data(), want.data(), nb);
                    bc::CipherOp op;
                    op.dir = bc::Dir::Encrypt;
                    Bytes got = run_cipher(e, op, pt, mem & 1, mem & 2, nb % 5);
                    ASSERT_EQ(want, got) << v.name << " " << alg << " nb=" << nb << " mem=" << mem;
                    op.dir = bc::Dir::Decrypt;
                    Bytes back = run_cipher(e, op, want, mem & 1, !(mem & 2), (nb + 1) % 3);
                    ASSERT_EQ(pt, back) << v.name << " " << alg << " dec nb=" << nb << " mem=" << mem;
                }
        }
}

TEST(CudaAes, CtrMatchesHostCoreAtAnyOffset) {
    REQUIRE_CUDA();
    std::mt19937 rng(2);
    for (const auto& v : kVariants)
        for (const char* alg : {"aes-128-ctr", "aes-256-ctr"}) {
            Env e = make_env(alg, v, rng);
            for (size_t nb : kBlocks)
                for (int mem = 0; mem < 4; ++mem) {
                    size_t len = 16 * nb + rng() % 16;
                    uint64_t offset = rng() % 3 == 0 ? 0 : rng() % 100000;
                    Bytes pt = random_bytes(len, rng), want(len), iv = random_bytes(16, rng);
                    if (nb % 2) std::memset(iv.data() + 8, 0xff, 8);  // carry into the high half
                    bc::block_ctr(e.g1.key(), iv.data(), offset, false, pt.data(), want.data(), len);
                    bc::CipherOp op;
                    op.iv = iv.data();
                    op.iv_len = 16;
                    op.offset = offset;
                    Bytes got = run_cipher(e, op, pt, mem & 1, mem & 2, mem + nb % 7);
                    ASSERT_EQ(want, got) << v.name << " " << alg << " len=" << len << " off=" << offset
                                         << " mem=" << mem;
                }
        }
}

// Variant pair-cc with its counter cache at every size (the test hook; by default only jobs
// of a whole wave of 4 tiles per warp use it): counters that cross multiples of 2^16 inside
// tiles and between them, carries into the high bytes (CTR) and the 2^32 wrap (GCM's inc32),
// in place and not, several tiles per warp, against the host core.
TEST(CudaAes, PairCounterCacheAcrossCounterGroups) {
    REQUIRE_CUDA();
    std::mt19937 rng(21);
    struct Always {  // the hook and the variant back to their defaults however the test ends
        Always() { bc::cuda::set_pair_cc_always(true); }
        ~Always() {
            bc::cuda::set_pair_cc_always(false);
            bc::cuda::set_aes_bs_variant(-1);
        }
    } always;
    const Variant cc{false, "bitsliced/pair-cc", bc::cuda::kAesBsPairCcVariant};
    const size_t lens[] = {16 * 512 * 7 + 5, (3u << 20) + 48, (9u << 20) + 7};
    for (const char* alg : {"aes-128-ctr", "aes-192-ctr", "aes-256-ctr"}) {
        Env e = make_env(alg, cc, rng);
        for (size_t len : lens)
            for (int it = 0; it < 3; ++it) {
                Bytes pt = random_bytes(len, rng), want(len), iv = random_bytes(16, rng);
                std::memset(iv.data() + 8, 0xff, 6);  // a 2^16 crossing carries through the high bytes
                const uint16_t low = it == 0 ? 0xffff : it == 1 ? 0xfe00 : static_cast<uint16_t>(rng());
                iv[14] = uint8_t(low >> 8);
                iv[15] = uint8_t(low);
                const uint64_t offset = 16 * uint64_t(rng() % 70000);
                bc::block_ctr(e.g1.key(), iv.data(), offset, false, pt.data(), want.data(), len);
                bc::CipherOp op;
                op.iv = iv.data();
                op.iv_len = 16;
                op.offset = offset;
                Bytes got = run_cipher(e, op, pt, true, it == 1, 0);
                ASSERT_EQ(want, got) << alg << " len=" << len << " low=" << low << " off=" << offset;
            }
    }
    for (const char* alg : {"aes-128-gcm", "aes-256-gcm"}) {
        Env e = make_env(alg, cc, rng);
        for (size_t len : lens)
            for (int it = 0; it < 2; ++it) {
                Bytes in = random_bytes(len, rng), want(len), ctr = random_bytes(16, rng);
                const uint32_t c32 = it == 0 ? 0xffffffffu - 100000u : static_cast<uint32_t>(rng());
                for (int i = 0; i < 4; ++i) ctr[12 + i] = uint8_t(c32 >> (24 - 8 * i));
                bc::block_ctr(e.g1.key(), ctr.data(), 0, true, in.data(), want.data(), len);
                bc::AeadChunkOp op;
                op.dir = bc::Dir::Encrypt;
                std::memcpy(op.ctr, ctr.data(), 16);
                op.len = len;
                uint8_t* d = nullptr;
                ASSERT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&d), len));
                cudaMemcpy(d, in.data(), len, cudaMemcpyHostToDevice);
                op.in = op.out = d;
                op.memory = BC_MEMORY_DEVICE;
                bc::Status s = e.be->aead_chunk(e.km, *e.bk, op);
                Bytes got(len);
                cudaMemcpy(got.data(), d, len, cudaMemcpyDeviceToHost);
                cudaFree(d);
                ASSERT_TRUE(s.is_ok()) << s.detail;
                ASSERT_EQ(want, got) << alg << " len=" << len << " ctr32=" << c32;
            }
    }
}

// Every size both ways; CBC decryption of several aligned tiles of 1024 blocks also with the
// chaining values read again from global memory (test hook) instead of the tile's ciphertext
// kept in shared memory.
TEST(CudaAes, CbcMatchesHostCore) {
    REQUIRE_CUDA();
    std::mt19937 rng(3);
    std::vector<size_t> sizes(std::begin(kBlocks), std::end(kBlocks));
    sizes.insert(sizes.end(), {2048, 3 * 1024 + 100});
    for (const auto& v : kVariants)
        for (const char* alg : {"aes-128-cbc", "aes-256-cbc"}) {
            Env e = make_env(alg, v, rng);
            for (size_t nb : sizes)
                for (int mem = 0; mem < 6; ++mem) {
                    const bool reload = mem >= 4;  // device memory, in place or not
                    if (reload && nb < 1024) continue;
                    bc::cuda::set_cbc_reload_chain(reload);
                    const bool device = reload || (mem & 1), in_place = mem & 2;
                    Bytes pt = random_bytes(16 * nb, rng), ct(pt.size()), iv = random_bytes(16, rng);
                    uint8_t chain[16];
                    std::memcpy(chain, iv.data(), 16);
                    bc::block_cbc_encrypt(e.g1.key(), chain, pt.data(), ct.data(), nb);
                    bc::CipherOp op;
                    op.iv = iv.data();
                    op.iv_len = 16;
                    op.dir = bc::Dir::Decrypt;
                    EXPECT_EQ(pt, run_cipher(e, op, ct, device, in_place, nb % 4))
                        << v.name << " " << alg << " dec nb=" << nb << " mem=" << mem;
                    bc::cuda::set_cbc_reload_chain(false);
                    op.dir = bc::Dir::Encrypt;
                    ASSERT_EQ(ct, run_cipher(e, op, pt, device, in_place, 1))
                        << v.name << " " << alg << " enc nb=" << nb << " mem=" << mem;
                }
        }
}

TEST(CudaAes, XtsManyUnitsAndStealing) {
    REQUIRE_CUDA();
    std::mt19937 rng(4);
    struct Shape { size_t len, unit; };
    const Shape shapes[] = {{16, 0}, {17, 0}, {31, 0}, {512, 512}, {4096 * 9, 512}, {4096 * 9 + 100, 4096},
                            {4096 * 33, 4096}, {16 * 70001 + 5, 0}, {520 * 7, 520}, {16 * 1025, 0},
                            {512 * 1000 + 48, 512},
                            // encryption on lane pairs (units of 16 k blocks): units smaller than a
                            // tile of 512 blocks, tiles starting inside units (tile tweaks from the
                            // alpha tables, level 1 too), a short last unit, stealing after it
                            {256 * 67, 256}, {768 * 41 + 16 * 5, 768}, {16640 * 9 + 16 * 37 + 9, 16640},
                            {16 * 4096, 0}, {640000 * 2 + 16 * 3, 640000},
                            // units of exactly one tile-tweak entry (256 blocks on pairs, 1,024 on
                            // k_ecb's tiles): the units' tweaks serve as the tile tweaks
                            {4096 * 70 + 16 * 2 + 3, 4096}, {16384 * 5 + 16 * 3 + 7, 16384}};
    for (const auto& v : kVariants)
        for (const char* alg : {"aes-128-xts", "aes-256-xts"}) {
            Env e = make_env(alg, v, rng);
            for (const auto& sh : shapes)
                for (int mem = 0; mem < 4; ++mem) {
                    Bytes pt = random_bytes(sh.len, rng), want(sh.len), tw = random_bytes(16, rng);
                    auto unit_ref = [&](const uint8_t* t, size_t off, size_t l) {
                        return bc::block_xts_unit(e.g1.key(), e.g2.key(), true, t, pt.data() + off,
                                                  want.data() + off, l);
                    };
                    ASSERT_TRUE(for_each_xts_unit(sh.len, sh.unit, tw.data(), unit_ref));
                    bc::CipherOp op = xts_op(tw.data(), sh.unit);
                    ASSERT_EQ(want, run_cipher(e, op, pt, mem & 1, mem & 2, mem))
                        << v.name << " " << alg << " len=" << sh.len << " unit=" << sh.unit << " mem=" << mem;
                    op.dir = bc::Dir::Decrypt;
                    ASSERT_EQ(pt, run_cipher(e, op, want, mem & 1, mem & 2, 3 - mem))
                        << v.name << " " << alg << " dec len=" << sh.len << " unit=" << sh.unit << " mem=" << mem;
                }
        }
}

TEST(CudaAes, GcmChunkAndMacMatchHost) {
    REQUIRE_CUDA();
    std::mt19937 rng(5);
    const size_t lens[] = {1, 15, 16, 17, 255, 4096, 16 * 8192, 16 * 8192 + 7, 16 * 8192 * 3 + 1, 5 << 20};
    for (const auto& v : kVariants)
        for (const char* alg : {"aes-128-gcm", "aes-256-gcm"}) {
            Env e = make_env(alg, v, rng);
            uint8_t zero[16] = {0}, hb[16];
            bc::aes_encrypt_blocks(e.k1, zero, hb, 1);
            const bc_gf128 h = bc_gf128_load(hb);
            for (size_t li = 0; li < std::size(lens); ++li)
                for (int mem = 0; mem < 2; ++mem)
                    for (int dir = 0; dir < 2; ++dir) {
                        // every GHASH variant (cuda_kernels.h), each with both memories and directions
                        // over the lengths
                        const size_t len = lens[li];
                        const int gv = int((2 * mem + dir + li) % bc::cuda::kGhashVariants);
                        bc::cuda::set_ghash_variant(gv);
                        Bytes in = random_bytes(len, rng), want(len), ctr = random_bytes(16, rng);
                        if (len % 2) std::memset(ctr.data() + 12, 0xff, 4);  // inc32 wraps
                        bc::block_ctr(e.g1.key(), ctr.data(), 0, true, in.data(), want.data(), len);
                        const Bytes& c_text = dir == 0 ? want : in;
                        uint8_t want_partial[16];
                        bc_gf128_store(want_partial, bc::ghash_partial(h, c_text.data(), len));
                        bc::AeadChunkOp op;
                        op.dir = dir == 0 ? bc::Dir::Encrypt : bc::Dir::Decrypt;
                        std::memcpy(op.ctr, ctr.data(), 16);
                        op.len = len;
                        Bytes got(len);
                        uint8_t* d = nullptr;
                        if (mem) {
                            ASSERT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&d), len + 16));
                            cudaMemcpy(d + 1, in.data(), len, cudaMemcpyHostToDevice);
                            op.in = op.out = d + 1;  // in place, misaligned
                            op.memory = BC_MEMORY_DEVICE;
                        } else {
                            op.in = in.data();
                            op.out = got.data();
                        }
                        bc::Status s = e.be->aead_chunk(e.km, *e.bk, op);
                        ASSERT_TRUE(s.is_ok()) << s.detail;
                        if (mem) {
                            cudaMemcpy(got.data(), d + 1, len, cudaMemcpyDeviceToHost);
                            cudaFree(d);
                        }
                        ASSERT_EQ(want, got) << v.name << " " << alg << " len=" << len;
                        ASSERT_EQ(0, std::memcmp(want_partial, op.partial, 16))
                            << v.name << " " << alg << " partial len=" << len << " mem=" << mem << " dir=" << dir
                            << " ghash " << bc::cuda::ghash_variant_name(gv);
                        bc::MacOp m;
                        m.data = in.data();
                        m.len = len;
                        s = e.be->mac(e.km, *e.bk, m);
                        ASSERT_TRUE(s.is_ok()) << s.detail;
                        uint8_t want_mac[16];
                        bc_gf128_store(want_mac, bc::ghash_partial(h, in.data(), len));
                        ASSERT_EQ(0, std::memcmp(want_mac, m.partial, 16))
                            << "mac len=" << len << " ghash " << bc::cuda::ghash_variant_name(gv);
                    }
        }
    bc::cuda::set_ghash_variant(-1);
    bc::cuda::set_aes_bs_variant(-1);
}

// The GHASH kernels alone, every variant, against the host GHASH: lengths around a block,
// a group (12,288 blocks) and several groups (one reduction level and two), data at
// aligned and misaligned addresses, zero and all-ones data (every matrix column summed).
TEST(CudaGhash, EveryVariantMatchesHost) {
    REQUIRE_CUDA();
    std::mt19937 rng(12);
    const size_t group = 16 * 12288;
    const size_t lens[] = {1, 16, 17, 4095, group - 16, group, group + 5, 3 * group + 100, 300 * group + 7};
    Bytes hb = random_bytes(16, rng);
    const bc_gf128 h = bc_gf128_load(hb.data());
    Bytes tables(bc::cuda::ghash_table_bytes());
    bc::cuda::ghash_build_tables(hb.data(), tables.data());
    void* dt = nullptr;
    uint8_t *dd = nullptr, *dr = nullptr;
    void* scratch = nullptr;
    const size_t max_len = lens[std::size(lens) - 1];
    ASSERT_EQ(cudaSuccess, cudaMalloc(&dt, tables.size()));
    ASSERT_EQ(cudaSuccess, cudaMemcpy(dt, tables.data(), tables.size(), cudaMemcpyHostToDevice));
    ASSERT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&dd), max_len + 16));
    ASSERT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void**>(&dr), 16));
    ASSERT_EQ(cudaSuccess, cudaMalloc(&scratch, bc::cuda::ghash_scratch_bytes(max_len)));
    for (size_t len : lens)
        for (int fill = 0; fill < 3; ++fill)
            for (size_t off : {size_t(0), size_t(4), size_t(1)}) {
                if (fill > 0 && off > 0) continue;
                Bytes data = fill == 0 ? random_bytes(len, rng) : Bytes(len, fill == 1 ? 0x00 : 0xff);
                ASSERT_EQ(cudaSuccess, cudaMemcpy(dd + off, data.data(), len, cudaMemcpyHostToDevice));
                uint8_t want[16];
                bc_gf128_store(want, bc::ghash_partial(h, data.data(), len));
                for (int v = 0; v < bc::cuda::kGhashVariants; ++v) {
                    bc::cuda::set_ghash_variant(v);
                    ASSERT_EQ(cudaSuccess, bc::cuda::launch_ghash(dt, dd + off, len, scratch, dr,
                                                                  bc::cuda::LaunchShape(), nullptr));
                    uint8_t r[16];
                    ASSERT_EQ(cudaSuccess, cudaMemcpy(r, dr, 16, cudaMemcpyDeviceToHost));
                    // the kernels give R = sum X_i H^(n-1-i); the host's partial is R * H^2
                    uint8_t got[16];
                    bc_gf128_store(got, bc_gf128_mul(bc_gf128_mul(bc_gf128_load(r), h), h));
                    EXPECT_EQ(0, std::memcmp(want, got, 16)) << bc::cuda::ghash_variant_name(v) << " len=" << len
                                                             << " offset=" << off << " fill=" << fill;
                }
            }
    bc::cuda::set_ghash_variant(-1);
    cudaFree(dt);
    cudaFree(dd);
    cudaFree(dr);
    cudaFree(scratch);
}

TEST(CudaAes, BadDevicePointerIsAStatusAndContextStaysUsable) {
    REQUIRE_CUDA();
    std::mt19937 rng(6);
    Env e = make_env("aes-128-ctr", false, rng);
    Bytes buf(64), iv(16);
    bc::CipherOp op;
    op.iv = iv.data();
    op.in = op.out = buf.data();  // host pointer passed as device memory
    op.len = buf.size();
    op.memory = BC_MEMORY_DEVICE;
    bc::Status s = e.be->cipher(e.km, *e.bk, op);
    EXPECT_EQ(BC_ERR_INVALID_ARGUMENT, s.code) << s.detail;
    Bytes want(64);
    bc::block_ctr(e.g1.key(), iv.data(), 0, false, buf.data(), want.data(), 64);
    op.memory = BC_MEMORY_HOST;
    Bytes out(64);
    op.out = out.data();
    s = e.be->cipher(e.km, *e.bk, op);
    ASSERT_TRUE(s.is_ok()) << s.detail;
    EXPECT_EQ(want, out);
}

TEST(CudaAes, DeviceDescription) {
    REQUIRE_CUDA();
    std::unique_ptr<bc::Backend> b;
    ASSERT_TRUE(bc::make_cuda_backend(0, bc::ContextOptions{}, &b).is_ok());
    EXPECT_STREQ("cuda", b->name());
    EXPECT_NE(std::string::npos, b->device_name().find("cuda:0"));
    EXPECT_TRUE(b->supports(*bc::find_algorithm("aes-256-gcm")));
}

#endif  // BC_HAVE_CUDA

}  // namespace
