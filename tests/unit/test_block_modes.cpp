// The generic block modes on the host (modes/block/host_modes.h) and the XTS tweak
// arithmetic (modes/block/xts_tweak.h):
//   - with AES's descriptor against OpenSSL's AES (ECB, CBC, CTR at any offset,
//     CTR inc32, XTS with stealing over several units), in place and out of place;
//   - with a toy 64-bit Feistel cipher defined here, against a per-block reference
//     written here (the 8-byte instantiation: ECB, CBC, CTR's 64-bit counter);
//   - the tweak multiplications against repeated doubling;
//   - block ciphers of the catalogue other than AES through the CPU backend's C API
//     (libcrypto and portable paths) against OpenSSL, XTS against an XTS composed
//     here from OpenSSL's ECB.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"
#include "dialect/bc_dialect.h"
#include "modes/block/host_modes.h"
#include "modes/block/xts_tweak.h"

namespace {

using Bytes = std::vector<uint8_t>;

Bytes rnd(std::mt19937_64& g, size_t n) {
    Bytes v(n);
    for (auto& b : v) b = static_cast<uint8_t>(g());
    return v;
}

// OpenSSL one shot for a raw mode, no padding; empty cipher name lookups fail the test.
Bytes evp_crypt(const std::string& name, bool enc, const Bytes& key, const uint8_t* iv, const Bytes& in) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name.c_str(), nullptr);
    EXPECT_NE(c, nullptr) << name;
    if (!c) return {};
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Bytes out(in.size() + 32);
    int l1 = 0, l2 = 0;
    EXPECT_EQ(1, EVP_CipherInit_ex2(ctx, c, key.data(), iv, enc, nullptr));
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (!in.empty()) EXPECT_EQ(1, EVP_CipherUpdate(ctx, out.data(), &l1, in.data(), static_cast<int>(in.size())));
    EXPECT_EQ(1, EVP_CipherFinal_ex(ctx, out.data() + l1, &l2));
    out.resize(size_t(l1 + l2));
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    return out;
}

std::string aes_name(size_t key_len, const char* mode) {
    return "AES-" + std::to_string(key_len * 8) + "-" + mode;
}

struct AesKey {
    bc::HostBlockSchedule s;
    Bytes raw;
    AesKey(std::mt19937_64& g, size_t len) : raw(rnd(g, len)) {
        const bc::BlockCipher* aes = bc::find_block_cipher("aes");
        EXPECT_NE(aes, nullptr);
        EXPECT_TRUE(s.expand(aes, raw.data(), raw.size()));
    }
};

// Lengths in blocks: the edges of a batch (32 on the host) and several batches.
const size_t kBlockCounts[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 64, 65, 97, 200};

TEST(BlockModesAes, EcbAgainstOpenSSL) {
    std::mt19937_64 g(1);
    for (size_t kl : {16, 24, 32}) {
        AesKey k(g, kl);
        for (size_t nb : kBlockCounts) {
            const Bytes pt = rnd(g, 16 * nb);
            const Bytes want = evp_crypt(aes_name(kl, "ECB"), true, k.raw, nullptr, pt);
            Bytes ct(pt.size());
            bc::block_ecb(k.s.key(), true, pt.data(), ct.data(), nb);
            EXPECT_EQ(ct, want) << kl << " " << nb;
            Bytes in_place = ct;
            bc::block_ecb(k.s.key(), false, in_place.data(), in_place.data(), nb);
            EXPECT_EQ(in_place, pt) << kl << " " << nb;
        }
    }
}

