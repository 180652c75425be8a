// The stream-cipher family on the CPU: published vectors (read from
// tests/vectors), differential tests against OpenSSL's ChaCha20 and against the
// portable cores block by block, at random lengths, offsets and pool sizes.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "backends/cpu/cpu_stream.h"
#include "cores/chacha/chacha.h"
#include "cores/chacha/stream_state.h"
#include "cores/salsa/salsa.h"
#include "catalog/catalog.h"
#include "test_stream_util.h"

using namespace bc_test_stream;

namespace {

bc::ThreadPool& pool1() { static bc::ThreadPool p(1); return p; }
bc::ThreadPool& pool4() { static bc::ThreadPool p(4); return p; }

// Runs cpu_stream_cipher for alg (by value, so tests may change its rounds).
bc::Status run(const bc::Algorithm& alg, const Bytes& key, const Bytes& iv, uint64_t offset,
               const Bytes& in, Bytes* out, bool portable, bc::ThreadPool& pool) {
    bc::KeyMaterial km;
    km.alg = &alg;
    km.raw = bc::SecureBytes(key.data(), key.size());
    out->assign(in.size(), 0);
    bc::CipherOp op;
    op.iv = iv.data();
    op.iv_len = iv.size();
    op.in = in.data();
    op.out = out->data();
    op.len = in.size();
    op.offset = offset;
    return bc::cpu_stream_cipher(km, op, portable, pool);
}

bc::Algorithm alg_with_rounds(const char* name, int rounds) {
    const bc::Algorithm* a = bc::find_algorithm(name);
    EXPECT_NE(a, nullptr) << name;
    bc::Algorithm copy = *a;
    copy.rounds = rounds;
    return copy;
}

Bytes le32_counter_iv(uint32_t ctr, const Bytes& nonce12) {
    Bytes iv(4);
    for (int i = 0; i < 4; ++i) iv[i] = uint8_t(ctr >> (8 * i));
    iv.insert(iv.end(), nonce12.begin(), nonce12.end());
    return iv;
}
Bytes le64_counter_iv(uint64_t ctr, const Bytes& nonce8) {
    Bytes iv(8);
    for (int i = 0; i < 8; ++i) iv[i] = uint8_t(ctr >> (8 * i));
    iv.insert(iv.end(), nonce8.begin(), nonce8.end());
    return iv;
}

}  // namespace

TEST(StreamCatalogue, Entries) {
    const char* names[] = {"chacha20", "chacha20-djb", "xchacha20", "salsa20", "salsa20-128", "salsa20-12",
                           "salsa20-8", "xsalsa20", "chacha20-poly1305", "xchacha20-poly1305"};
    for (const char* n : names) {
        const bc::Algorithm* a = bc::find_algorithm(n);
        ASSERT_NE(a, nullptr) << n;
        EXPECT_EQ(a->block_size, 1u) << n;
    }
    EXPECT_EQ(bc::find_algorithm("chacha20")->max_message, uint64_t(1) << 38);
    EXPECT_EQ(bc::find_algorithm("chacha20-poly1305")->max_message, ((uint64_t(1) << 32) - 1) * 64);
    EXPECT_EQ(bc::find_algorithm("salsa20-12")->rounds, 12);
    EXPECT_EQ(bc::find_algorithm("chacha20-poly1305")->mode, bc::Mode::ChaChaPoly);
    EXPECT_TRUE(bc::stream_is_chacha_ietf(*bc::find_algorithm("chacha20")));
    EXPECT_FALSE(bc::stream_is_chacha_ietf(*bc::find_algorithm("chacha20-djb")));
}

