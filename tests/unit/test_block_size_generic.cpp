// The C API, the streaming API and the engine generic in the block size: PKCS#7
// for 8- and 16-byte blocks, the CTR counter range for 64- and 128-bit counter
// blocks, the engine's piece start states, and ECB/CBC/CTR end to end over an
// 8-byte block cipher.
//
// The end-to-end tests use a toy Feistel cipher and catalogue-like rows defined
// here (test-only: no security), keyed through bc::key_create on an ordinary CPU
// context or engine. The catalogue's 64-bit block ciphers (Blowfish, CAST5, MISTY1,
// PRESENT, HIGHT, DES and TDEA) have tests of their own; the toy keeps this file a
// test of the generic machinery, apart from any real cipher's core.
#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "bulkcrypt/bulkcrypt.h"
#include "capi/capi_raw.h"
#include "catalog/catalog.h"
#include "engine/engine_backend.h"
#include "modes/block/host_modes.h"
#include "test_engine_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

Bytes rand_bytes(std::mt19937_64& g, size_t n) {
    Bytes v(n);
    for (auto& b : v) b = static_cast<uint8_t>(g());
    return v;
}

// ---- a toy 64-bit block cipher (test-only) ----

constexpr int kFeistelRounds = 10;

uint32_t feistel_f(uint32_t x, uint32_t k) {
    uint32_t y = (x ^ k) * 0x85ebca6bu;
    y ^= y >> 13;
    return y + ((x << 11) | (x >> 21));
}

bool feistel_expand(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16) return false;
    for (int r = 0; r < kFeistelRounds; ++r)
        ks[r] = bc_load_le32(key + 4 * (r % 4)) + 0x7f4a7c15u * uint32_t(r + 1);
    return true;
}

void feistel_encrypt(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    for (size_t b = 0; b < n; ++b) {
        uint32_t l = bc_load_be32(in + 8 * b), r = bc_load_be32(in + 8 * b + 4);
        for (int i = 0; i < kFeistelRounds; ++i) {
            const uint32_t t = l ^ feistel_f(r, ks[i]);
            l = r;
            r = t;
        }
        bc_store_be32(out + 8 * b, l);
        bc_store_be32(out + 8 * b + 4, r);
    }
}

void feistel_decrypt(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    for (size_t b = 0; b < n; ++b) {
        uint32_t l = bc_load_be32(in + 8 * b), r = bc_load_be32(in + 8 * b + 4);
        for (int i = kFeistelRounds - 1; i >= 0; --i) {
            const uint32_t t = r ^ feistel_f(l, ks[i]);
            r = l;
            l = t;
        }
        bc_store_be32(out + 8 * b, l);
        bc_store_be32(out + 8 * b + 4, r);
    }
}

const bc::BlockCipher kFeistel64 = {"feistel64-test", 8, 32, kFeistelRounds, feistel_expand, feistel_encrypt,
                                    feistel_decrypt};

// Catalogue-like rows over it (not in the catalogue).
const bc::Algorithm kToyEcb = {"feistel64-test-ecb", bc::Cipher::Block, bc::Mode::ECB, BC_KIND_BLOCK_MODE,
                               16, 0, 0, 0, 0, 0, 0, 8, UINT64_MAX, kFeistelRounds, nullptr, &kFeistel64};
const bc::Algorithm kToyCbc = {"feistel64-test-cbc", bc::Cipher::Block, bc::Mode::CBC, BC_KIND_BLOCK_MODE,
                               16, 8, 8, 8, 0, 0, 0, 8, UINT64_MAX, kFeistelRounds, nullptr, &kFeistel64};
const bc::Algorithm kToyCtr = {"feistel64-test-ctr", bc::Cipher::Block, bc::Mode::CTR, BC_KIND_STREAM,
                               16, 8, 8, 8, 0, 0, 0, 8, UINT64_MAX, kFeistelRounds, nullptr, &kFeistel64};

// Per-block references, written apart from the generic modes.
struct ToyRef {
    uint32_t ks[kFeistelRounds];
    explicit ToyRef(const Bytes& key) { EXPECT_TRUE(feistel_expand(key.data(), key.size(), ks)); }
    Bytes ecb(bool enc, const Bytes& in) const {
        Bytes out(in.size());
        for (size_t b = 0; b < in.size() / 8; ++b)
            (enc ? feistel_encrypt : feistel_decrypt)(ks, &in[8 * b], &out[8 * b], 1);
        return out;
    }
    Bytes cbc(bool enc, const uint8_t* iv, const Bytes& in) const {
        Bytes out(in.size());
        uint8_t prev[8];
        std::memcpy(prev, iv, 8);
        for (size_t b = 0; b < in.size() / 8; ++b) {
            uint8_t x[8];
            if (enc) {
                for (int j = 0; j < 8; ++j) x[j] = in[8 * b + j] ^ prev[j];
                feistel_encrypt(ks, x, &out[8 * b], 1);
                std::memcpy(prev, &out[8 * b], 8);
            } else {
                feistel_decrypt(ks, &in[8 * b], x, 1);
                for (int j = 0; j < 8; ++j) out[8 * b + j] = x[j] ^ prev[j];
                std::memcpy(prev, &in[8 * b], 8);
            }
        }
        return out;
    }
    // 64-bit big-endian counter over the whole block, starting offset bytes in.
    Bytes ctr(const uint8_t* ctr0, uint64_t offset, const Bytes& in) const {
        Bytes out(in.size());
        const uint64_t c0 = bc_load_be64(ctr0);
        for (size_t j = 0; j < in.size(); ++j) {
            const uint64_t pos = offset + j;
            uint8_t blk[8], ksb[8];
            bc_store_be64(blk, c0 + pos / 8);
            feistel_encrypt(ks, blk, ksb, 1);
            out[j] = in[j] ^ ksb[pos % 8];
        }
        return out;
    }
};

struct Ctx {
    bc_context* ctx = nullptr;
    explicit Ctx(const char* device = "cpu", const char* options = "threads=2") {
        EXPECT_EQ(BC_OK, bc_context_create(device, options, &ctx)) << bc_last_error();
    }
    Ctx(std::unique_ptr<bc::Backend> b, const char* name) {
        ctx = new bc_context();
        ctx->device = name;
        ctx->backend = std::move(b);
    }
    ~Ctx() { bc_context_destroy(ctx); }
};

