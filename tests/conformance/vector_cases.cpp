#include "vector_cases.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "parsers.h"

namespace conf {

namespace {

const char* kWy = "wycheproof/testvectors_v1/";
const char* kBotan = "botan/src/tests/data/";
const char* kPyca = "pyca-cryptography/ciphers/";
const char* kPyca2 = "pyca-cryptography-2b46371/ciphers/";
const char* kOpenssl = "openssl/test/recipes/30-test_evp_data/";
const char* kPresent = "tinycrypt/block/present/ref/present/testvecs/";

std::string base_name(const std::string& rel) {
    size_t s = rel.rfind('/');
    return s == std::string::npos ? rel : rel.substr(s + 1);
}

// A value the file states about itself that does not hold is a harness error.
void expect_eq(const Record& r, const std::string& what, uint64_t got, uint64_t want) {
    if (got != want)
        harness_error(r.where(), what + " is " + std::to_string(got) + ", the data says " + std::to_string(want));
}

Bytes pad_right(Bytes b, size_t n) {
    if (b.size() < n) b.resize(n, 0);
    return b;
}

Bytes le_bytes(uint64_t v, size_t n) {
    Bytes b(n);
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    return b;
}

Bytes concat(Bytes a, const Bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Whether a keystream of len bytes from byte offset, starting at block counter
// `counter` of a `bits`-bit counter, needs a counter value past 2^bits - 1.
bool counter_wraps(unsigned __int128 counter, unsigned bits, uint64_t offset, size_t len, unsigned block) {
    if (len == 0) return false;
    const unsigned __int128 last = counter + (static_cast<unsigned __int128>(offset) + len - 1) / block;
    if (bits >= 128) return last < counter;   // wrapped modulo 2^128
    return (last >> bits) != 0;
}

unsigned __int128 be128(const Bytes& b) {
    unsigned __int128 v = 0;
    for (uint8_t x : b) v = v << 8 | x;
    return v;
}

uint64_t le64(const uint8_t* p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    return v;
}

const char* kWrapNote =
    " (the counter wraps: the file expects the wrap, bulkcrypt's contract refuses it with BC_ERR_COUNTER_OVERFLOW)";

bool has_flag(const std::string& flags, const std::string& f) {
    return ("," + flags + ",").find("," + f + ",") != std::string::npos;
}

std::string aes_bits(size_t key_bytes) { return std::to_string(key_bytes * 8); }

// The key length of a record against the catalogue's row: a cipher of one key size
// must match it (the file and the catalogue disagree otherwise: a harness error); a
// cipher of variable key length (Blowfish, CAST5) skips a length outside its range.
void check_key_length(const Record& r, Case& c, const bc_algorithm_info& info) {
    const size_t len = c.key.size();
    if (info.key_size_min == info.key_size_max) {
        expect_eq(r, "key bytes of " + c.alg, len, info.key_size);
    } else if (len < info.key_size_min || len > info.key_size_max) {
        c.skip = "a " + std::to_string(len) + "-byte key: " + c.alg + " takes " + std::to_string(info.key_size_min) +
                 " to " + std::to_string(info.key_size_max) + " bytes";
    }
}

// Botan's and pyca's names of ciphers the catalogue spells otherwise ("" for the
// rest); the 128 of CAST-128 is the block cipher's name, not a key size.
std::string catalogue_cipher(const std::string& name) {
    if (name == "Blowfish" || name == "blowfish") return "bf";
    if (name == "CAST-128" || name == "cast5") return "cast5";
    return "";
}

// ---- Wycheproof ------------------------------------------------------------------------------

std::vector<Case> wycheproof_aead(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    const std::string file = base_name(rel);
    for (Record r : recs) {
        Case c;
        c.type = CaseType::Aead;
        c.source = "wycheproof " + file;
        const uint64_t key_bits = r.u64("group.keySize"), iv_bits = r.u64("group.ivSize"),
                       tag_bits = r.u64("group.tagSize");
        c.key = r.hex("key");
        c.iv = r.hex("iv");
        c.aad = r.hex("aad");
        c.pt = r.hex("msg");
        c.ct = r.hex("ct");
        c.tag = r.hex("tag");
        const std::string result = r.str("result"), flags = r.str("flags"), comment = r.str("comment");
        expect_eq(r, "keySize", key_bits, c.key.size() * 8);
        expect_eq(r, "ivSize", iv_bits, c.iv.size() * 8);
        if (c.tag.empty() && has_flag(flags, "InvalidNonceSize")) {
            // Nonce-size tests carry no tag (nothing could be sealed); open them
            // with a zero tag of the group's size so that only the nonce is wrong.
            c.tag.assign(tag_bits / 8, 0);
        }
        expect_eq(r, "tagSize", tag_bits, c.tag.size() * 8);
        if (file == "aes_gcm_test.json") c.alg = "aes-" + aes_bits(c.key.size()) + "-gcm";
        else if (file == "seed_gcm_test.json") c.alg = "seed-128-gcm";
        else if (file == "chacha20_poly1305_test.json") c.alg = "chacha20-poly1305";
        else c.alg = "xchacha20-poly1305";
        c.id = r.where() + " [" + flags + (comment.empty() ? "" : "; " + comment) + "]";
        if (result == "valid") {
            c.expect = Expect::Valid;
        } else if (result == "invalid") {
            c.expect = (has_flag(flags, "InvalidNonceSize") || has_flag(flags, "ZeroLengthIv")) ? Expect::IvSize
                                                                                               : Expect::AuthFailed;
        } else {
            harness_error(r.where(), "result '" + result + "' is neither valid nor invalid");
            continue;
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> wycheproof_xts(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "wycheproof " + base_name(rel);
        const uint64_t key_bits = r.u64("group.keySize"), iv_bits = r.u64("group.ivSize");
        c.key = r.hex("key");
        Bytes tweak = r.hex("iv");
        c.pt = r.hex("msg");
        c.ct = r.hex("ct");
        const std::string result = r.str("result"), flags = r.str("flags"), comment = r.str("comment");
        expect_eq(r, "keySize", key_bits, c.key.size() * 8);
        expect_eq(r, "ivSize", iv_bits, tweak.size() * 8);
        if (result != "valid") harness_error(r.where(), "XTS result '" + result + "': the file has only valid tests");
        // The tweak is a little-endian sector number: zero-padded on the right.
        c.iv = pad_right(tweak, 16);
        c.alg = "aes-" + aes_bits(c.key.size() / 2) + "-xts";
        c.id = r.where() + " [" + std::to_string(tweak.size()) + "-byte tweak, " + std::to_string(c.pt.size()) +
               " bytes" + (comment.empty() ? "" : "; " + comment) + "]";
        (void)flags;
        if (c.key.size() == 48)
            c.skip = "AES-192-XTS (2x192-bit keys) is not in IEEE 1619 nor in bulkcrypt (OpenSSL rejects it too)";
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// <cipher>_cbc_pkcs5_test.json (aes, camellia): the cipher is the file name's first word.
std::vector<Case> wycheproof_cbc(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    const std::string file = base_name(rel);
    const std::string cipher = file.substr(0, file.find('_'));
    for (Record r : recs) {
        Case c;
        c.source = "wycheproof " + base_name(rel);
        const uint64_t key_bits = r.u64("group.keySize"), iv_bits = r.u64("group.ivSize");
        c.key = r.hex("key");
        c.iv = r.hex("iv");
        c.pt = r.hex("msg");
        c.ct = r.hex("ct");
        const std::string result = r.str("result"), flags = r.str("flags"), comment = r.str("comment");
        expect_eq(r, "keySize", key_bits, c.key.size() * 8);
        expect_eq(r, "ivSize", iv_bits, c.iv.size() * 8);
        c.alg = cipher + "-" + std::to_string(c.key.size() * 8) + "-cbc";
        c.flags = BC_FLAG_PAD_PKCS7;
        c.id = r.where() + " [" + flags + (comment.empty() ? "" : "; " + comment) + "]";
        if (result == "valid") {
            c.expect = Expect::Valid;
        } else if (result == "invalid") {
            c.expect = Expect::BadPadding;
        } else {
            harness_error(r.where(), "result '" + result + "' is neither valid nor invalid");
            continue;
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// ---- Botan ------------------------------------------------------------------------------------

std::string botan_id(const Record& r) { return r.where() + " [" + r.section() + "]"; }

// Botan's names of the 64-bit block ciphers the catalogue has: "DES", and "TripleDES",
// whose key length tells two-key TDEA (16 bytes, K3 = K1) from three-key (24). The
// catalogue's prefix ("des", "des-ede", "des-ede3"), or "" for any other cipher or length.
std::string botan_des_prefix(const std::string& cipher, size_t key_len) {
    if (cipher == "DES") return key_len == 8 ? "des" : "";
    if (cipher == "TripleDES") return key_len == 16 ? "des-ede" : key_len == 24 ? "des-ede3" : "";
    return "";
}

// block/<cipher>.vec: sections "[<Cipher>-<bits>]" (AES-128, Camellia-256), plain
// ECB over each block of In; the catalogue name is "<cipher>-<bits>-ecb". A cipher
// with one key size has a section "[<Cipher>]" (SEED, MISTY1) and the name "<cipher>-ecb";
// so do those of variable key length, under the catalogue's own spelling where it
// differs ([Blowfish] -> bf-ecb, [CAST-128] -> cast5-ecb). des.vec's [DES] and
// [TripleDES] take their names from botan_des_prefix.
std::vector<Case> botan_block_ecb(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex sec(R"(^([A-Za-z][A-Za-z0-9]*)-(128|192|256)$)");
    static const std::regex single(R"(^([A-Za-z][A-Za-z0-9]*)$)");
    for (Record r : recs) {
        Case c;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.pt = r.hex("In");
        c.ct = r.hex("Out");
        std::smatch m;
        bc_algorithm_info info;
        const std::string renamed = catalogue_cipher(r.section());
        if (!renamed.empty()) {
            c.alg = renamed + "-ecb";
            if (bc_algorithm_query(c.alg.c_str(), &info) != BC_OK)
                c.skip = "section [" + r.section() + "]: '" + c.alg + "' is not in bulkcrypt's catalogue";
            else check_key_length(r, c, info);
        } else if (std::regex_match(r.section(), m, sec)) {
            c.alg = lower(m[1].str()) + "-" + m[2].str() + "-ecb";
            expect_eq(r, "key bits of section " + r.section(), c.key.size() * 8, std::stoul(m[2].str()));
            if (bc_algorithm_query(c.alg.c_str(), &info) != BC_OK)
                c.skip = "section [" + r.section() + "]: '" + c.alg + "' is not in bulkcrypt's catalogue";
        } else if (std::regex_match(r.section(), m, single)) {
            const std::string des = botan_des_prefix(m[1].str(), c.key.size());
            c.alg = (des.empty() ? lower(m[1].str()) : des) + "-ecb";
            if (bc_algorithm_query(c.alg.c_str(), &info) != BC_OK)
                c.skip = "section [" + r.section() + "]: '" + c.alg + "' is not in bulkcrypt's catalogue";
            else check_key_length(r, c, info);
        } else {
            c.alg = r.section();
            c.skip = "section [" + r.section() + "] is not a '<cipher>-<key bits>' block cipher section";
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> botan_cbc(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    // AES and ARIA sections ("[ARIA-256/CBC/NoPadding]"): the catalogue name is
    // "<cipher>-<bits>-cbc". Blowfish and CAST-128: "bf-cbc", "cast5-cbc", the key
    // length from the key. DES and TripleDES ("[TripleDES/CBC/PKCS7]"): botan_des_prefix.
    static const std::regex sec(R"(^(AES|ARIA)-(128|192|256)/CBC/(NoPadding|PKCS7|CTS|OneAndZeros)$)");
    static const std::regex named(R"(^(Blowfish|CAST-128)/CBC/(NoPadding|PKCS7|CTS|OneAndZeros)$)");
    static const std::regex des(R"(^(DES|TripleDES)/CBC/(NoPadding|PKCS7|CTS|OneAndZeros)$)");
    for (Record r : recs) {
        Case c;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.iv = r.hex("Nonce");
        c.pt = r.hex("In");
        c.ct = r.hex("Out");
        std::smatch m;
        std::string padding;
        bc_algorithm_info info;
        if (std::regex_match(r.section(), m, sec)) {
            c.alg = lower(m[1].str()) + "-" + m[2].str() + "-cbc";
            padding = m[3].str();
        } else if (std::regex_match(r.section(), m, named)) {
            c.alg = catalogue_cipher(m[1].str()) + "-cbc";
            padding = m[2].str();
            if (bc_algorithm_query(c.alg.c_str(), &info) != BC_OK) c.skip = "'" + c.alg + "' is not in bulkcrypt's catalogue";
            else check_key_length(r, c, info);
        } else if (std::regex_match(r.section(), m, des) && !botan_des_prefix(m[1].str(), c.key.size()).empty()) {
            c.alg = botan_des_prefix(m[1].str(), c.key.size()) + "-cbc";
            padding = m[2].str();
        } else {
            c.alg = r.section().substr(0, r.section().find('/'));
            c.skip = "cipher of [" + r.section() + "] is not in bulkcrypt's AES, ARIA, Blowfish, CAST5 or DES families";
        }
        if (padding == "PKCS7") c.flags = BC_FLAG_PAD_PKCS7;
        else if (!padding.empty() && padding != "NoPadding" && c.skip.empty())
            c.skip = "CBC padding '" + padding + "' is not in bulkcrypt (NoPadding and PKCS7 only)";
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> botan_ctr(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex sec(R"(^CTR-BE\(([A-Za-z0-9-]+)(?:,(\d+))?\)$)");
    // "AES-128" names its key size; "ARIA" takes it from the key. Blowfish
    // (catalogue_cipher), DES and TripleDES (botan_des_prefix): 8-byte blocks, a 64-bit
    // counter.
    static const std::regex known(R"(^(AES|ARIA)(?:-(128|192|256))?$)");
    for (Record r : recs) {
        Case c;
        c.source = "botan " + rel.substr(rel.find("data/") + 5);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.iv = r.hex("Nonce");
        c.ct = r.hex("Out");
        c.pt = r.hex_or("In", Bytes(c.ct.size(), 0));
        c.offset = r.u64_or("Seek", 0);
        std::smatch m, a;
        if (!std::regex_match(r.section(), m, sec)) {
            harness_error(r.where(), "unknown section [" + r.section() + "]");
            continue;
        }
        const std::string cipher = m[1].str();
        if (std::regex_match(cipher, a, known) && (a[2].matched || a[1] == "ARIA")) {
            const std::string bits = a[2].matched ? a[2].str() : std::to_string(8 * c.key.size());
            if (a[2].matched) expect_eq(r, "key bits of " + cipher, c.key.size() * 8, std::stoul(bits));
            c.alg = lower(a[1].str()) + "-" + bits + "-ctr";
            if (c.iv.size() > 16) harness_error(r.where(), "nonce longer than the block");
            c.iv = pad_right(c.iv, 16);
            if (counter_wraps(be128(c.iv), 128, c.offset, c.pt.size(), 16)) {
                c.expect = Expect::CounterOverflow;
                c.id += kWrapNote;
            }
            if (m[2].matched && m[2].str() != "16")
                c.skip = "CTR-BE(X," + m[2].str() + "): a " + m[2].str() +
                         "-byte counter that wraps within the block; bulkcrypt's CTR counts over the full 16-byte block";
        } else if (!catalogue_cipher(cipher).empty()) {
            // 64-bit block ciphers (Blowfish): the whole 8-byte block counts.
            c.alg = catalogue_cipher(cipher) + "-ctr";
            bc_algorithm_info info;
            if (bc_algorithm_query(c.alg.c_str(), &info) != BC_OK) {
                c.skip = "'" + c.alg + "' is not in bulkcrypt's catalogue";
            } else {
                const size_t bb = info.block_size;
                if (c.iv.size() > bb) harness_error(r.where(), "nonce longer than the block");
                c.iv = pad_right(c.iv, bb);
                if (counter_wraps(be128(c.iv), static_cast<unsigned>(8 * bb), c.offset, c.pt.size(),
                                  static_cast<unsigned>(bb))) {
                    c.expect = Expect::CounterOverflow;
                    c.id += kWrapNote;
                }
                check_key_length(r, c, info);
                if (m[2].matched && std::stoul(m[2].str()) != bb)
                    c.skip = "CTR-BE(X," + m[2].str() + "): a counter narrower than the " + std::to_string(bb) +
                             "-byte block; bulkcrypt's CTR counts over the whole block";
            }
        } else if (!botan_des_prefix(cipher, c.key.size()).empty()) {
            c.alg = botan_des_prefix(cipher, c.key.size()) + "-ctr";
            if (c.iv.size() > 8) harness_error(r.where(), "nonce longer than the block");
            c.iv = pad_right(c.iv, 8);
            if (counter_wraps(be128(c.iv), 64, c.offset, c.pt.size(), 8)) {
                c.expect = Expect::CounterOverflow;
                c.id += kWrapNote;
            }
            if (m[2].matched && m[2].str() != "8")
                c.skip = "CTR-BE(X," + m[2].str() + "): a " + m[2].str() +
                         "-byte counter that wraps within the block; bulkcrypt's CTR counts over the full 8-byte block";
        } else {
            c.alg = cipher;
            c.skip = "cipher " + cipher + " is not in bulkcrypt's AES, ARIA, Blowfish, CAST5 or DES families";
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> botan_xts(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex sec(R"(^AES-(128|256)/XTS$)");
    for (Record r : recs) {
        Case c;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.iv = r.hex("Nonce");
        c.pt = r.hex("In");
        c.ct = r.hex("Out");
        std::smatch m;
        if (std::regex_match(r.section(), m, sec)) {
            c.alg = "aes-" + m[1].str() + "-xts";
            if (c.iv.size() > 16) harness_error(r.where(), "tweak longer than 16 bytes");
            c.iv = pad_right(c.iv, 16);
        } else {
            c.alg = r.section().substr(0, r.section().find('/')) + "-xts";
            c.skip = "cipher of [" + r.section() + "] is not in bulkcrypt's AES family";
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> botan_gcm(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex sec(R"(^([A-Za-z0-9-]+)/GCM(?:\((\d+)\))?$)");
    static const std::regex aes(R"(^AES-(128|192|256)$)");
    for (Record r : recs) {
        Case c;
        c.type = CaseType::Aead;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.iv = r.hex("Nonce");
        c.aad = r.hex_or("AD", {});
        c.pt = r.hex("In");
        Bytes sealed = r.hex("Out");
        std::smatch m, a;
        if (!std::regex_match(r.section(), m, sec)) {
            harness_error(r.where(), "unknown section [" + r.section() + "]");
            continue;
        }
        const size_t tag_len = m[2].matched ? std::stoul(m[2].str()) : 16;
        if (sealed.size() != c.pt.size() + tag_len) {
            harness_error(r.where(), "Out is not In plus a " + std::to_string(tag_len) + "-byte tag");
            continue;
        }
        c.ct.assign(sealed.begin(), sealed.end() - static_cast<std::ptrdiff_t>(tag_len));
        c.tag.assign(sealed.end() - static_cast<std::ptrdiff_t>(tag_len), sealed.end());
        const std::string cipher = m[1].str();
        // ARIA-128 -> aria-128-gcm, SM4 -> sm4-gcm: the runner skips a name the catalogue lacks.
        c.alg = std::regex_match(cipher, a, aes) ? "aes-" + a[1].str() + "-gcm" : lower(cipher) + "-gcm";
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> botan_chacha(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex sec(R"(^ChaCha\((\d+)\)$)");
    for (Record r : recs) {
        Case c;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        Bytes nonce = r.hex_or("Nonce", Bytes(8, 0));
        c.ct = r.hex("Out");
        c.pt = Bytes(c.ct.size(), 0);
        c.offset = r.u64_or("Seek", 0);
        std::smatch m;
        if (!std::regex_match(r.section(), m, sec)) {
            harness_error(r.where(), "unknown section [" + r.section() + "]");
            continue;
        }
        if (nonce.size() == 8) {
            c.alg = "chacha20-djb";   // 64-bit counter, 64-bit nonce
            c.iv = nonce;
        } else if (nonce.size() == 12) {
            c.alg = "chacha20";       // OpenSSL layout: le32(counter 0) || nonce
            c.iv = concat(Bytes(4, 0), nonce);
        } else if (nonce.size() == 24) {
            c.alg = "xchacha20";
            c.iv = nonce;
        } else {
            harness_error(r.where(), "ChaCha nonce of " + std::to_string(nonce.size()) + " bytes");
            continue;
        }
        if (m[1].str() != "20") {
            c.alg = "chacha" + m[1].str();
            c.skip = "ChaCha with " + m[1].str() + " rounds is not in bulkcrypt (ChaCha20 only)";
        } else if (c.key.size() != 32) {
            c.skip = "ChaCha20 with a " + std::to_string(c.key.size() * 8) +
                     "-bit key is not in bulkcrypt (256-bit keys only, as RFC 8439 and OpenSSL)";
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::string salsa_name(int rounds, size_t key_len) {
    std::string n = rounds == 20 ? "salsa20" : "salsa20-" + std::to_string(rounds);
    return key_len == 16 ? n + "-128" : n;
}

std::vector<Case> botan_salsa(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.iv = r.hex_or("Nonce", Bytes(8, 0));
        c.ct = r.hex("Out");
        c.pt = r.hex_or("In", Bytes(c.ct.size(), 0));
        c.offset = r.u64_or("Seek", 0);
        if (r.section() != "Salsa20") harness_error(r.where(), "unknown section [" + r.section() + "]");
        if (c.iv.size() == 24) c.alg = "xsalsa20";
        else if (c.iv.size() == 8) c.alg = salsa_name(20, c.key.size());
        else harness_error(r.where(), "Salsa20 nonce of " + std::to_string(c.iv.size()) + " bytes");
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> botan_chachapoly(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.type = CaseType::Aead;
        c.source = "botan " + base_name(rel);
        c.id = botan_id(r);
        c.key = r.hex("Key");
        c.iv = r.hex("Nonce");
        c.aad = r.hex_or("AD", {});
        c.pt = r.hex("In");
        Bytes sealed = r.hex("Out");
        if (r.section() != "ChaCha20Poly1305") harness_error(r.where(), "unknown section [" + r.section() + "]");
        if (sealed.size() != c.pt.size() + 16) {
            harness_error(r.where(), "Out is not In plus a 16-byte tag");
            continue;
        }
        c.ct.assign(sealed.begin(), sealed.end() - 16);
        c.tag.assign(sealed.end() - 16, sealed.end());
        if (c.iv.size() == 12) {
            c.alg = "chacha20-poly1305";
        } else if (c.iv.size() == 24) {
            c.alg = "xchacha20-poly1305";
        } else {
            c.alg = "chacha20-poly1305";
            c.skip = "a " + std::to_string(c.iv.size()) +
                     "-byte nonce is the pre-RFC draft-agl construction (no length padding), not in bulkcrypt";
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// ---- NIST / pyca -------------------------------------------------------------------------------

std::string nist_id(const Record& r) {
    return r.where() + (r.section().empty() ? "" : " [" + r.section() + "]");
}

std::vector<Case> nist_xts(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "nist " + base_name(rel);
        const uint64_t count = r.u64("count");
        const uint64_t bits = r.u64("dataunitlen");
        c.key = r.hex("key");
        c.iv = r.hex("i");
        c.pt = r.hex("pt");
        c.ct = r.hex("ct");
        c.id = nist_id(r) + " COUNT=" + std::to_string(count) + " DataUnitLen=" + std::to_string(bits);
        c.alg = "aes-" + aes_bits(c.key.size() / 2) + "-xts";
        if (r.section() == "ENCRYPT") c.decrypt = true;   // both directions run on every record
        else if (r.section() != "DECRYPT") harness_error(r.where(), "section [" + r.section() + "]");
        if (bits % 8 != 0) {
            c.skip = "DataUnitLen " + std::to_string(bits) + " bits is not a whole number of bytes (bulkcrypt is byte-oriented)";
        } else {
            expect_eq(r, "DataUnitLen/8", bits / 8, c.pt.size());
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> pyca_ctr(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "pyca " + base_name(rel);
        const uint64_t count = r.u64("count");
        c.key = r.hex("key");
        c.iv = r.hex("iv");
        c.pt = r.hex("plaintext");
        c.ct = r.hex("ciphertext");
        c.id = nist_id(r) + " COUNT=" + std::to_string(count);
        c.alg = "aes-" + aes_bits(c.key.size()) + "-ctr";
        if (r.section() != "ENCRYPT") harness_error(r.where(), "section [" + r.section() + "]");
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// pyca's block-cipher files in NIST layout (SEED/rfc-4269.txt, SEED/rfc-4196.txt,
// Blowfish/bf-ecb.txt, CAST5/cast5-ecb.txt): the cipher is the folder's name (Blowfish:
// bf); records with an IV are CBC without padding, the others ECB; [ENCRYPT] records,
// run in both directions.
std::vector<Case> pyca_block(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    const std::string dir = rel.substr(0, rel.rfind('/'));
    const std::string folder = lower(base_name(dir));
    const std::string cipher = catalogue_cipher(folder).empty() ? folder : catalogue_cipher(folder);
    for (Record r : recs) {
        Case c;
        c.source = "pyca " + base_name(rel);
        const uint64_t count = r.u64("count");
        c.key = r.hex("key");
        c.iv = r.hex_or("iv", {});
        c.pt = r.hex("plaintext");
        c.ct = r.hex("ciphertext");
        c.id = nist_id(r) + " COUNT=" + std::to_string(count);
        c.alg = cipher + (c.iv.empty() ? "-ecb" : "-cbc");
        if (r.section() != "ENCRYPT") harness_error(r.where(), "section [" + r.section() + "]");
        bc_algorithm_info info;
        if (bc_algorithm_query(c.alg.c_str(), &info) != BC_OK) c.skip = "'" + c.alg + "' is not in bulkcrypt's catalogue";
        else check_key_length(r, c, info);
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// pyca's copies of NIST's TDES ECB files (3DES/ECB/TECB*.rsp). The known-answer files
// give one key, KEYs, used as K1 = K2 = K3, which is single DES: each record runs as
// des-ede3-ecb under KEYs three times and as des-ecb under KEYs. The multi-block files
// give KEY1, KEY2, KEY3: des-ede3-ecb, and des-ede-ecb as well where KEY3 = KEY1.
// [ENCRYPT] and [DECRYPT] only say which way NIST computed a record: both run both ways.
std::vector<Case> pyca_tdes(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "pyca " + base_name(rel);
        const uint64_t count = r.u64("count");
        c.pt = r.hex("plaintext");
        c.ct = r.hex("ciphertext");
        c.id = nist_id(r) + " COUNT=" + std::to_string(count);
        if (r.section() != "ENCRYPT" && r.section() != "DECRYPT")
            harness_error(r.where(), "section [" + r.section() + "]");
        if (r.has("keys")) {
            const Bytes k = r.hex("keys");
            expect_eq(r, "KEYs bytes", k.size(), 8);
            Case e = c;
            e.alg = "des-ede3-ecb";
            e.key = concat(concat(k, k), k);
            e.id += " (K1 = K2 = K3)";
            out.push_back(e);
            Case d = c;
            d.alg = "des-ecb";
            d.key = k;
            d.id += " (single DES)";
            out.push_back(d);
        } else {
            const Bytes k1 = r.hex("key1"), k2 = r.hex("key2"), k3 = r.hex("key3");
            expect_eq(r, "KEY1 bytes", k1.size(), 8);
            expect_eq(r, "KEY2 bytes", k2.size(), 8);
            expect_eq(r, "KEY3 bytes", k3.size(), 8);
            Case e = c;
            e.alg = "des-ede3-ecb";
            e.key = concat(concat(k1, k2), k3);
            out.push_back(e);
            if (k3 == k1) {
                Case d = c;
                d.alg = "des-ede-ecb";
                d.key = concat(k1, k2);
                d.id += " (two-key: KEY3 = KEY1)";
                out.push_back(d);
            }
        }
        r.check_all_read();
    }
    return out;
}

// layout_64: pyca's 64/64 files (le64 counter || 8-byte nonce, "chacha20-djb");
// otherwise the RFC 7539 32/96 layout ("chacha20", OpenSSL's 16-byte IV).
std::vector<Case> pyca_chacha(const std::vector<Record>& recs, const std::string& rel, bool layout_64) {
    std::vector<Case> out;
    const std::string tag = layout_64 ? "pyca@2b46371 " : "pyca ";
    for (Record r : recs) {
        Case c;
        c.source = tag + base_name(rel);
        const uint64_t count = r.u64("count");
        c.key = r.hex("key");
        Bytes nonce = r.hex("nonce");
        const uint64_t counter = r.u64("initial_block_counter");
        c.pt = r.hex("plaintext");
        c.ct = r.hex("ciphertext");
        c.id = nist_id(r) + " COUNT=" + std::to_string(count) + " counter=" + std::to_string(counter);
        if (layout_64) {
            expect_eq(r, "nonce bytes", nonce.size(), 8);
            c.alg = "chacha20-djb";
            c.iv = concat(le_bytes(counter, 8), nonce);
            if (counter_wraps(counter, 64, 0, c.pt.size(), 64)) {
                c.expect = Expect::CounterOverflow;
                c.id += kWrapNote;
            }
        } else {
            expect_eq(r, "nonce bytes", nonce.size(), 12);
            if (counter > 0xffffffffu) harness_error(r.where(), "counter beyond 32 bits in the 32/96 layout");
            c.alg = "chacha20";
            c.iv = concat(le_bytes(counter, 4), nonce);
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> pyca_chachapoly(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.type = CaseType::Aead;
        c.source = "pyca " + base_name(rel);
        const uint64_t count = r.u64("count");
        c.key = r.hex("key");
        c.iv = r.hex("iv");
        c.aad = r.hex("aad");
        c.tag = r.hex("tag");
        c.pt = r.hex("plaintext");
        c.ct = r.hex("ciphertext");
        c.alg = "chacha20-poly1305";
        c.id = nist_id(r) + " COUNT=" + std::to_string(count);
        if (r.has("result")) {
            const std::string res = r.str("result");
            if (res == "CIPHERFINAL_ERROR") c.expect = Expect::AuthFailed;
            else harness_error(r.where(), "unknown Result '" + res + "'");
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// ---- Crypto++ and eSTREAM (Salsa20 family) -----------------------------------------------------

// XOR of all 64-byte blocks of the output.
Bytes xor_fold64(const Bytes& out) {
    Bytes d(64, 0);
    for (size_t i = 0; i < out.size(); ++i) d[i % 64] ^= out[i];
    return d;
}

std::vector<Case> cryptopp_salsa(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "cryptopp " + base_name(rel);
        if (r.str("AlgorithmType") != "SymmetricCipher") harness_error(r.where(), "AlgorithmType is not SymmetricCipher");
        const std::string name = r.str("Name");
        if (r.has("Source")) r.str("Source");   // provenance only
        const std::string comment = r.has("Comment") ? r.str("Comment") : "";
        const std::string test = r.str("Test");
        const int rounds = static_cast<int>(r.u64_or("Rounds", 20));
        c.key = r.hex("Key");
        c.iv = r.hex("IV");
        c.pt = r.hex("Plaintext");
        if (r.has("Seek") && r.has("Seek64")) harness_error(r.where(), "both Seek and Seek64");
        c.offset = r.has("Seek64") ? r.u64("Seek64") : r.u64_or("Seek", 0);
        c.id = r.where() + " [" + name + (comment.empty() ? "" : ", " + comment) + ", Test: " + test +
               (r.note().empty() ? "" : "; " + r.note()) + "]";
        if (test == "Encrypt" || test == "Resync") {
            c.ct = r.hex("Ciphertext");
        } else if (test == "EncryptXorDigest") {
            const Bytes digest = r.hex("CiphertextXorDigest");
            if (digest.size() != 64) harness_error(r.where(), "CiphertextXorDigest is not 64 bytes");
            const Bytes pt = c.pt;
            c.check = [digest, pt](const Bytes& got) -> std::string {
                if (got.size() != pt.size()) return "output length " + std::to_string(got.size());
                Bytes ks = got;
                for (size_t i = 0; i < ks.size(); ++i) ks[i] ^= pt[i];
                Bytes d = xor_fold64(ks);
                return d == digest ? "" : "xor digest " + describe_mismatch(d, digest);
            };
            if (!std::all_of(c.pt.begin(), c.pt.end(), [](uint8_t b) { return b == 0; }))
                harness_error(r.where(), "EncryptXorDigest with a non-zero plaintext");
        } else {
            harness_error(r.where(), "unknown Test: " + test);
            continue;
        }
        if (name == "XSalsa20") {
            expect_eq(r, "XSalsa20 IV bytes", c.iv.size(), 24);
            c.alg = "xsalsa20";
            if (rounds != 20) c.skip = "XSalsa20 with " + std::to_string(rounds) + " rounds is not in bulkcrypt";
        } else if (name == "Salsa20") {
            expect_eq(r, "Salsa20 IV bytes", c.iv.size(), 8);
            c.alg = salsa_name(rounds, c.key.size());
            if (rounds != 20 && rounds != 12 && rounds != 8)
                c.skip = "Salsa20 with " + std::to_string(rounds) + " rounds is not in bulkcrypt";
        } else {
            harness_error(r.where(), "unknown Name: " + name);
            continue;
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// Crypto++'s hight.txt (KISA's reference ECB, CBC and CTR): Name "HIGHT/<mode>" is
// the catalogue's "hight-<mode>". Keys and blocks are KISA's byte arrays, as
// bulkcrypt's. CTR's IV is the whole initial counter block, incremented as one 64-bit
// big-endian number: bulkcrypt's CTR for an 8-byte block.
std::vector<Case> cryptopp_hight(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex name_re(R"(^HIGHT/(ECB|CBC|CTR)$)");
    for (Record r : recs) {
        Case c;
        c.source = "cryptopp " + base_name(rel);
        if (r.str("AlgorithmType") != "SymmetricCipher") harness_error(r.where(), "AlgorithmType is not SymmetricCipher");
        const std::string name = r.str("Name");
        if (r.has("Source")) r.str("Source");   // provenance only
        const std::string comment = r.has("Comment") ? r.str("Comment") : "";
        const std::string test = r.str("Test");
        c.id = r.where() + " [" + name + (comment.empty() ? "" : ", " + comment) + ", Test: " + test +
               (r.note().empty() ? "" : "; " + r.note()) + "]";
        c.key = r.hex("Key");
        c.pt = r.hex("Plaintext");
        c.ct = r.hex("Ciphertext");
        std::smatch m;
        if (!std::regex_match(name, m, name_re)) {
            harness_error(r.where(), "unknown Name: " + name);
            continue;
        }
        const std::string mode = lower(m[1].str());
        c.alg = "hight-" + mode;
        if (mode != "ecb") {
            c.iv = r.hex("IV");
            expect_eq(r, "IV bytes", c.iv.size(), 8);
        }
        if (test != "Encrypt") harness_error(r.where(), "unknown Test: " + test);
        expect_eq(r, "key bytes", c.key.size(), 16);
        if (mode == "ctr" && counter_wraps(be128(c.iv), 64, 0, c.pt.size(), 8)) {
            c.expect = Expect::CounterOverflow;
            c.id += kWrapNote;
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// ---- PRESENT reference-tool traces -----------------------------------------------------------

// One run of the designers' tool a file: "present<key bits>-ecb" over one block, in the
// direction the file ran (the suite checks both directions of each pair). Hex is
// big-endian, the state's and the key register's most significant bits first, which
// is bulkcrypt's byte order for PRESENT.
std::vector<Case> present_trace(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    for (Record r : recs) {
        Case c;
        c.source = "tinycrypt present traces";
        c.id = r.where() + " [" + base_name(rel) + "]";
        const std::string direction = r.str("direction");
        const uint64_t bits = r.u64("key bits");
        c.key = r.hex("key");
        const Bytes input = r.hex("input"), given = r.hex("given"), result = r.hex("result");
        if (given != input) harness_error(r.where(), "the run starts from another block than its starting value");
        expect_eq(r, "key bits", c.key.size() * 8, bits);
        c.alg = "present" + std::to_string(bits) + "-ecb";
        if (direction == "encryption") {
            c.pt = input;
            c.ct = result;
        } else if (direction == "decryption") {
            c.ct = input;
            c.pt = result;
        } else {
            harness_error(r.where(), "direction " + direction);
        }
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

std::vector<Case> estream_salsa(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const std::regex slice(R"(^stream\[(\d+)\.\.(\d+)\]$)");
    for (Record r : recs) {
        Case c;
        c.source = "estream " + base_name(rel);
        c.id = r.where() + " [" + r.section() + "]";
        const uint64_t key_bits = r.u64("header.keysize"), iv_bits = r.u64("header.ivsize");
        c.key = r.hex("key");
        c.iv = r.hex("IV");
        const Bytes digest = r.hex("xor-digest");
        expect_eq(r, "key size", key_bits, c.key.size() * 8);
        expect_eq(r, "IV size", iv_bits, c.iv.size() * 8);
        std::vector<std::pair<uint64_t, Bytes>> slices;
        uint64_t len = 0;
        for (const std::string& n : r.names()) {
            std::smatch m;
            if (!std::regex_match(n, m, slice)) continue;
            const uint64_t a = std::stoull(m[1].str()), b = std::stoull(m[2].str());
            Bytes v = r.hex(n);
            expect_eq(r, n + " length", v.size(), b - a + 1);
            slices.emplace_back(a, v);
            len = std::max<uint64_t>(len, b + 1);
        }
        if (slices.empty()) harness_error(r.where(), "no stream[a..b] slices");
        if (r.has("header.streamlen")) expect_eq(r, "stated stream length", r.u64("header.streamlen"), len);
        if (len % 64) harness_error(r.where(), "stream length is not whole blocks");
        c.alg = salsa_name(20, c.key.size());
        c.pt = Bytes(len, 0);
        c.check = [slices, digest](const Bytes& got) -> std::string {
            for (const auto& s : slices) {
                if (got.size() < s.first + s.second.size()) return "output shorter than the stream";
                Bytes part(got.begin() + static_cast<std::ptrdiff_t>(s.first),
                           got.begin() + static_cast<std::ptrdiff_t>(s.first + s.second.size()));
                if (part != s.second)
                    return "stream[" + std::to_string(s.first) + "..]: " + describe_mismatch(part, s.second);
            }
            Bytes d = xor_fold64(got);
            return d == digest ? "" : "xor-digest: " + describe_mismatch(d, digest);
        };
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// ---- NESSIE (DES) --------------------------------------------------------------------------------

// NESSIE's DES vectors. Sets 1-4 encrypt: key and plain give cipher, decrypting it gives
// "decrypted", and encrypting plain 100 and 1000 times over gives the "Iterated" values;
// sets 5-8 decrypt: cipher gives plain, encrypting that gives "encrypted". Each record is a
// des-ecb case run both ways, and its decrypted or encrypted value must repeat plain or
// cipher. The iterations are one des-cbc case, IV 0, over plain and 999 zero blocks: block
// i of its ciphertext is plain encrypted i + 1 times, so blocks 99 and 999 must be the
// file's values (encryption only).
std::vector<Case> nessie_block(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    static const char* k100 = "Iterated 100 times";
    static const char* k1000 = "Iterated 1000 times";
    for (Record r : recs) {
        Case c;
        c.source = "nessie " + base_name(rel);
        c.id = r.where() + " [" + r.section() + "]";
        const std::string primitive = r.str("header.primitive");
        const uint64_t key_bits = r.u64("header.keysize"), block_bits = r.u64("header.blocksize");
        c.key = r.hex("key");
        c.pt = r.hex("plain");
        c.ct = r.hex("cipher");
        if (primitive != "Des") harness_error(r.where(), "primitive '" + primitive + "': only NESSIE's DES file is known");
        expect_eq(r, "key size", key_bits, c.key.size() * 8);
        expect_eq(r, "plain size", block_bits, c.pt.size() * 8);
        expect_eq(r, "cipher size", block_bits, c.ct.size() * 8);
        c.alg = "des-ecb";
        if (r.has("decrypted") && r.hex("decrypted") != c.pt) harness_error(r.where(), "decrypted is not plain");
        if (r.has("encrypted") && r.hex("encrypted") != c.ct) harness_error(r.where(), "encrypted is not cipher");
        const Bytes x100 = r.hex_or(k100, {}), x1000 = r.hex_or(k1000, {});
        r.check_all_read();
        out.push_back(c);
        if (x100.empty() && x1000.empty()) continue;
        Case it = c;
        it.alg = "des-cbc";
        it.id += " iterated (CBC with IV 0 over plain and zero blocks)";
        it.iv.assign(8, 0);
        const size_t blocks = x1000.empty() ? 100 : 1000;
        it.pt.resize(8 * blocks, 0);
        it.ct.clear();
        it.decrypt = false;
        it.check = [x100, x1000, blocks](const Bytes& got) -> std::string {
            if (got.size() != 8 * blocks) return "output length " + std::to_string(got.size());
            auto block = [&got](size_t i) {
                return Bytes(got.begin() + static_cast<std::ptrdiff_t>(8 * i),
                             got.begin() + static_cast<std::ptrdiff_t>(8 * i + 8));
            };
            if (!x100.empty() && block(99) != x100) return "100 iterations: " + describe_mismatch(block(99), x100);
            if (!x1000.empty() && block(999) != x1000)
                return "1000 iterations: " + describe_mismatch(block(999), x1000);
            return "";
        };
        out.push_back(it);
    }
    return out;
}

// ---- NTT Camellia ------------------------------------------------------------------------------

// camellia-<bits>-ecb.txt: the file name is the catalogue name.
std::vector<Case> ntt_ecb(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    const std::string file = base_name(rel);
    const std::string alg = file.substr(0, file.rfind('.'));
    bc_algorithm_info info;
    const bool known = bc_algorithm_query(alg.c_str(), &info) == BC_OK;
    for (Record r : recs) {
        Case c;
        c.source = "ntt " + file;
        c.id = r.where() + " [" + r.section() + "]";
        c.alg = alg;
        c.key = r.hex("key", true);
        c.pt = r.hex("plaintext", true);
        c.ct = r.hex("ciphertext", true);
        expect_eq(r, "plaintext bytes", c.pt.size(), 16);
        expect_eq(r, "ciphertext bytes", c.ct.size(), 16);
        if (known) expect_eq(r, "key bytes of " + alg, c.key.size(), info.key_size);
        else c.skip = "'" + alg + "' is not in bulkcrypt's catalogue";
        r.check_all_read();
        out.push_back(c);
    }
    return out;
}

// ---- OpenSSL evp_test cipher files -------------------------------------------------------------

// The catalogue's names, for telling "no such mode" from "no such cipher".
const std::vector<std::string>& catalogue_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (size_t i = 0; const char* a = bc_algorithm_name(i); ++i) n.push_back(lower(a));
        return n;
    }();
    return names;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// OpenSSL's mode suffixes that bulkcrypt has no counterpart of, spelled out for the reason.
std::string mode_words(const std::string& m) {
    if (m == "cfb") return "CFB (full-block cipher feedback)";
    if (m == "cfb1") return "CFB1 (1-bit cipher feedback)";
    if (m == "cfb8") return "CFB8 (8-bit cipher feedback)";
    if (m == "ofb") return "OFB (output feedback)";
    if (m == "ccm") return "CCM";
    if (m == "ocb") return "OCB";
    if (m == "siv" || m == "gcm-siv") return "SIV";
    return lower(m) == m ? "'" + m + "'" : m;
}

// Why an OpenSSL cipher name (lowercased) is not in the catalogue: its mode, its
// cipher, or only this combination. Worked out from the catalogue's own names,
// so a cipher or mode added later stops being skipped without a change here.
std::string why_not_in_catalogue(const std::string& name) {
    const auto& names = catalogue_names();
    const size_t dash = name.rfind('-');
    if (dash != std::string::npos) {
        const std::string mode = name.substr(dash + 1);
        const bool mode_known = std::any_of(names.begin(), names.end(),
                                            [&](const std::string& n) { return ends_with(n, "-" + mode); });
        if (!mode_known && !std::isdigit(static_cast<unsigned char>(mode[0])))
            return "'" + name + "': bulkcrypt has no " + mode_words(mode) + " mode (no catalogue name ends in -" +
                   mode + ")";
    }
    // The cipher: the name up to its key size or mode ("camellia-128-cfb8" -> camellia).
    static const std::regex cipher_re(R"(^([a-z0-9]+?)(?:-\d+)?(?:-[a-z0-9]+)?$)");
    std::smatch m;
    std::string cipher = std::regex_match(name, m, cipher_re) ? m[1].str() : name;
    const bool cipher_known = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
        return n == cipher || starts_with(n, cipher + "-");
    });
    if (!cipher_known) return "'" + name + "': cipher '" + cipher + "' is not in bulkcrypt's catalogue";
    return "'" + name + "' is not in bulkcrypt's catalogue (it has the cipher and the mode, not this combination)";
}

// The 128-bit (or block-sized) big-endian counter of a CTR IV plus n blocks.
Bytes counter_plus(Bytes iv, uint64_t n) {
    unsigned carry = 0;
    for (size_t i = iv.size(); i-- > 0;) {
        const unsigned add = iv.size() - 1 - i < 8 ? static_cast<unsigned>((n >> (8 * (iv.size() - 1 - i))) & 0xff) : 0;
        const unsigned v = iv[i] + add + carry;
        iv[i] = static_cast<uint8_t>(v);
        carry = v >> 8;
    }
    return iv;
}

// One loader for every evpciph_*.txt file: the cipher name, lowercased, is the
// catalogue's name where the catalogue has it (bc_algorithm_query); everything
// else is read and skipped with the reason. Conventions: no padding (Plaintext
// and Ciphertext have one length); without Operation both directions; CTR's IV
// is the whole initial counter block; XTS's Key is key1 || key2, IV the tweak;
// AEAD Ciphertext excludes the Tag.
std::vector<Case> openssl_evp(const std::vector<Record>& recs, const std::string& rel) {
    std::vector<Case> out;
    const std::string file = base_name(rel);
    for (Record r : recs) {
        Case c;
        c.source = "openssl " + file;
        const std::string cipher = r.str("Cipher");
        const std::string name = lower(cipher);
        c.id = r.where() + " [" + cipher + (r.section().empty() ? "" : "; " + r.section()) + "]";
        // Provider gates: "default" and "legacy" are where OpenSSL 3 keeps the
        // cipher (no bearing on the values); "fips" stanzas test the FIPS
        // provider's own refusals and indicators.
        const std::string avail = r.has("Availablein") ? r.str("Availablein") : "";
        const std::string fips_version = r.has("FIPSversion") ? r.str("FIPSversion") : "";
        if (!avail.empty() && avail != "default" && avail != "legacy" && avail != "fips")
            harness_error(r.where(), "Availablein = " + avail);
        c.key = r.hex("Key");
        c.iv = r.hex_or("IV", {});
        c.pt = r.hex("Plaintext");
        c.ct = r.hex("Ciphertext");
        Bytes aad;
        bool has_aad = false;
        for (int i = 1; r.has(i == 1 ? "AAD" : "AAD." + std::to_string(i)); ++i) {
            aad = concat(aad, r.hex(i == 1 ? "AAD" : "AAD." + std::to_string(i)));
            has_aad = true;
        }
        const bool has_tag = r.has("Tag");
        const Bytes tag = r.hex_or("Tag", {});
        const std::string op = r.has("Operation") ? r.str("Operation") : "";
        if (!op.empty() && op != "ENCRYPT" && op != "DECRYPT") harness_error(r.where(), "Operation = " + op);
        const bool has_next_iv = r.has("NextIV");
        const Bytes next_iv = r.hex_or("NextIV", {});
        const std::string result = r.has("Result") ? r.str("Result") : "";
        // Harness settings of evp_test that change nothing in the values:
        // SetTagLate (when the tag reaches OpenSSL), Unapproved and CtrlInit
        // (FIPS indicator checks).
        if (r.has("SetTagLate") && r.str("SetTagLate") != "TRUE" && r.str("SetTagLate") != "FALSE")
            harness_error(r.where(), "SetTagLate = " + r.str("SetTagLate"));
        if (r.has("Unapproved")) r.str("Unapproved");
        if (r.has("CtrlInit")) r.str("CtrlInit");
        const std::string xts_standard = r.has("XTSStandard") ? r.str("XTSStandard") : "";
        if (c.pt.size() != c.ct.size())
            harness_error(r.where(), "Plaintext and Ciphertext lengths differ (evp_test runs without padding)");
        r.check_all_read();

        bc_algorithm_info info;
        if (bc_algorithm_query(name.c_str(), &info) != BC_OK) {
            c.alg = name;
            c.skip = why_not_in_catalogue(name);
            out.push_back(c);
            continue;
        }
        c.alg = info.name;
        c.encrypt = op != "DECRYPT";
        c.decrypt = op != "ENCRYPT";
        const bool aead = info.kind == BC_KIND_AEAD;
        if (aead) {
            c.type = CaseType::Aead;
            c.aad = aad;
            c.tag = tag;
            if (!has_tag) harness_error(r.where(), "AEAD stanza without a Tag");
        } else if (has_aad || has_tag) {
            harness_error(r.where(), "AAD or Tag on '" + c.alg + "', which is not an AEAD");
        }
        // NextIV, the chaining value after the call, as the mode defines it
        // (CBC: the last ciphertext block; CTR: the next counter block; GCM: the IV).
        if (has_next_iv) {
            if (ends_with(c.alg, "-cbc")) {
                const size_t b = info.block_size;
                if (c.ct.size() >= b && next_iv != Bytes(c.ct.end() - static_cast<std::ptrdiff_t>(b), c.ct.end()))
                    harness_error(r.where(), "CBC NextIV is not the last ciphertext block");
            } else if (ends_with(c.alg, "-ctr")) {
                const uint64_t blocks = (c.pt.size() + info.block_size - 1) / info.block_size;
                if (next_iv != counter_plus(c.iv, blocks))
                    harness_error(r.where(), "CTR NextIV is not the IV plus the blocks used");
            } else if (ends_with(c.alg, "-gcm")) {
                if (next_iv != c.iv) harness_error(r.where(), "GCM NextIV is not the IV");
            } else {
                harness_error(r.where(), "NextIV on '" + c.alg + "': the suite knows its meaning for CBC, CTR and GCM only");
            }
        }
        if (avail == "fips") {
            c.skip = "applies only to OpenSSL's FIPS provider" + (fips_version.empty() ? "" : " " + fips_version) +
                     (result.empty() ? "" : " (Result = " + result + ")");
        } else if (!xts_standard.empty() && xts_standard != "IEEE") {
            c.skip = "XTSStandard = " + xts_standard + ": the GB/T 17964 tweak order; bulkcrypt's XTS is IEEE 1619";
        } else if (xts_standard.empty() && c.alg == "sm4-xts") {
            // OpenSSL's SM4-XTS takes GB/T 17964-2021 unless told IEEE (its xts_standard
            // parameter defaults to "GB"); the stanzas that mean IEEE 1619 say so.
            c.skip = "no XTSStandard: OpenSSL's SM4-XTS defaults to GB/T 17964's tweak order; bulkcrypt's XTS is "
                     "IEEE 1619";
        } else if (c.alg == "chacha20-poly1305" && result.empty() && c.iv.size() < 12) {
            // EVP's convention since OpenSSL 3.2: a short nonce is zero-padded at the front.
            // The C API takes RFC 8439's 12 bytes (the provider pads; tests/provider/).
            c.skip = "a " + std::to_string(c.iv.size()) +
                     "-byte nonce, zero-padded by OpenSSL's EVP; the C API takes 12-byte nonces";
        } else if (result == "CIPHERFINAL_ERROR" && aead && !c.encrypt) {
            c.expect = Expect::AuthFailed;
        } else if (result == "INVALID_IV_LENGTH" && aead) {
            c.expect = Expect::IvSize;
        } else if (!result.empty()) {
            c.skip = "OpenSSL expects Result = " + result + " on '" + c.alg + "'" +
                     (result == "KEY_SET_ERROR" ? " (XTS with key1 = key2, which OpenSSL refuses)" : "") +
                     "; the suite has no matching negative case for it";
        }
        if (!aead && c.skip.empty() && ends_with(c.alg, "-ctr") && info.block_size == 16 &&
            counter_wraps(be128(c.iv), 128, 0, c.pt.size(), 16)) {
            c.expect = Expect::CounterOverflow;
            c.id += kWrapNote;
        }
        out.push_back(c);
    }
    return out;
}

}  // namespace

const std::vector<VectorFile>& vector_files() {
    static const std::vector<VectorFile> files = {
        {std::string(kWy) + "aes_gcm_test.json", 316, "wycheproof"},
        {std::string(kWy) + "aes_xts_test.json", 123, "wycheproof"},
        {std::string(kWy) + "aes_cbc_pkcs5_test.json", 216, "wycheproof"},
        {std::string(kWy) + "chacha20_poly1305_test.json", 325, "wycheproof"},
        {std::string(kWy) + "xchacha20_poly1305_test.json", 315, "wycheproof"},
        {std::string(kWy) + "camellia_cbc_pkcs5_test.json", 216, "wycheproof"},
        {std::string(kWy) + "seed_gcm_test.json", 104, "wycheproof"},
        {std::string(kBotan) + "block/aes.vec", 1353, "botan"},
        {std::string(kBotan) + "block/camellia.vec", 17, "botan"},
        {std::string(kBotan) + "block/seed.vec", 5, "botan"},
        {std::string(kBotan) + "block/blowfish.vec", 80, "botan"},
        {std::string(kBotan) + "block/cast128.vec", 48, "botan"},
        {std::string(kBotan) + "block/misty.vec", 31, "botan"},
        {std::string(kBotan) + "modes/cbc.vec", 329, "botan"},
        {std::string(kBotan) + "modes/ctr.vec", 2, "botan"},
        {std::string(kBotan) + "stream/ctr.vec", 821, "botan"},
        {std::string(kBotan) + "modes/xts.vec", 836, "botan"},
        {std::string(kBotan) + "aead/gcm.vec", 55, "botan"},
        {std::string(kBotan) + "stream/chacha.vec", 109, "botan"},
        {std::string(kBotan) + "stream/salsa20.vec", 17, "botan"},
        {std::string(kBotan) + "aead/chacha20poly1305.vec", 1710, "botan"},
        {std::string(kPyca) + "AES/XTS/tweak-128hexstr/XTSGenAES128.rsp", 1000, "nist"},
        {std::string(kPyca) + "AES/XTS/tweak-128hexstr/XTSGenAES256.rsp", 1000, "nist"},
        {std::string(kPyca) + "AES/CTR/aes-128-ctr.txt", 3, "nist"},
        {std::string(kPyca) + "AES/CTR/aes-192-ctr.txt", 3, "nist"},
        {std::string(kPyca) + "AES/CTR/aes-256-ctr.txt", 3, "nist"},
        {std::string(kPyca) + "ChaCha20/rfc7539.txt", 3, "nist"},
        {std::string(kPyca) + "ChaCha20Poly1305/openssl.txt", 5, "nist"},
        {std::string(kPyca2) + "ChaCha20/rfc7539.txt", 3, "nist"},
        {std::string(kPyca2) + "ChaCha20/counter-overflow.txt", 10, "nist"},
        {std::string(kPyca) + "Camellia/camellia-128-ecb.txt", 1280, "ntt"},
        {std::string(kPyca) + "Camellia/camellia-192-ecb.txt", 1280, "ntt"},
        {std::string(kPyca) + "Camellia/camellia-256-ecb.txt", 1280, "ntt"},
        {std::string(kOpenssl) + "evpciph_camellia.txt", 87, "evp"},
        {std::string(kPyca) + "SEED/rfc-4269.txt", 4, "nist"},
        {std::string(kPyca) + "SEED/rfc-4196.txt", 2, "nist"},
        {std::string(kOpenssl) + "evpciph_seed.txt", 50, "evp"},
        {std::string(kPyca) + "Blowfish/bf-ecb.txt", 55, "nist"},
        {std::string(kPyca) + "CAST5/cast5-ecb.txt", 3, "nist"},
        {std::string(kOpenssl) + "evpciph_bf.txt", 8, "evp"},
        {std::string(kOpenssl) + "evpciph_cast5.txt", 63, "evp"},
        {std::string(kOpenssl) + "evpciph_aes_common.txt", 299, "evp"},
        {std::string(kOpenssl) + "evpciph_sm4.txt", 14, "evp"},
        {std::string(kOpenssl) + "evpciph_aria.txt", 33, "evp"},
        {std::string(kBotan) + "block/des.vec", 315, "botan"},
        {std::string(kPyca) + "3DES/ECB/TECBvarkey.rsp", 112, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBvartext.rsp", 128, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBinvperm.rsp", 128, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBpermop.rsp", 64, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBsubtab.rsp", 38, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBMMT1.rsp", 20, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBMMT2.rsp", 20, "nist"},
        {std::string(kPyca) + "3DES/ECB/TECBMMT3.rsp", 20, "nist"},
        {"tinycrypt/block/des/doc/Des-64-64.test-vectors", 772, "nessie"},
        {std::string(kOpenssl) + "evpciph_des.txt", 10, "evp"},
        {std::string(kOpenssl) + "evpciph_des3_common.txt", 1, "evp"},
        {std::string(kOpenssl) + "evpciph_chacha.txt", 27, "evp"},
        // RFC 6114's three CLEFIA blocks, written as evp_test stanzas (no data file of
        // CLEFIA vectors is published; see tests/vectors/README.md).
        {"clefia/rfc6114.txt", 3, "evp"},
        {"cryptopp/TestVectors/salsa.txt", 110, "cryptopp"},
        {"tinycrypt/stream/salsa/doc/salsa20-full-verified.test-vectors.txt", 192, "estream"},
        {"cryptopp/TestVectors/hight.txt", 75, "cryptopp"},
        // The CHES 2006 paper's four HIGHT blocks and two single-source PRESENT-128
        // blocks, written as evp_test stanzas (no data file of them is published; see
        // tests/vectors/README.md).
        {"hight/ches2006.txt", 4, "evp"},
        {"present/present128-extra.txt", 2, "evp"},
        {std::string(kPresent) + "e80-k00_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "e80-kff_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "e80-k00_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "e80-kff_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "e128-k00_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "e128-kff_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "e128-k00_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "e128-kff_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "d80-k00_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "d80-kff_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "d80-k00_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "d80-kff_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "d128-k00_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "d128-kff_t00.txt", 1, "present-trace"},
        {std::string(kPresent) + "d128-k00_tff.txt", 1, "present-trace"},
        {std::string(kPresent) + "d128-kff_tff.txt", 1, "present-trace"},
    };
    return files;
}

std::vector<Case> load_cases(const VectorFile& f, size_t* records_seen) {
    const std::string& rel = f.rel;
    const std::string name = base_name(rel);
    const std::string fmt = f.format;
    std::vector<Record> recs;
    if (fmt == "wycheproof") {
        const bool aead = name.find("gcm") != std::string::npos || name.find("poly1305") != std::string::npos;
        const std::string alg = name == "aes_gcm_test.json"              ? "AES-GCM"
                                : name == "aes_xts_test.json"            ? "AES-XTS"
                                : name == "aes_cbc_pkcs5_test.json"      ? "AES-CBC-PKCS5"
                                : name == "camellia_cbc_pkcs5_test.json" ? "CAMELLIA-CBC-PKCS5"
                                : name == "seed_gcm_test.json"           ? "SEED-GCM"
                                : name == "chacha20_poly1305_test.json"  ? "CHACHA20-POLY1305"
                                                                         : "XCHACHA20-POLY1305";
        recs = parse_wycheproof(rel, alg, aead ? "aead_test_schema_v1.json" : "ind_cpa_test_schema_v1.json");
    } else if (fmt == "botan") {
        recs = parse_botan_vec(rel);
    } else if (fmt == "nist") {
        recs = parse_nist(rel);
    } else if (fmt == "cryptopp") {
        recs = parse_cryptopp(rel);
    } else if (fmt == "ntt") {
        recs = parse_ntt(rel);
    } else if (fmt == "evp") {
        recs = parse_evp(rel);
    } else if (fmt == "present-trace") {
        recs = parse_present_trace(rel);
    } else if (fmt == "nessie") {
        recs = parse_nessie(rel);
    } else {
        recs = parse_estream(rel);
    }
    size_t explicit_records = 0;
    for (const Record& r : recs)
        if (r.note().empty()) ++explicit_records;
    if (records_seen) *records_seen = explicit_records;

    if (fmt == "wycheproof") {
        if (name == "aes_xts_test.json") return wycheproof_xts(recs, rel);
        if (ends_with(name, "_cbc_pkcs5_test.json")) return wycheproof_cbc(recs, rel);
        return wycheproof_aead(recs, rel);
    }
    if (fmt == "botan") {
        if (name == "cbc.vec") return botan_cbc(recs, rel);
        if (name == "ctr.vec") return botan_ctr(recs, rel);
        if (name == "xts.vec") return botan_xts(recs, rel);
        if (name == "gcm.vec") return botan_gcm(recs, rel);
        if (name == "chacha.vec") return botan_chacha(recs, rel);
        if (name == "salsa20.vec") return botan_salsa(recs, rel);
        if (name == "chacha20poly1305.vec") return botan_chachapoly(recs, rel);
        return botan_block_ecb(recs, rel);   // block/<cipher>.vec: aes.vec, camellia.vec, ...
    }
    if (fmt == "nist") {
        if (name.rfind("XTSGen", 0) == 0) return nist_xts(recs, rel);
        if (name.find("-ctr.txt") != std::string::npos) return pyca_ctr(recs, rel);
        if (rel.find("/SEED/") != std::string::npos || rel.find("/Blowfish/") != std::string::npos ||
            rel.find("/CAST5/") != std::string::npos)
            return pyca_block(recs, rel);
        if (rel.find("/3DES/") != std::string::npos) return pyca_tdes(recs, rel);
        if (name == "openssl.txt") return pyca_chachapoly(recs, rel);
        return pyca_chacha(recs, rel, rel.rfind(kPyca2, 0) == 0);
    }
    if (fmt == "ntt") return ntt_ecb(recs, rel);
    if (fmt == "evp") return openssl_evp(recs, rel);
    if (fmt == "present-trace") return present_trace(recs, rel);
    if (fmt == "nessie") return nessie_block(recs, rel);
    if (fmt == "cryptopp") return name == "hight.txt" ? cryptopp_hight(recs, rel) : cryptopp_salsa(recs, rel);
    return estream_salsa(recs, rel);
}

}  // namespace conf
