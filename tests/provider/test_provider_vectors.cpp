// OpenSSL's own cipher test data (evpciph_*.txt, the files evp_test reads) through EVP with
// each cipher fetched from bulkcrypt's provider: every stanza whose cipher the provider
// offers, in one update and again in random update sizes (evp_test's split runs), both on
// bulkcrypt's own path (threshold 0) and under the shipped settings (OpenSSL's cipher
// below the threshold). Stanzas that expect a failure fail at the same step. Every AEAD
// stanza that opens is re-opened with a changed tag, ciphertext and AAD, which must fail.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../conformance/common.h"
#include "../conformance/parsers.h"
#include "provider_env.h"

namespace {

using bcp::Bytes;
using bcp::Feed;
using bcp::Message;
using bcp::Outcome;
using bcp::ProviderEnv;

constexpr const char* kDir = "openssl/test/recipes/30-test_evp_data/";

struct Stanza {
    std::string where, cipher, op, result, skip;
    Bytes key, iv, aad, tag, pt, ct, next_iv;
    bool has_next_iv = false, set_tag_late = false;
};

// Reads every attribute a stanza gives (an unread one is a harness error), and says why a
// stanza cannot run here.
Stanza read_stanza(conf::Record r, const ProviderEnv& env) {
    Stanza s;
    s.where = r.where();
    s.cipher = r.str("Cipher");
    s.key = r.hex("Key");
    s.iv = r.hex_or("IV", {});
    s.pt = r.hex("Plaintext");
    s.ct = r.hex("Ciphertext");
    for (int i = 1; r.has(i == 1 ? "AAD" : "AAD." + std::to_string(i)); ++i) {
        const Bytes a = r.hex(i == 1 ? "AAD" : "AAD." + std::to_string(i));
        s.aad.insert(s.aad.end(), a.begin(), a.end());
    }
    s.tag = r.hex_or("Tag", {});
    s.op = r.has("Operation") ? r.str("Operation") : "";
    s.result = r.has("Result") ? r.str("Result") : "";
    s.has_next_iv = r.has("NextIV");
    s.next_iv = r.hex_or("NextIV", {});
    s.set_tag_late = r.has("SetTagLate") && r.str("SetTagLate") == "TRUE";
    const std::string avail = r.has("Availablein") ? r.str("Availablein") : "";
    if (r.has("FIPSversion")) r.str("FIPSversion");
    // FIPS indicator settings: they concern the FIPS provider alone
    if (r.has("Unapproved")) r.str("Unapproved");
    if (r.has("CtrlInit")) r.str("CtrlInit");
    const std::string xts_standard = r.has("XTSStandard") ? r.str("XTSStandard") : "";
    r.check_all_read();
    EVP_CIPHER* c = env.ours(s.cipher);
    if (avail == "fips") s.skip = "FIPS provider's own behaviour (Availablein = fips)";
    else if (!c) s.skip = "not offered by the provider (no such mode in bulkcrypt's catalogue)";
    else if (!xts_standard.empty() && xts_standard != "IEEE") s.skip = "XTS of GB/T 17964 (only IEEE 1619's is offered)";
    else if (conf::lower(s.cipher) == "sm4-xts" && xts_standard.empty())
        s.skip = "SM4-XTS without XTSStandard: OpenSSL's default there is GB/T 17964's, the provider's is IEEE 1619's";
    EVP_CIPHER_free(c);
    return s;
}

// Runs one direction of a stanza; failures go to GoogleTest with the stanza's place.
// Returns how many messages reached the provider's choice of path.
int check_direction(EVP_CIPHER* cipher, const Stanza& s, bool enc, Feed feed, std::mt19937& rng,
                     const std::string& label) {
    const bool aead = EVP_CIPHER_get_flags(cipher) & EVP_CIPH_FLAG_AEAD_CIPHER;
    Message m;
    m.enc = enc;
    m.key = s.key;
    m.iv = s.iv;
    m.aad = s.aad;
    m.in = enc ? s.pt : s.ct;
    m.tag = s.tag;
    m.set_tag_late = s.set_tag_late;
    m.padding = false;
    const Outcome o = bcp::run_message(cipher, m, feed, rng);
    const std::string at = s.where + " [" + s.cipher + ", " + (enc ? "encrypt" : "decrypt") + ", " + label + "]";
    if (!s.result.empty()) {
        // the step evp_test names must be the one that fails
        if (s.result == "CIPHERFINAL_ERROR") {
            EXPECT_TRUE(o.init_ok && o.update_ok && !o.final_ok) << at << ": expected " << s.result;
        } else if (s.result == "CIPHERUPDATE_ERROR") {
            EXPECT_TRUE(o.init_ok && !o.update_ok) << at << ": expected " << s.result;
        } else {  // CIPHERINIT_ERROR, KEY_SET_ERROR, INVALID_IV_LENGTH: setting up the context
            EXPECT_FALSE(o.init_ok) << at << ": expected " << s.result;
        }
        return s.result == "CIPHERFINAL_ERROR" ? 1 : 0;
    }
    EXPECT_TRUE(o.ok()) << at << ": init " << o.init_ok << " update " << o.update_ok << " final " << o.final_ok;
    EXPECT_EQ(conf::hex_encode(enc ? s.ct : s.pt), conf::hex_encode(o.out)) << at;
    if (aead && enc) EXPECT_EQ(conf::hex_encode(s.tag), conf::hex_encode(o.tag)) << at << ": tag";
    if (s.has_next_iv) EXPECT_EQ(conf::hex_encode(s.next_iv), conf::hex_encode(o.next_iv)) << at << ": NextIV";
    if (!aead || enc) return 1;
    // the negative cases: a changed tag, ciphertext or AAD is refused at final
    auto refused = [&](Message changed, const char* what) {
        const Outcome bad = bcp::run_message(cipher, changed, feed, rng);
        EXPECT_TRUE(bad.init_ok && bad.update_ok && !bad.final_ok) << at << ": " << what << " accepted";
    };
    Message t = m;
    t.tag[rng() % t.tag.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
    refused(t, "a changed tag");
    if (!m.in.empty()) {
        Message c = m;
        c.in[rng() % c.in.size()] ^= 0x80;
        refused(c, "a changed ciphertext");
    }
    Message a = m;
    if (a.aad.empty()) a.aad.push_back(0);
    else a.aad[rng() % a.aad.size()] ^= 0x01;
    refused(a, "a changed AAD");
    return m.in.empty() ? 3 : 4;
}

struct FileCase {
    const char* file;
    size_t runnable;  // stanzas the provider offers (the rest are skipped, and say why)
};

class ProviderVectors : public ::testing::TestWithParam<FileCase> {};

TEST_P(ProviderVectors, EveryOfferedStanzaPasses) {
    const FileCase fc = GetParam();
    ProviderEnv& direct = bcp::bulkcrypt_path();
    ProviderEnv& shipped = bcp::default_settings();
    ASSERT_TRUE(direct.loaded()) << direct.error();
    ASSERT_TRUE(shipped.loaded()) << shipped.error();
    const size_t errors_before = conf::harness_errors().size();
    const std::vector<conf::Record> records = conf::parse_evp(std::string(kDir) + fc.file);
    ASSERT_FALSE(records.empty()) << fc.file;
    std::map<std::string, size_t> skipped;
    size_t ran = 0;
    std::mt19937 rng(2026);
    const uint64_t direct_dev = direct.counter("bulkcrypt-device-calls"), direct_fb = direct.counter("bulkcrypt-fallback-calls");
    const uint64_t shipped_dev = shipped.counter("bulkcrypt-device-calls"), shipped_fb = shipped.counter("bulkcrypt-fallback-calls");
    uint64_t direct_msgs = 0, shipped_ours = 0, shipped_openssl = 0;
    for (const conf::Record& r : records) {
        const Stanza s = read_stanza(r, direct);
        if (!s.skip.empty()) {
            ++skipped[s.skip];
            continue;
        }
        ++ran;
        // Under the shipped settings OpenSSL's cipher runs these small messages, unless
        // OpenSSL lacks the cipher or refuses the setting (ChaCha20-Poly1305's short nonces
        // before OpenSSL 3.2): then bulkcrypt's does.
        EVP_CIPHER* openssl_own = shipped.theirs(s.cipher);
        bool openssl_runs = openssl_own != nullptr;
        if (openssl_runs && conf::lower(s.cipher) == "chacha20-poly1305" && s.iv.size() != 12) {
            EVP_CIPHER_CTX* probe = EVP_CIPHER_CTX_new();
            openssl_runs = EVP_CipherInit_ex2(probe, openssl_own, nullptr, nullptr, 1, nullptr) == 1 &&
                           EVP_CIPHER_CTX_ctrl(probe, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(s.iv.size()), nullptr) > 0;
            EVP_CIPHER_CTX_free(probe);
        }
        EVP_CIPHER_free(openssl_own);
        for (ProviderEnv* env : {&direct, &shipped}) {
            EVP_CIPHER* cipher = env->ours(s.cipher);
            ASSERT_NE(nullptr, cipher) << s.where;
            const std::string settings = env == &direct ? "bulkcrypt's path" : "default threshold";
            uint64_t& count = env == &direct ? direct_msgs : openssl_runs ? shipped_openssl : shipped_ours;
            for (Feed feed : {Feed::kWhole, Feed::kRandomPieces}) {
                const std::string label = settings + (feed == Feed::kWhole ? ", one update" : ", random updates");
                if (s.op != "DECRYPT") count += check_direction(cipher, s, true, feed, rng, label);
                if (s.op != "ENCRYPT") count += check_direction(cipher, s, false, feed, rng, label);
            }
            EVP_CIPHER_free(cipher);
        }
    }
    EXPECT_EQ(errors_before, conf::harness_errors().size()) << "harness errors: " << conf::harness_errors().back();
    EXPECT_EQ(fc.runnable, ran) << fc.file << ": stanzas run";
    for (const auto& [why, n] : skipped) std::printf("  skipped: %zu stanzas of %s: %s\n", n, fc.file, why.c_str());
    // Which implementation ran each message: bulkcrypt's own with threshold 0; under the
    // shipped settings (every stanza is far below 64 KiB) OpenSSL's where it can.
    EXPECT_EQ(0u, direct.counter("bulkcrypt-fallback-calls") - direct_fb);
    EXPECT_EQ(direct_msgs, direct.counter("bulkcrypt-device-calls") - direct_dev);
    EXPECT_EQ(shipped_ours, shipped.counter("bulkcrypt-device-calls") - shipped_dev);
    EXPECT_EQ(shipped_openssl, shipped.counter("bulkcrypt-fallback-calls") - shipped_fb);
}

INSTANTIATE_TEST_SUITE_P(OpenSslFiles, ProviderVectors,
                         ::testing::Values(FileCase{"evpciph_aes_common.txt", 257}, FileCase{"evpciph_aria.txt", 17},
                                           FileCase{"evpciph_bf.txt", 4}, FileCase{"evpciph_camellia.txt", 39},
                                           FileCase{"evpciph_cast5.txt", 23}, FileCase{"evpciph_chacha.txt", 27},
                                           FileCase{"evpciph_des.txt", 8}, FileCase{"evpciph_des3_common.txt", 1},
                                           FileCase{"evpciph_seed.txt", 10}, FileCase{"evpciph_sm4.txt", 8}),
                         [](const auto& info) {
                             std::string n = info.param.file;
                             n = n.substr(8, n.size() - 12);  // evpciph_X.txt -> X
                             return n;
                         });

}  // namespace
