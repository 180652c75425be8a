// Differential tests of MISTY1 (misty1-ecb, misty1-cbc, misty1-ctr): random keys, IVs
// and data at the lengths that matter for a 64-bit block cipher whose core takes 32
// blocks a batch (0, 1, 7, 8, 9, 255, 256 and 257 bytes, 255 blocks +/- 1, random
// lengths and keystream offsets, 300 KiB to 4 MiB), run through the runner on every
// backend (one shot in place and apart, misaligned, streaming in random pieces).
//
// OpenSSL has no MISTY1, so the expected output is ECB, CBC and CTR composed here over
// bulkcrypt's portable MISTY1 core (misty1.h): CBC chained one block a call, CTR's
// counter blocks and ECB through one call. The core is checked against RFC 2994's and
// Botan's vectors (botan/.../block/misty.vec in the vector suite and
// tests/unit/test_misty1_core.cpp), and its many-block calls against its one-block
// calls below, so the oracle shares no code with bulkcrypt's modes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "options.h"
#include "runner.h"
#include "table.h"
#include "cores/misty1/misty1.h"

namespace conf {
namespace {

// The suite's seed (BC_CONFORMANCE_SEED, printed by test_differential.cpp), so one
// value reproduces every differential case.
uint64_t seed() {
    const char* e = std::getenv("BC_CONFORMANCE_SEED");
    return e ? std::strtoull(e, nullptr, 0) : 20261122ull;
}

const size_t kBlock = 8;
const char* kSource = "differential vs modes composed over the portable MISTY1";

std::string id_of(const std::string& alg, size_t len, const std::string& extra) {
    return "differential " + alg + " len=" + std::to_string(len) + (extra.empty() ? "" : " " + extra) +
           " seed=" + std::to_string(seed());
}

// Fails the test when the table's failures grew during it.
class DiffMisty1 : public testing::Test {
protected:
    void SetUp() override { failed_before_ = results().total_failed(); }
    void TearDown() override {
        EXPECT_EQ(results().total_failed(), failed_before_) << "failed cases: see the table";
    }
    size_t failed_before_ = 0;
};

std::vector<uint32_t> expand(const Bytes& key) {
    std::vector<uint32_t> ks(bc::kMisty1KsWords);
    EXPECT_TRUE(bc::misty1_expand_key(key.data(), key.size(), ks.data()));
    return ks;
}

// ECB of whole blocks through the portable core (its many-block calls agree with its
// one-block calls: PortableCoreBlockByBlock).
Bytes ecb(const std::vector<uint32_t>& ks, const Bytes& in) {
    Bytes out(in.size());
    bc::misty1_encrypt_blocks(ks.data(), in.data(), out.data(), in.size() / kBlock);
    return out;
}

// ECB or CBC encryption (PKCS#7 padding when pad); CBC one block at a time.
Bytes ecb_cbc(bool cbc, const Bytes& key, const Bytes& iv, Bytes pt, bool pad) {
    const std::vector<uint32_t> ks = expand(key);
    if (pad) pt.insert(pt.end(), kBlock - pt.size() % kBlock, static_cast<uint8_t>(kBlock - pt.size() % kBlock));
    EXPECT_EQ(0u, pt.size() % kBlock);
    if (!cbc) return ecb(ks, pt);
    Bytes ct(pt.size()), chain = iv;
    uint8_t x[kBlock];
    for (size_t i = 0; i + kBlock <= pt.size(); i += kBlock) {
        for (size_t b = 0; b < kBlock; ++b) x[b] = static_cast<uint8_t>(pt[i + b] ^ chain[b]);
        bc::misty1_encrypt_blocks(ks.data(), x, &ct[i], 1);
        chain.assign(&ct[i], &ct[i] + kBlock);
    }
    return ct;
}

// CTR from keystream byte `offset` on: keystream block k is E(iv + k), the whole 8-byte
// block one big-endian 64-bit counter. The callers stay below 2^64 counters.
Bytes ctr(const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in) {
    uint64_t c0 = 0;
    for (uint8_t b : iv) c0 = c0 << 8 | b;
    const uint64_t first = offset / kBlock, last = (offset + in.size() + kBlock - 1) / kBlock;
    Bytes counters;
    for (uint64_t k = first; k < last; ++k)
        for (size_t b = 0; b < kBlock; ++b)
            counters.push_back(static_cast<uint8_t>((c0 + k) >> (8 * (kBlock - 1 - b))));
    const Bytes stream = ecb(expand(key), counters);
    Bytes out = in;
    for (size_t i = 0; i < in.size(); ++i) out[i] ^= stream[offset % kBlock + i];
    return out;
}

// Edge lengths (batch and block boundaries), n random ones below max (whole blocks when
// asked) and, outside --quick, `big` when not 0.
std::vector<size_t> lengths(Rng& rng, int n, size_t max, bool whole_blocks, size_t big) {
    std::vector<size_t> l = {0, 1, 7, 8, 9, 255, 256, 257, 255 * 8 - 1, 255 * 8, 255 * 8 + 1};
    for (int i = 0; i < n; ++i) {
        const size_t len = static_cast<size_t>(rng.below(max));
        l.push_back(whole_blocks ? len / kBlock * kBlock : len);
    }
    if (big && !options().quick) l.push_back(big);
    return l;
}

// The portable core's many-block path against its one-block path, both directions: the
// oracle uses both.
TEST_F(DiffMisty1, PortableCoreBlockByBlock) {
    Rng rng(seed() ^ 0x3151);
    for (size_t blocks : {size_t(1), size_t(31), size_t(32), size_t(33), size_t(77), size_t(200)}) {
        const Bytes key = rng.bytes(16), pt = rng.bytes(kBlock * blocks);
        const std::vector<uint32_t> ks = expand(key);
        Bytes whole(pt.size()), back(pt.size());
        bc::misty1_encrypt_blocks(ks.data(), pt.data(), whole.data(), blocks);
        for (size_t i = 0; i < pt.size(); i += kBlock) {
            uint8_t one[kBlock];
            bc::misty1_encrypt_blocks(ks.data(), &pt[i], one, 1);
            ASSERT_EQ(hex_encode(one, kBlock), hex_encode(&whole[i], kBlock)) << blocks << " blocks, block " << i / 8;
        }
        bc::misty1_decrypt_blocks(ks.data(), whole.data(), back.data(), blocks);
        ASSERT_EQ(hex_encode(pt), hex_encode(back)) << blocks << " blocks";
    }
}

TEST_F(DiffMisty1, EcbCbc) {
    Rng rng(seed() ^ 0x3152);
    for (bool cbc : {false, true}) {
        const std::string alg = cbc ? "misty1-cbc" : "misty1-ecb";
        for (bool pad : {false, true}) {
            // Past the CPU backend's 64 KiB pieces: 4 MiB for ECB; CBC encryption runs one
            // block after another on the host, so 300 KiB (several pieces to decrypt).
            const size_t big = pad ? (cbc ? 300 * 1024 + 3 : 0) : (cbc ? 0 : 4 * 1024 * 1024 + 24);
            for (size_t len : lengths(rng, 4, 70000, !pad, big)) {
                if (!pad && len % kBlock) continue;
                Case c;
                c.alg = alg;
                c.source = kSource;
                c.key = rng.bytes(16);
                if (cbc) c.iv = rng.bytes(kBlock);
                c.pt = rng.bytes(len);
                c.flags = pad ? BC_FLAG_PAD_PKCS7 : 0;
                c.ct = ecb_cbc(cbc, c.key, c.iv, c.pt, pad);
                c.id = id_of(alg, len, pad ? "PKCS7" : "no padding");
                set_current(c.id);
                run_case(c);
            }
        }
    }
}

// CTR at edge and random lengths, from keystream offset 0 and from random offsets.
TEST_F(DiffMisty1, Ctr) {
    Rng rng(seed() ^ 0x3153);
    const std::string alg = "misty1-ctr";
    for (bool at_offset : {false, true}) {
        for (size_t len : lengths(rng, 6, 70000, false, at_offset ? 0 : 4 * 1024 * 1024 + 3)) {
            Case c;
            c.alg = alg;
            c.source = kSource;
            c.key = rng.bytes(16);
            c.iv = rng.bytes(kBlock);
            c.iv[0] &= 0x7f;  // far from 2^64: the edges have their own test
            c.pt = rng.bytes(len);
            c.offset = at_offset ? rng.below(100000) : 0;
            c.ct = ctr(c.key, c.iv, c.offset, c.pt);
            c.id = id_of(alg, len, "iv=" + hex_encode(c.iv) + " offset=" + std::to_string(c.offset));
            set_current(c.id);
            run_case(c);
        }
    }
}

// The 64-bit counter: carries across its bytes (through the length and the offset), the
// last counters below 2^64 and the refusal past them (BC_ERR_COUNTER_OVERFLOW, the
// catalogue's CTR contract, output untouched).
TEST_F(DiffMisty1, CtrCounterEdges) {
    Rng rng(seed() ^ 0x3154);
    const std::string alg = "misty1-ctr";
    const Bytes key = rng.bytes(16);
    const Bytes carry32 = {0x12, 0x34, 0x56, 0x78, 0xff, 0xff, 0xff, 0xfd};
    const Bytes carry56 = {0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0};
    const Bytes top = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd};
    struct Edge {
        Bytes iv;
        size_t len;
        uint64_t offset;
        bool overflow;
        const char* what;
    };
    const Edge edges[] = {{carry32, 64 * 8 + 5, 0, false, "carry out of the low 32 bits"},
                          {carry32, 200, 37, false, "carry out of the low 32 bits via offset"},
                          {carry56, 40 * 8 + 3, 0, false, "carry into the top byte"},
                          {carry56, 300, 8 * 15 + 3, false, "carry into the top byte via offset"},
                          {top, 1, 0, false, "last counters"},
                          {top, 23, 0, false, "last counters"},
                          {top, 24, 0, false, "last counters"},
                          {top, 4, 20, false, "last bytes via offset"},
                          {top, 25, 0, true, "past 2^64-1"},
                          {top, 1, 24, true, "past 2^64-1"},
                          {top, 5, 20, true, "past 2^64-1"},
                          {top, 4096, 0, true, "past 2^64-1"}};
    for (const Edge& e : edges) {
        Case c;
        c.alg = alg;
        c.source = "counter edges vs CTR composed over the portable MISTY1";
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
            c.ct = ctr(c.key, c.iv, c.offset, c.pt);
        }
        set_current(c.id);
        run_case(c);
    }
}

}  // namespace
}  // namespace conf