TEST(BlockModesAes, CbcBothWaysAgainstOpenSSL) {
    std::mt19937_64 g(2);
    for (size_t kl : {16, 24, 32}) {
        AesKey k(g, kl);
        for (size_t nb : kBlockCounts) {
            const Bytes pt = rnd(g, 16 * nb), iv = rnd(g, 16);
            const Bytes want = evp_crypt(aes_name(kl, "CBC"), true, k.raw, iv.data(), pt);
            for (bool in_place : {false, true}) {
                Bytes ct = in_place ? pt : Bytes(pt.size());
                uint8_t chain[16];
                std::memcpy(chain, iv.data(), 16);
                bc::block_cbc_encrypt(k.s.key(), chain, in_place ? ct.data() : pt.data(), ct.data(), nb);
                EXPECT_EQ(ct, want) << kl << " " << nb << " " << in_place;
                EXPECT_EQ(0, std::memcmp(chain, nb ? want.data() + 16 * (nb - 1) : iv.data(), 16));
                Bytes back = in_place ? ct : Bytes(ct.size());
                std::memcpy(chain, iv.data(), 16);
                bc::block_cbc_decrypt(k.s.key(), chain, in_place ? back.data() : ct.data(), back.data(), nb);
                EXPECT_EQ(back, pt) << kl << " " << nb << " " << in_place;
                EXPECT_EQ(0, std::memcmp(chain, nb ? want.data() + 16 * (nb - 1) : iv.data(), 16));
            }
            // Split anywhere: the chain carries the state between pieces.
            if (nb > 2) {
                Bytes back(16 * nb);
                uint8_t chain[16];
                std::memcpy(chain, iv.data(), 16);
                const size_t cut = nb / 3;
                bc::block_cbc_decrypt(k.s.key(), chain, want.data(), back.data(), cut);
                bc::block_cbc_decrypt(k.s.key(), chain, want.data() + 16 * cut, back.data() + 16 * cut, nb - cut);
                EXPECT_EQ(back, pt);
            }
        }
    }
}

TEST(BlockModesAes, CtrAtRandomOffsetsAgainstOpenSSL) {
    std::mt19937_64 g(3);
    for (size_t kl : {16, 24, 32}) {
        AesKey k(g, kl);
        std::vector<size_t> lens = {0, 1, 15, 16, 17, 31, 33, 511, 512, 513, 16 * 32, 16 * 32 + 1, 5000};
        for (int i = 0; i < 12; ++i) lens.push_back(size_t(g() % 4000));
        for (size_t len : lens) {
            Bytes iv = rnd(g, 16);
            // Some counters near the 64-bit boundary, so the carry into the high half counts.
            if (len % 3 == 0) std::memset(iv.data() + 8, 0xff, 8), iv[15] = static_cast<uint8_t>(0xff - g() % 40);
            const uint64_t offset = len % 2 ? g() % 3000 : 16 * (g() % 100);
            const Bytes pt = rnd(g, len);
            // The reference: OpenSSL's keystream from the IV, then the window at offset.
            Bytes zeros(offset + len, 0);
            const Bytes ks = evp_crypt(aes_name(kl, "CTR"), true, k.raw, iv.data(), zeros);
            Bytes want(len);
            for (size_t j = 0; j < len; ++j) want[j] = pt[j] ^ ks[offset + j];
            Bytes out(len);
            bc::block_ctr(k.s.key(), iv.data(), offset, false, pt.data(), out.data(), len);
            EXPECT_EQ(out, want) << kl << " len " << len << " offset " << offset;
            Bytes in_place = pt;
            bc::block_ctr(k.s.key(), iv.data(), offset, false, in_place.data(), in_place.data(), len);
            EXPECT_EQ(in_place, want) << kl << " len " << len << " offset " << offset;
        }
    }
}