// RFC 7539/8439 A.2 in OpenSSL's 16-byte IV layout (pyca rfc7539.txt), EVP and portable.
TEST(StreamVectors, Rfc8439ChaCha20) {
    std::string text;
    ASSERT_TRUE(read_text("pyca-cryptography/ciphers/ChaCha20/rfc7539.txt", &text));
    auto recs = parse_nist(text);
    ASSERT_EQ(recs.size(), 3u);
    const bc::Algorithm* alg = bc::find_algorithm("chacha20");
    for (const auto& r : recs) {
        Bytes iv = le32_counter_iv((uint32_t)std::stoull(r.get("INITIAL_BLOCK_COUNTER")), hex(r.get("NONCE")));
        for (bool portable : {false, true}) {
            Bytes out;
            ASSERT_TRUE(run(*alg, hex(r.get("KEY")), iv, 0, hex(r.get("PLAINTEXT")), &out, portable, pool1()).is_ok());
            EXPECT_EQ(to_hex(out), to_hex(hex(r.get("CIPHERTEXT")))) << "COUNT " << r.get("COUNT") << " portable " << portable;
        }
    }
}

// The same vectors in the 64/64 layout, and pyca's counter-overflow file: the
// 64-bit counter carries across 2^32; a request that would pass 2^64 - 1 is refused.
TEST(StreamVectors, ChaCha20OriginalLayoutAndCounterOverflow) {
    const bc::Algorithm* alg = bc::find_algorithm("chacha20-djb");
    int checked = 0, refused = 0;
    for (const char* f : {"pyca-cryptography-2b46371/ciphers/ChaCha20/rfc7539.txt",
                          "pyca-cryptography-2b46371/ciphers/ChaCha20/counter-overflow.txt"}) {
        std::string text;
        ASSERT_TRUE(read_text(f, &text)) << f;
        for (const auto& r : parse_nist(text)) {
            uint64_t ctr = std::stoull(r.get("INITIAL_BLOCK_COUNTER"));
            Bytes pt = hex(r.get("PLAINTEXT"));
            Bytes iv = le64_counter_iv(ctr, hex(r.get("NONCE")));
            Bytes out;
            bc::Status s = run(*alg, hex(r.get("KEY")), iv, 0, pt, &out, true, pool1());
            uint64_t blocks = (pt.size() + 63) / 64;
            if (blocks && ctr > UINT64_MAX - (blocks - 1)) {
                EXPECT_EQ(s.code, BC_ERR_COUNTER_OVERFLOW) << f << " COUNT " << r.get("COUNT");
                ++refused;
                // The part before the wrap still matches.
                uint64_t ok_bytes = (UINT64_MAX - ctr + 1) * 64;
                Bytes head(pt.begin(), pt.begin() + ok_bytes);
                ASSERT_TRUE(run(*alg, hex(r.get("KEY")), iv, 0, head, &out, true, pool1()).is_ok());
                EXPECT_EQ(to_hex(out), to_hex(hex(r.get("CIPHERTEXT"))).substr(0, 2 * ok_bytes));
                continue;
            }
            ASSERT_TRUE(s.is_ok()) << s.detail;
            EXPECT_EQ(to_hex(out), to_hex(hex(r.get("CIPHERTEXT")))) << f << " COUNT " << r.get("COUNT");
            ++checked;
        }
    }
    EXPECT_GE(checked, 8);
    EXPECT_GE(refused, 1);
}

TEST(StreamVectors, ChaCha20IetfCounterWrapRefused) {
    const bc::Algorithm* alg = bc::find_algorithm("chacha20");
    Bytes key(32, 7), nonce(12, 9), out;
    Bytes iv = le32_counter_iv(0xffffffffu, nonce);
    EXPECT_TRUE(run(*alg, key, iv, 0, Bytes(64), &out, false, pool1()).is_ok());
    EXPECT_EQ(run(*alg, key, iv, 0, Bytes(65), &out, false, pool1()).code, BC_ERR_COUNTER_OVERFLOW);
    EXPECT_EQ(run(*alg, key, iv, 64, Bytes(1), &out, true, pool1()).code, BC_ERR_COUNTER_OVERFLOW);
    Bytes iv0 = le32_counter_iv(0, nonce);
    EXPECT_TRUE(run(*alg, key, iv0, (uint64_t(1) << 38) - 10, Bytes(10), &out, false, pool1()).is_ok());
    EXPECT_EQ(run(*alg, key, iv0, (uint64_t(1) << 38) - 10, Bytes(11), &out, false, pool1()).code,
              BC_ERR_COUNTER_OVERFLOW);
    EXPECT_EQ(run(*alg, key, Bytes(12), 0, Bytes(1), &out, false, pool1()).code, BC_ERR_IV_SIZE);
}

