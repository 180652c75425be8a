// What the differential tests (test_differential*.cpp) share: the seed, the lengths
// that break block-mode implementations, references composed from a block cipher's
// ECB (OpenSSL's, or bulkcrypt's portable core where OpenSSL lacks the cipher), and
// helpers that put every catalogue row of a block cipher, 8- or 16-byte blocks, through
// the runner against them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner.h"
#include "catalog/catalog.h"

namespace conf {

constexpr size_t kMiB = 1024 * 1024;

// BC_CONFORMANCE_SEED or the suite's default, printed once: one value reproduces every
// differential case of every file.
uint64_t differential_seed();

// Fails a test when the table's failures grew while it ran.
class DifferentialTest : public testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    size_t failed_before_ = 0;
};

// "differential <alg> len=<len> <extra> seed=<seed>": a failed case's id.
std::string differential_id(const std::string& alg, size_t len, const std::string& extra);

// Records a refused reference as a failure of its own row (never silently).
bool reference_ok(bool ok, const std::string& id, const std::string& alg, const std::string& err);

// Runs c on every backend once its expected output is in: ok says whether the
// reference gave it, err why not.
void run_with_reference(const Case& c, bool ok, const std::string& err);

// The lengths around one and two blocks and 255 blocks of block_bytes (8 or 16); for
// 8-byte blocks also around a batch of 32 blocks and nine batches, with the whole
// blocks just below each edge. big: 4 MiB + 3 too (non-quick only).
std::vector<size_t> edge_lengths(bool big, size_t block_bytes = 16);

// l and n random lengths below max, rounded down to multiples of `multiple` (1: any).
std::vector<size_t> with_random_lengths(std::vector<size_t> l, Rng& rng, int n, size_t max, size_t multiple);

// ECB encryption of whole blocks under a key: what the composed references are built on.
using EcbFn = std::function<bool(const Bytes& key, const Bytes& in, Bytes* out, std::string* err)>;

// OpenSSL's ECB by its EVP name ("SEED-ECB" comes from the legacy provider).
EcbFn openssl_ecb(const std::string& name);

// bulkcrypt's portable core of catalogue block cipher `cipher` ("misty1"), one call
// for all blocks: the reference for ciphers OpenSSL lacks. The vector suite and
// tests/unit check each core against published vectors.
EcbFn portable_ecb(const std::string& cipher);

// CTR composed from a block cipher's ECB: keystream block k is E(iv + k), the whole
// block (iv.size() bytes) one big-endian counter, wrapping at its width, for the bytes
// from keystream offset `offset` on.
bool ctr_from_ecb(const EcbFn& ecb, const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in,
                  Bytes* out, std::string* err);

// The catalogue's rows over block cipher `cipher` in `mode`, every key size (AES's are
// left to test_differential.cpp's own tests).
std::vector<const bc::Algorithm*> rows_of(const std::string& cipher, bc::Mode mode);

// OpenSSL's ECB of `cipher` for keys of key_bytes (the catalogue's ECB row names it),
// nullptr when OpenSSL has none.
EcbFn ecb_of(const std::string& cipher, size_t key_bytes);

// The key lengths to cycle through a row's cases, for a cipher of variable key length;
// unset, every case takes the row's key_size.
using KeyLengthsFn = std::function<std::vector<size_t>(const bc::Algorithm& row, Rng& rng)>;

// In the helpers below `ecb` is the reference's block function where OpenSSL lacks the
// cipher (portable_ecb); unset, the references are OpenSSL's.

// ECB and CBC, with and without PKCS#7, every key size, at the edge lengths and random
// ones up to 70000 bytes. with_big: one 4 MiB + 3 CBC case on the largest key
// (non-quick only).
void block_ecb_cbc(const std::string& cipher, Rng& rng, bool with_big, const EcbFn& ecb = nullptr,
                   const KeyLengthsFn& key_lengths = nullptr);

// CTR from keystream offset 0, every key size, at the edge lengths (4 MiB + 3 among them
// outside --quick) and random ones. with_big: one 64 MiB case on the smallest key
// (non-quick only).
void block_ctr(const std::string& cipher, Rng& rng, bool with_big, const EcbFn& ecb = nullptr,
               const KeyLengthsFn& key_lengths = nullptr);

// CTR again at the edge and random lengths, each from a random keystream offset below
// 2^20.
void block_ctr_at_random_offsets(const std::string& cipher, Rng& rng, const EcbFn& ecb = nullptr,
                                 const KeyLengthsFn& key_lengths = nullptr);

// Counter edges of CTR row `alg` under one key of key_len bytes: a carry out of the
// counter's low half (through the length and the offset), the last counters below
// 2^(8 * block) and the refusal past them (BC_ERR_COUNTER_OVERFLOW, through the length
// and the offset), offsets inside and across blocks; for an 8-byte block also carries
// rippling into its top byte.
void ctr_counter_edges(const std::string& alg, size_t key_len, Rng& rng, const EcbFn& ecb = nullptr);

// The portable core's many-block calls against its one-block calls, and decryption
// back, over 1 to 200 blocks under a key of each size of its ECB rows: a reference
// built on the core must not lean on the batching it also tests.
void portable_core_block_by_block(const std::string& cipher, Rng& rng);

}  // namespace conf