struct Key {
    bc_key* k = nullptr;
    Key(bc_context* ctx, const bc::Algorithm& a, const Bytes& key) {
        bc::Status st = bc::key_create(ctx, &a, key.data(), key.size(), &k);
        EXPECT_TRUE(st.is_ok()) << a.name << ": " << st.detail;
    }
    Key(bc_context* ctx, const char* name, const Bytes& key) {
        EXPECT_EQ(BC_OK, bc_key_create(ctx, name, key.data(), key.size(), &k)) << name << ": " << bc_last_error();
    }
    ~Key() { bc_key_destroy(k); }
};

// Both one-shot paths: the usual-call shortcut and the detailed checks.
struct UsualCall {
    explicit UsualCall(bool on) { bc::set_raw_usual_call_enabled(on); }
    ~UsualCall() { bc::set_raw_usual_call_enabled(true); }
};

constexpr size_t kBlockSizes[] = {8, 16};

}  // namespace

// ---- PKCS#7 ----

TEST(Pkcs7Generic, PadsEveryTailLength) {
    std::mt19937_64 g(1);
    for (size_t bs : kBlockSizes) {
        for (size_t tail = 0; tail < bs; ++tail) {
            const Bytes data = rand_bytes(g, tail);
            uint8_t last[bc::kMaxPkcs7Block + 1];
            std::memset(last, 0xEE, sizeof last);
            EXPECT_EQ(bs, bc::pkcs7_pad(data.data(), tail, bs, last));
            EXPECT_EQ(0, tail ? std::memcmp(last, data.data(), tail) : 0);
            for (size_t i = tail; i < bs; ++i) EXPECT_EQ(bs - tail, last[i]) << bs << " " << tail << " " << i;
            EXPECT_EQ(0xEE, last[bs]) << "wrote past the block";  // nothing past the block
            size_t pad = 0;
            EXPECT_TRUE(bc::pkcs7_strip(last, bs, &pad));
            EXPECT_EQ(bs - tail, pad);
        }
    }
}

TEST(Pkcs7Generic, AcceptsEveryValidPadOnAnyContent) {
    std::mt19937_64 g(2);
    for (size_t bs : kBlockSizes) {
        for (size_t p = 1; p <= bs; ++p) {
            for (int trial = 0; trial < 20; ++trial) {
                Bytes blk = rand_bytes(g, bs);
                std::memset(&blk[bs - p], int(p), p);
                size_t pad = 0;
                EXPECT_TRUE(bc::pkcs7_strip(blk.data(), bs, &pad)) << bs << " pad " << p;
                EXPECT_EQ(p, pad);
            }
        }
    }
}

// Every last-byte value, and every single wrong byte inside the pad: the check decides
// from the whole block alone (what the branch-free loop computes must equal the rule).
TEST(Pkcs7Generic, RefusesEveryKindOfMalformedPad) {
    std::mt19937_64 g(3);
    for (size_t bs : kBlockSizes) {
        // The pad value itself: 0 and anything over the block size.
        for (unsigned v = 0; v < 256; ++v) {
            Bytes blk(bs, static_cast<uint8_t>(v));  // all bytes v: valid exactly when 1 <= v <= bs
            size_t pad = 99;
            const bool ok = bc::pkcs7_strip(blk.data(), bs, &pad);
            EXPECT_EQ(v >= 1 && v <= bs, ok) << bs << " value " << v;
        }
        // One wrong byte at each position inside the pad, each way of being wrong.
        for (size_t p = 2; p <= bs; ++p) {
            for (size_t i = bs - p; i + 1 < bs; ++i) {
                for (uint8_t wrong : {uint8_t(0), uint8_t(p - 1), uint8_t(p + 1), uint8_t(p ^ 0x80), uint8_t(0xff)}) {
                    if (wrong == p) continue;
                    Bytes blk = rand_bytes(g, bs);
                    std::memset(&blk[bs - p], int(p), p);
                    blk[i] = wrong;
                    size_t pad = 0;
                    EXPECT_FALSE(bc::pkcs7_strip(blk.data(), bs, &pad)) << bs << " pad " << p << " at " << i;
                }
            }
            // The byte just before the pad is content: anything goes.
            if (p < bs) {
                Bytes blk = rand_bytes(g, bs);
                std::memset(&blk[bs - p], int(p), p);
                blk[bs - p - 1] = static_cast<uint8_t>(p);
                size_t pad = 0;
                EXPECT_TRUE(bc::pkcs7_strip(blk.data(), bs, &pad));
                EXPECT_EQ(p, pad) << "a content byte equal to the pad does not lengthen it";
            }
        }
        // A random block is valid exactly when the rule says so.
        for (int trial = 0; trial < 20000; ++trial) {
            Bytes blk = rand_bytes(g, bs);
            if (trial % 2) blk[bs - 1] = static_cast<uint8_t>(1 + g() % bs);
            if (trial % 4 == 1) std::memset(&blk[bs - blk[bs - 1]], blk[bs - 1], blk[bs - 1] - 1);
            const unsigned p = blk[bs - 1];
            bool want = p >= 1 && p <= bs;
            for (size_t i = bs - (want ? p : 0); i < bs; ++i) want = want && blk[i] == p;
            size_t pad = 0;
            EXPECT_EQ(want, bc::pkcs7_strip(blk.data(), bs, &pad));
        }
    }
    // A block size out of range is refused whatever the data.
    uint8_t blk[32];
    std::memset(blk, 1, sizeof blk);
    size_t pad = 0;
    EXPECT_FALSE(bc::pkcs7_strip(blk, 0, &pad));
    EXPECT_FALSE(bc::pkcs7_strip(blk, 17, &pad));
}

// ---- the CTR counter range ----