// Botan chacha.vec: ChaCha(8/12/20), 16/32-byte keys, 8-, 12- and 24-byte nonces, seeks to 2^38.
TEST(StreamVectors, BotanChaCha) {
    std::string text;
    ASSERT_TRUE(read_text("botan/src/tests/data/stream/chacha.vec", &text));
    auto recs = parse_botan_vec(text);
    ASSERT_GT(recs.size(), 100u);
    size_t n = 0;
    for (const auto& r : recs) {
        int rounds = std::stoi(r.section.substr(r.section.find('(') + 1));
        Bytes key = hex(r.get("Key")), nonce = hex(r.get("Nonce")), expect = hex(r.get("Out"));
        Bytes in = r.has("In") ? hex(r.get("In")) : Bytes(expect.size(), 0);
        uint64_t seek = r.has("Seek") ? std::stoull(r.get("Seek")) : 0;
        bc::Algorithm alg;
        Bytes iv;
        if (nonce.size() == 12) {
            alg = alg_with_rounds("chacha20", rounds);
            iv = le32_counter_iv(0, nonce);
        } else if (nonce.size() == 24) {
            alg = alg_with_rounds("xchacha20", rounds);
            iv = nonce;
        } else {
            alg = alg_with_rounds("chacha20-djb", rounds);
            iv = nonce.empty() ? Bytes(8, 0) : nonce;
        }
        for (bool portable : {true, false}) {
            Bytes out;
            bc::Status s = run(alg, key, iv, seek, in, &out, portable, pool4());
            ASSERT_TRUE(s.is_ok()) << s.detail;
            EXPECT_EQ(to_hex(out), to_hex(expect)) << r.section << " key " << r.get("Key") << " seek " << seek;
        }
        ++n;
    }
    EXPECT_EQ(n, 109u);
}

// Botan salsa20.vec: Salsa20/20, 16/32-byte keys, XSalsa20, seeks.
TEST(StreamVectors, BotanSalsa20) {
    std::string text;
    ASSERT_TRUE(read_text("botan/src/tests/data/stream/salsa20.vec", &text));
    auto recs = parse_botan_vec(text);
    size_t n = 0;
    for (const auto& r : recs) {
        Bytes key = hex(r.get("Key")), nonce = hex(r.get("Nonce")), expect = hex(r.get("Out"));
        Bytes in = r.has("In") ? hex(r.get("In")) : Bytes(expect.size(), 0);
        uint64_t seek = r.has("Seek") ? std::stoull(r.get("Seek")) : 0;
        const bc::Algorithm* alg =
            bc::find_algorithm(nonce.size() == 24 ? "xsalsa20" : key.size() == 16 ? "salsa20-128" : "salsa20");
        Bytes iv = nonce.empty() ? Bytes(8, 0) : nonce;
        Bytes out;
        bc::Status s = run(*alg, key, iv, seek, in, &out, false, pool4());
        ASSERT_TRUE(s.is_ok()) << s.detail;
        EXPECT_EQ(to_hex(out), to_hex(expect)) << "key " << r.get("Key") << " seek " << seek;
        ++n;
    }
    EXPECT_EQ(n, 17u);
}

