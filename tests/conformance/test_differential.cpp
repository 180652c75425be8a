// Differential tests: random keys, IVs and data at the lengths that break
// implementations (0, 1, 15, 16, 17, 31, 32, 33, 255 blocks +/- 1, a few MiB),
// with the expected output computed by OpenSSL EVP directly, then run through
// the runner (every backend, one shot in place / apart / misaligned, streaming
// in random pieces, AEAD forms and negative re-opens). Ciphers OpenSSL lacks
// (Salsa20 family, XSalsa20, XChaCha20, ChaCha20 with a 64-bit counter) are
// checked against bulkcrypt's default CPU path, so every other backend and core
// variant must agree with it. bc_params.offset is checked against the same
// keystream computed from 0, and counter edges against OpenSSL. Camellia's and
// ARIA's ECB, CBC and CTR are checked against OpenSSL's camellia-* and aria-*;
// OpenSSL has XTS for neither, so their reference is IEEE 1619's construction
// written here over OpenSSL's ECB of the same cipher (checked itself against
// OpenSSL's AES-XTS over AES-ECB).
// SM4 likewise: ECB, CBC and CTR against OpenSSL's sm4-*, XTS over OpenSSL's SM4-ECB.
// SEED's ECB and CBC are checked against OpenSSL's (its legacy provider, loaded into
// the suite's own library context); OpenSSL has no SEED-CTR or SEED-XTS, so both are
// composed here from its SEED-ECB (the CTR oracle checked against AES-CTR).
// OpenSSL has no CLEFIA at all: its ECB, CBC, CTR and XTS are checked against those
// constructions composed over bulkcrypt's portable CLEFIA core, which RFC 6114's
// vectors check, so the oracle shares no code with bulkcrypt's modes.
// The block-mode helpers and composed oracles these share with the 64-bit block
// ciphers' files are in block_differential.*.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "block_differential.h"
#include "evp.h"
#include "options.h"
#include "runner.h"
#include "table.h"
#include "catalog/catalog.h"