TEST(BlockModesAes, CtrInc32AgainstOpenSSLEcb) {
    std::mt19937_64 g(4);
    AesKey k(g, 16);
    for (size_t len : {0, 1, 15, 16, 17, 100, 16 * 32 + 3, 16 * 70}) {
        Bytes ctr = rnd(g, 16);
        ctr[12] = ctr[13] = ctr[14] = 0xff;  // the low word wraps inside the message
        ctr[15] = static_cast<uint8_t>(0xff - g() % 8);
        const uint64_t offset = len % 2 ? 0 : 16 * (g() % 5);
        const size_t nb = size_t((offset + len + 15) / 16);
        Bytes blocks(16 * nb);
        for (size_t b = 0; b < nb; ++b) {
            std::memcpy(&blocks[16 * b], ctr.data(), 12);
            bc_store_be32(&blocks[16 * b + 12], bc_load_be32(ctr.data() + 12) + uint32_t(b));
        }
        const Bytes ks = evp_crypt("AES-128-ECB", true, k.raw, nullptr, blocks);
        const Bytes pt = rnd(g, len);
        Bytes want(len), out(len);
        for (size_t j = 0; j < len; ++j) want[j] = pt[j] ^ ks[offset + j];
        bc::block_ctr(k.s.key(), ctr.data(), offset, true, pt.data(), out.data(), len);
        EXPECT_EQ(out, want) << len;
    }
}

TEST(BlockModesAes, XtsUnitsWithStealingAgainstOpenSSL) {
    std::mt19937_64 g(5);
    for (size_t kl : {16, 32}) {
        AesKey k1(g, kl), k2(g, kl);
        Bytes both = k1.raw;
        both.insert(both.end(), k2.raw.begin(), k2.raw.end());
        const std::string name = aes_name(kl, "XTS");
        for (size_t unit : {16, 17, 31, 32, 33, 47, 512, 513, 16 * 32 + 5, 16 * 33, 16 * 100 + 15}) {
            const size_t units = 3;
            const Bytes pt = rnd(g, unit * units);
            const Bytes tweak0 = rnd(g, 16);
            Bytes want;
            for (size_t u = 0; u < units; ++u) {
                Bytes t = tweak0;
                bc::add_le(t.data(), 16, u);
                const Bytes piece(pt.begin() + long(u * unit), pt.begin() + long((u + 1) * unit));
                const Bytes c = evp_crypt(name, true, both, t.data(), piece);
                want.insert(want.end(), c.begin(), c.end());
            }
            for (bool in_place : {false, true}) {
                Bytes ct = in_place ? pt : Bytes(pt.size());
                for (size_t u = 0; u < units; ++u) {
                    Bytes t = tweak0;
                    bc::add_le(t.data(), 16, u);
                    ASSERT_TRUE(bc::block_xts_unit(k1.s.key(), k2.s.key(), true, t.data(),
                                                   (in_place ? ct.data() : pt.data()) + u * unit,
                                                   ct.data() + u * unit, unit));
                }
                EXPECT_EQ(ct, want) << kl << " unit " << unit << " " << in_place;
                Bytes back = in_place ? ct : Bytes(ct.size());
                for (size_t u = 0; u < units; ++u) {
                    Bytes t = tweak0;
                    bc::add_le(t.data(), 16, u);
                    ASSERT_TRUE(bc::block_xts_unit(k1.s.key(), k2.s.key(), false, t.data(),
                                                   (in_place ? back.data() : ct.data()) + u * unit,
                                                   back.data() + u * unit, unit));
                }
                EXPECT_EQ(back, pt) << kl << " unit " << unit << " " << in_place;
            }
        }
        uint8_t t[16] = {0}, buf[15] = {0};
        EXPECT_FALSE(bc::block_xts_unit(k1.s.key(), k2.s.key(), true, t, buf, buf, 15));
    }
}

// ---- a toy 64-bit block cipher: the 8-byte instantiation ----

// Eight Feistel rounds on two 32-bit halves (bytes 0..3 and 4..7, big-endian);
// a permutation for any round function. For the tests only: no security.
constexpr int kToyRounds = 8;

uint32_t toy_f(uint32_t x, uint32_t k) {
    uint32_t y = (x + k) * 0x9e3779b1u;
    return (y ^ (y >> 15)) + ((x << 7) | (x >> 25));
}

