// The portable bitsliced HIGHT core (hight_block.h through hight.h) against KISA's ECB
// vectors (Crypto++'s tests/vectors/cryptopp/TestVectors/hight.txt) and the CHES 2006
// paper's (tests/vectors/hight/ches2006.txt), over partial batches, in place and out of
// place, and its bitsliced pieces against byte arithmetic; OpenSSL has no HIGHT.
// Expected values come from the vector files, never from this source.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/hight/hight.h"
#include "cores/hight/hight_block.h"

namespace hight_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace hight_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::vector_dir;

struct Kat {
    std::string where;
    Bytes key, pt, ct;
};

std::string strip(std::string s) {
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
}

// The HIGHT/ECB section of Crypto++'s file: "Field: value" lines (hex with spaces,
// "Plaintext  :" spelled with spaces too); each "Test: Encrypt" runs the current values.
std::vector<Kat> kisa_ecb_vectors() {
    std::ifstream f(vector_dir() + "/cryptopp/TestVectors/hight.txt");
    std::vector<Kat> out;
    std::string line, name;
    Kat cur;
    int lineno = 0;
    while (std::getline(f, line)) {
        ++lineno;
        const size_t colon = line.find(':');
        if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
        const std::string field = strip(line.substr(0, colon)), value = strip(line.substr(colon + 1));
        if (field == "Name") name = value;
        if (name != "HIGHT/ECB") continue;
        if (field == "Key") cur.key = from_hex(value);
        else if (field == "Plaintext") cur.pt = from_hex(value);
        else if (field == "Ciphertext") cur.ct = from_hex(value);
        else if (field == "Test") {
            cur.where = "hight.txt:" + std::to_string(lineno);
            out.push_back(cur);
        }
    }
    return out;
}

// tests/vectors/hight/ches2006.txt: evp_test stanzas; a record ends at its Ciphertext.
std::vector<Kat> paper_vectors() {
    std::ifstream f(vector_dir() + "/hight/ches2006.txt");
    std::vector<Kat> out;
    std::string line;
    Kat cur;
    int lineno = 0;
    while (std::getline(f, line)) {
        ++lineno;
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        const std::string value = line.substr(line.find('=') + 2);
        if (line.rfind("Key = ", 0) == 0) cur.key = from_hex(value);
        else if (line.rfind("Plaintext = ", 0) == 0) cur.pt = from_hex(value);
        else if (line.rfind("Ciphertext = ", 0) == 0) {
            cur.ct = from_hex(value);
            cur.where = "ches2006.txt:" + std::to_string(lineno);
            out.push_back(cur);
            cur = Kat{};
        }
    }
    return out;
}

std::vector<uint32_t> expand(const uint8_t* key) {
    std::vector<uint32_t> ks(bc::kHightKsWords);
    EXPECT_TRUE(bc::hight_expand_key(key, 16, ks.data()));
    return ks;
}

Bytes single_blocks(bool enc, const std::vector<uint32_t>& ks, const uint8_t* in, size_t n) {
    Bytes out(8 * n);
    for (size_t i = 0; i < n; ++i)
        (enc ? bc::hight_encrypt_blocks : bc::hight_decrypt_blocks)(ks.data(), in + 8 * i, out.data() + 8 * i, 1);
    return out;
}

// 32 bytes (one a lane) <-> 8 bit-plane words.
void slice(const uint8_t* v, bc_u32* x) {
    for (int b = 0; b < 8; ++b) {
        x[b] = 0;
        for (int j = 0; j < 32; ++j) x[b] |= static_cast<bc_u32>((v[j] >> b) & 1u) << j;
    }
}
uint8_t lane(const bc_u32* x, int j) {
    unsigned v = 0;
    for (int b = 0; b < 8; ++b) v |= ((x[b] >> j) & 1u) << b;
    return static_cast<uint8_t>(v);
}
uint8_t rotl8(uint8_t x, int r) { return static_cast<uint8_t>((x << r) | (x >> (8 - r))); }

}  // namespace

// The round's pieces on 32 lanes against the specification's byte arithmetic, the
// lanes chosen to hit every carry: F0, F1, addition and subtraction mod 256.
TEST(HightCore, BitslicedPiecesMatchByteArithmetic) {
    std::mt19937 rng(2006);
    for (int trial = 0; trial < 64; ++trial) {
        uint8_t d[32], x[32];
        for (int j = 0; j < 32; ++j) d[j] = static_cast<uint8_t>(rng()), x[j] = static_cast<uint8_t>(rng());
        if (trial == 0)
            for (int j = 0; j < 32; ++j) d[j] = 0xff, x[j] = static_cast<uint8_t>(j);
        const uint8_t kv = static_cast<uint8_t>(trial == 0 ? 0xff : rng());
        bc_u32 k[8];
        for (int b = 0; b < 8; ++b) k[b] = 0u - ((kv >> b) & 1u);
        bc_u32 ds[8], xs[8];
        for (int op = 0; op < 4; ++op) {
            slice(d, ds);
            slice(x, xs);
            // op 0: d ^ (F0(x) + k); 1: d + (F1(x) ^ k); 2: d - (F1(x) ^ k); 3: op 1, then - x
            if (op == 0) bc_hight_bs_xor_f0(ds, xs, k);
            else bc_hight_bs_add_f1(ds, xs, k, op == 2);
            if (op == 3) bc_hight_bs_add(ds, xs, 1);
            for (int j = 0; j < 32; ++j) {
                const uint8_t f0 = rotl8(x[j], 1) ^ rotl8(x[j], 2) ^ rotl8(x[j], 7);
                const uint8_t f1 = rotl8(x[j], 3) ^ rotl8(x[j], 4) ^ rotl8(x[j], 6);
                uint8_t want = op == 0   ? static_cast<uint8_t>(d[j] ^ static_cast<uint8_t>(f0 + kv))
                               : op == 2 ? static_cast<uint8_t>(d[j] - (f1 ^ kv))
                                         : static_cast<uint8_t>(d[j] + (f1 ^ kv));
                if (op == 3) want = static_cast<uint8_t>(want - x[j]);
                ASSERT_EQ(want, lane(ds, j)) << "op " << op << " lane " << j << " trial " << trial;
            }
        }
    }
}