namespace conf {
namespace {

class Diff : public DifferentialTest {};

// ---- block modes -------------------------------------------------------------------------------

TEST_F(Diff, EcbCbc) {
    Rng rng(differential_seed() ^ 1);
    for (const char* mode : {"ecb", "cbc"}) {
        for (int bits : {128, 192, 256}) {
            const std::string alg = "aes-" + std::to_string(bits) + "-" + mode;
            const std::string ossl = "AES-" + std::to_string(bits) + "-" + lower(mode);
            for (bool pad : {false, true}) {
                const bool big = bits == 128 && std::string(mode) == "cbc";
                for (size_t len : edge_lengths(big)) {
                    if (!pad && len % 16) continue;
                    Case c;
                    c.alg = alg;
                    c.source = "differential vs OpenSSL";
                    c.key = rng.bytes(bits / 8);
                    if (std::string(mode) == "cbc") c.iv = rng.bytes(16);
                    c.pt = rng.bytes(len);
                    c.flags = pad ? BC_FLAG_PAD_PKCS7 : 0;
                    c.id = differential_id(alg, len, pad ? "PKCS7" : "no padding");
                    std::string err;
                    if (!reference_ok(evp_cipher(ossl, true, c.key, c.iv, c.pt, pad, &c.ct, &err), c.id, alg, err))
                        continue;
                    set_current(c.id);
                    run_case(c);
                }
            }
        }
    }
}

// ---- CTR ------------------------------------------------------------------------------------------

TEST_F(Diff, Ctr) {
    Rng rng(differential_seed() ^ 2);
    for (int bits : {128, 192, 256}) {
        const std::string alg = "aes-" + std::to_string(bits) + "-ctr";
        const std::string ossl = "AES-" + std::to_string(bits) + "-CTR";
        for (size_t len : edge_lengths(bits == 128)) {
            Case c;
            c.alg = alg;
            c.source = "differential vs OpenSSL";
            c.key = rng.bytes(bits / 8);
            c.iv = rng.bytes(16);
            c.pt = rng.bytes(len);
            c.id = differential_id(alg, len, "iv=" + hex_encode(c.iv));
            std::string err;
            if (!reference_ok(evp_cipher(ossl, true, c.key, c.iv, c.pt, false, &c.ct, &err), c.id, alg, err)) continue;
            run_case(c);
        }
    }
}

// ---- oracles composed from a block cipher's ECB -----------------------------------------------

// The CTR oracle composed from ECB (block_differential.h), checked where OpenSSL has the
// real thing: over AES-128-ECB it must give OpenSSL's AES-128-CTR, at an offset and
// across a carry out of the low 64 bits.
TEST_F(Diff, CtrOracleFromEcbMatchesOpenSslAesCtr) {
    Rng rng(differential_seed() ^ 21);
    for (size_t len : {size_t(1), size_t(16), size_t(17), size_t(100), size_t(4111)}) {
        const Bytes key = rng.bytes(16), pt = rng.bytes(len);
        Bytes iv = rng.bytes(16);
        if (len == 100)
            for (int i = 8; i < 15; ++i) iv[i] = 0xff;
        Bytes want, got;
        std::string err;
        ASSERT_TRUE(evp_cipher("AES-128-CTR", true, key, iv, pt, false, &want, &err)) << err;
        ASSERT_TRUE(ctr_from_ecb(openssl_ecb("AES-128-ECB"), key, iv, 0, pt, &got, &err)) << err;
        EXPECT_EQ(hex_encode(got), hex_encode(want)) << "len " << len;
        if (len > 5) {
            const Bytes tail(pt.begin() + 5, pt.end());
            ASSERT_TRUE(ctr_from_ecb(openssl_ecb("AES-128-ECB"), key, iv, 5, tail, &got, &err)) << err;
            EXPECT_EQ(hex_encode(got), hex_encode(Bytes(want.begin() + 5, want.end()))) << "offset 5 len " << len;
        }
    }
}

// OpenSSL's spelling of a catalogue name ("camellia-128-ctr" -> "CAMELLIA-128-CTR").
std::string ossl_name(std::string alg) {
    for (char& ch : alg) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return alg;
}

// Counter edges: a carry out of the low 64 bits must propagate (OpenSSL
// increments all 128 bits); the last counter 2^128 - 1 may be used, one more
// block is BC_ERR_COUNTER_OVERFLOW, through the length and through the offset.
TEST_F(Diff, CtrCounterEdges) {
    Rng rng(differential_seed() ^ 3);
    ctr_counter_edges("aes-128-ctr", 16, rng);
}

// ---- XTS ------------------------------------------------------------------------------------------

// Adds k to a 16-byte little-endian tweak.
Bytes tweak_plus(Bytes t, uint64_t k) {
    unsigned carry = 0;
    for (size_t i = 0; i < 16; ++i) {
        unsigned v = t[i] + carry + (i < 8 ? static_cast<unsigned>((k >> (8 * i)) & 0xff) : 0);
        t[i] = static_cast<uint8_t>(v);
        carry = v >> 8;
    }
    return t;
}

TEST_F(Diff, Xts) {
    Rng rng(differential_seed() ^ 4);
    for (int bits : {128, 256}) {
        const std::string alg = "aes-" + std::to_string(bits) + "-xts";
        const std::string ossl = "AES-" + std::to_string(bits) + "-XTS";
        struct Shape {
            size_t len;
            uint64_t unit;
        };
        std::vector<Shape> shapes;
        for (size_t len : edge_lengths(false))
            if (len >= 16) shapes.push_back({len, 0});
        shapes.push_back({17 * 512, 512});          // 17 whole sectors
        shapes.push_back({9 * 512 + 100, 512});     // last unit short: ciphertext stealing
        shapes.push_back({8 * 4096, 4096});
        shapes.push_back({3 * 4096 + 4095, 4096});
        if (!options().quick && bits == 256) shapes.push_back({4 * kMiB, 4096});   // 1024 sectors
        for (const Shape& s : shapes) {
            Case c;
            c.alg = alg;
            c.source = s.unit ? "differential vs OpenSSL per unit" : "differential vs OpenSSL";
            c.key = rng.bytes(bits / 4);
            c.iv = rng.bytes(16);
            // Near a carry in the tweak's low byte for the multi-unit shapes.
            if (s.unit) c.iv[0] = 0xfe, c.iv[1] = 0xff;
            c.pt = rng.bytes(s.len);
            c.data_unit = s.unit;
            c.id = differential_id(alg, s.len, "data_unit=" + std::to_string(s.unit));
            const uint64_t unit = s.unit ? s.unit : s.len;
            bool ok = true;
            for (uint64_t k = 0, pos = 0; pos < s.len; ++k, pos += unit) {
                const size_t n = static_cast<size_t>(std::min<uint64_t>(unit, s.len - pos));
                Bytes piece(c.pt.begin() + static_cast<std::ptrdiff_t>(pos),
                            c.pt.begin() + static_cast<std::ptrdiff_t>(pos + n)),
                    out;
                std::string err;
                ok = reference_ok(evp_cipher(ossl, true, c.key, tweak_plus(c.iv, k), piece, false, &out, &err), c.id,
                                  alg, err);
                if (!ok) break;
                c.ct.insert(c.ct.end(), out.begin(), out.end());
            }
            if (ok) run_case(c);
        }
    }
}

// ---- Camellia and ARIA: ECB, CBC and CTR against OpenSSL's <cipher>-*; XTS against an XTS built from ----
// ---- OpenSSL's ECB of the same cipher                                                              ----

// block_ecb_cbc and block_ctr (block_differential.h) take every catalogue row of a cipher.

TEST_F(Diff, CamelliaEcbCbc) {
    Rng rng(differential_seed() ^ 11);
    block_ecb_cbc("camellia", rng, true);
}

TEST_F(Diff, CamelliaCtr) {
    Rng rng(differential_seed() ^ 12);
    block_ctr("camellia", rng, true);
}

// ARIA: the big cases are Camellia's alone (the paths they reach are the generic
// modes', the same for every cipher).
TEST_F(Diff, AriaEcbCbc) {
    Rng rng(differential_seed() ^ 16);
    block_ecb_cbc("aria", rng, false);
}

TEST_F(Diff, AriaCtr) {
    Rng rng(differential_seed() ^ 17);
    block_ctr("aria", rng, false);
}

// Carry out of the low 64 counter bits (through the length and the offset), the
// last counters below 2^128 and the refusal past them, as for AES.
TEST_F(Diff, CamelliaCtrCounterEdges) {
    Rng rng(differential_seed() ^ 13);
    ctr_counter_edges("camellia-128-ctr", 16, rng);
    ctr_counter_edges("camellia-256-ctr", 32, rng);
}

TEST_F(Diff, AriaCtrCounterEdges) {
    Rng rng(differential_seed() ^ 18);
    ctr_counter_edges("aria-128-ctr", 16, rng);
    ctr_counter_edges("aria-256-ctr", 32, rng);
}

// Multiplies an XTS tweak by alpha in GF(2^128), IEEE 1619's little-endian order.
void xts_mul_alpha(uint8_t t[16]) {
    unsigned carry = 0;
    for (int i = 0; i < 16; ++i) {
        const unsigned next = t[i] >> 7;
        t[i] = static_cast<uint8_t>(t[i] << 1 | carry);
        carry = next;
    }
    if (carry) t[0] ^= 0x87;
}

// One XTS data unit (at least one block) encrypted with nothing but a block
// cipher's ECB (OpenSSL's "CAMELLIA-128-ECB", ..., or a portable core): T = E_k2(tweak),
// C_j = E_k1(P_j ^ T_j) ^ T_j with T_{j+1} = T_j * alpha, and ciphertext
// stealing for a short last block (IEEE 1619-2007, 5.3.2).
bool xts_unit_from_ecb(const EcbFn& ecb, const Bytes& key, const Bytes& tweak, const Bytes& in, Bytes* out,
                       std::string* err) {
    const size_t half = key.size() / 2;
    const Bytes k1(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(half));
    const Bytes k2(key.begin() + static_cast<std::ptrdiff_t>(half), key.end());
    if (in.size() < 16) {
        *err = "XTS unit under one block";
        return false;
    }
    Bytes t;
    if (!ecb(k2, tweak, &t, err)) return false;
    const size_t full = in.size() / 16, rem = in.size() % 16;
    const size_t plain_blocks = rem ? full - 1 : full;   // blocks before the stealing pair
    Bytes x(plain_blocks * 16), tweaks(plain_blocks * 16), y;
    for (size_t j = 0; j < plain_blocks; ++j) {
        for (size_t b = 0; b < 16; ++b) {
            tweaks[16 * j + b] = t[b];
            x[16 * j + b] = in[16 * j + b] ^ t[b];
        }
        xts_mul_alpha(t.data());
    }
    if (!ecb(k1, x, &y, err)) return false;
    out->assign(in.size(), 0);
    for (size_t i = 0; i < y.size(); ++i) (*out)[i] = y[i] ^ tweaks[i];
    if (rem == 0) return true;
    // Stealing: block m-1 under T_{m-1} gives CC; its first rem bytes are the
    // short last block, and (P_m || CC[rem..]) under T_m becomes block m-1.
    const size_t at = plain_blocks * 16;
    Bytes t_next = t;
    xts_mul_alpha(t_next.data());
    Bytes blk(16), cc;
    for (size_t b = 0; b < 16; ++b) blk[b] = in[at + b] ^ t[b];
    if (!ecb(k1, blk, &cc, err)) return false;
    for (size_t b = 0; b < 16; ++b) cc[b] ^= t[b];
    Bytes pp(16), last;
    for (size_t b = 0; b < 16; ++b) pp[b] = (b < rem ? in[at + 16 + b] : cc[b]) ^ t_next[b];
    if (!ecb(k1, pp, &last, err)) return false;
    for (size_t b = 0; b < 16; ++b) (*out)[at + b] = last[b] ^ t_next[b];
    for (size_t b = 0; b < rem; ++b) (*out)[at + 16 + b] = cc[b];
    return true;
}

// A whole message of data units (unit 0 = one unit) by the composed oracle.
bool xts_from_ecb(const EcbFn& ecb, const Bytes& key, const Bytes& iv, const Bytes& pt, uint64_t unit,
                  Bytes* ct, std::string* err) {
    const uint64_t u = unit ? unit : pt.size();
    ct->clear();
    for (uint64_t k = 0, pos = 0; pos < pt.size(); ++k, pos += u) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(u, pt.size() - pos));
        Bytes piece(pt.begin() + static_cast<std::ptrdiff_t>(pos), pt.begin() + static_cast<std::ptrdiff_t>(pos + n)),
            out;
        if (!xts_unit_from_ecb(ecb, key, tweak_plus(iv, k), piece, &out, err)) return false;
        ct->insert(ct->end(), out.begin(), out.end());
    }
    return true;
}