namespace {

// The rule in 128-bit arithmetic with a 192-bit comparison: C + last <= 2^(8*block) - 1.
bool ctr_rule(const uint8_t* ctr, size_t block, uint64_t offset, size_t len) {
    if (len == 0) return true;
    unsigned __int128 c = 0;
    for (size_t i = 0; i < block; ++i) c = c << 8 | ctr[i];
    const unsigned __int128 last = ((unsigned __int128)offset + len - 1) / block;
    if (block == 16) return last <= ~c;  // room = 2^128 - 1 - C
    const unsigned __int128 max = ((unsigned __int128)1 << (8 * block)) - 1;
    return c + last <= max;
}

Bytes be_counter(size_t block, uint64_t hi, uint64_t lo) {
    Bytes c(block);
    if (block == 16) {
        bc_store_be64(c.data(), hi);
        bc_store_be64(c.data() + 8, lo);
    } else {
        bc_store_be64(c.data(), lo);
    }
    return c;
}

}  // namespace

TEST(CtrRange, EightByteCounterAtItsEdges) {
    const uint64_t M = UINT64_MAX;
    struct Case {
        uint64_t c, offset;
        size_t len;
        bool ok;
    } cases[] = {
        {M, 0, 1, true},        {M, 0, 8, true},        {M, 0, 9, false},       {M, 7, 1, true},
        {M, 7, 2, false},       {M, 8, 1, false},       {M - 1, 0, 16, true},   {M - 1, 0, 17, false},
        {M - 1, 8, 8, true},    {M - 1, 8, 9, false},   {M - 1, 7, 9, true},    {M - 1, 15, 1, true},
        {M - 1, 16, 1, false},  {0, M, 1, true},        {0, M - 7, 8, true},    {0, 0, SIZE_MAX, true},
        // offset / 8 = 2^61 - 1 from offset = 2^64 - 1: the counter must leave that much room
        {M - (M >> 3), M, 1, true},   {M - (M >> 3) + 1, M, 1, false}, {M - (M >> 3), M, 2, false},
        {M - (M >> 3) - 1, M, 2, true},
        // len up to SIZE_MAX: last = (2^64 - 2) / 8 = 2^61 - 1
        {M - (M >> 3), 0, SIZE_MAX, true}, {M - (M >> 3) + 1, 0, SIZE_MAX, false},
        // offset and len both at their largest: last = (2^65 - 3) / 8 = 2^62 - 1
        {0, M, SIZE_MAX, true}, {M - ((M >> 2)), M, SIZE_MAX, true}, {M - (M >> 2) + 1, M, SIZE_MAX, false},
        {0, 0, 0, true},        {M, M, 0, true},
    };
    for (const Case& t : cases) {
        const Bytes c = be_counter(8, 0, t.c);
        SCOPED_TRACE("c=" + std::to_string(t.c) + " offset=" + std::to_string(t.offset) + " len=" + std::to_string(t.len));
        EXPECT_EQ(ctr_rule(c.data(), 8, t.offset, t.len), t.ok) << "the test's own rule";
        EXPECT_EQ(t.ok, bc::ctr_range_ok(c.data(), 8, t.offset, t.len));
        const bc::Status st = bc::ctr_check_range(c.data(), 8, t.offset, t.len);
        EXPECT_EQ(t.ok ? BC_OK : BC_ERR_COUNTER_OVERFLOW, st.code) << st.detail;
        if (!t.ok) EXPECT_NE(std::string::npos, st.detail.find("2^64 - 1")) << st.detail;
    }
}

TEST(CtrRange, SixteenByteCounterAtItsEdges) {
    const uint64_t M = UINT64_MAX;
    struct Case {
        uint64_t hi, lo, offset;
        size_t len;
        bool ok;
    } cases[] = {
        {M, M, 0, 1, true},          {M, M, 0, 16, true},          {M, M, 0, 17, false},
        {M, M, 15, 1, true},         {M, M, 16, 1, false},         {M, M - 1, 0, 32, true},
        {M, M - 1, 0, 33, false},    {M, M - 1, 17, 15, true},     {M, M - 1, 17, 16, false},
        // the low word carries into a high word that has room: no wrap
        {M - 1, M, 0, SIZE_MAX, true}, {M - 1, M, M, SIZE_MAX, true}, {0, M, M, 1 << 20, true},
        {M, 0, M, 1, true},          {M, (M >> 4) - 1, M, 1, true}, {M, M - (M >> 4), M, 1, true},
        {M, M - (M >> 4) + 1, M, 1, false}, {M, M - (M >> 4), M, 2, false},
        {M, M - (M >> 4) - 1, M, 2, true},
        // offset and len both at their largest: last = (2^65 - 3) / 16 = 2^61 - 1
        {M, M - (M >> 3), M, SIZE_MAX, true}, {M, M - (M >> 3) + 1, M, SIZE_MAX, false},
        {0, 0, 0, 0, true},          {M, M, M, 0, true},
    };
    for (const Case& t : cases) {
        const Bytes c = be_counter(16, t.hi, t.lo);
        SCOPED_TRACE("hi=" + std::to_string(t.hi) + " lo=" + std::to_string(t.lo) + " offset=" +
                     std::to_string(t.offset) + " len=" + std::to_string(t.len));
        EXPECT_EQ(ctr_rule(c.data(), 16, t.offset, t.len), t.ok) << "the test's own rule";
        EXPECT_EQ(t.ok, bc::ctr_range_ok(c.data(), 16, t.offset, t.len));
        const bc::Status st = bc::ctr_check_range(c.data(), 16, t.offset, t.len);
        EXPECT_EQ(t.ok ? BC_OK : BC_ERR_COUNTER_OVERFLOW, st.code) << st.detail;
        if (!t.ok) EXPECT_NE(std::string::npos, st.detail.find("2^128 - 1")) << st.detail;
    }
}

