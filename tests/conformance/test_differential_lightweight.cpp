// Differential tests of the 64-bit lightweight block ciphers PRESENT (80- and 128-bit
// keys) and HIGHT. OpenSSL has neither, so the reference is ECB, CBC (PKCS#7 or none)
// and CTR (the whole 8-byte block one big-endian counter) composed here over
// bulkcrypt's portable cores (present.h, hight.h), which the vector suite checks
// against the designers' and KISA's vectors. The oracle shares only the block function
// with what it checks: none of the generic modes, no engine, no device code. Random
// keys, IVs and lengths (8-byte block edges and random ones up to 70000 bytes), CTR at
// random offsets, counter carries and the top of the 64-bit counter; the runner puts
// each case through every backend in place, apart, misaligned and streaming.
#include <cstdlib>
#include <cstring>
#include <functional>

#include <gtest/gtest.h>

#include "options.h"
#include "runner.h"
#include "table.h"
#include "cores/hight/hight.h"
#include "cores/present/present.h"

namespace conf {
namespace {

uint64_t seed() {
    static uint64_t s = [] {
        const char* e = std::getenv("BC_CONFORMANCE_SEED");
        return e ? std::strtoull(e, nullptr, 0) : 20261125ull;
    }();
    return s;
}

class DiffLightweight : public testing::Test {
protected:
    void SetUp() override { failed_before_ = results().total_failed(); }
    void TearDown() override {
        EXPECT_EQ(results().total_failed(), failed_before_) << "failed cases: see the table";
    }
    size_t failed_before_ = 0;
};

struct Cipher {
    const char* prefix;   // catalogue names are <prefix>-ecb, -cbc, -ctr
    size_t key_bytes;
    size_t ks_words;
    bool (*expand)(const uint8_t*, size_t, uint32_t*);
    void (*encrypt)(const uint32_t*, const uint8_t*, uint8_t*, size_t);
};

const Cipher kCiphers[] = {
    {"present80", 10, bc::kPresentKsWords, bc::present_expand_key, bc::present_encrypt_blocks},
    {"present128", 16, bc::kPresentKsWords, bc::present_expand_key, bc::present_encrypt_blocks},
    {"hight", 16, bc::kHightKsWords, bc::hight_expand_key, bc::hight_encrypt_blocks},
};

// ECB encryption of whole blocks by the portable core, one call.
bool ecb(const Cipher& c, const Bytes& key, const Bytes& in, Bytes* out) {
    std::vector<uint32_t> ks(c.ks_words);
    if (in.size() % 8 || !c.expand(key.data(), key.size(), ks.data())) return false;
    out->assign(in.size(), 0);
    c.encrypt(ks.data(), in.data(), out->data(), in.size() / 8);
    return true;
}

// The 8-byte big-endian counter block plus n.
Bytes counter_plus(Bytes ctr, uint64_t n) {
    for (size_t b = 8; b-- > 0 && n;) {
        const uint64_t v = ctr[b] + (n & 0xff);
        ctr[b] = static_cast<uint8_t>(v);
        n = (n >> 8) + (v >> 8);
    }
    return ctr;
}

// ECB or CBC encryption (PKCS#7 when pad), or the CTR keystream XOR pt starting at
// byte offset of the stream, composed from ecb.
bool compose(const Cipher& c, const std::string& mode, const Bytes& key, const Bytes& iv, Bytes pt, bool pad,
             uint64_t offset, Bytes* ct) {
    ct->clear();
    if (mode != "ctr") {
        if (pad) pt.insert(pt.end(), 8 - pt.size() % 8, static_cast<uint8_t>(8 - pt.size() % 8));
        if (pt.size() % 8) return false;
        if (mode == "ecb") return ecb(c, key, pt, ct);
        Bytes chain = iv, blk(8), out;
        for (size_t i = 0; i < pt.size(); i += 8) {
            for (size_t b = 0; b < 8; ++b) blk[b] = pt[i + b] ^ chain[b];
            if (!ecb(c, key, blk, &out)) return false;
            ct->insert(ct->end(), out.begin(), out.end());
            chain = out;
        }
        return true;
    }
    const uint64_t first = offset / 8, skip = offset % 8;
    const size_t blocks = static_cast<size_t>((skip + pt.size() + 7) / 8);
    Bytes counters, stream;
    for (size_t i = 0; i < blocks; ++i) {
        const Bytes ctr = counter_plus(iv, first + i);
        counters.insert(counters.end(), ctr.begin(), ctr.end());
    }
    if (!ecb(c, key, counters, &stream)) return false;
    ct->resize(pt.size());
    for (size_t i = 0; i < pt.size(); ++i) (*ct)[i] = pt[i] ^ stream[static_cast<size_t>(skip) + i];
    return true;
}

std::string id_of(const std::string& alg, size_t len, const std::string& extra) {
    return "differential " + alg + " len=" + std::to_string(len) + (extra.empty() ? "" : " " + extra) +
           " seed=" + std::to_string(seed());
}

// Lengths at the 8-byte block's edges, a batch (32 blocks) and 255 blocks either side,
// and n random ones below 70000 (whole blocks when asked).
std::vector<size_t> lengths(Rng& rng, int n, bool whole_blocks) {
    std::vector<size_t> l = {0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 255 * 8 - 1, 255 * 8, 255 * 8 + 1};
    for (int i = 0; i < n; ++i) {
        const size_t len = static_cast<size_t>(rng.below(70000));
        l.push_back(whole_blocks ? len / 8 * 8 : len);
    }
    return l;
}

// The oracle's multi-block ECB against itself one block at a time, so it does not
// lean on the batching it also tests.
TEST_F(DiffLightweight, EcbOracleBlockByBlock) {
    Rng rng(seed() ^ 31);
    for (const Cipher& c : kCiphers) {
        const Bytes key = rng.bytes(c.key_bytes), pt = rng.bytes(8 * 77);
        Bytes whole, one;
        ASSERT_TRUE(ecb(c, key, pt, &whole)) << c.prefix;
        for (size_t i = 0; i < pt.size(); i += 8) {
            ASSERT_TRUE(ecb(c, key, Bytes(pt.begin() + i, pt.begin() + i + 8), &one));
            ASSERT_EQ(hex_encode(one), hex_encode(Bytes(whole.begin() + i, whole.begin() + i + 8)))
                << c.prefix << " " << i;
        }
    }
}

TEST_F(DiffLightweight, EcbCbcCtr) {
    Rng rng(seed() ^ 32);
    for (const Cipher& ci : kCiphers) {
        for (const char* mode : {"ecb", "cbc", "ctr"}) {
            const bool ctr = std::string(mode) == "ctr";
            const std::string alg = std::string(ci.prefix) + "-" + mode;
            for (bool pad : ctr ? std::vector<bool>{false} : std::vector<bool>{false, true}) {
                std::vector<size_t> lens = lengths(rng, 4, !pad && !ctr);
                // One 4 MiB + 3 message a cipher (non-quick only): the threaded paths.
                if (ctr && !options().quick) lens.push_back(4 * 1024 * 1024 + 3);
                for (size_t len : lens) {
                    if (!pad && !ctr && len % 8) continue;
                    Case c;
                    c.alg = alg;
                    c.source = "differential vs modes composed over the portable core";
                    c.key = rng.bytes(ci.key_bytes);
                    if (std::string(mode) != "ecb") c.iv = rng.bytes(8);
                    c.pt = rng.bytes(len);
                    c.flags = pad ? BC_FLAG_PAD_PKCS7 : 0;
                    // CTR from a random keystream offset half the time
                    if (ctr && rng.below(2)) c.offset = rng.below(100000);
                    c.id = id_of(alg, len,
                                 ctr ? "iv=" + hex_encode(c.iv) + " offset=" + std::to_string(c.offset)
                                     : pad ? "PKCS7" : "no padding");
                    ASSERT_TRUE(compose(ci, mode, c.key, c.iv, c.pt, pad, c.offset, &c.ct)) << c.id;
                    set_current(c.id);
                    run_case(c);
                }
            }
        }
    }
}

// The 64-bit counter: a carry through its low 32 bits and through its bytes, the last
// counter values (2^64 - 1 may be used), and one block past it refused with
// BC_ERR_COUNTER_OVERFLOW, through the length and through the offset.
TEST_F(DiffLightweight, CtrCounterEdges) {
    Rng rng(seed() ^ 33);
    for (const Cipher& ci : kCiphers) {
        const std::string alg = std::string(ci.prefix) + "-ctr";
        const Bytes key = rng.bytes(ci.key_bytes);
        auto run = [&](const Bytes& iv, size_t len, uint64_t offset, const std::string& what, bool overflow) {
            Case c;
            c.alg = alg;
            c.source = "counter edges vs CTR composed over the portable core";
            c.key = key;
            c.iv = iv;
            c.pt = rng.bytes(len);
            c.offset = offset;
            c.id = alg + " " + what + " iv=" + hex_encode(iv) + " offset=" + std::to_string(offset) +
                   " len=" + std::to_string(len) + " seed=" + std::to_string(seed());
            if (overflow) {
                c.expect = Expect::CounterOverflow;
                c.ct = c.pt;
            } else {
                ASSERT_TRUE(compose(ci, "ctr", c.key, c.iv, c.pt, false, c.offset, &c.ct)) << c.id;
            }
            set_current(c.id);
            run_case(c);
        };
        Bytes low32 = rng.bytes(4);
        for (uint8_t b : {0xff, 0xff, 0xff, 0xfd}) low32.push_back(b);
        run(low32, 8 * 40 + 3, 0, "carry out of the low 32 bits", false);
        run(low32, 100, 8 * 2 + 5, "carry out of the low 32 bits via offset", false);
        Bytes ripple = {0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
        run(ripple, 8 * 33, 0, "carry through seven bytes", false);
        Bytes top(8, 0xff);
        top[7] = 0xfd;   // three counter values left
        for (size_t len : {size_t(1), size_t(23), size_t(24)}) run(top, len, 0, "last counters", false);
        run(top, 8, 16, "last block via offset", false);
        run(top, 25, 0, "past 2^64-1", true);
        run(top, 1, 24, "past 2^64-1 via offset", true);
        run(top, 9, 16, "past 2^64-1 via offset and length", true);
        run(top, 4096, 0, "far past 2^64-1", true);
    }
}

}  // namespace
}  // namespace conf