// The composed oracle itself, checked where OpenSSL has the real thing: over
// AES-ECB it must give OpenSSL's AES-XTS, stealing included.

bool xts_from_ecb(const std::string& ecb, const Bytes& key, const Bytes& iv, const Bytes& pt, uint64_t unit,
                  Bytes* ct, std::string* err) {
    return xts_from_ecb(openssl_ecb(ecb), key, iv, pt, unit, ct, err);
}

TEST_F(Diff, XtsOracleFromEcbMatchesOpenSslAesXts) {
    Rng rng(differential_seed() ^ 14);
    for (int bits : {128, 256}) {
        for (size_t len : {size_t(16), size_t(17), size_t(31), size_t(32), size_t(33), size_t(100), size_t(4111)}) {
            const Bytes key = rng.bytes(bits / 4), iv = rng.bytes(16), pt = rng.bytes(len);
            Bytes want, got;
            std::string err;
            ASSERT_TRUE(evp_cipher("AES-" + std::to_string(bits) + "-XTS", true, key, iv, pt, false, &want, &err))
                << err;
            ASSERT_TRUE(xts_unit_from_ecb(openssl_ecb("AES-" + std::to_string(bits) + "-ECB"), key, iv, pt, &got, &err))
                << err;
            EXPECT_EQ(hex_encode(got), hex_encode(want)) << "AES-" << bits << " len " << len;
        }
    }
}

