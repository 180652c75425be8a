// Differential tests of the 64-bit block ciphers of variable key length, Blowfish
// (bf-*) and CAST5 (cast5-*), against OpenSSL's BF-* and CAST5-* (its legacy
// provider, loaded into the suite's own library context by evp.cpp), through the
// block-mode helpers of block_differential.h: random keys of every length the catalogue
// takes (CAST5's 12/16-round boundary at 10/11 bytes included), random data at the
// lengths that break implementations and at random ones, ECB and CBC with and without
// PKCS#7, each case through the runner (every backend; one shot in place, apart and
// misaligned; streaming in random pieces). OpenSSL has no BF-CTR or CAST5-CTR: the
// reference is CTR composed from its ECB of the same cipher, the whole 8-byte block one
// big-endian counter (checked here against an independent per-block computation), at
// keystream offsets, across counter carries, up to the last counter below 2^64 and past
// it (refused). What is theirs alone: the key lengths tried, the rows' key ranges, keys
// outside them refused.
#include <algorithm>
#include <string>
#include <vector>

#include "block_differential.h"
#include "evp.h"

namespace conf {
namespace {

class DiffBfCast5 : public DifferentialTest {};

const char* const kCiphers[] = {"bf", "cast5"};

bc_algorithm_info info_of(const std::string& alg) {
    bc_algorithm_info info{};
    EXPECT_EQ(BC_OK, bc_algorithm_query(alg.c_str(), &info)) << alg;
    return info;
}

// Key lengths to try: both ends of the row's range, the default, CAST5's round-count
// edge (10 -> 12 rounds, 11 -> 16), a few odd ones, and two random ones in the range.
std::vector<size_t> key_lengths(const bc::Algorithm& row, Rng& rng) {
    const size_t lo = bc::key_min_bytes(row), hi = bc::key_max_bytes(row);
    std::vector<size_t> l;
    for (size_t k : {lo, lo + 1, size_t(7), size_t(8), size_t(10), size_t(11), size_t(13), row.key_size, size_t(17),
                     size_t(33), hi - 1, hi})
        if (k >= lo && k <= hi && std::find(l.begin(), l.end(), k) == l.end()) l.push_back(k);
    for (int i = 0; i < 2; ++i) l.push_back(lo + static_cast<size_t>(rng.below(hi - lo + 1)));
    return l;
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

// ---- ECB and CBC against OpenSSL's, CTR against CTR composed from its ECB ----

// The big message (outside --quick): CBC with padding.
TEST_F(DiffBfCast5, EcbCbc) {
    Rng rng(differential_seed() ^ 0xbf01);
    for (const char* cipher : kCiphers) block_ecb_cbc(cipher, rng, true, nullptr, key_lengths);
}

// The composed oracle against a per-block computation that shares nothing with it but
// OpenSSL's ECB: the counter block incremented bytewise with carries, one block a call.
TEST_F(DiffBfCast5, CtrOracleMatchesPerBlockCounters) {
    Rng rng(differential_seed() ^ 0xbf02);
    for (const char* cipher : kCiphers) {
        const std::string ecb = std::string(cipher) == "bf" ? "BF-ECB" : "CAST5-ECB";
        for (size_t len : {size_t(1), size_t(8), size_t(9), size_t(100), size_t(777)}) {
            for (uint64_t offset : {uint64_t(0), uint64_t(3), uint64_t(8), uint64_t(21)}) {
                const Bytes key = rng.bytes(cipher[0] == 'b' ? 23 : 11), pt = rng.bytes(len);
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
                ASSERT_TRUE(ctr_from_ecb(openssl_ecb(ecb), key, iv, offset, pt, &got, &err)) << err;
                EXPECT_EQ(hex_encode(want), hex_encode(got)) << ecb << " len " << len << " offset " << offset;
            }
        }
    }
}

TEST_F(DiffBfCast5, Ctr) {
    Rng rng(differential_seed() ^ 0xbf03);
    for (const char* cipher : kCiphers) {
        block_ctr(cipher, rng, false, nullptr, key_lengths);
        block_ctr_at_random_offsets(cipher, rng, nullptr, key_lengths);
    }
}

// Odd key lengths; CAST5's at 12 rounds.
TEST_F(DiffBfCast5, CtrCounterEdges) {
    Rng rng(differential_seed() ^ 0xbf04);
    ctr_counter_edges("bf-ctr", 7, rng);
    ctr_counter_edges("cast5-ctr", 10, rng);
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
