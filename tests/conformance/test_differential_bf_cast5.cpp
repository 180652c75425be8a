// Differential tests of the 64-bit block ciphers of variable key length, Blowfish
// (bf-*) and CAST5 (cast5-*), against OpenSSL's BF-* and CAST5-* (its legacy
// provider, loaded into the suite's own library context by evp.cpp): random keys of
// every length the catalogue takes (CAST5's 12/16-round boundary at 10/11 bytes
// included), random data at the lengths that break implementations and at random ones,
// ECB and CBC with and without PKCS#7, each case through the runner (every backend; one
// shot in place, apart and misaligned; streaming in random pieces). OpenSSL has no
// BF-CTR or CAST5-CTR: the reference is CTR composed here from its ECB of the same
// cipher, the whole 8-byte block one big-endian counter (checked itself against an
// independent per-block computation), at keystream offsets, across a carry out of the
// low 32 counter bits, up to the last counter below 2^64 and past it (refused).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "evp.h"
#include "options.h"
#include "runner.h"
#include "table.h"

namespace conf {
namespace {

uint64_t seed() {
    static const uint64_t s = [] {
        const char* e = std::getenv("BC_CONFORMANCE_SEED");
        return e ? std::strtoull(e, nullptr, 0) : 20261125ull;
    }();
    return s;
}

const size_t kMiB = 1024 * 1024;

// The failures count of the table before a test; the test fails if it grew.
class DiffBfCast5 : public testing::Test {
protected:
    void SetUp() override { failed_before_ = results().total_failed(); }
    void TearDown() override {
        EXPECT_EQ(results().total_failed(), failed_before_) << "failed cases: see the table";
    }
    size_t failed_before_ = 0;
};

struct Cipher64 {
    const char* name;  // the catalogue's prefix
    const char* ossl;  // OpenSSL's prefix
};
const Cipher64 kCiphers[] = {{"bf", "BF"}, {"cast5", "CAST5"}};

bc_algorithm_info info_of(const std::string& alg) {
    bc_algorithm_info info{};
    EXPECT_EQ(BC_OK, bc_algorithm_query(alg.c_str(), &info)) << alg;
    return info;
}

// Key lengths to try: both ends of the range, the default, CAST5's round-count edge
// (10 -> 12 rounds, 11 -> 16), a few odd ones, and n random ones in the range.
std::vector<size_t> key_lengths(const bc_algorithm_info& info, Rng& rng, int n) {
    std::vector<size_t> l;
    for (size_t k : {info.key_size_min, info.key_size_min + 1, size_t(7), size_t(8), size_t(10), size_t(11),
                     size_t(13), info.key_size, size_t(17), size_t(33), info.key_size_max - 1, info.key_size_max})
        if (k >= info.key_size_min && k <= info.key_size_max && std::find(l.begin(), l.end(), k) == l.end())
            l.push_back(k);
    for (int i = 0; i < n; ++i)
        l.push_back(info.key_size_min + static_cast<size_t>(rng.below(info.key_size_max - info.key_size_min + 1)));
    return l;
}

// Data lengths: around one block, one batch of 32 blocks and 255 blocks, plus n random
// ones below max (whole blocks when asked), plus 4 MiB + 3 when big (non-quick only).
std::vector<size_t> data_lengths(Rng& rng, int n, size_t max, bool whole_blocks, bool big) {
    std::vector<size_t> l = {0, 1, 7, 8, 9, 255, 256, 257, 255 * 8 - 1, 255 * 8, 255 * 8 + 1};
    for (int i = 0; i < n; ++i) l.push_back(static_cast<size_t>(rng.below(max)));
    if (big && !options().quick) l.push_back(4 * kMiB + 3);
    if (whole_blocks)
        for (size_t& x : l) x -= x % 8;
    return l;
}

std::string id_of(const std::string& alg, size_t key_len, size_t len, const std::string& extra) {
    return "differential " + alg + " key=" + std::to_string(key_len) + "B len=" + std::to_string(len) +
           (extra.empty() ? "" : " " + extra) + " seed=" + std::to_string(seed());
}

bool reference_ok(bool ok, const std::string& id, const std::string& alg, const std::string& err) {
    if (!ok) results().fail(RowKey{alg, "differential vs OpenSSL (legacy provider)", "(reference)"}, id, "OpenSSL: " + err);
    return ok;
}

uint64_t be64(const Bytes& b) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v = v << 8 | b[i];
    return v;
}

// CTR over an 8-byte block from OpenSSL's ECB (ecb: "BF-ECB"): keystream block k is
// E(iv + k mod 2^64), for the bytes from keystream offset `offset` on.
bool ctr8_from_ecb(const std::string& ecb, const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in,
                   Bytes* out, std::string* err) {
    const uint64_t first = offset / 8, last = (offset + in.size() + 7) / 8;
    const uint64_t c0 = be64(iv);
    Bytes counters;
    for (uint64_t k = first; k < last; ++k)
        for (int i = 7; i >= 0; --i) counters.push_back(static_cast<uint8_t>((c0 + k) >> (8 * i)));
    Bytes ks;
    if (!counters.empty() && !evp_cipher(ecb, true, key, {}, counters, false, &ks, err)) return false;
    *out = in;
    for (size_t i = 0; i < in.size(); ++i) (*out)[i] ^= ks[offset % 8 + i];
    return true;
}

// ---- the catalogue's rows ----

TEST_F(DiffBfCast5, RowsAndKeyRanges) {
    for (const char* mode : {"ecb", "cbc", "ctr"}) {
        const bc_algorithm_info bf = info_of(std::string("bf-") + mode);
        EXPECT_EQ(8u, bf.block_size);
        EXPECT_EQ(16u, bf.key_size);
        EXPECT_EQ(4u, bf.key_size_min);
        EXPECT_EQ(56u, bf.key_size_max);
        const bc_algorithm_info c5 = info_of(std::string("cast5-") + mode);
        EXPECT_EQ(8u, c5.block_size);
        EXPECT_EQ(16u, c5.key_size);
        EXPECT_EQ(5u, c5.key_size_min);
        EXPECT_EQ(16u, c5.key_size_max);
        EXPECT_EQ(uint64_t(8) << 32, bf.max_message_size);
        EXPECT_EQ(uint64_t(8) << 32, c5.max_message_size);
        EXPECT_EQ(std::string(mode) == "ecb" ? 0u : 8u, bf.iv_size);
    }
    bc_algorithm_info info;
    for (const char* none : {"bf-128-xts", "bf-xts", "bf-gcm", "cast5-xts", "cast5-gcm", "cast5-128-gcm"})
        EXPECT_EQ(BC_ERR_UNKNOWN_ALGORITHM, bc_algorithm_query(none, &info)) << none;
}

// ---- ECB and CBC against OpenSSL's ----

TEST_F(DiffBfCast5, EcbCbc) {
    Rng rng(seed() ^ 0xbf01);
    for (const Cipher64& ci : kCiphers) {
        for (const char* mode : {"ecb", "cbc"}) {
            const std::string alg = std::string(ci.name) + "-" + mode;
            const std::string ossl = std::string(ci.ossl) + "-" + (std::string(mode) == "ecb" ? "ECB" : "CBC");
            const bc_algorithm_info info = info_of(alg);
            for (bool pad : {false, true}) {
                const bool big = pad && std::string(mode) == "cbc";
                const std::vector<size_t> lens = data_lengths(rng, 4, 70000, !pad, big);
                const std::vector<size_t> keys = key_lengths(info, rng, 2);
                for (size_t i = 0; i < std::max(lens.size(), keys.size()); ++i) {
                    const size_t len = lens[i % lens.size()], key_len = keys[i % keys.size()];
                    Case c;
                    c.alg = alg;
                    c.source = "differential vs OpenSSL (legacy provider)";
                    c.key = rng.bytes(key_len);
                    if (std::string(mode) == "cbc") c.iv = rng.bytes(8);
                    c.pt = rng.bytes(len);
                    c.flags = pad ? BC_FLAG_PAD_PKCS7 : 0;
                    c.id = id_of(alg, key_len, len, pad ? "PKCS7" : "no padding");
                    std::string err;
                    if (!reference_ok(evp_cipher(ossl, true, c.key, c.iv, c.pt, pad, &c.ct, &err), c.id, alg, err))
                        continue;
                    set_current(c.id);
                    run_case(c);
                }
            }
        }
    }
}

// ---- CTR against CTR composed from OpenSSL's ECB ----

// The composed oracle against a per-block computation that shares nothing with it but
// OpenSSL's ECB: the counter block incremented bytewise with carries, one block a call.
TEST_F(DiffBfCast5, CtrOracleMatchesPerBlockCounters) {
    Rng rng(seed() ^ 0xbf02);
    for (const Cipher64& ci : kCiphers) {
        const std::string ecb = std::string(ci.ossl) + "-ECB";
        for (size_t len : {size_t(1), size_t(8), size_t(9), size_t(100), size_t(777)}) {
            for (uint64_t offset : {uint64_t(0), uint64_t(3), uint64_t(8), uint64_t(21)}) {
                const Bytes key = rng.bytes(ci.name[0] == 'b' ? 23 : 11), pt = rng.bytes(len);
                Bytes iv = rng.bytes(8);
                if (len == 100) iv[4] = iv[5] = iv[6] = iv[7] = 0xff;  // a carry out of the low 32 bits
                Bytes want(len), got;
                std::string err;
                Bytes ctr = iv;
                for (uint64_t k = 0; k < offset / 8; ++k)
                    for (size_t i = 8; i-- > 0 && ++ctr[i] == 0;) {
                    }
                size_t pos = offset % 8;
                for (size_t done = 0; done < len;) {
                    Bytes block;
                    ASSERT_TRUE(evp_cipher(ecb, true, key, {}, ctr, false, &block, &err)) << err;
                    for (; pos < 8 && done < len; ++pos, ++done) want[done] = pt[done] ^ block[pos];
                    pos = 0;
                    for (size_t i = 8; i-- > 0 && ++ctr[i] == 0;) {
                    }
                }
                ASSERT_TRUE(ctr8_from_ecb(ecb, key, iv, offset, pt, &got, &err)) << err;
                EXPECT_EQ(hex_encode(want), hex_encode(got)) << ecb << " len " << len << " offset " << offset;
            }
        }
    }
}

TEST_F(DiffBfCast5, Ctr) {
    Rng rng(seed() ^ 0xbf03);
    for (const Cipher64& ci : kCiphers) {
        const std::string alg = std::string(ci.name) + "-ctr", ecb = std::string(ci.ossl) + "-ECB";
        const bc_algorithm_info info = info_of(alg);
        const std::vector<size_t> lens = data_lengths(rng, 6, 70000, false, true);
        const std::vector<size_t> keys = key_lengths(info, rng, 2);
        for (size_t i = 0; i < std::max(lens.size(), keys.size()); ++i) {
            const size_t len = lens[i % lens.size()], key_len = keys[i % keys.size()];
            Case c;
            c.alg = alg;
            c.source = "differential vs OpenSSL ECB-built CTR";
            c.key = rng.bytes(key_len);
            c.iv = rng.bytes(8);
            c.pt = rng.bytes(len);
            c.offset = i % 3 == 0 ? 0 : rng.below(1 << 20);
            c.id = id_of(alg, key_len, len, "iv=" + hex_encode(c.iv) + " offset=" + std::to_string(c.offset));
            std::string err;
            if (!reference_ok(ctr8_from_ecb(ecb, c.key, c.iv, c.offset, c.pt, &c.ct, &err), c.id, alg, err)) continue;
            set_current(c.id);
            run_case(c);
        }
    }
}

// The 64-bit counter at its edges: a carry out of the low 32 bits, the last counters
// below 2^64 (usable), one block more (BC_ERR_COUNTER_OVERFLOW, through the length and
// through the offset).
TEST_F(DiffBfCast5, CtrCounterEdges) {
    Rng rng(seed() ^ 0xbf04);
    for (const Cipher64& ci : kCiphers) {
        const std::string alg = std::string(ci.name) + "-ctr", ecb = std::string(ci.ossl) + "-ECB";
        const Bytes key = rng.bytes(ci.name[0] == 'b' ? 7 : 10);  // odd lengths; CAST5 at 12 rounds
        Bytes carry = rng.bytes(4);
        for (int i = 0; i < 4; ++i) carry.push_back(0xff);
        carry[7] = 0xfd;
        Bytes top(8, 0xff);
        top[7] = 0xfd;  // three counters left: ...fd, ...fe, ...ff
        struct Edge {
            Bytes iv;
            size_t len;
            uint64_t offset;
            bool overflow;
            const char* what;
        };
        const Edge edges[] = {{carry, 64 * 8 + 5, 0, false, "low-32-bit carry"},
                              {carry, 100, 13, false, "low-32-bit carry via offset"},
                              {top, 1, 0, false, "last counters"},
                              {top, 23, 0, false, "last counters"},
                              {top, 24, 0, false, "last counters"},
                              {top, 4, 20, false, "last bytes via offset"},
                              {top, 25, 0, true, "past 2^64-1"},
                              {top, 1, 24, true, "past 2^64-1"},
                              {top, 5, 20, true, "past 2^64-1"},
                              {top, 4096, 0, true, "past 2^64-1"},
                              {rng.bytes(8), 300, 4097, false, "offset"},
                              {rng.bytes(8), 31, 7, false, "offset"}};
        for (const Edge& e : edges) {
            Case c;
            c.alg = alg;
            c.source = "counter edges vs OpenSSL ECB-built CTR";
            c.key = key;
            c.iv = e.iv;
            c.pt = rng.bytes(e.len);
            c.offset = e.offset;
            c.id = alg + " " + e.what + " iv=" + hex_encode(e.iv) + " offset=" + std::to_string(e.offset) +
                   " len=" + std::to_string(e.len);
            if (e.overflow) {
                c.expect = Expect::CounterOverflow;
                c.ct = c.pt;
            } else {
                std::string err;
                if (!reference_ok(ctr8_from_ecb(ecb, c.key, c.iv, e.offset, c.pt, &c.ct, &err), c.id, alg, err))
                    continue;
            }
            run_case(c);
        }
    }
}

// Keys outside the range are refused on every backend, before anything is expanded.
TEST_F(DiffBfCast5, KeyLengthsOutsideTheRangeRefused) {
    const Bytes key(64, 0x42);
    for (BackendSlot& slot : backends()) {
        if (!slot.ctx || slot.aes_raw_only) continue;
        for (const char* alg : {"bf-ecb", "bf-cbc", "bf-ctr", "cast5-ecb", "cast5-cbc", "cast5-ctr"}) {
            const bc_algorithm_info info = info_of(alg);
            for (size_t len : {size_t(0), info.key_size_min - 1, info.key_size_max + 1, size_t(64)}) {
                bc_key* k = nullptr;
                EXPECT_EQ(BC_ERR_KEY_SIZE, bc_key_create(slot.ctx, alg, key.data(), len, &k))
                    << alg << " key of " << len << " bytes on " << slot.label;
                EXPECT_EQ(nullptr, k);
                bc_key_destroy(k);
            }
            for (size_t len : {info.key_size_min, info.key_size_max}) {
                bc_key* k = nullptr;
                EXPECT_EQ(BC_OK, bc_key_create(slot.ctx, alg, key.data(), len, &k))
                    << alg << " key of " << len << " bytes on " << slot.label << ": " << bc_last_error();
                bc_key_destroy(k);
            }
        }
    }
}

}  // namespace
}  // namespace conf