// XTS of a 128-bit block cipher against the oracle over OpenSSL's ECB of the same
// cipher; with_big: one 4 MiB case (non-quick only).
// XTS of a block cipher, every key size, against IEEE 1619's construction over its ECB
// (OpenSSL's of half the key, or `ecb`); with_big: one 4 MiB case of 4 KiB units on the
// largest key (non-quick only).
void block_xts(const std::string& cipher, Rng& rng, bool with_big, const EcbFn& ecb = nullptr) {
    const std::vector<const bc::Algorithm*> rows = rows_of(cipher, bc::Mode::XTS);
    ASSERT_FALSE(rows.empty()) << cipher;
    size_t largest = 0;
    for (const bc::Algorithm* a : rows) largest = std::max(largest, a->key_size);
    for (const bc::Algorithm* a : rows) {
        const EcbFn oracle = ecb ? ecb : ecb_of(cipher, a->key_size / 2);
        ASSERT_TRUE(oracle != nullptr) << a->name << ": no ECB to build XTS from";
        struct Shape {
            size_t len;
            uint64_t unit;
        };
        std::vector<Shape> shapes;
        for (size_t len : edge_lengths(false))
            if (len >= 16) shapes.push_back({len, 0});
        // Several units per call: whole units, and a short last unit (stealing in
        // every unit whose size is not whole blocks).
        for (uint64_t unit : {16, 17, 31, 32, 33, 100, 512, 1024, 4096, 4111, 4112}) {
            shapes.push_back({static_cast<size_t>(unit * 5), unit});
            if (unit > 16) shapes.push_back({static_cast<size_t>(unit * 3 + 16 + rng.below(unit - 16)), unit});
        }
        if (with_big && !options().quick && a->key_size == largest) shapes.push_back({4 * kMiB + 4096 + 21, 4096});
        for (size_t i = 0; i < shapes.size(); ++i) {
            const Shape& sh = shapes[i];
            Case c;
            c.alg = a->name;
            c.source = sh.unit ? "differential vs ECB-built XTS per unit" : "differential vs ECB-built XTS";
            c.key = rng.bytes(a->key_size);
            c.iv = rng.bytes(16);
            // Multi-unit shapes near tweak carries: in the low byte, or across the low 64 bits.
            if (sh.unit) {
                c.iv[0] = 0xfe;
                for (size_t b = 1; b < (i % 2 ? 8u : 2u); ++b) c.iv[b] = 0xff;
            }
            c.pt = rng.bytes(sh.len);
            c.data_unit = sh.unit;
            c.id = differential_id(a->name, sh.len, "data_unit=" + std::to_string(sh.unit) + " tweak=" + hex_encode(c.iv));
            std::string err;
            if (!reference_ok(xts_from_ecb(oracle, c.key, c.iv, c.pt, sh.unit, &c.ct, &err), c.id, a->name, err))
                continue;
            set_current(c.id);
            run_case(c);
        }
    }
}

TEST_F(Diff, CamelliaXts) {
    Rng rng(differential_seed() ^ 15);
    block_xts("camellia", rng, true);
}

TEST_F(Diff, AriaXts) {
    Rng rng(differential_seed() ^ 19);
    block_xts("aria", rng, false);
}

// ---- SM4: ECB, CBC and CTR against OpenSSL's sm4-*; XTS against an XTS built from its ECB ----
// (OpenSSL 3.0 has no SM4-XTS; later releases default to GB/T 17964's tweak order.)

TEST_F(Diff, Sm4EcbCbc) {
    Rng rng(differential_seed() ^ 31);
    block_ecb_cbc("sm4", rng, true);
}

TEST_F(Diff, Sm4Ctr) {
    Rng rng(differential_seed() ^ 32);
    block_ctr("sm4", rng, false);
}

TEST_F(Diff, Sm4CtrCounterEdges) {
    Rng rng(differential_seed() ^ 33);
    ctr_counter_edges("sm4-ctr", 16, rng);
}

TEST_F(Diff, Sm4Xts) {
    Rng rng(differential_seed() ^ 34);
    block_xts("sm4", rng, true);
}

// ---- SEED: ECB and CBC against OpenSSL's legacy SEED-*; CTR and XTS built from its ECB ----

TEST_F(Diff, SeedEcbCbc) {
    Rng rng(differential_seed() ^ 22);
    block_ecb_cbc("seed", rng, true);
}

// OpenSSL has no SEED-CTR: the reference is CTR composed from its SEED-ECB.
TEST_F(Diff, SeedCtr) {
    Rng rng(differential_seed() ^ 23);
    block_ctr("seed", rng, false);
}

TEST_F(Diff, SeedCtrCounterEdges) {
    Rng rng(differential_seed() ^ 24);
    ctr_counter_edges("seed-ctr", 16, rng);
}

TEST_F(Diff, SeedXts) {
    Rng rng(differential_seed() ^ 25);
    block_xts("seed", rng, true);
}