// The complete eSTREAM Salsa20/20 verified vectors: every slice and the xor-digest.
TEST(StreamVectors, EstreamSalsa20) {
    std::string text;
    ASSERT_TRUE(read_text("tinycrypt/stream/salsa/doc/salsa20-full-verified.test-vectors.txt", &text));
    std::vector<std::string> ls = lines(text);
    struct Vec { Bytes key, iv; std::vector<std::pair<std::pair<uint64_t, uint64_t>, Bytes>> slices; Bytes digest; };
    std::vector<Vec> vecs;
    std::string field;  // the field a continuation line belongs to
    for (const std::string& raw : ls) {
        std::string l = trim(raw);
        if (l.rfind("Set ", 0) == 0 && l.find("vector#") != std::string::npos) { vecs.emplace_back(); field.clear(); continue; }
        if (vecs.empty()) continue;
        Vec& v = vecs.back();
        size_t eq = l.find('=');
        std::string value = l;
        if (eq != std::string::npos) {
            field = trim(l.substr(0, eq));
            value = l.substr(eq + 1);
            if (field.rfind("stream[", 0) == 0) {
                uint64_t a = std::stoull(field.substr(7)), b = std::stoull(field.substr(field.find("..") + 2));
                v.slices.push_back({{a, b}, Bytes()});
            }
        } else if (l.empty()) {
            field.clear();
            continue;
        }
        Bytes h = hex(value);
        if (field == "key") v.key.insert(v.key.end(), h.begin(), h.end());
        else if (field == "IV") v.iv.insert(v.iv.end(), h.begin(), h.end());
        else if (field.rfind("stream[", 0) == 0) v.slices.back().second.insert(v.slices.back().second.end(), h.begin(), h.end());
        else if (field == "xor-digest") v.digest.insert(v.digest.end(), h.begin(), h.end());
    }
    ASSERT_EQ(vecs.size(), 192u);
    size_t slices = 0;
    for (const Vec& v : vecs) {
        ASSERT_TRUE(v.key.size() == 16 || v.key.size() == 32);
        const bc::Algorithm* alg = bc::find_algorithm(v.key.size() == 16 ? "salsa20-128" : "salsa20");
        uint64_t total = 0;
        for (auto& s : v.slices) total = std::max(total, s.first.second + 1);
        total = total <= 512 ? 512 : 131072;
        Bytes ks;
        ASSERT_TRUE(run(*alg, v.key, v.iv, 0, Bytes(total, 0), &ks, false, pool4()).is_ok());
        for (auto& s : v.slices) {
            Bytes got(ks.begin() + s.first.first, ks.begin() + s.first.second + 1);
            EXPECT_EQ(to_hex(got), to_hex(s.second)) << "key " << to_hex(v.key) << " slice " << s.first.first;
            // The same slice asked for on its own, at its offset.
            Bytes alone;
            ASSERT_TRUE(run(*alg, v.key, v.iv, s.first.first, Bytes(s.second.size(), 0), &alone, false, pool1()).is_ok());
            EXPECT_EQ(alone, s.second);
            ++slices;
        }
        Bytes dig(64, 0);
        for (size_t i = 0; i < ks.size(); ++i) dig[i % 64] ^= ks[i];
        EXPECT_EQ(to_hex(dig), to_hex(v.digest)) << "key " << to_hex(v.key);
    }
    EXPECT_EQ(slices, 768u);
}