TEST(CtrRange, RandomRangesNearTheTopAgreeWithTheRule) {
    std::mt19937_64 g(4);
    size_t refused[2] = {0, 0};
    for (size_t bi = 0; bi < 2; ++bi) {
        const size_t bs = kBlockSizes[bi];
        for (int trial = 0; trial < 20000; ++trial) {
            // Counters within a few thousand blocks of the top, offsets and lengths of any size.
            const uint64_t below = g() % 4096;
            const Bytes c = be_counter(bs, UINT64_MAX, UINT64_MAX - below);
            const uint64_t offset = trial % 3 == 0 ? g() : g() % 40000;
            const size_t len = trial % 5 == 0 ? size_t(g()) : size_t(g() % 40000);
            const bool want = ctr_rule(c.data(), bs, offset, len);
            refused[bi] += !want;
            ASSERT_EQ(want, bc::ctr_range_ok(c.data(), bs, offset, len))
                << bs << " below " << below << " offset " << offset << " len " << len;
        }
        EXPECT_GT(refused[bi], 1000u) << "the trials must reach both answers";
        EXPECT_LT(refused[bi], 19000u);
    }
    // Other widths through the general path: a 4-byte counter block.
    for (int trial = 0; trial < 2000; ++trial) {
        uint8_t c[4];
        bc_store_be32(c, 0xffffffffu - uint32_t(g() % 100));
        const uint64_t offset = g() % 500;
        const size_t len = size_t(g() % 500);
        EXPECT_EQ(ctr_rule(c, 4, offset, len), bc::ctr_range_ok(c, 4, offset, len));
    }
}

// ---- the engine's piece start states ----

TEST(EnginePieces, ChunksAreWholeBlocksOrUnits) {
    bc::Algorithm a16 = kToyEcb, xts = kToyEcb, stream = kToyCtr;
    a16.block_size = 16;
    xts.mode = bc::Mode::XTS;
    xts.block_size = 16;
    stream.mode = bc::Mode::Stream;
    stream.block_size = 1;
    for (size_t chunk : {size_t(64), size_t(4096), size_t(4 << 20)}) {
        EXPECT_EQ(chunk, bc::engine_cipher_chunk(kToyEcb, chunk, 0));
        EXPECT_EQ(chunk, bc::engine_cipher_chunk(kToyCbc, chunk, 0));
        EXPECT_EQ(chunk, bc::engine_cipher_chunk(a16, chunk, 0));
        EXPECT_EQ(chunk, bc::engine_cipher_chunk(stream, chunk, 0));
    }
    EXPECT_EQ(96u, bc::engine_cipher_chunk(a16, 100, 0));
    EXPECT_EQ(96u, bc::engine_cipher_chunk(kToyEcb, 100, 0));
    EXPECT_EQ(8u, bc::engine_cipher_chunk(kToyEcb, 4, 0));
    EXPECT_EQ(16u, bc::engine_cipher_chunk(a16, 8, 0));
    EXPECT_EQ(8192u, bc::engine_cipher_chunk(xts, 10000, 4096));
    EXPECT_EQ(4100u, bc::engine_cipher_chunk(xts, 64, 4100));  // at least one unit
}

TEST(EnginePieces, CbcChainsAreTheBlockBeforeEachChunk) {
    std::mt19937_64 g(5);
    for (size_t bs : kBlockSizes) {
        const size_t chunk = 64, nchunks = 5;
        const Bytes in = rand_bytes(g, chunk * nchunks - 24), iv = rand_bytes(g, bs);
        Bytes chains(bs * nchunks + 1, 0xCC);
        bc::engine_cbc_chains(bs, iv.data(), in.data(), chunk, nchunks, chains.data());
        EXPECT_EQ(0, std::memcmp(chains.data(), iv.data(), bs));
        for (size_t k = 1; k < nchunks; ++k)
            EXPECT_EQ(0, std::memcmp(&chains[bs * k], &in[k * chunk - bs], bs)) << bs << " chunk " << k;
        EXPECT_EQ(0xCC, chains[bs * nchunks]) << "wrote past the chains";
    }
}

TEST(EnginePieces, CtrPieceCounterIsTheWholeBlockAdvanced) {
    // 8 bytes: the 64-bit counter carries across every byte and wraps modulo 2^64 within the block.
    struct Case {
        uint64_t c, pos, want_c, want_off;
    } cases8[] = {
        {0, 0, 0, 0},
        {0, 7, 0, 7},
        {0, 8, 1, 0},
        {0x00000000ffffffffull, 8 * 3 + 5, 0x0000000100000002ull, 5},
        {0x00ffffffffffffffull, 8, 0x0100000000000000ull, 0},
        {UINT64_MAX - 2, 8 * 2 + 7, UINT64_MAX, 7},
        {UINT64_MAX, 8, 0, 0},
        {12345, UINT64_MAX, 12345 + (UINT64_MAX >> 3), 7},
    };
    for (const Case& t : cases8) {
        uint8_t c[8], got[9];
        bc_store_be64(c, t.c);
        got[8] = 0xCC;
        uint64_t off = 99;
        bc::engine_ctr_piece(8, c, t.pos, got, &off);
        EXPECT_EQ(t.want_c, bc_load_be64(got)) << t.c << " + " << t.pos;
        EXPECT_EQ(t.want_off, off);
        EXPECT_EQ(0xCC, got[8]) << "the carry must stay inside the block";
    }
    // 16 bytes: the 128-bit counter, the low word carrying into the high one.
    uint8_t c[16], got[17];
    bc_store_be64(c, 0x0123456789abcdefull);
    bc_store_be64(c + 8, UINT64_MAX - 1);
    got[16] = 0xCC;
    uint64_t off = 0;
    bc::engine_ctr_piece(16, c, 16 * 5 + 3, got, &off);
    EXPECT_EQ(0x0123456789abcdf0ull, bc_load_be64(got));
    EXPECT_EQ(3u, bc_load_be64(got + 8));
    EXPECT_EQ(3u, off);
    EXPECT_EQ(0xCC, got[16]);
    // A 16-byte counter at 2^64 - 1 in its low half only: the high half takes the carry.
    bc_store_be64(c, 0);
    bc_store_be64(c + 8, UINT64_MAX);
    bc::engine_ctr_piece(16, c, 16, got, &off);
    EXPECT_EQ(1u, bc_load_be64(got));
    EXPECT_EQ(0u, bc_load_be64(got + 8));
    EXPECT_EQ(0u, off);
}