// ---- CLEFIA: ECB, CBC, CTR and XTS against constructions over the portable core ----

// The portable core itself against RFC 6114's vectors is in tests/unit and in the
// vector suite (clefia/rfc6114.txt); here its ECB must agree with itself one block at
// a time, so the oracle does not lean on the multi-block path it also tests.
TEST_F(Diff, ClefiaEcbOracleBlockByBlock) {
    Rng rng(differential_seed() ^ 21);
    portable_core_block_by_block("clefia", rng);
}

TEST_F(Diff, ClefiaEcbCbcCtr) {
    Rng rng(differential_seed() ^ 22);
    const EcbFn clefia = portable_ecb("clefia");
    block_ecb_cbc("clefia", rng, false, clefia);
    block_ctr("clefia", rng, false, clefia);
}

// Counter carries, the top of the counter range and offsets, over the portable CLEFIA.
TEST_F(Diff, ClefiaCtrCounterEdges) {
    Rng rng(differential_seed() ^ 23);
    ctr_counter_edges("clefia-128-ctr", 16, rng, portable_ecb("clefia"));
}

TEST_F(Diff, ClefiaXts) {
    Rng rng(differential_seed() ^ 24);
    block_xts("clefia", rng, false, portable_ecb("clefia"));
}

// ---- GCM ------------------------------------------------------------------------------------------

TEST_F(Diff, Gcm) {
    Rng rng(differential_seed() ^ 5);
    size_t tag_cycle = 0;
    for (int bits : {128, 192, 256}) {
        const std::string alg = "aes-" + std::to_string(bits) + "-gcm";
        const std::string ossl = "AES-" + std::to_string(bits) + "-GCM";
        for (size_t iv_len : {size_t(12), size_t(16), size_t(1)}) {
            for (size_t len : edge_lengths(bits == 256 && iv_len == 12)) {
                Case c;
                c.type = CaseType::Aead;
                c.alg = alg;
                c.source = "differential vs OpenSSL";
                c.key = rng.bytes(bits / 8);
                c.iv = rng.bytes(iv_len);
                c.aad = rng.bytes(rng.below(101));
                c.pt = rng.bytes(len);
                // SP 800-38D's sizes here; the other sizes the header allows are in GcmOddTagSizes.
                static const size_t kTags[] = {16, 4, 8, 12, 13, 14, 15};
                const size_t tag_len = kTags[tag_cycle++ % 7];
                c.id = differential_id(alg, len, "iv_len=" + std::to_string(iv_len) + " aad_len=" +
                                           std::to_string(c.aad.size()) + " tag_len=" + std::to_string(tag_len));
                std::string err;
                if (!reference_ok(evp_aead_seal(ossl, c.key, c.iv, c.aad, c.pt, tag_len, &c.ct, &c.tag, &err), c.id,
                                  alg, err))
                    continue;
                run_case(c);
            }
        }
    }
}

// The header says "GCM accepts 4..16"; SP 800-38D names only 4, 8 and 12..16.
// The sizes in between get their own row so that a disagreement between the
// header and the implementation shows apart from real GCM faults.
TEST_F(Diff, GcmOddTagSizes) {
    Rng rng(differential_seed() ^ 10);
    for (int bits : {128, 256}) {
        const std::string alg = "aes-" + std::to_string(bits) + "-gcm";
        const std::string ossl = "AES-" + std::to_string(bits) + "-GCM";
        for (size_t tag_len : {5, 6, 7, 9, 10, 11}) {
            Case c;
            c.type = CaseType::Aead;
            c.alg = alg;
            c.source = "differential vs OpenSSL, tag 5-7/9-11 bytes";
            c.key = rng.bytes(bits / 8);
            c.iv = rng.bytes(12);
            c.aad = rng.bytes(rng.below(40));
            c.pt = rng.bytes(rng.below(100));
            c.id = differential_id(alg, c.pt.size(), "tag_len=" + std::to_string(tag_len) + " (the header allows 4..16)");
            std::string err;
            if (reference_ok(evp_aead_seal(ossl, c.key, c.iv, c.aad, c.pt, tag_len, &c.ct, &c.tag, &err), c.id, alg,
                             err))
                run_case(c);
        }
    }
}

// ---- GCM over the other 16-byte block ciphers ----------------------------------------------------

// GCM (SP 800-38D) composed here from OpenSSL's ECB of a block cipher (ecb: "SM4-ECB"),
// with GHASH's multiply written bit by bit (the standard's algorithm 1): the oracle for
// the ciphers whose GCM OpenSSL 3.0 lacks, sharing no code with bulkcrypt's GCM.
void gf128_mul_bitwise(uint8_t x[16], const uint8_t y[16]) {
    uint8_t z[16] = {0}, v[16];
    std::memcpy(v, y, 16);
    for (int i = 0; i < 128; ++i) {
        if ((x[i / 8] >> (7 - i % 8)) & 1)
            for (int j = 0; j < 16; ++j) z[j] ^= v[j];
        const bool lsb = v[15] & 1;
        for (int j = 15; j > 0; --j) v[j] = static_cast<uint8_t>((v[j] >> 1) | (v[j - 1] << 7));
        v[0] >>= 1;
        if (lsb) v[0] ^= 0xe1;
    }
    std::memcpy(x, z, 16);
}

