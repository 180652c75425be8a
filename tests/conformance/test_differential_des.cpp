// Differential tests of DES and TDEA (des-*, des-ede-*, des-ede3-*): random keys, IVs
// and data at the lengths that break 64-bit block implementations (0, 1, 7, 8, 9 bytes,
// a 32-block batch and its neighbours, random lengths up to 70000, one 4 MiB + 3
// message), each case run by the runner on every backend (one shot in place and apart,
// misaligned, streaming in random pieces). ECB and CBC are checked against OpenSSL's
// DES-* (its legacy provider, in the suite's own library context) and DES-EDE-* /
// DES-EDE3-* (its default provider). OpenSSL has no CTR over a 64-bit block, so CTR's
// reference is composed here from OpenSSL's ECB of the same cipher (the whole 8-byte
// block one big-endian counter); that composition is itself checked against OpenSSL's
// AES-128-CTR over AES-128-ECB. Counter edges: a carry out of the low 32 bits, the last
// counters below 2^64 and the refusal past them, keystream offsets.
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

uint64_t des_seed() {
    static const uint64_t s = [] {
        const char* e = std::getenv("BC_CONFORMANCE_SEED");
        return e ? std::strtoull(e, nullptr, 0) : 20261122ull;
    }();
    return s;
}

// The failures count of the table before a test; the test fails if it grew.
class DiffDes : public testing::Test {
protected:
    void SetUp() override { failed_before_ = results().total_failed(); }
    void TearDown() override {
        EXPECT_EQ(results().total_failed(), failed_before_) << "failed cases: see the table";
    }
    size_t failed_before_ = 0;
};

struct Variant {
    const char* prefix;  // catalogue name before the mode
    const char* ossl;    // OpenSSL's name before the mode
    size_t key_len;
};
const Variant kVariants[] = {{"des", "DES", 8}, {"des-ede", "DES-EDE", 16}, {"des-ede3", "DES-EDE3", 24}};

std::string id_of(const std::string& alg, size_t len, const std::string& extra) {
    return "differential " + alg + " len=" + std::to_string(len) + (extra.empty() ? "" : " " + extra) +
           " seed=" + std::to_string(des_seed());
}

// The edge lengths of an 8-byte block and a 32-block batch, then n random ones below 70000
// (whole blocks when asked), and 4 MiB + 3 when big (non-quick only).
std::vector<size_t> des_lengths(Rng& rng, bool whole_blocks, bool big) {
    std::vector<size_t> l = {0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 32 * 8 * 9 - 1, 32 * 8 * 9, 32 * 8 * 9 + 1};
    for (int i = 0; i < 4; ++i) l.push_back(static_cast<size_t>(rng.below(70000)));
    if (big && !options().quick) l.push_back(4 * 1024 * 1024 + 3);
    if (whole_blocks)
        for (size_t& x : l) x -= x % 8;
    return l;
}

// Reports an OpenSSL refusal as a failure of the reference (never silently).
bool reference_ok(bool ok, const std::string& id, const std::string& alg, const std::string& err) {
    if (!ok) results().fail(RowKey{alg, "differential vs OpenSSL", "(reference)"}, id, "OpenSSL: " + err);
    return ok;
}

// CTR composed from OpenSSL's ECB (ecb: "DES-EDE3-ECB", ...) for a block of `block` bytes:
// keystream block k is E(iv + k), the whole block one big-endian counter modulo
// 2^(8 * block), for the bytes from keystream offset `offset` on.
bool ctr_from_ecb(const std::string& ecb, size_t block, const Bytes& key, const Bytes& iv, uint64_t offset,
                  const Bytes& in, Bytes* out, std::string* err) {
    const uint64_t first = offset / block, last = (offset + in.size() + block - 1) / block;
    Bytes counters;
    for (uint64_t k = first; k < last; ++k) {
        Bytes ctr = iv;
        unsigned carry = 0;
        for (size_t i = block; i-- > 0;) {
            const size_t byte = block - 1 - i;
            const unsigned add = byte < 8 ? static_cast<unsigned>((k >> (8 * byte)) & 0xff) : 0;
            const unsigned v = ctr[i] + add + carry;
            ctr[i] = static_cast<uint8_t>(v);
            carry = v >> 8;
        }
        counters.insert(counters.end(), ctr.begin(), ctr.end());
    }
    Bytes ks;
    if (!counters.empty() && !evp_cipher(ecb, true, key, {}, counters, false, &ks, err)) return false;
    *out = in;
    for (size_t i = 0; i < in.size(); ++i) (*out)[i] ^= ks[offset % block + i];
    return true;
}