bool toy_expand(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16) return false;
    for (int r = 0; r < kToyRounds; ++r) ks[r] = bc_load_be32(key + 4 * (r % 4)) ^ (0x01000193u * uint32_t(r + 1));
    return true;
}

void toy_encrypt(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    for (size_t b = 0; b < n; ++b) {
        uint32_t l = bc_load_be32(in + 8 * b), r = bc_load_be32(in + 8 * b + 4);
        for (int i = 0; i < kToyRounds; ++i) {
            const uint32_t t = l ^ toy_f(r, ks[i]);
            l = r;
            r = t;
        }
        bc_store_be32(out + 8 * b, l);
        bc_store_be32(out + 8 * b + 4, r);
    }
}

void toy_decrypt(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    for (size_t b = 0; b < n; ++b) {
        uint32_t l = bc_load_be32(in + 8 * b), r = bc_load_be32(in + 8 * b + 4);
        for (int i = kToyRounds - 1; i >= 0; --i) {
            const uint32_t t = r ^ toy_f(l, ks[i]);
            r = l;
            l = t;
        }
        bc_store_be32(out + 8 * b, l);
        bc_store_be32(out + 8 * b + 4, r);
    }
}

const bc::BlockCipher kToy64 = {"toy64", 8, 32, kToyRounds, toy_expand, toy_encrypt, toy_decrypt};

struct ToyKey {
    Bytes raw;
    uint32_t ks[kToyRounds];
    bc::HostBlockSchedule s;
    explicit ToyKey(std::mt19937_64& g) : raw(rnd(g, 16)) {
        EXPECT_TRUE(toy_expand(raw.data(), 16, ks));
        EXPECT_TRUE(s.expand(&kToy64, raw.data(), 16));
    }
};

TEST(BlockModesToy64, IsAPermutation) {
    std::mt19937_64 g(6);
    ToyKey k(g);
    const Bytes pt = rnd(g, 8 * 50);
    Bytes ct(pt.size()), back(pt.size());
    toy_encrypt(k.ks, pt.data(), ct.data(), 50);
    toy_decrypt(k.ks, ct.data(), back.data(), 50);
    EXPECT_EQ(back, pt);
    EXPECT_NE(ct, pt);
}

TEST(BlockModesToy64, EcbAndCbcAgainstPerBlockReference) {
    std::mt19937_64 g(7);
    ToyKey k(g);
    for (size_t nb : kBlockCounts) {
        const Bytes pt = rnd(g, 8 * nb), iv = rnd(g, 8);
        // ECB, a block at a time.
        Bytes want(pt.size());
        for (size_t b = 0; b < nb; ++b) toy_encrypt(k.ks, &pt[8 * b], &want[8 * b], 1);
        Bytes ct(pt.size());
        bc::block_ecb(k.s.key(), true, pt.data(), ct.data(), nb);
        EXPECT_EQ(ct, want) << nb;
        bc::block_ecb(k.s.key(), false, ct.data(), ct.data(), nb);
        EXPECT_EQ(ct, pt) << nb;
        // CBC, a block at a time.
        uint8_t prev[8];
        std::memcpy(prev, iv.data(), 8);
        for (size_t b = 0; b < nb; ++b) {
            uint8_t x[8];
            for (int j = 0; j < 8; ++j) x[j] = pt[8 * b + j] ^ prev[j];
            toy_encrypt(k.ks, x, &want[8 * b], 1);
            std::memcpy(prev, &want[8 * b], 8);
        }
        uint8_t chain[8];
        std::memcpy(chain, iv.data(), 8);
        bc::block_cbc_encrypt(k.s.key(), chain, pt.data(), ct.data(), nb);
        EXPECT_EQ(ct, want) << nb;
        EXPECT_EQ(0, std::memcmp(chain, prev, 8));
        std::memcpy(chain, iv.data(), 8);
        bc::block_cbc_decrypt(k.s.key(), chain, ct.data(), ct.data(), nb);  // in place
        EXPECT_EQ(ct, pt) << nb;
        EXPECT_EQ(0, std::memcmp(chain, prev, 8));
    }
}

