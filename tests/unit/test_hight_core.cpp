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
using core_test::Kat;
using core_test::vector_dir;

const bc::BlockCipher& core() { return core_test::block_cipher("hight"); }

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

std::vector<uint32_t> expand(const uint8_t* key) { return core_test::expand(core(), key, 16); }

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
    core_test::expect_key_lengths(core(), {0, 1, 8, 10, 15, 17, 24, 32}, {16});
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
    const std::vector<Kat> paper = core_test::read_kats("hight/ches2006.txt", "Key", "Plaintext", "Ciphertext");
    ASSERT_EQ(4u, paper.size()) << "tests/vectors/hight/ches2006.txt";
    kats.insert(kats.end(), paper.begin(), paper.end());
    for (const Kat& k : kats) ASSERT_EQ(16u, k.key.size()) << k.where;
    core_test::kats_at_every_batch_position(core(), kats, 18033);
}

TEST(HightCore, MultiBlockMatchesSingleBlocks) {
    core_test::multi_block_matches_single_blocks(core(), {16}, 10, 2006);
}

TEST(HightCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against the block functions, and the
    // build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, hight_plain::intrinsics());
    const core_test::BatchFns batch = {bc_hight_encrypt_batch, bc_hight_decrypt_batch, hight_plain::encrypt_batch,
                                       hight_plain::decrypt_batch};
    std::mt19937 rng(128);
    for (int trial = 0; trial < 3; ++trial) {
        uint8_t key[16], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key);
        const Bytes want = core_test::one_block_at_a_time(core(), true, ks, blocks, 32);
        ASSERT_NO_FATAL_FAILURE(core_test::check_batch(batch, ks, blocks, want)) << "trial " << trial;
    }
}
