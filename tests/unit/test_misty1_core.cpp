// The portable bitsliced MISTY1 core (misty1_block.h through misty1.h) against a
// one-block reference written here from RFC 2994's description, and both against the
// RFC 2994 / Botan vectors of tests/vectors. OpenSSL has no MISTY1. The reference's
// S-boxes come from their algebraic definitions, not from the generator's tables, so
// they check the generated networks independently. Expected ciphertexts come from the
// vector file, never from this source.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/misty1/misty1.h"
#include "cores/misty1/misty1_block.h"

namespace misty1_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace misty1_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

// ---- the S-boxes by definition (misty1_sbox.h's comment) ----

unsigned gf_mul(unsigned a, unsigned b, unsigned poly, int n) {
    unsigned r = 0;
    for (; b; b >>= 1) {
        if (b & 1) r ^= a;
        a <<= 1;
        if ((a >> n) & 1) a ^= poly;
    }
    return r;
}

unsigned gf_pow(unsigned x, int e, unsigned poly, int n) {
    unsigned r = 1;
    for (int i = 0; i < e; ++i) r = gf_mul(r, x, poly, n);
    return r;
}

unsigned apply_cols(const unsigned* cols, int n, unsigned v) {
    unsigned r = 0;
    for (int i = 0; i < n; ++i)
        if ((v >> i) & 1) r ^= cols[i];
    return r;
}

// S7(x) = A7 . x^81 ^ 0x1b in GF(2)[x]/(x^7 + x^3 + 1).
const std::vector<unsigned>& s7() {
    static const std::vector<unsigned> t = [] {
        static const unsigned a7[7] = {0x29, 0x62, 0x14, 0x5a, 0x4c, 0x6c, 0x70};
        std::vector<unsigned> v(128);
        for (unsigned x = 0; x < 128; ++x) v[x] = apply_cols(a7, 7, gf_pow(x, 81, 0x89, 7)) ^ 0x1b;
        return v;
    }();
    return t;
}

// S9(x) = A9 . (N x)^5 ^ 0x1c3 in GF(2)[x]/(x^9 + x^4 + 1), N x = sum of x_i beta^(2^i).
const std::vector<unsigned>& s9() {
    static const std::vector<unsigned> t = [] {
        static const unsigned a9[9] = {0x001, 0x066, 0x14c, 0x038, 0x198, 0x023, 0x072, 0x15c, 0x0b0};
        unsigned normal[9] = {0x0b2};
        for (int i = 1; i < 9; ++i) normal[i] = gf_mul(normal[i - 1], normal[i - 1], 0x211, 9);
        std::vector<unsigned> v(512);
        for (unsigned x = 0; x < 512; ++x)
            v[x] = apply_cols(a9, 9, gf_pow(apply_cols(normal, 9, x), 5, 0x211, 9)) ^ 0x1c3;
        return v;
    }();
    return t;
}

// ---- a one-block reference, RFC 2994 2.2 and 2.3 (0-based FL and FO numbers) ----

struct Ref {
    unsigned ek[16];