namespace {

// A worker that records every piece it is given, then runs it on the CPU backend.
class RecordingBackend final : public bc_test::ForwardingBackend {
public:
    struct Piece {
        size_t in_off, len;
        Bytes iv;
        uint64_t offset;
    };
    RecordingBackend(std::unique_ptr<bc::Backend> b, const uint8_t* base)
        : ForwardingBackend(std::move(b)), base_(base) {}
    std::string device_name() const override { return "recording " + b_->device_name(); }
    bool is_cpu() const override { return false; }  // not kept for small jobs: it takes pieces like a GPU
    bc::Status cipher(const bc::KeyMaterial& k, const bc::BackendKey& bk, const bc::CipherOp& op) override {
        {
            std::lock_guard<std::mutex> lk(mu_);
            pieces.push_back({size_t(op.in - base_), op.len, Bytes(op.iv, op.iv + op.iv_len), op.offset});
        }
        return ForwardingBackend::cipher(k, bk, op);
    }

    std::vector<Piece> pieces;

private:
    const uint8_t* base_;
    std::mutex mu_;
};

std::unique_ptr<bc::Backend> cpu_backend() {
    bc::ContextOptions o;
    o.threads = 1;
    std::unique_ptr<bc::Backend> b;
    bc::Status st = bc::make_cpu_backend(o, &b);
    EXPECT_TRUE(st.is_ok()) << st.detail;
    return b;
}

}  // namespace

// The engine over recording workers: ECB, CBC decryption and CTR of the 8-byte toy
// cipher cut into 64-byte chunks; every piece starts where it should and the whole
// output equals the per-block reference.
TEST(EnginePieces, EightByteBlocksThroughTheEngine) {
    std::mt19937_64 g(6);
    const size_t len = 64 * 37 + 24;  // whole 8-byte blocks, not whole chunks
    const Bytes key = rand_bytes(g, 16), pt = rand_bytes(g, len + 5);
    const ToyRef ref(key);
    for (const bc::Algorithm* a : {&kToyEcb, &kToyCbc, &kToyCtr}) {
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(std::string(a->name) + (in_place ? " in place" : ""));
            Bytes in = a->mode == bc::Mode::CTR ? pt : Bytes(pt.begin(), pt.begin() + len);
            Bytes ct(in.size());
            // CBC is split when decrypting: run the reference encryption, decrypt through the engine.
            Bytes iv = rand_bytes(g, a->iv_size);
            // CTR: near the top of the 64-bit counter (~300 blocks used): every piece's counter
            // must carry through all eight bytes and none may wrap.
            if (a->mode == bc::Mode::CTR) bc_store_be64(iv.data(), UINT64_MAX - 400 - g() % 100);
            const bool dec = a->mode == bc::Mode::CBC;
            Bytes src = dec ? ref.cbc(true, iv.data(), in) : in;
            bc::EngineOptions eo;
            eo.chunk = 64;
            eo.cpu_threshold = 0;
            eo.guided = false;  // one chunk a grab: every chunk is a piece
            std::vector<std::unique_ptr<bc::Backend>> w;
            Bytes io = src;
            const uint8_t* base = io.data();
            auto* r0 = new RecordingBackend(cpu_backend(), base);
            auto* r1 = new RecordingBackend(cpu_backend(), base);
            w.emplace_back(r0);
            w.emplace_back(r1);
            std::unique_ptr<bc::Backend> e;
            ASSERT_TRUE(bc::make_engine_backend(std::move(w), eo, &e).is_ok());
            Ctx ctx(std::move(e), "engine");
            Key k(ctx.ctx, *a, key);
            ASSERT_NE(nullptr, k.k);
            bc_params p{};
            const uint64_t offset = a->mode == bc::Mode::CTR ? 13 : 0;
            p.offset = offset;
            Bytes out_buf(io.size());
            uint8_t* out = in_place ? io.data() : out_buf.data();
            size_t n = 0;
            ASSERT_EQ(BC_OK, (dec ? bc_decrypt : bc_encrypt)(k.k, iv.empty() ? nullptr : iv.data(), iv.size(),
                                                             io.data(), io.size(), out, io.size(), &n, &p))
                << bc_last_error();
            ASSERT_EQ(io.size(), n);
            const Bytes got(out, out + n);
            Bytes want = a->mode == bc::Mode::ECB ? ref.ecb(true, in)
                       : a->mode == bc::Mode::CBC ? in
                                                  : ref.ctr(iv.data(), offset, in);
            EXPECT_EQ(want, got);
            // The pieces: 64-byte chunks; their start states from the job's.
            std::vector<RecordingBackend::Piece> all = r0->pieces;
            all.insert(all.end(), r1->pieces.begin(), r1->pieces.end());
            size_t covered = 0;
            for (const auto& pc : all) {
                SCOPED_TRACE("piece at " + std::to_string(pc.in_off));
                EXPECT_EQ(0u, pc.in_off % 64);
                EXPECT_EQ(std::min<size_t>(64, io.size() - pc.in_off), pc.len);
                covered += pc.len;
                if (a->mode == bc::Mode::CBC) {
                    ASSERT_EQ(8u, pc.iv.size());
                    const uint8_t* want_chain = pc.in_off ? &src[pc.in_off - 8] : iv.data();
                    EXPECT_EQ(0, std::memcmp(pc.iv.data(), want_chain, 8));
                } else if (a->mode == bc::Mode::CTR) {
                    ASSERT_EQ(8u, pc.iv.size());
                    const uint64_t pos = offset + pc.in_off;
                    EXPECT_EQ(bc_load_be64(iv.data()) + pos / 8, bc_load_be64(pc.iv.data()));
                    EXPECT_EQ(pos % 8, pc.offset);
                } else {
                    EXPECT_TRUE(pc.iv.empty());
                }
            }
            EXPECT_EQ(io.size(), covered);
            EXPECT_GT(all.size(), 30u) << "the job was cut into chunks";
        }
    }
}

// ---- the one-shot C API over 8-byte blocks ----