void ghash_bitwise(const uint8_t h[16], const Bytes& data, uint8_t y[16]) {
    for (size_t at = 0; at < data.size(); at += 16) {
        for (size_t j = 0; j < 16 && at + j < data.size(); ++j) y[j] ^= data[at + j];
        gf128_mul_bitwise(y, h);
    }
}

Bytes be64_bits(uint64_t bytes_a, uint64_t bytes_b) {
    Bytes b(16);
    for (int i = 0; i < 8; ++i) {
        b[i] = static_cast<uint8_t>((8 * bytes_a) >> (56 - 8 * i));
        b[8 + i] = static_cast<uint8_t>((8 * bytes_b) >> (56 - 8 * i));
    }
    return b;
}

bool gcm_from_ecb(const std::string& ecb, const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& pt,
                  size_t tag_len, Bytes* ct, Bytes* tag, std::string* err) {
    Bytes h;
    if (!evp_cipher(ecb, true, key, {}, Bytes(16, 0), false, &h, err)) return false;
    uint8_t j0[16] = {0};
    if (iv.size() == 12) {
        std::memcpy(j0, iv.data(), 12);
        j0[15] = 1;
    } else {
        Bytes s = iv;
        s.resize((iv.size() + 15) / 16 * 16, 0);
        const Bytes len = be64_bits(0, iv.size());
        s.insert(s.end(), len.begin(), len.end());
        ghash_bitwise(h.data(), s, j0);
    }
    // Counter blocks inc32(J0, i), i = 0 (the tag's) .. n.
    const size_t n = (pt.size() + 15) / 16;
    Bytes counters;
    for (size_t i = 0; i <= n; ++i) {
        uint8_t c[16];
        std::memcpy(c, j0, 16);
        uint32_t lo = (uint32_t(c[12]) << 24 | uint32_t(c[13]) << 16 | uint32_t(c[14]) << 8 | c[15]) + uint32_t(i);
        for (int q = 0; q < 4; ++q) c[12 + q] = static_cast<uint8_t>(lo >> (24 - 8 * q));
        counters.insert(counters.end(), c, c + 16);
    }
    Bytes ks;
    if (!evp_cipher(ecb, true, key, {}, counters, false, &ks, err)) return false;
    *ct = pt;
    for (size_t i = 0; i < pt.size(); ++i) (*ct)[i] ^= ks[16 + i];
    Bytes s = aad;
    s.resize((aad.size() + 15) / 16 * 16, 0);
    Bytes c2 = *ct;
    c2.resize((ct->size() + 15) / 16 * 16, 0);
    s.insert(s.end(), c2.begin(), c2.end());
    const Bytes len = be64_bits(aad.size(), ct->size());
    s.insert(s.end(), len.begin(), len.end());
    uint8_t y[16] = {0};
    ghash_bitwise(h.data(), s, y);
    tag->assign(tag_len, 0);
    for (size_t i = 0; i < tag_len; ++i) (*tag)[i] = y[i] ^ ks[i];
    return true;
}

// The composed oracle against OpenSSL's AES-GCM itself: nonces of 12, 1 and 16 bytes,
// AAD and data of odd lengths, short tags.
TEST_F(Diff, GcmOracleFromEcbMatchesOpenSslAesGcm) {
    Rng rng(differential_seed() ^ 41);
    for (size_t iv_len : {size_t(12), size_t(1), size_t(16)})
        for (size_t len : {size_t(0), size_t(1), size_t(16), size_t(33), size_t(1000)}) {
            const Bytes key = rng.bytes(16), iv = rng.bytes(iv_len), aad = rng.bytes(rng.below(40)), pt = rng.bytes(len);
            Bytes want_ct, want_tag, ct, tag;
            std::string err;
            ASSERT_TRUE(evp_aead_seal("AES-128-GCM", key, iv, aad, pt, 12, &want_ct, &want_tag, &err)) << err;
            ASSERT_TRUE(gcm_from_ecb("AES-128-ECB", key, iv, aad, pt, 12, &ct, &tag, &err)) << err;
            EXPECT_EQ(hex_encode(ct), hex_encode(want_ct)) << "iv_len " << iv_len << " len " << len;
            EXPECT_EQ(hex_encode(tag), hex_encode(want_tag)) << "iv_len " << iv_len << " len " << len;
        }
}