TEST(HightCore, BadKeyLengthsRefused) {
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kHightKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 10u, 15u, 17u, 24u, 32u}) {
        EXPECT_FALSE(bc::hight_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    EXPECT_TRUE(bc::hight_expand_key(key, 16, ks.data()));
}

TEST(HightCore, ExpandedKeyHeaderAndMasks) {
    uint8_t key[16] = {0x12, 0x34};
    const std::vector<uint32_t> ks = expand(key);
    EXPECT_EQ(32u, ks[0]);
    EXPECT_EQ(128u, ks[1]);
    EXPECT_EQ(0u, ks[2]);
    EXPECT_EQ(0u, ks[3]);
    for (size_t i = 4; i < ks.size(); ++i) ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
}

// Each vector at every position of batches of 1, 31, 32, 33 and 70 blocks, the other
// blocks random, both directions, in place and out of place.
TEST(HightCore, VectorsAtEveryBatchPosition) {
    std::vector<Kat> kats = kisa_ecb_vectors();
    ASSERT_EQ(15u, kats.size()) << "HIGHT/ECB records of hight.txt";
    const std::vector<Kat> paper = paper_vectors();
    ASSERT_EQ(4u, paper.size()) << "tests/vectors/hight/ches2006.txt";
    kats.insert(kats.end(), paper.begin(), paper.end());
    std::mt19937 rng(18033);
    for (const Kat& k : kats) {
        ASSERT_EQ(16u, k.key.size()) << k.where;
        ASSERT_EQ(8u, k.pt.size()) << k.where;
        ASSERT_EQ(8u, k.ct.size()) << k.where;
        const std::vector<uint32_t> ks = expand(k.key.data());
        Bytes got(8);
        bc::hight_encrypt_blocks(ks.data(), k.pt.data(), got.data(), 1);
        ASSERT_EQ(k.ct, got) << k.where;
        bc::hight_decrypt_blocks(ks.data(), k.ct.data(), got.data(), 1);
        ASSERT_EQ(k.pt, got) << k.where;
        for (size_t n : {1u, 31u, 32u, 33u, 70u}) {
            const size_t pos = rng() % n;
            Bytes in(8 * n + 3), out(8 * n + 5);
            for (auto& c : in) c = static_cast<uint8_t>(rng());
            std::memcpy(in.data() + 3 + 8 * pos, k.pt.data(), 8);
            bc::hight_encrypt_blocks(ks.data(), in.data() + 3, out.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(k.ct.data(), out.data() + 5 + 8 * pos, 8)) << k.where << " n " << n;
            bc::hight_decrypt_blocks(ks.data(), out.data() + 5, out.data() + 5, n);   // in place
            ASSERT_EQ(0, std::memcmp(in.data() + 3, out.data() + 5, 8 * n)) << k.where << " n " << n;
        }
    }
}

TEST(HightCore, MultiBlockMatchesSingleBlocks) {
    std::mt19937 rng(2006);
    for (int trial = 0; trial < 10; ++trial) {
        uint8_t key[16];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : trial == 3 ? 1 : rng() % 101;
        const size_t len = 8 * n;
        Bytes pt(len);
        for (auto& c : pt) c = static_cast<uint8_t>(rng());
        const Bytes want = single_blocks(true, ks, pt.data(), n);

        // out of place, both buffers misaligned by different offsets
        const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
        Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
        std::memcpy(inbuf.data() + oi, pt.data(), len);
        bc::hight_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
        ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "blocks " << n;
        for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
        for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

        // decryption, out of place, against the single-block path and the plaintext
        ASSERT_EQ(pt, single_blocks(false, ks, want.data(), n));
        Bytes dec(len + 3);
        bc::hight_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

        // in place, misaligned: encrypt then decrypt
        Bytes buf(len + 5);
        std::memcpy(buf.data() + 5, pt.data(), len);
        bc::hight_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
        bc::hight_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
        ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
    }
}

TEST(HightCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against the block functions, and the
    // build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, hight_plain::intrinsics());
    std::mt19937 rng(128);
    for (int trial = 0; trial < 3; ++trial) {
        uint8_t key[16], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        uint32_t w[64], p[64];
        for (int i = 0; i < 64; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_hight_encrypt_batch(ks.data(), w);
        hight_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        const Bytes want = single_blocks(true, ks, blocks, 32);
        for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        bc_hight_decrypt_batch(ks.data(), w);
        hight_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}
