#include "block_differential.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "evp.h"
#include "options.h"
#include "table.h"
#include "catalog/block_cipher.h"

namespace conf {

uint64_t differential_seed() {
    static const uint64_t s = [] {
        const char* e = std::getenv("BC_CONFORMANCE_SEED");
        const uint64_t v = e ? std::strtoull(e, nullptr, 0) : 20261122ull;
        std::printf("differential seed %llu (set BC_CONFORMANCE_SEED to change)\n", static_cast<unsigned long long>(v));
        return v;
    }();
    return s;
}

void DifferentialTest::SetUp() { failed_before_ = results().total_failed(); }

void DifferentialTest::TearDown() {
    EXPECT_EQ(results().total_failed(), failed_before_) << "failed cases: see the table";
}

std::string differential_id(const std::string& alg, size_t len, const std::string& extra) {
    return "differential " + alg + " len=" + std::to_string(len) + (extra.empty() ? "" : " " + extra) +
           " seed=" + std::to_string(differential_seed());
}

bool reference_ok(bool ok, const std::string& id, const std::string& alg, const std::string& err) {
    if (!ok) results().fail(RowKey{alg, "differential vs OpenSSL", "(reference)"}, id, "OpenSSL: " + err);
    return ok;
}

void run_with_reference(const Case& c, bool ok, const std::string& err) {
    if (!reference_ok(ok, c.id, c.alg, err)) return;
    set_current(c.id);
    run_case(c);
}

std::vector<size_t> edge_lengths(bool big, size_t block_bytes) {
    std::vector<size_t> l;
    if (block_bytes == 16) {
        l = {0, 1, 15, 16, 17, 31, 32, 33, 255 * 16 - 1, 255 * 16, 255 * 16 + 1};
    } else if (block_bytes == 8) {
        // The 64-bit cores take 32 blocks a batch: a batch (256 bytes) and nine (2304)
        // as well. 248, 2032 and 2296 are whole blocks just below an edge, where the
        // unpadded cases' lengths would otherwise thin out.
        l = {0, 1, 7, 8, 9, 15, 16, 17, 248, 255, 256, 257, 2032, 2039, 2040, 2041, 2296, 2303, 2304, 2305};
    } else {
        ADD_FAILURE() << "no edge lengths for blocks of " << block_bytes << " bytes";
    }
    if (big && !options().quick) l.push_back(4 * kMiB + 3);
    return l;
}

std::vector<size_t> with_random_lengths(std::vector<size_t> l, Rng& rng, int n, size_t max, size_t multiple) {
    for (int i = 0; i < n; ++i) {
        const size_t len = static_cast<size_t>(rng.below(max));
        l.push_back(len / multiple * multiple);
    }
    return l;
}

EcbFn openssl_ecb(const std::string& name) {
    return [name](const Bytes& key, const Bytes& in, Bytes* out, std::string* err) {
        return evp_cipher(name, true, key, {}, in, false, out, err);
    };
}

EcbFn portable_ecb(const std::string& cipher) {
    const bc::BlockCipher* core = bc::find_block_cipher(cipher.c_str());
    return [core, cipher](const Bytes& key, const Bytes& in, Bytes* out, std::string* err) {
        std::vector<uint32_t> ks(core ? core->ks_words : 0);
        if (!core || in.size() % core->block_bytes || !core->expand(key.data(), key.size(), ks.data())) {
            *err = "portable " + cipher + " core missing, or it refused the key or a partial block";
            return false;
        }
        out->assign(in.size(), 0);
        core->encrypt(ks.data(), in.data(), out->data(), in.size() / core->block_bytes);
        return true;
    };
}

bool ctr_from_ecb(const EcbFn& ecb, const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in,
                  Bytes* out, std::string* err) {
    const size_t block = iv.size();
    const uint64_t first = offset / block, last = (offset + in.size() + block - 1) / block;
    Bytes counters;
    for (uint64_t k = first; k < last; ++k) {
        Bytes ctr = iv;
        unsigned carry = 0;
        for (size_t i = block; i-- > 0;) {
            const size_t byte = block - 1 - i;   // from the least significant end
            const unsigned add = byte < 8 ? static_cast<unsigned>((k >> (8 * byte)) & 0xff) : 0;
            const unsigned v = ctr[i] + add + carry;
            ctr[i] = static_cast<uint8_t>(v);
            carry = v >> 8;
        }
        counters.insert(counters.end(), ctr.begin(), ctr.end());
    }
    Bytes ks;
    if (!counters.empty() && !ecb(key, counters, &ks, err)) return false;
    *out = in;
    for (size_t i = 0; i < in.size(); ++i) (*out)[i] ^= ks[offset % block + i];
    return true;
}

std::vector<const bc::Algorithm*> rows_of(const std::string& cipher, bc::Mode mode) {
    std::vector<const bc::Algorithm*> v;
    for (size_t i = 0; const bc::Algorithm* a = bc::algorithm_at(i); ++i)
        if (a->block && cipher == a->block->name && a->mode == mode && a->cipher != bc::Cipher::AES) v.push_back(a);
    return v;
}

EcbFn ecb_of(const std::string& cipher, size_t key_bytes) {
    for (const bc::Algorithm* a : rows_of(cipher, bc::Mode::ECB))
        if (a->key_size == key_bytes && a->openssl_name) return openssl_ecb(a->openssl_name);
    return nullptr;
}

namespace {

// ECB or CBC encryption (PKCS#7 padding when pad) composed from ecb, CBC one block a call.
bool ecb_cbc_from_ecb(const EcbFn& ecb, size_t block, bool cbc, const Bytes& key, const Bytes& iv, Bytes pt,
                      bool pad, Bytes* ct, std::string* err) {
    ct->clear();
    if (pad) pt.insert(pt.end(), block - pt.size() % block, static_cast<uint8_t>(block - pt.size() % block));
    if (pt.size() % block) {
        *err = "not whole blocks";
        return false;
    }
    if (!cbc) return ecb(key, pt, ct, err);
    Bytes chain = iv, blk(block), out;
    for (size_t i = 0; i < pt.size(); i += block) {
        for (size_t b = 0; b < block; ++b) blk[b] = pt[i + b] ^ chain[b];
        if (!ecb(key, blk, &out, err)) return false;
        ct->insert(ct->end(), out.begin(), out.end());
        chain = out;
    }
    return true;
}

// The reference CTR of a catalogue row from keystream offset `offset`: OpenSSL's own
// CTR where it has one, else CTR composed from the cipher's ECB (`ecb`, or OpenSSL's).
using CtrFn = std::function<bool(const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in, Bytes* out,
                                 std::string* err)>;
CtrFn ctr_reference(const bc::Algorithm& a, EcbFn ecb) {
    if (a.openssl_name) {
        const std::string name = a.openssl_name;
        return [name](const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in, Bytes* out,
                      std::string* err) {
            Bytes full(static_cast<size_t>(offset) + in.size(), 0), ks;
            std::copy(in.begin(), in.end(), full.begin() + static_cast<std::ptrdiff_t>(offset));
            if (!evp_cipher(name, true, key, iv, full, false, &ks, err)) return false;
            out->assign(ks.begin() + static_cast<std::ptrdiff_t>(offset), ks.end());
            return true;
        };
    }
    if (!ecb) ecb = ecb_of(a.block->name, a.key_size);
    return [ecb](const Bytes& key, const Bytes& iv, uint64_t offset, const Bytes& in, Bytes* out, std::string* err) {
        if (!ecb) {
            *err = "no ECB oracle";
            return false;
        }
        return ctr_from_ecb(ecb, key, iv, offset, in, out, err);
    };
}

std::vector<size_t> key_lengths_of(const bc::Algorithm& row, Rng& rng, const KeyLengthsFn& key_lengths) {
    return key_lengths ? key_lengths(row, rng) : std::vector<size_t>{row.key_size};
}

// A case's key length in its id where a row takes several.
std::string key_note(size_t key_len, const KeyLengthsFn& key_lengths) {
    return key_lengths ? "key=" + std::to_string(key_len) + "B " : "";
}

// Every CTR row of `cipher`; each case from keystream offset 0, or a random one.
void ctr_rows(const std::string& cipher, Rng& rng, bool with_big, bool random_offsets, const EcbFn& ecb,
              const KeyLengthsFn& key_lengths) {
    const std::vector<const bc::Algorithm*> rows = rows_of(cipher, bc::Mode::CTR);
    ASSERT_FALSE(rows.empty()) << cipher;
    size_t smallest = SIZE_MAX;
    for (const bc::Algorithm* a : rows) smallest = std::min(smallest, a->key_size);
    for (const bc::Algorithm* a : rows) {
        const CtrFn ctr = ctr_reference(*a, ecb);
        const bool with_4mib = !random_offsets;   // once a row is enough: from offset 0
        std::vector<size_t> lens = with_random_lengths(edge_lengths(with_4mib, a->block_size), rng, 4, 70000, 1);
        // The one 64 MiB case of the suite: the chunked and multi-threaded paths of
        // every backend past 2^22 blocks.
        if (with_big && a->key_size == smallest && !options().quick) lens.push_back(64 * kMiB + 5);
        const std::vector<size_t> keys = key_lengths_of(*a, rng, key_lengths);
        for (size_t i = 0; i < std::max(lens.size(), keys.size()); ++i) {
            Case c;
            c.alg = a->name;
            c.source = a->openssl_name ? "differential vs OpenSSL" : "differential vs ECB-built CTR";
            c.key = rng.bytes(keys[i % keys.size()]);
            c.iv = rng.bytes(a->block_size);
            c.pt = rng.bytes(lens[i % lens.size()]);
            if (random_offsets) c.offset = rng.below(uint64_t(1) << 20);
            c.id = differential_id(a->name, c.pt.size(),
                                   key_note(c.key.size(), key_lengths) + "iv=" + hex_encode(c.iv) +
                                       (random_offsets ? " offset=" + std::to_string(c.offset) : ""));
            std::string err;
            const bool ok = ctr(c.key, c.iv, c.offset, c.pt, &c.ct, &err);
            run_with_reference(c, ok, err);
        }
    }
}

}  // namespace

void block_ecb_cbc(const std::string& cipher, Rng& rng, bool with_big, const EcbFn& ecb,
                   const KeyLengthsFn& key_lengths) {
    for (bc::Mode mode : {bc::Mode::ECB, bc::Mode::CBC}) {
        const std::vector<const bc::Algorithm*> rows = rows_of(cipher, mode);
        ASSERT_FALSE(rows.empty()) << cipher;
        size_t largest = 0;
        for (const bc::Algorithm* a : rows) largest = std::max(largest, a->key_size);
        for (const bc::Algorithm* a : rows) {
            // Without a portable ECB, a row OpenSSL lacks would have no reference.
            if (!ecb) {
                ASSERT_NE(nullptr, a->openssl_name) << a->name;
            }
            const size_t block = a->block_size;
            for (bool pad : {false, true}) {
                const bool big = with_big && a->key_size == largest && pad && mode == bc::Mode::CBC;
                std::vector<size_t> lens;
                for (size_t len : with_random_lengths(edge_lengths(big, block), rng, 4, 70000, pad ? 1 : block))
                    if (pad || len % block == 0) lens.push_back(len);
                const std::vector<size_t> keys = key_lengths_of(*a, rng, key_lengths);
                for (size_t i = 0; i < std::max(lens.size(), keys.size()); ++i) {
                    Case c;
                    c.alg = a->name;
                    c.source = ecb ? "differential vs ECB/CBC composed over the portable core" : "differential vs OpenSSL";
                    c.key = rng.bytes(keys[i % keys.size()]);
                    if (mode == bc::Mode::CBC) c.iv = rng.bytes(block);
                    c.pt = rng.bytes(lens[i % lens.size()]);
                    c.flags = pad ? BC_FLAG_PAD_PKCS7 : 0;
                    c.id = differential_id(a->name, c.pt.size(),
                                           key_note(c.key.size(), key_lengths) + (pad ? "PKCS7" : "no padding"));
                    std::string err;
                    const bool ok =
                        ecb ? ecb_cbc_from_ecb(ecb, block, mode == bc::Mode::CBC, c.key, c.iv, c.pt, pad, &c.ct, &err)
                            : evp_cipher(a->openssl_name, true, c.key, c.iv, c.pt, pad, &c.ct, &err);
                    run_with_reference(c, ok, err);
                }
            }
        }
    }
}

void block_ctr(const std::string& cipher, Rng& rng, bool with_big, const EcbFn& ecb, const KeyLengthsFn& key_lengths) {
    ctr_rows(cipher, rng, with_big, /*random_offsets=*/false, ecb, key_lengths);
}

void block_ctr_at_random_offsets(const std::string& cipher, Rng& rng, const EcbFn& ecb,
                                 const KeyLengthsFn& key_lengths) {
    ctr_rows(cipher, rng, /*with_big=*/false, /*random_offsets=*/true, ecb, key_lengths);
}

void ctr_counter_edges(const std::string& alg, size_t key_len, Rng& rng, const EcbFn& ecb) {
    const bc::Algorithm* row = bc::find_algorithm(alg.c_str());
    ASSERT_NE(nullptr, row) << alg;
    const CtrFn ctr = ctr_reference(*row, ecb);
    const std::string source = row->openssl_name ? "counter edges vs OpenSSL"
                               : ecb             ? "counter edges vs ECB-built CTR"
                                                 : "counter edges vs OpenSSL ECB-built CTR";
    const size_t block = row->block_size, half = block / 2;
    const Bytes key = rng.bytes(key_len);
    auto check = [&](const Bytes& iv, size_t len, uint64_t offset, const std::string& what, bool overflow) {
        Case c;
        c.alg = alg;
        c.source = source;
        c.key = key;
        c.iv = iv;
        c.pt = rng.bytes(len);
        c.offset = offset;
        c.id = alg + " " + what + " iv=" + hex_encode(iv) + " offset=" + std::to_string(offset) +
               " len=" + std::to_string(len);
        if (!overflow) {
            std::string err;
            const bool ok = ctr(c.key, c.iv, offset, c.pt, &c.ct, &err);
            run_with_reference(c, ok, err);
            return;
        }
        c.expect = Expect::CounterOverflow;
        c.ct = c.pt;
        set_current(c.id);
        run_case(c);
    };
    // Carry: the counter's low half is all ones but for its last byte, 0xfd, so block 3
    // carries into the high half; the same through the offset (from block 2 on).
    Bytes carry = rng.bytes(half);
    for (size_t i = 0; i < half; ++i) carry.push_back(0xff);
    carry[block - 1] = 0xfd;
    const std::string low_carry = "low-" + std::to_string(4 * block) + "-bit carry";
    check(carry, 64 * block + 5, 0, low_carry, false);
    check(carry, 200, 2 * block + 5, low_carry + " via offset", false);
    // The top: three counter values left (..fd, ..fe, ..ff).
    Bytes top(block, 0xff);
    top[block - 1] = 0xfd;
    for (size_t len : {size_t(1), 3 * block - 1, 3 * block}) check(top, len, 0, "last counters", false);
    check(top, half, 2 * block + half, "last bytes via offset", false);
    const std::string past = "past 2^" + std::to_string(8 * block) + "-1";
    for (auto lo : {std::make_pair<size_t, uint64_t>(3 * block + 1, 0), std::make_pair<size_t, uint64_t>(1, 3 * block),
                    std::make_pair<size_t, uint64_t>(half + 1, 2 * block + half),
                    std::make_pair<size_t, uint64_t>(4096, 0)})
        check(top, lo.first, lo.second, past, true);
    // Offsets inside and across blocks from a random counter.
    check(rng.bytes(block), 300, 4097, "offset", false);
    check(rng.bytes(block), 31, block - 1, "offset", false);
    if (block != 8) return;
    // A 64-bit counter is the whole block: a carry out of its low byte must ripple
    // through every byte above it into the top one (through the length and the offset);
    // the first block's counter, iv + offset / 8, must carry out of the low half itself;
    // and the last block reached through the offset alone, used and overrun.
    const Bytes into_top = {0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0};
    const Bytes seven_bytes = {0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
    check(carry, 200, 4 * block + 5, low_carry + " before the first block", false);
    check(into_top, 40 * 8 + 3, 0, "carry into the top byte", false);
    check(into_top, 300, 15 * 8 + 3, "carry into the top byte via offset", false);
    check(seven_bytes, 33 * 8, 0, "carry through seven bytes", false);
    check(top, 8, 16, "last block via offset", false);
    check(top, 9, 16, past + " via offset and length", true);
}

void portable_core_block_by_block(const std::string& cipher, Rng& rng) {
    const bc::BlockCipher* core = bc::find_block_cipher(cipher.c_str());
    ASSERT_NE(nullptr, core) << cipher;
    const size_t block = core->block_bytes;
    for (const bc::Algorithm* row : rows_of(cipher, bc::Mode::ECB)) {
        for (size_t blocks : {size_t(1), size_t(31), size_t(32), size_t(33), size_t(77), size_t(200)}) {
            const Bytes key = rng.bytes(row->key_size), pt = rng.bytes(block * blocks);
            std::vector<uint32_t> ks(core->ks_words);
            ASSERT_TRUE(core->expand(key.data(), key.size(), ks.data())) << row->name;
            Bytes whole(pt.size()), one(block), back(pt.size());
            core->encrypt(ks.data(), pt.data(), whole.data(), blocks);
            for (size_t i = 0; i < pt.size(); i += block) {
                core->encrypt(ks.data(), &pt[i], one.data(), 1);
                ASSERT_EQ(hex_encode(one), hex_encode(&whole[i], block))
                    << row->name << ": " << blocks << " blocks, block " << i / block;
            }
            core->decrypt(ks.data(), whole.data(), back.data(), blocks);
            ASSERT_EQ(hex_encode(pt), hex_encode(back)) << row->name << ": " << blocks << " blocks";
        }
    }
}

}  // namespace conf