TEST(BlockModesToy64, CtrSixtyFourBitCounterAgainstPerBlockReference) {
    std::mt19937_64 g(8);
    ToyKey k(g);
    std::vector<size_t> lens = {0, 1, 7, 8, 9, 255, 256, 257, 8 * 65 + 3};
    for (int i = 0; i < 10; ++i) lens.push_back(size_t(g() % 3000));
    for (size_t len : lens) {
        Bytes ctr = rnd(g, 8);
        // Half the counters cross a 32-bit word inside the message: the carry must reach word 0.
        if (len % 2 == 0) std::memset(ctr.data() + 4, 0xff, 4), ctr[7] = static_cast<uint8_t>(0xff - g() % 100);
        const uint64_t offset = g() % 1000;
        const uint64_t c0 = bc_load_be64(ctr.data());
        const Bytes pt = rnd(g, len);
        Bytes want(len);
        for (size_t j = 0; j < len; ++j) {
            const uint64_t pos = offset + j;
            uint8_t blk[8], ksb[8];
            bc_store_be64(blk, c0 + pos / 8);  // a 64-bit big-endian counter
            toy_encrypt(k.ks, blk, ksb, 1);
            want[j] = pt[j] ^ ksb[pos % 8];
        }
        Bytes out(len);
        bc::block_ctr(k.s.key(), ctr.data(), offset, false, pt.data(), out.data(), len);
        EXPECT_EQ(out, want) << "len " << len << " offset " << offset;
        Bytes in_place = pt;
        bc::block_ctr(k.s.key(), ctr.data(), offset, false, in_place.data(), in_place.data(), len);
        EXPECT_EQ(in_place, want) << "len " << len << " offset " << offset;
    }
}

TEST(BlockModesToy64, XtsRefusesEightByteBlocks) {
    std::mt19937_64 g(9);
    ToyKey k(g);
    uint8_t t[16] = {0}, buf[32] = {0};
    EXPECT_FALSE(bc::block_xts_unit(k.s.key(), k.s.key(), true, t, buf, buf, 32));
}

// ---- counters and tweaks ----

TEST(BlockModesCounters, AddBeAndLeAnyWidth) {
    std::mt19937_64 g(10);
    for (int i = 0; i < 200; ++i) {
        Bytes v = rnd(g, 16);
        if (i % 2) std::memset(v.data() + 4, 0xff, 12);
        const uint64_t n = i % 3 ? g() : g() % 1000;
        unsigned __int128 be = 0, le = 0;
        for (int j = 0; j < 16; ++j) be = (be << 8) | v[size_t(j)];
        for (int j = 15; j >= 0; --j) le = (le << 8) | v[size_t(j)];
        Bytes a = v, b = v;
        bc::add_be(a.data(), 16, n);
        bc::add_le(b.data(), 16, n);
        be += n;
        le += n;
        for (int j = 15; j >= 0; --j, be >>= 8) EXPECT_EQ(a[size_t(j)], uint8_t(be));
        for (int j = 0; j < 16; ++j, le >>= 8) EXPECT_EQ(b[size_t(j)], uint8_t(le));
        // Width 8: modulo 2^64.
        Bytes c = v;
        bc::add_be(c.data(), 8, n);
        EXPECT_EQ(bc_load_be64(c.data()), bc_load_be64(v.data()) + n);
        EXPECT_EQ(0, std::memcmp(c.data() + 8, v.data() + 8, 8));
    }
}

