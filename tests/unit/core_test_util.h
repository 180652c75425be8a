// Helpers shared by the block-cipher core tests (test_<cipher>_core.cpp): OpenSSL's ECB,
// vector files, and the checks every portable core goes through, written once over the
// catalogue's block cipher descriptor (bc::BlockCipher: expansion and portable core).
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "catalog/block_cipher.h"
#include "dialect/bc_dialect.h"

namespace core_test {

using Bytes = std::vector<uint8_t>;

// One pass of OpenSSL's cipher (an ECB, no padding) over len bytes of whole blocks.
// key_len: a key of another length than the cipher's default (Blowfish, CAST5), told to
// OpenSSL first, since it reads only its default length otherwise; 0 for the default.
inline Bytes evp_ecb(const EVP_CIPHER* cipher, bool enc, const uint8_t* key, const uint8_t* in, size_t len,
                     size_t key_len = 0) {
    Bytes out(len + 16);
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    int l1 = 0, l2 = 0;
    if (key_len) {
        EXPECT_EQ(1, EVP_CipherInit_ex2(c, cipher, nullptr, nullptr, enc ? 1 : 0, nullptr));
        EXPECT_EQ(1, EVP_CIPHER_CTX_set_key_length(c, static_cast<int>(key_len)));
        EXPECT_EQ(1, EVP_CipherInit_ex2(c, nullptr, key, nullptr, enc ? 1 : 0, nullptr));
    } else {
        EXPECT_EQ(1, EVP_CipherInit_ex2(c, cipher, key, nullptr, enc ? 1 : 0, nullptr));
    }
    EVP_CIPHER_CTX_set_padding(c, 0);
    if (len) {
        EXPECT_EQ(1, EVP_CipherUpdate(c, out.data(), &l1, in, static_cast<int>(len)));
    }
    EXPECT_EQ(1, EVP_CipherFinal_ex(c, out.data() + l1, &l2));
    EVP_CIPHER_CTX_free(c);
    out.resize(static_cast<size_t>(l1 + l2));
    return out;
}

inline Bytes from_hex(const std::string& h) {
    Bytes b;
    for (size_t i = 0; i + 1 < h.size(); i += 2) b.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
    return b;
}

// tests/vectors of this source tree.
inline std::string vector_dir() {
    std::string f = __FILE__;
    return f.substr(0, f.rfind("/unit/")) + "/vectors";
}

inline Bytes rnd(std::mt19937& g, size_t n) {
    Bytes b(n);
    for (auto& c : b) c = static_cast<uint8_t>(g());
    return b;
}

// ---- a portable core, through its catalogue descriptor ----------------------------------

// The descriptor registered as `name` ("bf"); the test binary stops if there is none.
inline const bc::BlockCipher& block_cipher(const char* name) {
    const bc::BlockCipher* c = bc::find_block_cipher(name);
    if (!c) {
        ADD_FAILURE() << "no block cipher '" << name << "' in the catalogue";
        std::abort();
    }
    return *c;
}

inline std::vector<uint32_t> expand(const bc::BlockCipher& c, const uint8_t* key, size_t len) {
    std::vector<uint32_t> ks(c.ks_words);
    EXPECT_TRUE(c.expand(key, len, ks.data())) << c.name << " key of " << len << " bytes";
    return ks;
}

// The key lengths in `refused` are refused without a word of ks written; those in
// `accepted` are taken.
inline void expect_key_lengths(const bc::BlockCipher& c, const std::vector<size_t>& refused,
                               const std::vector<size_t>& accepted) {
    uint8_t key[80] = {1, 2, 3};
    std::vector<uint32_t> ks(c.ks_words, 0x5a5a5a5au);
    for (size_t len : refused) {
        EXPECT_FALSE(c.expand(key, len, ks.data())) << len;
        for (uint32_t v : ks) ASSERT_EQ(0x5a5a5a5au, v) << "ks written for length " << len;
    }
    for (size_t len : accepted) EXPECT_TRUE(c.expand(key, len, ks.data())) << len;
}

// Every length from lo to hi.
inline std::vector<size_t> lengths_from_to(size_t lo, size_t hi) {
    std::vector<size_t> l;
    for (size_t len = lo; len <= hi; ++len) l.push_back(len);
    return l;
}

// The core one block a call: the many-block path's reference where nothing else is.
inline Bytes one_block_at_a_time(const bc::BlockCipher& c, bool enc, const std::vector<uint32_t>& ks,
                                 const uint8_t* in, size_t n) {
    const size_t b = c.block_bytes;
    Bytes out(b * n);
    for (size_t i = 0; i < n; ++i) (enc ? c.encrypt : c.decrypt)(ks.data(), in + b * i, out.data() + b * i, 1);
    return out;
}

// The core's many-block calls over pt against want, pt's encryption by an independent
// reference: out of place with both buffers misaligned by offsets drawn from rng
// (nothing written outside the output), decryption out of place, then in place
// (misaligned) both ways. `what` names the case in failures.
inline void check_blocks(const bc::BlockCipher& c, const std::vector<uint32_t>& ks, const Bytes& pt,
                         const Bytes& want, std::mt19937& rng, const std::string& what) {
    const size_t len = pt.size(), n = len / c.block_bytes;
    ASSERT_EQ(len, want.size()) << what;

    // out of place, both buffers misaligned by different offsets
    const size_t oi = 1 + rng() % 7, oo = 1 + rng() % 7;
    Bytes inbuf(len + 8), outbuf(len + 8, 0xA5);
    std::memcpy(inbuf.data() + oi, pt.data(), len);
    c.encrypt(ks.data(), inbuf.data() + oi, outbuf.data() + oo, n);
    ASSERT_EQ(0, std::memcmp(want.data(), outbuf.data() + oo, len)) << what << " blocks " << n;
    for (size_t i = 0; i < oo; ++i) ASSERT_EQ(0xA5, outbuf[i]);
    for (size_t i = oo + len; i < outbuf.size(); ++i) ASSERT_EQ(0xA5, outbuf[i]) << "written past the end";

    // decryption, out of place
    Bytes dec(len + 3);
    c.decrypt(ks.data(), outbuf.data() + oo, dec.data() + 3, n);
    ASSERT_EQ(0, std::memcmp(pt.data(), dec.data() + 3, len)) << what << " blocks " << n;

    // in place, misaligned: encrypt then decrypt
    Bytes buf(len + 5);
    std::memcpy(buf.data() + 5, pt.data(), len);
    c.encrypt(ks.data(), buf.data() + 5, buf.data() + 5, n);
    ASSERT_EQ(0, std::memcmp(want.data(), buf.data() + 5, len)) << what << " blocks " << n;
    c.decrypt(ks.data(), buf.data() + 5, buf.data() + 5, n);
    ASSERT_EQ(0, std::memcmp(pt.data(), buf.data() + 5, len)) << what << " blocks " << n;
}

// Random keys of each length in key_lens, `trials` each; the first four trials 0, 32,
// 33 and 1 blocks (the batch's edges), then random counts up to 100: the many-block
// calls against the core one block a call, through check_blocks.
inline void multi_block_matches_single_blocks(const bc::BlockCipher& c, const std::vector<size_t>& key_lens,
                                              int trials, unsigned seed) {
    std::mt19937 rng(seed);
    for (size_t key_len : key_lens) {
        for (int trial = 0; trial < trials; ++trial) {
            uint8_t key[16];
            for (auto& k : key) k = static_cast<uint8_t>(rng());
            const std::vector<uint32_t> ks = expand(c, key, key_len);
            const size_t n = trial == 0 ? 0 : trial == 1 ? 32 : trial == 2 ? 33 : trial == 3 ? 1 : rng() % 101;
            Bytes pt(c.block_bytes * n);
            for (auto& b : pt) b = static_cast<uint8_t>(rng());
            const Bytes want = one_block_at_a_time(c, true, ks, pt.data(), n);
            ASSERT_EQ(pt, one_block_at_a_time(c, false, ks, want.data(), n)) << "key " << key_len << " blocks " << n;
            ASSERT_NO_FATAL_FAILURE(check_blocks(c, ks, pt, want, rng, "key " + std::to_string(key_len)));
        }
    }
}

// A bitsliced core's batch entry points (32 blocks in place, block j in w[2j] and
// w[2j + 1]) and the same core built with the dialect's plain paths.
struct BatchFns {
    void (*encrypt)(const uint32_t* ks, uint32_t* w);
    void (*decrypt)(const uint32_t* ks, uint32_t* w);
    void (*plain_encrypt)(const uint32_t* ks, uint32_t* w);
    void (*plain_decrypt)(const uint32_t* ks, uint32_t* w);
};

// One batch of `blocks` (32 blocks, 256 bytes) through both builds, which must agree,
// against want (the batch's encryption by a reference; empty: none to hand) and back.
inline void check_batch(const BatchFns& f, const std::vector<uint32_t>& ks, const uint8_t* blocks, const Bytes& want) {
    uint32_t w[64], p[64];
    for (int i = 0; i < 64; ++i) w[i] = bc_load_le32(blocks + 4 * i);
    std::memcpy(p, w, sizeof w);
    f.encrypt(ks.data(), w);
    f.plain_encrypt(ks.data(), p);
    ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
    if (!want.empty()) {
        for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(want.data() + 4 * i), w[i]) << i;
    }
    f.decrypt(ks.data(), w);
    f.plain_decrypt(ks.data(), p);
    ASSERT_EQ(0, std::memcmp(w, p, sizeof w));
    for (int i = 0; i < 64; ++i) ASSERT_EQ(bc_load_le32(blocks + 4 * i), w[i]) << i;
}