    static unsigned fi(unsigned in, unsigned key) {
        unsigned d9 = in >> 7, d7 = in & 0x7f;
        d9 = s9()[d9] ^ d7;
        d7 = (s7()[d7] ^ d9) & 0x7f;
        d7 ^= key >> 9;
        d9 ^= key & 0x1ff;
        d9 = s9()[d9] ^ d7;
        return (d7 << 9) | d9;
    }
    explicit Ref(const uint8_t* key) {
        for (int i = 0; i < 8; ++i) ek[i] = (static_cast<unsigned>(key[2 * i]) << 8) | key[2 * i + 1];
        for (int i = 0; i < 8; ++i) ek[8 + i] = fi(ek[i], ek[(i + 1) % 8]);
    }
    unsigned kl1(int k) const { return k % 2 ? ek[8 + ((k - 1) / 2 + 2) % 8] : ek[k / 2]; }
    unsigned kl2(int k) const { return k % 2 ? ek[((k - 1) / 2 + 4) % 8] : ek[8 + (k / 2 + 6) % 8]; }
    uint32_t fl(uint32_t in, int k) const {
        unsigned d0 = in >> 16, d1 = in & 0xffff;
        d1 ^= d0 & kl1(k);
        d0 ^= d1 | kl2(k);
        return (d0 << 16) | d1;
    }
    uint32_t flinv(uint32_t in, int k) const {
        unsigned d0 = in >> 16, d1 = in & 0xffff;
        d0 ^= d1 | kl2(k);
        d1 ^= d0 & kl1(k);
        return (d0 << 16) | d1;
    }
    uint32_t fo(uint32_t in, int k) const {
        unsigned t0 = in >> 16, t1 = in & 0xffff;
        t0 = fi(t0 ^ ek[k], ek[8 + (k + 5) % 8]) ^ t1;
        t1 = fi(t1 ^ ek[(k + 2) % 8], ek[8 + (k + 1) % 8]) ^ t0;
        t0 = fi(t0 ^ ek[(k + 7) % 8], ek[8 + (k + 3) % 8]) ^ t1;
        t1 ^= ek[(k + 4) % 8];
        return (t1 << 16) | t0;
    }
    void encrypt(const uint8_t* in, uint8_t* out) const {
        uint32_t d0 = bc_load_be32(in), d1 = bc_load_be32(in + 4);
        for (int r = 0; r < 8; r += 2) {
            d0 = fl(d0, r);
            d1 = fl(d1, r + 1);
            d1 ^= fo(d0, r);
            d0 ^= fo(d1, r + 1);
        }
        d0 = fl(d0, 8);
        d1 = fl(d1, 9);
        bc_store_be32(out, d1);
        bc_store_be32(out + 4, d0);
    }
    void decrypt(const uint8_t* in, uint8_t* out) const {
        uint32_t d1 = bc_load_be32(in), d0 = bc_load_be32(in + 4);
        d0 = flinv(d0, 8);
        d1 = flinv(d1, 9);
        for (int r = 6; r >= 0; r -= 2) {
            d0 ^= fo(d1, r + 1);
            d1 ^= fo(d0, r);
            d0 = flinv(d0, r);
            d1 = flinv(d1, r + 1);
        }
        bc_store_be32(out, d0);
        bc_store_be32(out + 4, d1);
    }
    Bytes ecb(bool enc, const uint8_t* in, size_t len) const {
        Bytes out(len);
        for (size_t i = 0; i + 8 <= len; i += 8) {
            if (enc) encrypt(in + i, &out[i]);
            else decrypt(in + i, &out[i]);
        }
        return out;
    }
};

const bc::BlockCipher& core() { return core_test::block_cipher("misty1"); }

std::vector<uint32_t> expand(const uint8_t* key) { return core_test::expand(core(), key, 16); }

// The 16-bit value of mask words m[0..15] (bit b from m[b]); -1 when a word is neither
// all zeros nor all ones.
long from_masks(const uint32_t* m) {
    long v = 0;
    for (int b = 0; b < 16; ++b) {
        if (m[b] != 0u && m[b] != 0xffffffffu) return -1;
        if (m[b]) v |= 1L << b;
    }
    return v;
}

std::string hex(const Bytes& b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t x : b) s += {d[x >> 4], d[x & 15]};
    return s;
}

}  // namespace

TEST(Misty1Core, SboxNetworksMatchDefinition) {
    for (int n : {7, 9}) {
        const std::vector<unsigned>& want = n == 7 ? s7() : s9();
        std::vector<bool> seen(want.size(), false);
        for (unsigned base = 0; base < want.size(); base += 32) {
            bc_u32 x[9] = {0};
            for (unsigned j = 0; j < 32; ++j)
                for (int b = 0; b < n; ++b) x[b] |= static_cast<bc_u32>(((base + j) >> b) & 1) << j;
            if (n == 7) bc_misty1_bs_s7(x);
            else bc_misty1_bs_s9(x);
            for (unsigned j = 0; j < 32; ++j) {
                unsigned v = 0;
                for (int b = 0; b < n; ++b) v |= ((x[b] >> j) & 1u) << b;
                ASSERT_EQ(want[base + j], v) << "S" << n << "(" << base + j << ")";
                seen[v] = true;
            }
        }
        for (size_t v = 0; v < seen.size(); ++v) ASSERT_TRUE(seen[v]) << "S" << n << " is not a permutation";
    }
}

TEST(Misty1Core, BadKeyLengthsRefused) {
    core_test::expect_key_lengths(core(), {0, 1, 8, 15, 17, 24, 32, 64}, {16});
}