TEST(XtsTweak, MulXsEqualsRepeatedMulX) {
    std::mt19937_64 g(11);
    for (int i = 0; i < 100; ++i) {
        for (unsigned s = 1; s <= 32; ++s) {
            uint64_t lo = g(), hi = g();
            if (i % 2) hi |= 0xffffffff00000000ull;  // bits that fall off the top
            uint64_t a_lo = lo, a_hi = hi;
            bc_xts_mul_xs(&a_lo, &a_hi, s);
            uint64_t b_lo = lo, b_hi = hi;
            for (unsigned j = 0; j < s; ++j) bc_xts_mul_x(&b_lo, &b_hi);
            EXPECT_EQ(a_lo, b_lo) << s;
            EXPECT_EQ(a_hi, b_hi) << s;
        }
    }
}

// The four-word form (GPUs walk tweaks in it) against the 64-bit form, every stride.
TEST(XtsTweak, MulXsWordsEqualsMulXs) {
    std::mt19937_64 g(12);
    for (int i = 0; i < 100; ++i) {
        for (unsigned s = 1; s <= 32; ++s) {
            uint64_t lo = g(), hi = g();
            if (i % 2) hi |= 0xffffffff00000000ull;
            uint32_t t[4] = {uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi), uint32_t(hi >> 32)};
            bc_xts_mul_xs_w(t, s);
            bc_xts_mul_xs(&lo, &hi, s);
            EXPECT_EQ(lo, uint64_t(t[0]) | uint64_t(t[1]) << 32) << s;
            EXPECT_EQ(hi, uint64_t(t[2]) | uint64_t(t[3]) << 32) << s;
        }
    }
}

TEST(XtsTweak, MulPublicByAlphaPowerEqualsDoublings) {
    std::mt19937_64 g(12);
    for (uint64_t e : {0ull, 1ull, 2ull, 31ull, 32ull, 63ull, 64ull, 65ull, 127ull, 128ull, 129ull, 1000ull, 4097ull}) {
        uint64_t p_lo = 0, p_hi = 0;
        bc_xts_alpha_pow(e, &p_lo, &p_hi);
        const uint64_t lo = g(), hi = g() | (uint64_t(1) << 63);
        uint64_t a_lo = lo, a_hi = hi;
        bc_xts_mul_public(&a_lo, &a_hi, p_lo, p_hi);
        uint64_t b_lo = lo, b_hi = hi;
        for (uint64_t j = 0; j < e; ++j) bc_xts_mul_x(&b_lo, &b_hi);
        EXPECT_EQ(a_lo, b_lo) << e;
        EXPECT_EQ(a_hi, b_hi) << e;
    }
}

// ---- block ciphers other than AES through the CPU backend ----

// Each block-mode row of the catalogue whose cipher is a generic block cipher (not AES).
std::vector<const bc::Algorithm*> generic_rows(bc::Mode mode) {
    std::vector<const bc::Algorithm*> v;
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i)
        if (a->cipher == bc::Cipher::Block && a->mode == mode) v.push_back(a);
    return v;
}

// OpenSSL's ECB name for the cipher of an XTS row: that of the catalogue's ECB row
// with the same block cipher and one XTS half as its key; empty when none.
std::string ecb_name_for_xts(const bc::Algorithm* xts) {
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i)
        if (a->mode == bc::Mode::ECB && a->block == xts->block && a->key_size == xts->key_size / 2 && a->openssl_name)
            return a->openssl_name;
    return {};
}

struct Ctx {
    bc_context* ctx = nullptr;
    explicit Ctx(const char* options) { EXPECT_EQ(BC_OK, bc_context_create("cpu", options, &ctx)) << options; }
    ~Ctx() { bc_context_destroy(ctx); }
};

const char* const kCpuOptions[] = {"threads=4,chunk=4096", "cpu.impl=portable,threads=4,chunk=4096"};