// ---- known answers ------------------------------------------------------------------------

struct Kat {
    std::string where;   // file:line of the record's last field
    Bytes key, pt, ct;
};

// The records of a "Name = value" vector file (NIST's and pyca's, Botan's .vec, evp_test
// stanzas): the hex values of the fields named key_field, pt_field and ct_field (any
// case), a record complete at its ct_field. Empty when the file is missing.
inline std::vector<Kat> read_kats(const std::string& rel_path, const std::string& key_field,
                                  const std::string& pt_field, const std::string& ct_field) {
    auto lower = [](std::string s) {
        for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return s;
    };
    std::ifstream f(vector_dir() + "/" + rel_path);
    std::vector<Kat> out;
    Kat cur;
    std::string line;
    for (int lineno = 1; std::getline(f, line); ++lineno) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        const size_t eq = line.find(" = ");
        if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
        const std::string name = lower(line.substr(0, eq)), value = line.substr(eq + 3);
        if (name == lower(key_field)) cur.key = from_hex(value);
        else if (name == lower(pt_field)) cur.pt = from_hex(value);
        else if (name == lower(ct_field)) {
            cur.ct = from_hex(value);
            cur.where = rel_path.substr(rel_path.rfind('/') + 1) + ":" + std::to_string(lineno);
            out.push_back(cur);
        }
    }
    return out;
}