// Every GCM row but AES's: against OpenSSL's GCM of the cipher where it has one (ARIA),
// else GCM composed from OpenSSL's ECB of the cipher (SM4, SEED).
TEST_F(Diff, GcmOtherCiphers) {
    Rng rng(differential_seed() ^ 42);
    for (size_t i = 0; const char* name = bc_algorithm_name(i); ++i) {
        const std::string alg = name;
        bc_algorithm_info info;
        if (alg.size() < 4 || alg.compare(alg.size() - 4, 4, "-gcm") != 0 || alg.rfind("aes-", 0) == 0) continue;
        if (bc_algorithm_query(name, &info) != BC_OK) continue;
        // The same cipher's ECB row: "sm4-gcm" -> "sm4-ecb", "aria-128-gcm" -> "aria-128-ecb",
        // "seed-128-gcm" -> "seed-ecb" (a cipher of one key size names its ECB without it).
        std::string ecb_alg = alg.substr(0, alg.size() - 3) + "ecb";
        bc_algorithm_info ecb_info;
        if (bc_algorithm_query(ecb_alg.c_str(), &ecb_info) != BC_OK) {
            const size_t dash = alg.find('-');
            ecb_alg = alg.substr(0, dash) + "-ecb";
        }
        const std::string ecb = ossl_name(ecb_alg);
        const std::string gcm = ossl_name(alg);
        EVP_CIPHER* native = EVP_CIPHER_fetch(nullptr, gcm.c_str(), nullptr);
        EVP_CIPHER_free(native);
        for (size_t len : with_random_lengths(edge_lengths(false), rng, 4, 70000, 1)) {
            Case c;
            c.type = CaseType::Aead;
            c.alg = alg;
            c.source = native ? "differential vs OpenSSL" : "differential vs GCM built from OpenSSL's ECB";
            c.key = rng.bytes(info.key_size);
            c.iv = rng.bytes(len % 3 == 0 ? 12 : len % 3 == 1 ? 16 : 1);
            c.aad = rng.bytes(rng.below(101));
            c.pt = rng.bytes(len);
            const size_t tag_len = len % 2 ? 16 : 12;
            c.id = differential_id(alg, len, "iv_len=" + std::to_string(c.iv.size()) + " aad_len=" +
                                       std::to_string(c.aad.size()) + " tag_len=" + std::to_string(tag_len));
            std::string err;
            const bool ok = native ? evp_aead_seal(gcm, c.key, c.iv, c.aad, c.pt, tag_len, &c.ct, &c.tag, &err)
                                   : gcm_from_ecb(ecb, c.key, c.iv, c.aad, c.pt, tag_len, &c.ct, &c.tag, &err);
            if (!reference_ok(ok, c.id, alg, err)) continue;
            run_case(c);
        }
    }
}

// ---- ChaCha20 and ChaCha20-Poly1305 ------------------------------------------------------------------

TEST_F(Diff, ChaCha) {
    Rng rng(differential_seed() ^ 6);
    for (size_t len : edge_lengths(true)) {
        Case c;
        c.alg = "chacha20";
        c.source = "differential vs OpenSSL";
        c.key = rng.bytes(32);
        c.iv = rng.bytes(16);
        c.iv[3] = 0;   // counter below 2^24: no 32-bit wrap within 4 MiB
        c.pt = rng.bytes(len);
        c.id = differential_id(c.alg, len, "iv=" + hex_encode(c.iv));
        std::string err;
        if (reference_ok(evp_cipher("ChaCha20", true, c.key, c.iv, c.pt, false, &c.ct, &err), c.id, c.alg, err))
            run_case(c);
    }
    for (size_t len : edge_lengths(true)) {
        Case c;
        c.type = CaseType::Aead;
        c.alg = "chacha20-poly1305";
        c.source = "differential vs OpenSSL";
        c.key = rng.bytes(32);
        c.iv = rng.bytes(12);
        c.aad = rng.bytes(rng.below(101));
        c.pt = rng.bytes(len);
        c.id = differential_id(c.alg, len, "aad_len=" + std::to_string(c.aad.size()));
        std::string err;
        if (reference_ok(evp_aead_seal("ChaCha20-Poly1305", c.key, c.iv, c.aad, c.pt, 16, &c.ct, &c.tag, &err), c.id,
                         c.alg, err))
            run_case(c);
    }
}

// ChaCha20 (OpenSSL's 16-byte IV) near its 32-bit block counter's end: the last
// counter value may be used; one more block is refused (the catalogue: "its
// 32-bit counter must not wrap"), where OpenSSL would carry into the nonce.
TEST_F(Diff, ChaChaCounterEdges) {
    Rng rng(differential_seed() ^ 7);
    Case base;
    base.alg = "chacha20";
    base.source = "counter edges vs OpenSSL";
    base.key = rng.bytes(32);
    base.iv = rng.bytes(16);
    base.iv[0] = 0xfe, base.iv[1] = base.iv[2] = base.iv[3] = 0xff;   // counter 2^32 - 2
    for (size_t len : {size_t(1), size_t(127), size_t(128)}) {
        Case c = base;
        c.pt = rng.bytes(len);
        c.id = "chacha20 last counters iv=" + hex_encode(c.iv) + " len=" + std::to_string(len);
        std::string err;
        if (reference_ok(evp_cipher("ChaCha20", true, c.key, c.iv, c.pt, false, &c.ct, &err), c.id, c.alg, err))
            run_case(c);
    }
    Case c = base;
    c.pt = rng.bytes(129);
    c.ct = c.pt;
    c.expect = Expect::CounterOverflow;
    c.id = "chacha20 past the 32-bit counter iv=" + hex_encode(c.iv) + " len=129";
    run_case(c);
}

// ---- no OpenSSL: every backend against bulkcrypt's default CPU path ------------------------------------