// Crypto++ salsa.txt: the Salsa20/12 and Salsa20/8 eSTREAM slices and the 20-round
// tests whose 64-bit counter crosses 2^32 (Seek64).
TEST(StreamVectors, CryptoppSalsaReducedRounds) {
    std::string text;
    ASSERT_TRUE(read_text("cryptopp/TestVectors/salsa.txt", &text));
    std::vector<std::string> ls = lines(text);
    // Join continuation lines (trailing backslash).
    std::vector<std::string> joined;
    std::string acc;
    for (const std::string& raw : ls) {
        std::string l = trim(raw);
        if (!l.empty() && l.back() == '\\') { acc += l.substr(0, l.size() - 1) + " "; continue; }
        joined.push_back(acc + l);
        acc.clear();
    }
    auto value_bytes = [](const std::string& v) {
        std::string t = trim(v);
        if (!t.empty() && t[0] == 'r') {  // "rN XX": N copies of byte XX
            size_t sp = t.find(' ');
            size_t n = std::stoull(t.substr(1, sp - 1));
            Bytes b = hex(t.substr(sp + 1));
            return Bytes(n, b.empty() ? 0 : b[0]);
        }
        return hex(t);
    };
    std::map<std::string, std::string> f;
    size_t checked_reduced = 0, checked_seek64 = 0;
    for (const std::string& l : joined) {
        if (l.empty() || l[0] == '#') continue;
        size_t c = l.find(':');
        if (c == std::string::npos) continue;
        std::string k = trim(l.substr(0, c)), v = trim(l.substr(c + 1));
        if (k == "AlgorithmType") { f.clear(); }
        if (k != "Test") { f[k] = v; continue; }
        if (v != "Encrypt" || f["Name"] != "Salsa20") continue;
        int rounds = f.count("Rounds") ? std::stoi(f["Rounds"]) : 20;
        Bytes key = value_bytes(f["Key"]), iv = value_bytes(f["IV"]);
        Bytes pt = value_bytes(f["Plaintext"]), ct = value_bytes(f["Ciphertext"]);
        uint64_t seek = 0;
        bool s64 = f.count("Seek64") != 0;
        if (s64) seek = std::stoull(f["Seek64"], nullptr, 16);
        else if (f.count("Seek")) seek = std::stoull(f["Seek"]);
        if (iv.size() != 8 || (rounds == 20 && !s64)) continue;
        bc::Algorithm alg = alg_with_rounds(key.size() == 16 ? "salsa20-128" : "salsa20", rounds);
        Bytes out;
        ASSERT_TRUE(run(alg, key, iv, seek, pt, &out, false, pool4()).is_ok());
        EXPECT_EQ(to_hex(out), to_hex(ct)) << "rounds " << rounds << " seek " << seek;
        if (s64) ++checked_seek64; else ++checked_reduced;
    }
    EXPECT_EQ(checked_reduced, 4u);
    EXPECT_EQ(checked_seek64, 3u);
}

// The core's offset XOR against single blocks, for every family member.
TEST(StreamCores, OffsetXorMatchesBlocks) {
    std::mt19937_64 rng(11);
    for (int family = 0; family < 3; ++family) {
        for (int rounds : {8, 12, 20}) {
            Bytes key = random_bytes(rng, 32), nonce = random_bytes(rng, 12);
            uint32_t st[16];
            int layout = family == 0 ? BC_CHACHA_LAYOUT_IETF : BC_CHACHA_LAYOUT_DJB;
            if (family < 2) {
                bc_chacha_set_key(st, key.data(), 32);
                if (family == 0) bc_chacha_set_ietf(st, 5, nonce.data());
                else bc_chacha_set_djb(st, 0xfffffffeull, nonce.data());  // crosses 2^32 below
            } else {
                bc_salsa_set_key(st, key.data(), 32);
                bc_salsa_set_nonce(st, nonce.data(), 0xfffffffeull);
            }
            Bytes ks(64 * 8);
            for (int b = 0; b < 8; ++b) {
                if (family < 2) bc_chacha_keystream_block(st, layout, rounds, b, ks.data() + 64 * b);
                else bc_salsa_keystream_block(st, rounds, b, ks.data() + 64 * b);
            }
            for (int t = 0; t < 200; ++t) {
                uint64_t off = rng() % 400, len = rng() % (ks.size() - off + 1);
                Bytes in = random_bytes(rng, len), out(len);
                if (family < 2) bc_chacha_xor_g(st, layout, rounds, off, in.data(), out.data(), len);
                else bc_salsa_xor_g(st, rounds, off, in.data(), out.data(), len);
                for (size_t i = 0; i < len; ++i) ASSERT_EQ(out[i], uint8_t(in[i] ^ ks[off + i]));
            }
        }
    }
}