TEST(CapiEightByteBlocks, EcbCbcCtrMatchTheReferenceOnBothPaths) {
    std::mt19937_64 g(7);
    Ctx ctx;
    const Bytes key = rand_bytes(g, 16);
    const ToyRef ref(key);
    Key ecb(ctx.ctx, kToyEcb, key), cbc(ctx.ctx, kToyCbc, key), ctr(ctx.ctx, kToyCtr, key);
    ASSERT_TRUE(ecb.k && cbc.k && ctr.k);
    for (bool usual : {true, false}) {
        UsualCall u(usual);
        for (size_t nb : {size_t(1), size_t(2), size_t(31), size_t(32), size_t(33), size_t(1000)}) {
            const Bytes pt = rand_bytes(g, 8 * nb), iv = rand_bytes(g, 8);
            Bytes out(pt.size());
            size_t n = 0;
            ASSERT_EQ(BC_OK, bc_encrypt(ecb.k, nullptr, 0, pt.data(), pt.size(), out.data(), out.size(), &n, nullptr));
            EXPECT_EQ(ref.ecb(true, pt), out);
            ASSERT_EQ(BC_OK, bc_encrypt(cbc.k, iv.data(), 8, pt.data(), pt.size(), out.data(), out.size(), &n, nullptr));
            EXPECT_EQ(ref.cbc(true, iv.data(), pt), out);
            Bytes back(pt.size());
            ASSERT_EQ(BC_OK, bc_decrypt(cbc.k, iv.data(), 8, out.data(), out.size(), back.data(), back.size(), &n, nullptr));
            EXPECT_EQ(pt, back);
            // CTR: any length, any offset.
            const Bytes odd = rand_bytes(g, 8 * nb - 3);
            Bytes o2(odd.size());
            bc_params p{};
            p.offset = g() % 100;
            ASSERT_EQ(BC_OK, bc_encrypt(ctr.k, iv.data(), 8, odd.data(), odd.size(), o2.data(), o2.size(), &n, &p));
            EXPECT_EQ(ref.ctr(iv.data(), p.offset, odd), o2);
        }
        // Lengths: ECB/CBC want whole 8-byte blocks (12 is not; 16 of a 16-byte world is fine).
        const Bytes pt = rand_bytes(g, 24), iv = rand_bytes(g, 8), iv16 = rand_bytes(g, 16);
        Bytes out(32);
        size_t n = 7;
        EXPECT_EQ(BC_ERR_INPUT_LENGTH, bc_encrypt(ecb.k, nullptr, 0, pt.data(), 12, out.data(), out.size(), &n, nullptr));
        EXPECT_NE(std::string::npos, std::string(bc_last_error()).find("8-byte blocks")) << bc_last_error();
        EXPECT_EQ(0u, n);
        EXPECT_EQ(BC_OK, bc_encrypt(ecb.k, nullptr, 0, pt.data(), 24, out.data(), out.size(), &n, nullptr));
        EXPECT_EQ(BC_OK, bc_encrypt(cbc.k, iv.data(), 8, pt.data(), 8, out.data(), out.size(), &n, nullptr));
        // The IV is one 8-byte block.
        EXPECT_EQ(BC_ERR_IV_SIZE, bc_encrypt(cbc.k, iv16.data(), 16, pt.data(), 8, out.data(), out.size(), &n, nullptr));
        EXPECT_EQ(BC_ERR_IV_SIZE, bc_encrypt(ctr.k, iv16.data(), 16, pt.data(), 8, out.data(), out.size(), &n, nullptr));
    }
}

TEST(CapiEightByteBlocks, CtrRefusesA64BitWrapBeforeWriting) {
    std::mt19937_64 g(8);
    Ctx ctx;
    const Bytes key = rand_bytes(g, 16);
    const ToyRef ref(key);
    Key ctr(ctx.ctx, kToyCtr, key);
    ASSERT_NE(nullptr, ctr.k);
    for (bool usual : {true, false}) {
        UsualCall u(usual);
        uint8_t iv[8];
        bc_store_be64(iv, UINT64_MAX - 1);  // two blocks left: 16 bytes
        const Bytes pt = rand_bytes(g, 17);
        Bytes out(17, 0x5A);
        size_t n = 3;
        EXPECT_EQ(BC_ERR_COUNTER_OVERFLOW, bc_encrypt(ctr.k, iv, 8, pt.data(), 17, out.data(), 17, &n, nullptr));
        EXPECT_EQ(0u, n);
        EXPECT_EQ(Bytes(17, 0x5A), out) << "nothing written";
        ASSERT_EQ(BC_OK, bc_encrypt(ctr.k, iv, 8, pt.data(), 16, out.data(), 16, &n, nullptr)) << bc_last_error();
        EXPECT_EQ(ref.ctr(iv, 0, Bytes(pt.begin(), pt.begin() + 16)), Bytes(out.begin(), out.begin() + 16));
        bc_params p{};
        p.offset = 9;  // bytes 9..15: the last block
        EXPECT_EQ(BC_OK, bc_encrypt(ctr.k, iv, 8, pt.data(), 7, out.data(), 7, &n, &p));
        EXPECT_EQ(BC_ERR_COUNTER_OVERFLOW, bc_encrypt(ctr.k, iv, 8, pt.data(), 8, out.data(), 8, &n, &p));
        // A counter whose low 32 bits are full carries into the high ones (no 32-bit wrap).
        bc_store_be64(iv, 0x00000001ffffffffull);
        const Bytes pt2 = rand_bytes(g, 40);
        Bytes out2(40);
        ASSERT_EQ(BC_OK, bc_encrypt(ctr.k, iv, 8, pt2.data(), 40, out2.data(), 40, &n, nullptr));
        EXPECT_EQ(ref.ctr(iv, 0, pt2), out2);
    }
}

