// The portable bitsliced PRESENT core (present_block.h through present.h) against the
// designers' reference-tool traces (tests/vectors/tinycrypt/.../testvecs: results and
// every round key) and the two PRESENT-128 vectors of
// tests/vectors/present/present128-extra.txt, over partial batches, in place and out
// of place; OpenSSL has no PRESENT. Expected values come from the vector files, never
// from this source.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
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
using core_test::vector_dir;

struct Kat {
    std::string file;
    Bytes key, pt, ct;
    std::vector<std::string> subkeys;  // K_1 .. K_32 as the trace prints them (traces only)
};

const char* kTraceDir = "/tinycrypt/block/present/ref/present/testvecs/";

// One trace of the reference tool: key, starting block, result and the subkey lines.
Kat read_trace(const std::string& name) {
    std::ifstream f(vector_dir() + kTraceDir + name);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string t = ss.str();
    Kat k;
    k.file = name;
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
        if (std::stoul((*it)[1].str()) != k.subkeys.size() + 1) break;
        k.subkeys.push_back((*it)[2].str());
    }
    return k;
}

std::vector<Kat> traces() {
    std::vector<Kat> out;
    for (const char* d : {"e", "d"})
        for (const char* bits : {"80", "128"})
            for (const char* kt : {"k00_t00", "kff_t00", "k00_tff", "kff_tff"})
                out.push_back(read_trace(std::string(d) + bits + "-" + kt + ".txt"));
    return out;
}