// ChaCha20: portable path against EVP at random lengths and offsets, 1 and 4 threads, in place too.
TEST(StreamDifferential, ChaCha20AgainstOpenSsl) {
    std::mt19937_64 rng(12);
    const bc::Algorithm* alg = bc::find_algorithm("chacha20");
    EVP_CIPHER* evp = EVP_CIPHER_fetch(nullptr, "ChaCha20", nullptr);
    ASSERT_NE(evp, nullptr);
    std::vector<size_t> lens = {0, 1, 15, 16, 17, 63, 64, 65, 1000, 65536, 65537, 300000, 3 * 1024 * 1024 + 5};
    for (int t = 0; t < 40; ++t) lens.push_back(rng() % 200000);
    for (size_t len : lens) {
        Bytes key = random_bytes(rng, 32), nonce = random_bytes(rng, 12);
        uint32_t ctr = uint32_t(rng() % 1000);
        uint64_t off = rng() % 5000;
        Bytes iv = le32_counter_iv(ctr, nonce), in = random_bytes(rng, len);
        // Reference: OpenSSL from block 0 of the IV, skipping off bytes.
        Bytes ref(off + len), zeros(off + len, 0), full(off + len);
        std::memcpy(zeros.data() + off, in.data(), len);
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        int outl = 0;
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx, evp, key.data(), iv.data(), nullptr), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx, full.data(), &outl, zeros.data(), (int)zeros.size()), 1);
        EVP_CIPHER_CTX_free(ctx);
        Bytes expect(full.begin() + off, full.end());
        for (bool portable : {true, false}) {
            for (bc::ThreadPool* p : {&pool1(), &pool4()}) {
                Bytes out;
                ASSERT_TRUE(run(*alg, key, iv, off, in, &out, portable, *p).is_ok());
                ASSERT_EQ(out, expect) << "len " << len << " off " << off << " portable " << portable;
            }
        }
        // In place.
        Bytes buf = in;
        bc::KeyMaterial km;
        km.alg = alg;
        km.raw = bc::SecureBytes(key.data(), key.size());
        bc::CipherOp op;
        op.iv = iv.data(); op.iv_len = 16; op.in = buf.data(); op.out = buf.data(); op.len = len; op.offset = off;
        ASSERT_TRUE(bc::cpu_stream_cipher(km, op, true, pool4()).is_ok());
        ASSERT_EQ(buf, expect);
    }
    EVP_CIPHER_free(evp);
}

