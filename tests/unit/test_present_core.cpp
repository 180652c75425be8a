// The portable bitsliced PRESENT core (present_block.h through present.h) against the
// designers' reference-tool traces (tests/vectors/tinycrypt/.../testvecs: results and
// every round key) and the two PRESENT-128 vectors of
// tests/vectors/present/present128-extra.txt, over partial batches, in place and out
// of place; OpenSSL has no PRESENT. Expected values come from the vector files, never
// from this source.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core_test_util.h"
#include "cores/present/present.h"
#include "cores/present/present_block.h"

namespace present_plain {
void encrypt_batch(const uint32_t* ks, uint32_t* w);
void decrypt_batch(const uint32_t* ks, uint32_t* w);
int intrinsics();
}  // namespace present_plain

namespace {

using core_test::Bytes;
using core_test::from_hex;
using core_test::Kat;
using core_test::vector_dir;

const bc::BlockCipher& core() { return core_test::block_cipher("present"); }

// A reference-tool trace: its known answer and every round key.
struct Trace {
    Kat kat;
    std::vector<std::string> subkeys;  // K_1 .. K_32 as the trace prints them
};

const char* kTraceDir = "/tinycrypt/block/present/ref/present/testvecs/";

// One trace of the reference tool: key, starting block, result and the subkey lines.
Trace read_trace(const std::string& name) {
    std::ifstream f(vector_dir() + kTraceDir + name);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string t = ss.str();
    Trace tr;
    Kat& k = tr.kat;
    k.where = name;
    std::smatch m;
    if (std::regex_search(t, m, std::regex(R"(Given Key \(\d+bit\): ([0-9a-f]+) ([0-9a-f]+))")))
        k.key = from_hex(m[1].str() + m[2].str());
    const bool enc = name[0] == 'e';
    if (std::regex_search(t, m, std::regex(enc ? R"(Given Plaintext: ([0-9a-f]+))" : R"(Given Ciphertext: ([0-9a-f]+))")))
        (enc ? k.pt : k.ct) = from_hex(m[1].str());
    if (std::regex_search(t, m, std::regex(enc ? R"(Resulting Cipher: ([0-9a-f]+))" : R"(Resulting Plaintext: ([0-9a-f]+))")))
        (enc ? k.ct : k.pt) = from_hex(m[1].str());
    const std::regex sub(R"(Subkey Round (\d+)[^>]*>>([0-9a-f]{16})<<)");
    for (auto it = std::sregex_iterator(t.begin(), t.end(), sub); it != std::sregex_iterator(); ++it) {
        if (std::stoul((*it)[1].str()) != tr.subkeys.size() + 1) break;
        tr.subkeys.push_back((*it)[2].str());
    }
    return tr;
}

std::vector<Trace> traces() {
    std::vector<Trace> out;
    for (const char* d : {"e", "d"})
        for (const char* bits : {"80", "128"})
            for (const char* kt : {"k00_t00", "kff_t00", "k00_tff", "kff_tff"})
                out.push_back(read_trace(std::string(d) + bits + "-" + kt + ".txt"));
    return out;
}

std::vector<uint32_t> expand(const uint8_t* key, size_t len) { return core_test::expand(core(), key, len); }

}  // namespace

// The S-box of the paper (Table 1), transcribed here as data, against both networks
// with every key nibble.
TEST(PresentCore, SboxNetworksMatchTable) {
    static const unsigned s[16] = {0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2};
    unsigned inv[16];
    for (unsigned x = 0; x < 16; ++x) inv[s[x]] = x;
    for (int which = 0; which < 2; ++which) {
        for (unsigned kv = 0; kv < 16; ++kv) {
            // lane j: input nibble j % 16; every lane the key nibble kv
            bc_u32 x[4] = {0}, k[4], y[4];
            for (unsigned j = 0; j < 32; ++j)
                for (int b = 0; b < 4; ++b) x[b] |= static_cast<bc_u32>(((j % 16) >> b) & 1u) << j;
            for (int b = 0; b < 4; ++b) k[b] = 0u - ((kv >> b) & 1u);
            if (which == 0) bc_present_bs_sbox_k(x[0], x[1], x[2], x[3], k[0], k[1], k[2], k[3], y);
            else bc_present_bs_inv_sbox_k(x[0], x[1], x[2], x[3], k[0], k[1], k[2], k[3], y);
            for (unsigned j = 0; j < 32; ++j) {
                const unsigned xv = j % 16;
                unsigned got = 0;
                for (int b = 0; b < 4; ++b) got |= ((y[b] >> j) & 1u) << b;
                ASSERT_EQ((which == 0 ? s[xv] : inv[xv]) ^ kv, got) << (which ? "S^-1(" : "S(") << xv << ") key " << kv;
            }
        }
    }
}