// Every subkey where misty1_block.h documents it, as masks, against the reference's
// RFC 2994 selection.
TEST(Misty1Core, ExpandedKeyLayout) {
    std::mt19937 rng(2994);
    for (int trial = 0; trial < 4; ++trial) {
        uint8_t key[16];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        const Ref ref(key);
        auto fi_form = [](unsigned ki) { return (ki & 0x1ffu) | ((ki ^ (ki << 9)) & 0xfe00u); };
        for (int k = 0; k < 10; ++k) {
            EXPECT_EQ(long(ref.kl1(k)), from_masks(&ks[32 * k])) << "KL1 of FL " << k;
            EXPECT_EQ(long(ref.kl2(k)), from_masks(&ks[32 * k + 16])) << "KL2 of FL " << k;
        }
        for (int k = 0; k < 8; ++k) {
            const uint32_t* m = &ks[320 + 112 * k];
            EXPECT_EQ(long(ref.ek[k]), from_masks(m)) << "KO1 of FO " << k;
            EXPECT_EQ(long(ref.ek[(k + 2) % 8]), from_masks(m + 16)) << "KO2 of FO " << k;
            EXPECT_EQ(long(ref.ek[(k + 7) % 8]), from_masks(m + 32)) << "KO3 of FO " << k;
            EXPECT_EQ(long(ref.ek[(k + 4) % 8]), from_masks(m + 48)) << "KO4 of FO " << k;
            EXPECT_EQ(long(fi_form(ref.ek[8 + (k + 5) % 8])), from_masks(m + 64)) << "KI1 of FO " << k;
            EXPECT_EQ(long(fi_form(ref.ek[8 + (k + 1) % 8])), from_masks(m + 80)) << "KI2 of FO " << k;
            EXPECT_EQ(long(fi_form(ref.ek[8 + (k + 3) % 8])), from_masks(m + 96)) << "KI3 of FO " << k;
        }
    }
}

// RFC 2994's two vectors and Botan's 29 more (tests/vectors), through the portable core
// and through the reference.
TEST(Misty1Core, BotanVectors) {
    const std::vector<core_test::Kat> recs =
        core_test::read_kats("botan/src/tests/data/block/misty.vec", "Key", "In", "Out");
    if (recs.empty()) GTEST_SKIP() << "skipped: botan/src/tests/data/block/misty.vec not found";
    EXPECT_EQ(31u, recs.size());
    for (const core_test::Kat& r : recs) {
        ASSERT_EQ(16u, r.key.size());
        ASSERT_EQ(0u, r.pt.size() % 8);
        ASSERT_EQ(r.pt.size(), r.ct.size());
        const std::vector<uint32_t> ks = expand(r.key.data());
        const size_t n = r.pt.size() / 8;
        Bytes got(r.pt.size());
        bc::misty1_encrypt_blocks(ks.data(), r.pt.data(), got.data(), n);
        ASSERT_EQ(r.ct, got) << "key " << hex(r.key);
        bc::misty1_decrypt_blocks(ks.data(), r.ct.data(), got.data(), n);
        ASSERT_EQ(r.pt, got) << "key " << hex(r.key);
        const Ref ref(r.key.data());
        ASSERT_EQ(r.ct, ref.ecb(true, r.pt.data(), r.pt.size())) << "reference, key " << hex(r.key);
        ASSERT_EQ(r.pt, ref.ecb(false, r.ct.data(), r.ct.size())) << "reference, key " << hex(r.key);
    }
}

TEST(Misty1Core, MatchesReferenceRandomKeysAndLengths) {
    std::mt19937 rng(20261201);
    for (int trial = 0; trial < 40; ++trial) {
        uint8_t key[16];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        const Ref ref(key);
        static const size_t kFirst[] = {0, 32, 33, 1, 64};  // then random, partial batches
        const size_t n = trial < 5 ? kFirst[trial] : rng() % 101;
        const size_t len = 8 * n;
        Bytes pt(len);
        for (auto& c : pt) c = static_cast<uint8_t>(rng());
        const Bytes want = ref.ecb(true, pt.data(), len);
        ASSERT_EQ(pt, ref.ecb(false, want.data(), len)) << "reference, blocks " << n;
        ASSERT_NO_FATAL_FAILURE(core_test::check_blocks(core(), ks, pt, want, rng, "reference"));
    }
}

TEST(Misty1Core, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against the reference, and the build of
    // the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, misty1_plain::intrinsics());
    const core_test::BatchFns batch = {bc_misty1_encrypt_batch, bc_misty1_decrypt_batch, misty1_plain::encrypt_batch,
                                       misty1_plain::decrypt_batch};
    std::mt19937 rng(4196);
    for (int trial = 0; trial < 3; ++trial) {
        uint8_t key[16], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const Bytes want = Ref(key).ecb(true, blocks, sizeof blocks);
        ASSERT_NO_FATAL_FAILURE(core_test::check_batch(batch, expand(key), blocks, want)) << "trial " << trial;
    }
}