TEST(CapiEightByteBlocks, Pkcs7PadsToEightBytes) {
    std::mt19937_64 g(9);
    Ctx ctx;
    const Bytes key = rand_bytes(g, 16);
    const ToyRef ref(key);
    Key ecb(ctx.ctx, kToyEcb, key), cbc(ctx.ctx, kToyCbc, key);
    ASSERT_TRUE(ecb.k && cbc.k);
    bc_params pad{};
    pad.flags = BC_FLAG_PAD_PKCS7;
    for (size_t len = 0; len <= 40; ++len) {
        const Bytes pt = rand_bytes(g, len), iv = rand_bytes(g, 8);
        Bytes padded = pt;
        const size_t fill = 8 - len % 8;
        padded.insert(padded.end(), fill, static_cast<uint8_t>(fill));
        for (bool in_place : {false, true}) {
            SCOPED_TRACE("len " + std::to_string(len) + (in_place ? " in place" : ""));
            // ECB
            Bytes buf(len + 8);
            std::copy(pt.begin(), pt.end(), buf.begin());
            Bytes out(len + 8);
            uint8_t* o = in_place ? buf.data() : out.data();
            size_t n = 0;
            // The bound is one 8-byte block more, not 16.
            EXPECT_EQ(BC_ERR_OUTPUT_TOO_SMALL, bc_encrypt(ecb.k, nullptr, 0, buf.data(), len, o, len + fill - 1, &n, &pad));
            ASSERT_EQ(BC_OK, bc_encrypt(ecb.k, nullptr, 0, buf.data(), len, o, len + 8, &n, &pad)) << bc_last_error();
            ASSERT_EQ(len + fill, n);
            EXPECT_EQ(ref.ecb(true, padded), Bytes(o, o + n));
            Bytes back(n);
            size_t m = 0;
            ASSERT_EQ(BC_OK, bc_decrypt(ecb.k, nullptr, 0, o, n, back.data(), back.size(), &m, &pad));
            EXPECT_EQ(pt, Bytes(back.begin(), back.begin() + m));
            // CBC: the padded block chains from the ciphertext before it.
            std::copy(pt.begin(), pt.end(), buf.begin());
            ASSERT_EQ(BC_OK, bc_encrypt(cbc.k, iv.data(), 8, buf.data(), len, o, len + 8, &n, &pad)) << bc_last_error();
            ASSERT_EQ(len + fill, n);
            EXPECT_EQ(ref.cbc(true, iv.data(), padded), Bytes(o, o + n));
            ASSERT_EQ(BC_OK, bc_decrypt(cbc.k, iv.data(), 8, o, n, back.data(), back.size(), &m, &pad));
            EXPECT_EQ(pt, Bytes(back.begin(), back.begin() + m));
        }
    }
    // Bad padding: the output is wiped and the status says so.
    const Bytes iv = rand_bytes(g, 8);
    for (uint8_t last : {uint8_t(0), uint8_t(9), uint8_t(16), uint8_t(0xff)}) {
        Bytes blocks = rand_bytes(g, 16);
        blocks[15] = last;
        const Bytes ct = ref.cbc(true, iv.data(), blocks);
        Bytes out(16, 0x77);
        size_t n = 5;
        EXPECT_EQ(BC_ERR_BAD_PADDING, bc_decrypt(cbc.k, iv.data(), 8, ct.data(), 16, out.data(), 16, &n, &pad)) << int(last);
        EXPECT_EQ(0u, n);
        EXPECT_EQ(Bytes(16, 0), out);
    }
    // A pad of 8 whose first byte is wrong.
    Bytes blocks(16, 8);
    blocks[8] = 7;
    const Bytes ct = ref.ecb(true, blocks);
    Bytes out(16);
    size_t n = 0;
    EXPECT_EQ(BC_ERR_BAD_PADDING, bc_decrypt(ecb.k, nullptr, 0, ct.data(), 16, out.data(), 16, &n, &pad));
    // Padded decryption wants whole 8-byte blocks, at least one.
    EXPECT_EQ(BC_ERR_INPUT_LENGTH, bc_decrypt(ecb.k, nullptr, 0, ct.data(), 12, out.data(), 16, &n, &pad));
    EXPECT_EQ(BC_ERR_INPUT_LENGTH, bc_decrypt(ecb.k, nullptr, 0, ct.data(), 0, out.data(), 16, &n, &pad));
}

// The 16-byte path keeps its behaviour: AES pads to 16 and CTR counts in 128 bits.
TEST(CapiSixteenByteBlocks, Pkcs7AndCounterStayAtSixteen) {
    std::mt19937_64 g(10);
    Ctx ctx;
    const Bytes key = rand_bytes(g, 16);
    Key ecb(ctx.ctx, "aes-128-ecb", key), ctr(ctx.ctx, "aes-128-ctr", key);
    ASSERT_TRUE(ecb.k && ctr.k);
    bc_params pad{};
    pad.flags = BC_FLAG_PAD_PKCS7;
    for (size_t len : {size_t(0), size_t(7), size_t(8), size_t(15), size_t(16), size_t(33)}) {
        const Bytes pt = rand_bytes(g, len);
        Bytes out(len + 16), back(len + 16);
        size_t n = 0, m = 0;
        ASSERT_EQ(BC_OK, bc_encrypt(ecb.k, nullptr, 0, pt.data(), len, out.data(), out.size(), &n, &pad));
        EXPECT_EQ(len / 16 * 16 + 16, n);
        ASSERT_EQ(BC_OK, bc_decrypt(ecb.k, nullptr, 0, out.data(), n, back.data(), back.size(), &m, &pad));
        EXPECT_EQ(pt, Bytes(back.begin(), back.begin() + m));
    }
    for (bool usual : {true, false}) {
        UsualCall u(usual);
        uint8_t iv[16];
        std::memset(iv, 0xff, 16);
        iv[15] = 0xfe;  // two blocks left: 32 bytes
        const Bytes pt = rand_bytes(g, 33);
        Bytes out(33);
        size_t n = 0;
        EXPECT_EQ(BC_OK, bc_encrypt(ctr.k, iv, 16, pt.data(), 32, out.data(), 32, &n, nullptr));
        EXPECT_EQ(BC_ERR_COUNTER_OVERFLOW, bc_encrypt(ctr.k, iv, 16, pt.data(), 33, out.data(), 33, &n, nullptr));
        // 2^64 - 1 in the low half is no limit: it carries into the high half.
        std::memset(iv, 0, 8);
        EXPECT_EQ(BC_OK, bc_encrypt(ctr.k, iv, 16, pt.data(), 33, out.data(), 33, &n, nullptr));
    }
}

// ---- streaming over 8-byte blocks ----