TEST(CpuBlockCiphers, EcbCbcCtrAgainstOpenSSL) {
    std::mt19937_64 g(13);
    size_t checked = 0;
    for (bc::Mode mode : {bc::Mode::ECB, bc::Mode::CBC, bc::Mode::CTR}) {
        for (const bc::Algorithm* a : generic_rows(mode)) {
            if (!a->openssl_name) continue;
            EVP_CIPHER* probe = EVP_CIPHER_fetch(nullptr, a->openssl_name, nullptr);
            if (!probe) continue;  // OpenSSL lacks it here: nothing to compare with
            EVP_CIPHER_free(probe);
            for (const char* opts : kCpuOptions) {
                Ctx c(opts);
                ASSERT_NE(c.ctx, nullptr);
                const Bytes key = rnd(g, a->key_size);
                bc_key* k = nullptr;
                ASSERT_EQ(BC_OK, bc_key_create(c.ctx, a->name, key.data(), key.size(), &k)) << a->name;
                const size_t bb = a->block_size;
                for (size_t len : {size_t(0), bb, 2 * bb, 33 * bb, 1000 * bb, 4096 * 5 + 3 * bb, size_t(5), size_t(70001)}) {
                    if (mode != bc::Mode::CTR && len % bb) continue;
                    const Bytes pt = rnd(g, len), iv = rnd(g, a->iv_size);
                    const uint64_t offset = mode == bc::Mode::CTR && len % 2 ? g() % 5000 : 0;
                    Bytes want;
                    if (mode == bc::Mode::CTR) {
                        const Bytes ks = evp_crypt(a->openssl_name, true, key, iv.data(), Bytes(offset + len, 0));
                        want.resize(len);
                        for (size_t j = 0; j < len; ++j) want[j] = pt[j] ^ ks[offset + j];
                    } else {
                        want = evp_crypt(a->openssl_name, true, key, iv.empty() ? nullptr : iv.data(), pt);
                    }
                    bc_params p{};
                    p.offset = offset;
                    Bytes out(len + 1);
                    size_t out_len = 0;
                    ASSERT_EQ(BC_OK, bc_encrypt(k, iv.empty() ? nullptr : iv.data(), iv.size(), pt.data(), len,
                                                out.data(), out.size(), &out_len, &p))
                        << a->name << " " << opts << " " << len;
                    out.resize(out_len);
                    EXPECT_EQ(out, want) << a->name << " " << opts << " len " << len << " offset " << offset;
                    // Decryption, in place.
                    Bytes back = out;
                    back.resize(len + 1);
                    ASSERT_EQ(BC_OK, bc_decrypt(k, iv.empty() ? nullptr : iv.data(), iv.size(), back.data(), len,
                                                back.data(), back.size(), &out_len, &p));
                    back.resize(out_len);
                    EXPECT_EQ(back, pt) << a->name << " " << opts << " len " << len;
                    ++checked;
                }
                bc_key_destroy(k);
            }
        }
    }
    if (checked == 0) GTEST_SKIP() << "skipped: no block cipher other than AES in the catalogue, or none in OpenSSL";
}