// tests/vectors/present/present128-extra.txt: evp_test stanzas; a record ends at its
// Ciphertext.
std::vector<Kat> extra_vectors() {
    std::ifstream f(vector_dir() + "/present/present128-extra.txt");
    std::vector<Kat> out;
    std::string line;
    Kat cur;
    while (std::getline(f, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        const std::string value = line.substr(line.find('=') + 2);
        if (line.rfind("Key = ", 0) == 0) cur.key = from_hex(value);
        else if (line.rfind("Plaintext = ", 0) == 0) cur.pt = from_hex(value);
        else if (line.rfind("Ciphertext = ", 0) == 0) {
            cur.ct = from_hex(value);
            cur.file = "present128-extra.txt";
            out.push_back(cur);
            cur = Kat{};
        }
    }
    return out;
}

std::vector<uint32_t> expand(const uint8_t* key, size_t len) {
    std::vector<uint32_t> ks(bc::kPresentKsWords);
    EXPECT_TRUE(bc::present_expand_key(key, len, ks.data()));
    return ks;
}

Bytes single_blocks(bool enc, const std::vector<uint32_t>& ks, const uint8_t* in, size_t n) {
    Bytes out(8 * n);
    for (size_t i = 0; i < n; ++i)
        (enc ? bc::present_encrypt_blocks : bc::present_decrypt_blocks)(ks.data(), in + 8 * i, out.data() + 8 * i, 1);
    return out;
}

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
    uint8_t key[64] = {1, 2, 3};
    std::vector<uint32_t> ks(bc::kPresentKsWords, 0x5a5a5a5au);
    for (size_t len : {0u, 1u, 8u, 9u, 11u, 15u, 17u, 20u, 24u, 32u}) {
        EXPECT_FALSE(bc::present_expand_key(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    EXPECT_TRUE(bc::present_expand_key(key, 10, ks.data()));
    EXPECT_TRUE(bc::present_expand_key(key, 16, ks.data()));
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
    for (const Kat& k : traces()) {
        ASSERT_EQ(32u, k.subkeys.size()) << k.file;
        const std::vector<uint32_t> ks = expand(k.key.data(), k.key.size());
        for (size_t r = 0; r < 32; ++r) {
            const Bytes want = from_hex(k.subkeys[r]);
            Bytes got(8, 0);
            for (int i = 0; i < 64; ++i)
                if (ks[BC_PRESENT_KS_HEADER + BC_PRESENT_KS_ROUND * r + static_cast<size_t>(i)])
                    got[7 - i / 8] |= static_cast<uint8_t>(1u << (i % 8));
            ASSERT_EQ(want, got) << k.file << " K_" << r + 1;
        }
    }
}

// Each vector at every position of batches of 1, 31, 32, 33 and 70 blocks, the other
// blocks random, both directions, in place and out of place.
TEST(PresentCore, VectorsAtEveryBatchPosition) {
    std::vector<Kat> kats = traces();
    const std::vector<Kat> extra = extra_vectors();
    ASSERT_EQ(2u, extra.size()) << "tests/vectors/present/present128-extra.txt";
    kats.insert(kats.end(), extra.begin(), extra.end());
    std::mt19937 rng(2007);
    for (const Kat& k : kats) {
        ASSERT_EQ(8u, k.pt.size()) << k.file;
        ASSERT_EQ(8u, k.ct.size()) << k.file;
        const std::vector<uint32_t> ks = expand(k.key.data(), k.key.size());
        Bytes got(8);
        bc::present_encrypt_blocks(ks.data(), k.pt.data(), got.data(), 1);
        ASSERT_EQ(k.ct, got) << k.file;
        bc::present_decrypt_blocks(ks.data(), k.ct.data(), got.data(), 1);
        ASSERT_EQ(k.pt, got) << k.file;
        for (size_t n : {1u, 31u, 32u, 33u, 70u}) {
            const size_t pos = rng() % n;
            Bytes in(8 * n + 3), out(8 * n + 5);
            for (auto& c : in) c = static_cast<uint8_t>(rng());
            std::memcpy(in.data() + 3 + 8 * pos, k.pt.data(), 8);
            bc::present_encrypt_blocks(ks.data(), in.data() + 3, out.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(k.ct.data(), out.data() + 5 + 8 * pos, 8)) << k.file << " n " << n;
            bc::present_decrypt_blocks(ks.data(), out.data() + 5, out.data() + 5, n);   // in place
            ASSERT_EQ(0, std::memcmp(in.data() + 3, out.data() + 5, 8 * n)) << k.file << " n " << n;
        }
    }
}

TEST(PresentCore, MultiBlockMatchesSingleBlocks) {
    std::mt19937 rng(1207);
    for (size_t key_len : {10u, 16u}) {
        for (int trial = 0; trial < 8; ++trial) {
            uint8_t key[16];
            for (auto& c : key) c = static_cast<uint8_t>(rng());
            const std::vector<uint32_t> ks = expand(key, key_len);
            const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : trial == 3 ? 1 : rng() % 101;
            const size_t len = 8 * n;
            Bytes pt(len);
            for (auto& c : pt) c = static_cast<uint8_t>(rng());
            const Bytes want = single_blocks(true, ks, pt.data(), n);

            // out of place, both buffers misaligned by different offsets
            const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
            Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
            std::memcpy(inbuf.data() + oi, pt.data(), len);
            bc::present_encrypt_blocks(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
            ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << "key " << key_len << " blocks " << n;
            for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
            for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

            // decryption, out of place, against the single-block path and the plaintext
            ASSERT_EQ(pt, single_blocks(false, ks, want.data(), n));
            Bytes dec(len + 3);
            bc::present_decrypt_blocks(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
            ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len));

            // in place, misaligned: encrypt then decrypt
            Bytes buf(len + 5);
            std::memcpy(buf.data() + 5, pt.data(), len);
            bc::present_encrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len));
            bc::present_decrypt_blocks(ks.data(), buf.data() + 5, buf.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len));
        }
    }
}

TEST(PresentCore, BatchInterfaceAndPlainDialect) {
    // The batch functions on w[2j + k] directly, against the block functions, and the
    // build of the core with the dialect's plain paths against this one.
    ASSERT_EQ(0, present_plain::intrinsics());
    std::mt19937 rng(31);
    for (size_t key_len : {10u, 16u}) {
        uint8_t key[16], blocks[256];
        for (auto& c : key) c = static_cast<uint8_t>(rng());
        for (auto& c : blocks) c = static_cast<uint8_t>(rng());
        const std::vector<uint32_t> ks = expand(key, key_len);
        uint32_t w[64], p[64];
        for (int i = 0; i < 64; ++i) w[i] = bc_load_le32(blocks + 4 * i);
        std::memcpy(p, w, sizeof w);
        bc_present_encrypt_batch(ks.data(), w);
        present_plain::encrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        const Bytes want = single_blocks(true, ks, blocks, 32);
        for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
        bc_present_decrypt_batch(ks.data(), w);
        present_plain::decrypt_batch(ks.data(), p);
        ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
        for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
    }
}