namespace {

// Runs a whole message through a stream in pieces of the given sizes (cycled).
bc_status stream_all(bc_key* k, bc_direction dir, const Bytes& iv, const bc_params* p, const Bytes& in,
                     const std::vector<size_t>& cuts, Bytes* out) {
    bc_stream* s = nullptr;
    bc_status st = bc_stream_create(k, dir, iv.empty() ? nullptr : iv.data(), iv.size(), p, &s);
    if (st != BC_OK) return st;
    out->assign(in.size() + 64, 0);
    size_t at = 0, written = 0, c = 0;
    while (at < in.size()) {
        const size_t piece = std::min(cuts[c++ % cuts.size()], in.size() - at);
        size_t n = 0;
        st = bc_stream_update(s, in.data() + at, piece, out->data() + written, out->size() - written, &n);
        if (st != BC_OK) break;
        at += piece;
        written += n;
    }
    if (st == BC_OK) {
        size_t n = 0;
        st = bc_stream_final(s, out->data() + written, out->size() - written, &n);
        written += n;
    }
    bc_stream_destroy(s);
    out->resize(st == BC_OK ? written : 0);
    return st;
}

}  // namespace

TEST(StreamEightByteBlocks, PiecesOfAnySizeGiveTheOneShotResult) {
    std::mt19937_64 g(11);
    Ctx ctx;
    const Bytes key = rand_bytes(g, 16);
    const ToyRef ref(key);
    Key ecb(ctx.ctx, kToyEcb, key), cbc(ctx.ctx, kToyCbc, key), ctr(ctx.ctx, kToyCtr, key);
    ASSERT_TRUE(ecb.k && cbc.k && ctr.k);
    const std::vector<std::vector<size_t>> cuttings = {{1}, {3}, {7}, {8}, {9}, {5, 11, 1}, {16, 2}, {1000}};
    bc_params pad{};
    pad.flags = BC_FLAG_PAD_PKCS7;
    for (size_t len : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(9), size_t(63), size_t(64), size_t(200),
                       size_t(203)}) {
        const Bytes pt = rand_bytes(g, len), iv = rand_bytes(g, 8);
        Bytes padded = pt;
        padded.insert(padded.end(), 8 - len % 8, static_cast<uint8_t>(8 - len % 8));
        for (const auto& cuts : cuttings) {
            SCOPED_TRACE("len " + std::to_string(len) + " first cut " + std::to_string(cuts[0]));
            Bytes out, back;
            // Padded ECB and CBC, both ways.
            ASSERT_EQ(BC_OK, stream_all(ecb.k, BC_ENCRYPT, {}, &pad, pt, cuts, &out)) << bc_last_error();
            EXPECT_EQ(ref.ecb(true, padded), out);
            ASSERT_EQ(BC_OK, stream_all(ecb.k, BC_DECRYPT, {}, &pad, out, cuts, &back)) << bc_last_error();
            EXPECT_EQ(pt, back);
            ASSERT_EQ(BC_OK, stream_all(cbc.k, BC_ENCRYPT, iv, &pad, pt, cuts, &out)) << bc_last_error();
            EXPECT_EQ(ref.cbc(true, iv.data(), padded), out);
            ASSERT_EQ(BC_OK, stream_all(cbc.k, BC_DECRYPT, iv, &pad, out, cuts, &back)) << bc_last_error();
            EXPECT_EQ(pt, back);
            // Unpadded: whole 8-byte blocks, or a refusal at final.
            const bc_status want = len % 8 ? BC_ERR_INPUT_LENGTH : BC_OK;
            EXPECT_EQ(want, stream_all(cbc.k, BC_ENCRYPT, iv, nullptr, pt, cuts, &out));
            if (want == BC_OK) EXPECT_EQ(ref.cbc(true, iv.data(), pt), out);
            // CTR from an offset, the counter crossing a 32-bit word.
            Bytes civ(8);
            bc_store_be64(civ.data(), 0x00000000fffffff0ull + g() % 8);
            bc_params off{};
            off.offset = 5;
            ASSERT_EQ(BC_OK, stream_all(ctr.k, BC_ENCRYPT, civ, &off, pt, cuts, &out)) << bc_last_error();
            EXPECT_EQ(ref.ctr(civ.data(), 5, pt), out);
        }
    }
}

TEST(StreamEightByteBlocks, BadPaddingAndCounterWrapFail) {
    std::mt19937_64 g(12);
    Ctx ctx;
    const Bytes key = rand_bytes(g, 16);
    const ToyRef ref(key);
    Key ecb(ctx.ctx, kToyEcb, key), ctr(ctx.ctx, kToyCtr, key);
    ASSERT_TRUE(ecb.k && ctr.k);
    bc_params pad{};
    pad.flags = BC_FLAG_PAD_PKCS7;
    Bytes blocks = rand_bytes(g, 24);
    blocks[23] = 9;  // over the 8-byte block
    Bytes out;
    EXPECT_EQ(BC_ERR_BAD_PADDING, stream_all(ecb.k, BC_DECRYPT, {}, &pad, ref.ecb(true, blocks), {5}, &out));
    blocks[23] = 8;  // a pad of 8 wants bytes 16..23 all 8: byte 16 is 0
    blocks[16] = 0;
    EXPECT_EQ(BC_ERR_BAD_PADDING, stream_all(ecb.k, BC_DECRYPT, {}, &pad, ref.ecb(true, blocks), {8}, &out));
    // Padded decryption of a length that is not whole 8-byte blocks.
    EXPECT_EQ(BC_ERR_INPUT_LENGTH, stream_all(ecb.k, BC_DECRYPT, {}, &pad, Bytes(12), {4}, &out));
    // CTR: 3 blocks left; the update that would pass 2^64 - 1 is refused.
    Bytes civ(8);
    bc_store_be64(civ.data(), UINT64_MAX - 2);
    EXPECT_EQ(BC_OK, stream_all(ctr.k, BC_ENCRYPT, civ, nullptr, Bytes(24), {7}, &out));
    EXPECT_EQ(BC_ERR_COUNTER_OVERFLOW, stream_all(ctr.k, BC_ENCRYPT, civ, nullptr, Bytes(25), {7}, &out));
}