// One-block known answer k through the core, both ways.
inline void check_kat(const bc::BlockCipher& c, const Kat& k) {
    ASSERT_EQ(c.block_bytes, k.pt.size()) << k.where;
    ASSERT_EQ(c.block_bytes, k.ct.size()) << k.where;
    const std::vector<uint32_t> ks = expand(c, k.key.data(), k.key.size());
    Bytes got(c.block_bytes);
    c.encrypt(ks.data(), k.pt.data(), got.data(), 1);
    ASSERT_EQ(k.ct, got) << k.where;
    c.decrypt(ks.data(), k.ct.data(), got.data(), 1);
    ASSERT_EQ(k.pt, got) << k.where;
}

// Each known answer alone, then at a random position of batches of 1, 31, 32, 33 and
// 70 blocks, the other blocks random, both directions, in place and out of place.
inline void kats_at_every_batch_position(const bc::BlockCipher& c, const std::vector<Kat>& kats, unsigned seed) {
    const size_t b = c.block_bytes;
    std::mt19937 rng(seed);
    for (const Kat& k : kats) {
        ASSERT_NO_FATAL_FAILURE(check_kat(c, k));
        const std::vector<uint32_t> ks = expand(c, k.key.data(), k.key.size());
        for (size_t n : {1u, 31u, 32u, 33u, 70u}) {
            const size_t pos = rng() % n;
            Bytes in(b * n + 3), out(b * n + 5);
            for (auto& x : in) x = static_cast<uint8_t>(rng());
            std::memcpy(in.data() + 3 + b * pos, k.pt.data(), b);
            c.encrypt(ks.data(), in.data() + 3, out.data() + 5, n);
            ASSERT_EQ(0, std::memcmp(k.ct.data(), out.data() + 5 + b * pos, b)) << k.where << " n " << n;
            c.decrypt(ks.data(), out.data() + 5, out.data() + 5, n);   // in place
            ASSERT_EQ(0, std::memcmp(in.data() + 3, out.data() + 5, b * n)) << k.where << " n " << n;
        }
    }
}

}  // namespace core_test