// Salsa20, XSalsa20, XChaCha20, original ChaCha20: any split into pieces at any
// offsets, any pool size, equals one sequential pass of the portable core.
TEST(StreamDifferential, PiecesEqualWhole) {
    std::mt19937_64 rng(13);
    const char* names[] = {"salsa20", "salsa20-128", "salsa20-12", "salsa20-8", "xsalsa20", "xchacha20", "chacha20-djb"};
    for (const char* name : names) {
        const bc::Algorithm* alg = bc::find_algorithm(name);
        ASSERT_NE(alg, nullptr);
        for (int t = 0; t < 6; ++t) {
            size_t len = t == 0 ? 2 * 1024 * 1024 + 33 : rng() % 300000;
            Bytes key = random_bytes(rng, alg->key_size), iv = random_bytes(rng, alg->iv_size);
            Bytes in = random_bytes(rng, len);
            Bytes whole;
            ASSERT_TRUE(run(*alg, key, iv, 0, in, &whole, true, pool1()).is_ok());
            // Reference by the block function directly for the first 200 bytes.
            bc::StreamState st;
            ASSERT_TRUE(bc::make_stream_state(*alg, key.data(), key.size(), iv.data(), iv.size(), &st).is_ok());
            for (size_t i = 0; i < std::min<size_t>(len, 200); i += 64) {
                uint8_t blk[64];
                if (st.family == bc::StreamFamily::ChaCha) bc_chacha_keystream_block(st.base, st.layout, st.rounds, i / 64, blk);
                else bc_salsa_keystream_block(st.base, st.rounds, i / 64, blk);
                for (size_t j = i; j < std::min(len, i + 64); ++j) ASSERT_EQ(whole[j], uint8_t(in[j] ^ blk[j - i]));
            }
            // Random pieces on 4 threads.
            Bytes pieces(len);
            size_t pos = 0;
            while (pos < len) {
                size_t n = std::min(len - pos, size_t(rng() % 100000));
                Bytes part(in.begin() + pos, in.begin() + pos + n), out;
                ASSERT_TRUE(run(*alg, key, iv, pos, part, &out, true, pool4()).is_ok());
                std::memcpy(pieces.data() + pos, out.data(), n);
                pos += n;
            }
            ASSERT_EQ(pieces, whole) << name << " len " << len;
        }
    }
}

namespace {
// A ChaCha20-Poly1305 body piece with the MAC key r = bytes 0..15 of `r`, into *out / partial.
bc::Status chachapoly_piece(const Bytes& key, const Bytes& ctr, const Bytes& r, const Bytes& in, Bytes* out,
                            uint8_t partial[32], bc::ThreadPool& pool) {
    bc::KeyMaterial km;
    km.alg = bc::find_algorithm("chacha20-poly1305");
    km.raw = bc::SecureBytes(key.data(), key.size());
    out->assign(in.size(), 0);
    bc::AeadChunkOp op;
    std::memcpy(op.ctr, ctr.data(), 16);
    op.mac_key = r.data();
    op.in = in.data();
    op.out = out->data();
    op.len = in.size();
    bc::Status s = bc::cpu_chachapoly_chunk(km, op, false, pool);
    std::memcpy(partial, op.partial, 32);
    return s;
}
}  // namespace

// The pool's share (ThreadPool::share) moves while other large calls come and go. A call
// must size its tasks once: on 2026-11-22 a ChaCha20-Poly1305 piece sized its partial
// MACs with one share and ran with another (heap corruption on the 16-core H100 host).
// Here another thread flips the share all the time while pieces run.
TEST(StreamDifferential, ChaChaPolyPieceWhileThePoolShareMoves) {
    static bc::ThreadPool pool8(8);
    std::mt19937_64 rng(21);
    Bytes key = random_bytes(rng, 32), ctr = random_bytes(rng, 16), r = random_bytes(rng, 16),
          in = random_bytes(rng, (size_t(2) << 20) + 300);
    ctr[0] = 0;  // the 32-bit block counter starts low: no wrap
    ctr[1] = ctr[2] = ctr[3] = 0;
    Bytes want, got;
    uint8_t want_p[32], got_p[32];
    ASSERT_TRUE(chachapoly_piece(key, ctr, r, in, &want, want_p, pool1()).is_ok());
    std::atomic<bool> stop{false};
    std::thread flipper([&] {
        while (!stop.load()) {
            bc::ThreadPool::Caller a(pool8, true), b(pool8, true), c(pool8, true);  // share 8 -> 4 -> 2
        }
    });
    int bad = 0;
    for (int i = 0; i < 200 && bad == 0; ++i) {
        bc::ThreadPool::Caller me(pool8, true);
        if (!chachapoly_piece(key, ctr, r, in, &got, got_p, pool8).is_ok() || got != want ||
            std::memcmp(got_p, want_p, 32) != 0)
            ++bad;
    }
    stop = true;
    flipper.join();
    EXPECT_EQ(0, bad);
}