// The composition checked where OpenSSL has the real thing: over AES-128-ECB it must give
// OpenSSL's AES-128-CTR, at an offset and across a carry out of the low 64 bits.
TEST_F(DiffDes, CtrOracleFromEcbMatchesOpenSslAesCtr) {
    Rng rng(des_seed() ^ 41);
    for (size_t len : {size_t(1), size_t(16), size_t(17), size_t(100), size_t(4111)}) {
        const Bytes key = rng.bytes(16), pt = rng.bytes(len);
        Bytes iv = rng.bytes(16);
        if (len == 100)
            for (int i = 8; i < 15; ++i) iv[i] = 0xff;
        Bytes want, got;
        std::string err;
        ASSERT_TRUE(evp_cipher("AES-128-CTR", true, key, iv, pt, false, &want, &err)) << err;
        ASSERT_TRUE(ctr_from_ecb("AES-128-ECB", 16, key, iv, 0, pt, &got, &err)) << err;
        EXPECT_EQ(hex_encode(got), hex_encode(want)) << "len " << len;
        if (len > 5) {
            const Bytes tail(pt.begin() + 5, pt.end());
            ASSERT_TRUE(ctr_from_ecb("AES-128-ECB", 16, key, iv, 5, tail, &got, &err)) << err;
            EXPECT_EQ(hex_encode(got), hex_encode(Bytes(want.begin() + 5, want.end()))) << "offset 5 len " << len;
        }
    }
}

TEST_F(DiffDes, EcbCbc) {
    Rng rng(des_seed() ^ 42);
    for (const Variant& v : kVariants) {
        for (const char* mode : {"ecb", "cbc"}) {
            const std::string alg = std::string(v.prefix) + "-" + mode;
            const std::string ossl = std::string(v.ossl) + (std::string(mode) == "ecb" ? "-ECB" : "-CBC");
            const bool cbc = std::string(mode) == "cbc";
            for (bool pad : {false, true}) {
                // the one 4 MiB + 3 message: TDEA-CBC with padding
                const bool big = pad && cbc && v.key_len == 24;
                for (size_t len : des_lengths(rng, !pad, big)) {
                    Case c;
                    c.alg = alg;
                    c.source = v.key_len == 8 ? "differential vs OpenSSL (legacy provider)" : "differential vs OpenSSL";
                    c.key = rng.bytes(v.key_len);
                    if (cbc) c.iv = rng.bytes(8);
                    c.pt = rng.bytes(len);
                    c.flags = pad ? BC_FLAG_PAD_PKCS7 : 0;
                    c.id = id_of(alg, len, pad ? "PKCS7" : "no padding");
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

TEST_F(DiffDes, Ctr) {
    Rng rng(des_seed() ^ 43);
    for (const Variant& v : kVariants) {
        const std::string alg = std::string(v.prefix) + "-ctr";
        for (size_t len : des_lengths(rng, false, v.key_len == 8)) {
            Case c;
            c.alg = alg;
            c.source = "differential vs OpenSSL ECB-built CTR";
            c.key = rng.bytes(v.key_len);
            c.iv = rng.bytes(8);
            c.pt = rng.bytes(len);
            c.id = id_of(alg, len, "iv=" + hex_encode(c.iv));
            std::string err;
            if (!reference_ok(ctr_from_ecb(std::string(v.ossl) + "-ECB", 8, c.key, c.iv, 0, c.pt, &c.ct, &err), c.id,
                              alg, err))
                continue;
            set_current(c.id);
            run_case(c);
        }
    }
}

// Keystream offsets, a carry out of the low 32 counter bits (a 64-bit counter must carry
// across its halves), the last counters below 2^64 and the refusal past them.
TEST_F(DiffDes, CtrCounterEdges) {
    Rng rng(des_seed() ^ 44);
    for (const Variant& v : kVariants) {
        const std::string alg = std::string(v.prefix) + "-ctr";
        const Bytes key = rng.bytes(v.key_len);
        Bytes carry = rng.bytes(4);
        for (int i = 0; i < 4; ++i) carry.push_back(0xff);
        carry[7] = 0xfd;
        Bytes top(8, 0xff);
        top[7] = 0xfd;
        struct Edge {
            Bytes iv;
            size_t len;
            uint64_t offset;
            bool overflow;
            const char* what;
        };
        const Edge edges[] = {{carry, 64 * 8 + 5, 0, false, "low-32-bit carry"},
                              {carry, 100, 19, false, "low-32-bit carry via offset"},
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
                if (!reference_ok(ctr_from_ecb(std::string(v.ossl) + "-ECB", 8, c.key, c.iv, e.offset, c.pt, &c.ct,
                                               &err),
                                  c.id, alg, err))
                    continue;
            }
            set_current(c.id);
            run_case(c);
        }
    }
}

}  // namespace
}  // namespace conf