TEST_F(Diff, AgainstCpuDefault) {
    bc_context* ref = nullptr;
    ASSERT_EQ(bc_context_create("cpu", nullptr, &ref), BC_OK) << bc_last_error();
    Rng rng(differential_seed() ^ 8);
    struct Alg {
        const char* name;
        size_t key, iv;
    };
    const Alg algs[] = {{"salsa20", 32, 8},     {"salsa20-128", 16, 8}, {"salsa20-12", 32, 8},
                        {"salsa20-8", 32, 8},   {"xsalsa20", 32, 24},   {"xchacha20", 32, 24},
                        {"chacha20-djb", 32, 8}, {"xchacha20-poly1305", 32, 24}};
    for (const Alg& a : algs) {
        const bool aead = std::strstr(a.name, "poly1305") != nullptr;
        for (size_t len : edge_lengths(std::strcmp(a.name, "salsa20") == 0)) {
            Case c;
            c.type = aead ? CaseType::Aead : CaseType::Raw;
            c.alg = a.name;
            c.source = "differential vs bulkcrypt cpu (no OpenSSL)";
            c.key = rng.bytes(a.key);
            c.iv = rng.bytes(a.iv);
            c.pt = rng.bytes(len);
            c.id = differential_id(a.name, len, "");
            bc_key* k = nullptr;
            bc_status st = bc_key_create(ref, a.name, c.key.data(), c.key.size(), &k);
            if (st != BC_OK) {
                results().fail(RowKey{a.name, c.source, "(reference)"}, c.id,
                               "bc_key_create on the reference cpu context: " + status_name(st));
                break;
            }
            Bytes out(len + 32);
            size_t n = 0;
            if (aead) {
                c.aad = rng.bytes(rng.below(101));
                st = bc_aead_seal(k, c.iv.data(), c.iv.size(), c.aad.data(), c.aad.size(), c.pt.data(), len,
                                  out.data(), out.size(), &n, 16, nullptr);
                if (st == BC_OK && n == len + 16) {
                    c.ct.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(len));
                    c.tag.assign(out.begin() + static_cast<std::ptrdiff_t>(len),
                                 out.begin() + static_cast<std::ptrdiff_t>(len + 16));
                }
            } else {
                st = bc_encrypt(k, c.iv.data(), c.iv.size(), c.pt.data(), len, out.data(), out.size(), &n, nullptr);
                if (st == BC_OK) c.ct.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
            }
            bc_key_destroy(k);
            if (st != BC_OK) {
                results().fail(RowKey{a.name, c.source, "(reference)"}, c.id,
                               "reference encryption: " + status_name(st));
                continue;
            }
            run_case(c);
        }
    }
    bc_context_destroy(ref);
}

// ---- bc_params.offset: any keystream byte, against the keystream from 0 ---------------------------------

TEST_F(Diff, OffsetAgainstKeystreamFromZero) {
    bc_context* ref = nullptr;
    ASSERT_EQ(bc_context_create("cpu", nullptr, &ref), BC_OK) << bc_last_error();
    Rng rng(differential_seed() ^ 9);
    struct Alg {
        const char* name;
        size_t key, iv;
    };
    const Alg algs[] = {{"aes-128-ctr", 16, 16},      {"aes-256-ctr", 32, 16},      {"camellia-128-ctr", 16, 16},
                        {"camellia-192-ctr", 24, 16}, {"camellia-256-ctr", 32, 16}, {"aria-128-ctr", 16, 16},
                        {"aria-256-ctr", 32, 16},     {"sm4-ctr", 16, 16},          {"chacha20", 32, 16},
                        {"chacha20-djb", 32, 8}, {"salsa20", 32, 8},      {"salsa20-12", 32, 8},
                        {"salsa20-8", 32, 8},    {"xsalsa20", 32, 24},    {"xchacha20", 32, 24}};
    const uint64_t offsets[] = {1, 15, 16, 17, 63, 64, 65, 1000, 4097, 65536 + 7};
    for (const Alg& a : algs) {
        for (uint64_t off : offsets) {
            const size_t len = 1 + rng.below(300);
            Case c;
            c.alg = a.name;
            c.source = "offset vs keystream from 0";
            c.key = rng.bytes(a.key);
            c.iv = rng.bytes(a.iv);
            if (std::strcmp(a.name, "chacha20") == 0) c.iv[3] = 0;
            c.pt = rng.bytes(len);
            c.offset = off;
            c.id = "offset " + std::string(a.name) + " offset=" + std::to_string(off) + " len=" + std::to_string(len) +
                   " seed=" + std::to_string(differential_seed());
            // The keystream from byte 0, by OpenSSL where it has the cipher.
            Bytes zeros(off + len, 0), ks;
            std::string err;
            bool ok;
            if (std::strstr(a.name, "-ctr") != nullptr) {
                ok = evp_cipher(ossl_name(a.name), true, c.key, c.iv, zeros, false, &ks, &err);
            } else if (std::strcmp(a.name, "chacha20") == 0) {
                ok = evp_cipher("ChaCha20", true, c.key, c.iv, zeros, false, &ks, &err);
            } else {
                bc_key* k = nullptr;
                bc_status st = bc_key_create(ref, a.name, c.key.data(), c.key.size(), &k);
                ks.assign(zeros.size(), 0);
                size_t n = 0;
                if (st == BC_OK)
                    st = bc_encrypt(k, c.iv.data(), c.iv.size(), zeros.data(), zeros.size(), ks.data(), ks.size(), &n,
                                    nullptr);
                bc_key_destroy(k);
                ok = st == BC_OK;
                err = "bulkcrypt cpu reference: " + status_name(st);
            }
            if (!reference_ok(ok, c.id, a.name, err)) continue;
            c.ct = c.pt;
            for (size_t i = 0; i < len; ++i) c.ct[i] ^= ks[off + i];
            run_case(c);
        }
    }
    bc_context_destroy(ref);
}

}  // namespace
}  // namespace conf