// XTS composed from OpenSSL's ECB of the cipher: the oracle shares no code with bulkcrypt's modes.
Bytes reference_xts(const std::string& ecb, const Bytes& k1, const Bytes& k2, bool enc, const uint8_t tweak[16],
                    const Bytes& in) {
    auto e = [&](const Bytes& key, bool forward, const uint8_t* b) {
        return evp_crypt(ecb, forward, key, nullptr, Bytes(b, b + 16));
    };
    const Bytes t0 = e(k2, true, tweak);
    std::vector<Bytes> tw;  // the tweak of every block
    Bytes t = t0;
    const size_t full = in.size() / 16, r = in.size() % 16;
    for (size_t b = 0; b <= full; ++b) {
        tw.push_back(t);
        uint8_t carry = t[15] >> 7;
        for (int j = 15; j > 0; --j) t[size_t(j)] = uint8_t((t[size_t(j)] << 1) | (t[size_t(j - 1)] >> 7));
        t[0] = uint8_t((t[0] << 1) ^ (carry ? 0x87 : 0));
    }
    auto one = [&](const uint8_t* b, const Bytes& tt) {
        Bytes x(16);
        for (int j = 0; j < 16; ++j) x[size_t(j)] = b[j] ^ tt[size_t(j)];
        Bytes y = e(k1, enc, x.data());
        for (int j = 0; j < 16; ++j) y[size_t(j)] ^= tt[size_t(j)];
        return y;
    };
    Bytes out(in.size());
    const size_t plain = r ? full - 1 : full;
    for (size_t b = 0; b < plain; ++b) {
        const Bytes y = one(&in[16 * b], tw[b]);
        std::memcpy(&out[16 * b], y.data(), 16);
    }
    if (r) {
        const size_t m = full - 1;  // the last full block
        const Bytes& ta = enc ? tw[m] : tw[m + 1];
        const Bytes& tb = enc ? tw[m + 1] : tw[m];
        const Bytes cc = one(&in[16 * m], ta);
        Bytes pp(16);
        std::memcpy(pp.data(), &in[16 * m + 16], r);
        std::memcpy(pp.data() + r, cc.data() + r, 16 - r);
        const Bytes y = one(pp.data(), tb);
        std::memcpy(&out[16 * m], y.data(), 16);
        std::memcpy(&out[16 * m + 16], cc.data(), r);
    }
    return out;
}

TEST(CpuBlockCiphers, XtsAgainstXtsComposedFromOpenSSLEcb) {
    std::mt19937_64 g(14);
    size_t checked = 0;
    for (const bc::Algorithm* a : generic_rows(bc::Mode::XTS)) {
        const std::string ecb = ecb_name_for_xts(a);
        EVP_CIPHER* probe = ecb.empty() ? nullptr : EVP_CIPHER_fetch(nullptr, ecb.c_str(), nullptr);
        if (!probe) continue;
        EVP_CIPHER_free(probe);
        for (const char* opts : kCpuOptions) {
            Ctx c(opts);
            ASSERT_NE(c.ctx, nullptr);
            const Bytes key = rnd(g, a->key_size);
            const Bytes k1(key.begin(), key.begin() + long(key.size() / 2)), k2(key.begin() + long(key.size() / 2), key.end());
            bc_key* k = nullptr;
            ASSERT_EQ(BC_OK, bc_key_create(c.ctx, a->name, key.data(), key.size(), &k)) << a->name;
            for (size_t unit : {16, 17, 31, 512, 16 * 33 + 7}) {
                for (size_t units : {1, 3, 9}) {
                    const Bytes pt = rnd(g, unit * units), tweak = rnd(g, 16);
                    Bytes want;
                    for (size_t u = 0; u < units; ++u) {
                        Bytes t = tweak;
                        bc::add_le(t.data(), 16, u);
                        const Bytes c1 = reference_xts(ecb, k1, k2, true, t.data(),
                                                       Bytes(pt.begin() + long(u * unit), pt.begin() + long((u + 1) * unit)));
                        want.insert(want.end(), c1.begin(), c1.end());
                    }
                    bc_params p{};
                    p.data_unit_size = units > 1 ? unit : 0;
                    Bytes out(pt.size());
                    size_t out_len = 0;
                    ASSERT_EQ(BC_OK, bc_encrypt(k, tweak.data(), 16, pt.data(), pt.size(), out.data(), out.size(),
                                                &out_len, &p))
                        << a->name << " " << opts;
                    EXPECT_EQ(out, want) << a->name << " " << opts << " unit " << unit << " x" << units;
                    ASSERT_EQ(BC_OK, bc_decrypt(k, tweak.data(), 16, out.data(), out.size(), out.data(), out.size(),
                                                &out_len, &p));
                    EXPECT_EQ(out, pt) << a->name << " " << opts << " unit " << unit << " x" << units;
                    ++checked;
                }
            }
            bc_key_destroy(k);
        }
    }
    if (checked == 0) GTEST_SKIP() << "skipped: no XTS row of a block cipher other than AES with an OpenSSL ECB";
}

}  // namespace