TEST(PresentCore, BadKeyLengthsRefused) {
    core_test::expect_key_lengths(core(), {0, 1, 8, 9, 11, 15, 17, 20, 24, 32}, {10, 16});
}

TEST(PresentCore, ExpandedKeyHeaderAndMasks) {
    uint8_t key[16] = {0x12, 0x34};
    for (size_t len : {10u, 16u}) {
        const std::vector<uint32_t> ks = expand(key, len);
        EXPECT_EQ(31u, ks[0]);
        EXPECT_EQ(8 * len, ks[1]);
        EXPECT_EQ(0u, ks[2]);
        EXPECT_EQ(0u, ks[3]);
        for (size_t i = 4; i < ks.size(); ++i) ASSERT_TRUE(ks[i] == 0u || ks[i] == 0xffffffffu) << i;
    }
}

// Every round key of the 16 traces (the tool prints K_1 .. K_32) against the masks.
TEST(PresentCore, RoundKeysMatchTraces) {
    for (const Trace& t : traces()) {
        const Kat& k = t.kat;
        ASSERT_EQ(32u, t.subkeys.size()) << k.where;
        const std::vector<uint32_t> ks = expand(k.key.data(), k.key.size());
        for (size_t r = 0; r < 32; ++r) {
            const Bytes want = from_hex(t.subkeys[r]);
            Bytes got(8, 0);
            for (int i = 0; i < 64; ++i)
                if (ks[BC_PRESENT_KS_HEADER + BC_PRESENT_KS_ROUND * r + static_cast<size_t>(i)])
                    got[7 - i / 8] |= static_cast<uint8_t>(1u << (i % 8));
            ASSERT_EQ(want, got) << k.where << " K_" << r + 1;
        }
    }
}

// Each vector at every position of batches of 1, 31, 32, 33 and 70 blocks, the other
// blocks random, both directions, in place and out of place.
TEST(PresentCore, VectorsAtEveryBatchPosition) {
    std::vector<Kat> kats;
    for (const Trace& t : traces()) kats.push_back(t.kat);
    const std::vector<Kat> extra =
        core_test::read_kats("present/present128-extra.txt", "Key", "Plaintext", "Ciphertext");
    ASSERT_EQ(2u, extra.size()) << "tests/vectors/present/present128-extra.txt";
    kats.insert(kats.end(), extra.begin(), extra.end());
    core_test::kats_at_every_batch_position(core(), kats, 2007);
}

TEST(PresentCore, MultiBlockMatchesSingleBlocks) {
    core_test::multi_block_matches_single_blocks(core(), {10, 16}, 8, 1207);
}

TEST(PresentCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against the block functions, and the
    // build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, present_plain::intrinsics());
    const core_test::BatchFns batch = {bc_present_encrypt_batch, bc_present_decrypt_batch,
                                       present_plain::encrypt_batch, present_plain::decrypt_batch};
    std::mt19937 rng(31);
    for (size_t key_len : {10u, 16u}) {
        uint8_t key[16], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        const Bytes want = core_test::one_block_at_a_time(core(), true, ks, blocks, 32);
        ASSERT_NO_FATAL_FAILURE(core_test::check_batch(batch, ks, blocks, want)) << "key " << key_len;
    }
}
