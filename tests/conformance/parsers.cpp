#include "parsers.h"

#include <cctype>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

namespace conf {

namespace {

bool load_lines(const std::string& rel, std::vector<std::string>* lines) {
    std::string text, err;
    if (!read_file(vector_path(rel), &text, &err)) {
        harness_error(rel, err);
        return false;
    }
    *lines = split_lines(text);
    return true;
}

std::string at(const std::string& rel, size_t index) { return rel + ":" + std::to_string(index + 1); }

}  // namespace

// ---- Botan .vec ------------------------------------------------------------------------

std::vector<Record> parse_botan_vec(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    std::string section;
    Record cur;
    bool open = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        if (t.empty() || t[0] == '#') continue;   // comments and "#test cpuid" pragmas
        if (t[0] == '[') {
            if (t.back() != ']' || t.size() < 3) {
                harness_error(at(rel, i), "malformed section line '" + t + "'");
                continue;
            }
            if (open) harness_error(cur.where(), "record without 'Out' before a new section");
            open = false;
            section = t.substr(1, t.size() - 2);
            continue;
        }
        const size_t eq = t.find('=');
        if (eq == std::string::npos) {
            harness_error(at(rel, i), "line is neither a section, a comment nor 'Field = value': '" +
                                          t.substr(0, 60) + "'");
            continue;
        }
        if (section.empty()) harness_error(at(rel, i), "attribute before the first section");
        const std::string name = trim(t.substr(0, eq));
        const std::string value = trim(t.substr(eq + 1));
        if (!open) {
            cur = Record(rel, lineno, section);
            open = true;
        }
        cur.set(name, value, lineno);
        if (name == "Out") {
            out.push_back(cur);
            open = false;
        }
    }
    if (open) harness_error(cur.where(), "record without 'Out' at the end of the file");
    return out;
}

// ---- NIST CAVS / pyca ---------------------------------------------------------------------

std::vector<Record> parse_nist(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    std::string section;
    Record cur;
    bool open = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        if (t.empty() || t[0] == '#') continue;
        if (t[0] == '[') {
            if (t.back() != ']') {
                harness_error(at(rel, i), "malformed section line '" + t + "'");
                continue;
            }
            if (open) out.push_back(cur);
            open = false;
            section = t.substr(1, t.size() - 2);
            continue;
        }
        const size_t eq = t.find('=');
        if (eq == std::string::npos) {
            harness_error(at(rel, i), "line is not 'FIELD = value': '" + t.substr(0, 60) + "'");
            continue;
        }
        const std::string name = lower(trim(t.substr(0, eq)));
        const std::string value = trim(t.substr(eq + 1));
        if (name == "count") {
            if (open) out.push_back(cur);
            cur = Record(rel, lineno, section);
            open = true;
        } else if (!open) {
            harness_error(at(rel, i), "attribute '" + name + "' before the first COUNT");
            continue;
        }
        cur.set(name, value, lineno);
    }
    if (open) out.push_back(cur);
    return out;
}

// ---- Wycheproof ------------------------------------------------------------------------------

namespace {

std::string json_scalar(const nlohmann::json& v, bool* ok) {
    *ok = true;
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_array()) {
        std::string s;
        for (const auto& e : v) {
            if (!e.is_string()) *ok = false;
            if (!s.empty()) s += ",";
            if (e.is_string()) s += e.get<std::string>();
        }
        return s;
    }
    *ok = false;
    return v.dump();
}

}  // namespace

std::vector<Record> parse_wycheproof(const std::string& rel, const std::string& expected_algorithm,
                                     const std::string& expected_schema) {
    std::vector<Record> out;
    std::string text, err;
    if (!read_file(vector_path(rel), &text, &err)) {
        harness_error(rel, err);
        return out;
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        harness_error(rel, std::string("JSON parse error: ") + e.what());
        return out;
    }
    if (!j.is_object()) {
        harness_error(rel, "top level is not an object");
        return out;
    }
    std::string group_type;
    if (expected_schema == "aead_test_schema_v1.json") group_type = "AeadTest";
    else if (expected_schema == "ind_cpa_test_schema_v1.json") group_type = "IndCpaTest";
    else harness_error(rel, "the suite knows no group type for schema " + expected_schema);

    long long declared = -1;
    std::map<std::string, bool> notes;
    const nlohmann::json* groups = nullptr;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        const nlohmann::json& v = it.value();
        if (k == "algorithm") {
            if (!v.is_string() || v.get<std::string>() != expected_algorithm)
                harness_error(rel, "algorithm is " + v.dump() + ", expected " + expected_algorithm);
        } else if (k == "schema") {
            if (!v.is_string() || v.get<std::string>() != expected_schema)
                harness_error(rel, "schema is " + v.dump() + ", expected " + expected_schema);
        } else if (k == "numberOfTests") {
            if (v.is_number_integer()) declared = v.get<long long>();
            else harness_error(rel, "numberOfTests is not an integer");
        } else if (k == "header") {
            // Free text for humans; checked for shape only.
            bool ok = v.is_array();
            if (ok)
                for (const auto& line : v) ok = ok && line.is_string();
            if (!ok) harness_error(rel, "header is not an array of strings");
        } else if (k == "notes") {
            if (!v.is_object()) {
                harness_error(rel, "notes is not an object");
                continue;
            }
            for (auto n = v.begin(); n != v.end(); ++n) notes[n.key()] = false;
        } else if (k == "testGroups") {
            groups = &v;
        } else {
            harness_error(rel, "unknown top-level attribute '" + k + "'");
        }
    }
    if (groups == nullptr || !groups->is_array()) {
        harness_error(rel, "no testGroups array");
        return out;
    }
    size_t gi = 0;
    for (const auto& g : *groups) {
        ++gi;
        const std::string gwhere = rel + " group " + std::to_string(gi);
        if (!g.is_object() || !g.contains("tests") || !g["tests"].is_array()) {
            harness_error(gwhere, "group without a tests array");
            continue;
        }
        std::vector<std::pair<std::string, std::string>> gattrs;
        for (auto it = g.begin(); it != g.end(); ++it) {
            const std::string& k = it.key();
            if (k == "tests") continue;
            if (k == "type") {
                if (it.value() != group_type)
                    harness_error(gwhere, "group type " + it.value().dump() + ", expected " + group_type);
                continue;
            }
            if (k == "source") {
                // Provenance of the group: {name, version}, nothing a test uses.
                const auto& s = it.value();
                bool ok = s.is_object();
                for (auto e = s.begin(); ok && e != s.end(); ++e)
                    ok = (e.key() == "name" || e.key() == "version") && e.value().is_string();
                if (!ok) harness_error(gwhere, "source is not {name, version}: " + s.dump());
                continue;
            }
            bool ok = true;
            std::string val = json_scalar(it.value(), &ok);
            if (!ok) harness_error(gwhere, "group attribute '" + k + "' has an unexpected type");
            gattrs.emplace_back("group." + k, val);
        }
        for (const auto& t : g["tests"]) {
            if (!t.is_object() || !t.contains("tcId") || !t["tcId"].is_number_integer()) {
                harness_error(gwhere, "test without an integer tcId");
                continue;
            }
            const long long tc = t["tcId"].get<long long>();
            Record r(rel, static_cast<int>(tc), "");
            r.set_locator(rel + "#tcId=" + std::to_string(tc));
            for (const auto& ga : gattrs) r.set(ga.first, ga.second, static_cast<int>(tc));
            for (auto it = t.begin(); it != t.end(); ++it) {
                if (it.key() == "tcId") continue;   // the locator
                bool ok = true;
                std::string val = json_scalar(it.value(), &ok);
                if (!ok) harness_error(r.where(), "attribute '" + it.key() + "' has an unexpected type");
                if (it.key() == "flags") {
                    for (const auto& f : it.value()) {
                        if (!f.is_string()) continue;
                        auto n = notes.find(f.get<std::string>());
                        if (n == notes.end())
                            harness_error(r.where(), "flag '" + f.get<std::string>() + "' is not in notes");
                        else
                            n->second = true;
                    }
                }
                r.set(it.key(), val, static_cast<int>(tc));
            }
            out.push_back(r);
        }
    }
    if (declared != static_cast<long long>(out.size()))
        harness_error(rel, "numberOfTests says " + std::to_string(declared) + ", the file holds " +
                               std::to_string(out.size()));
    return out;
}

// ---- Crypto++ --------------------------------------------------------------------------------

namespace {

// "r16 00000000 ab cd" -> plain hex; false on anything else (quoted strings,
// words) so that an unsupported value form is an error, not a guess.
bool cryptopp_hex(const std::string& value, std::string* hex) {
    hex->clear();
    std::vector<std::string> tokens;
    size_t i = 0;
    while (i < value.size()) {
        while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) ++i;
        size_t b = i;
        while (i < value.size() && !std::isspace(static_cast<unsigned char>(value[i]))) ++i;
        if (i > b) tokens.push_back(value.substr(b, i - b));
    }
    Bytes scratch;
    for (size_t k = 0; k < tokens.size(); ++k) {
        const std::string& tok = tokens[k];
        if ((tok[0] == 'r' || tok[0] == 'R') && tok.size() > 1 &&
            tok.find_first_not_of("0123456789", 1) == std::string::npos) {
            if (k + 1 >= tokens.size() || !hex_decode(tokens[k + 1], &scratch)) return false;
            const unsigned long n = std::stoul(tok.substr(1));
            for (unsigned long r = 0; r < n; ++r) *hex += lower(tokens[k + 1]);
            ++k;
            continue;
        }
        if (!hex_decode(tok, &scratch)) return false;
        *hex += lower(tok);
    }
    return true;
}

bool is_cryptopp_data_field(const std::string& name) {
    return name == "Key" || name == "IV" || name == "Plaintext" || name == "Ciphertext" ||
           name == "CiphertextXorDigest";
}

}  // namespace

std::vector<Record> parse_cryptopp(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> raw;
    if (!load_lines(rel, &raw)) return out;

    struct Value {
        std::string text;
        int line = 0;
        bool fresh = false;   // set since the last test
    };
    std::vector<std::pair<std::string, Value>> state;   // file order
    auto find = [&](const std::string& name) -> Value* {
        for (auto& kv : state)
            if (kv.first == name) return &kv.second;
        return nullptr;
    };
    auto end_section = [&](int line) {
        for (auto& kv : state)
            if (kv.second.fresh)
                harness_error(rel + ":" + std::to_string(kv.second.line),
                              "attribute '" + kv.first + "' set but no test read it");
        state.clear();
        (void)line;
    };
    auto emit = [&](int line, const std::string& test, const std::string& note) {
        Record r(rel, line, "");
        for (auto& kv : state) {
            r.set(kv.first, kv.second.text, kv.second.line, !kv.second.fresh);
            kv.second.fresh = false;
        }
        r.set("Test", test, line);
        r.set_note(note);
        out.push_back(r);
    };

    for (size_t i = 0; i < raw.size(); ++i) {
        const int lineno = static_cast<int>(i + 1);
        std::string t = trim(raw[i]);
        if (t.empty() || t[0] == '#') continue;
        // Continuations: a trailing backslash joins the next line.
        while (!t.empty() && t.back() == '\\' && i + 1 < raw.size()) {
            t.pop_back();
            t += " " + trim(raw[++i]);
        }
        const size_t colon = t.find(':');
        if (colon == std::string::npos) {
            harness_error(at(rel, lineno - 1), "line is not 'Field: value': '" + t.substr(0, 60) + "'");
            continue;
        }
        const std::string name = trim(t.substr(0, colon));
        std::string value = trim(t.substr(colon + 1));
        if (name == "AlgorithmType") {
            end_section(lineno);
        } else if (name == "Test") {
            emit(lineno, value, "");
            continue;
        }
        if (is_cryptopp_data_field(name)) {
            std::string hex;
            if (!cryptopp_hex(value, &hex)) {
                harness_error(at(rel, lineno - 1), "value of '" + name + "' is not hex/rN: '" +
                                                      value.substr(0, 40) + "'");
                continue;
            }
            value = hex;
        }
        Value* v = find(name);
        if (v != nullptr && v->fresh) {
            // A full encryption record overwritten without a Test line: run it
            // anyway (as "implicit"), since it is a complete vector.
            Value *k = find("Key"), *iv = find("IV"), *p = find("Plaintext"), *c = find("Ciphertext");
            const bool complete = name == "Key" && k && iv && p && c && k->fresh && iv->fresh &&
                                  p->fresh && c->fresh;
            if (complete) {
                emit(c->line, "Encrypt", "implicit: no 'Test:' line follows this record in the file");
            } else {
                harness_error(at(rel, lineno - 1), "attribute '" + name +
                                                      "' overwritten before any test read it");
            }
        }
        if (v == nullptr) {
            state.emplace_back(name, Value{});
            v = &state.back().second;
        }
        v->text = value;
        v->line = lineno;
        v->fresh = true;
    }
    end_section(static_cast<int>(raw.size()));
    return out;
}

// ---- eSTREAM verified.test-vectors ----------------------------------------------------------

std::vector<Record> parse_estream(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    static const std::regex set_re(R"(^Set (\d+), vector#\s*(\d+):$)");
    static const std::regex size_re(R"(^(Key|IV) size: (\d+) bits$)");
    static const std::regex tv_re(R"(^Test vectors -- set (\d+)$)");
    static const std::regex gen_re(R"(^\(stream is generated by encrypting (\d+) zero bytes\)$)");
    static const std::regex field_re(R"(^([A-Za-z][A-Za-z0-9\-\[\]\.]*)\s*=\s*([0-9A-Fa-f]+)$)");
    static const std::regex hex_re(R"(^[0-9A-Fa-f]+$)");

    std::string keysize, ivsize, streamlen;
    Record cur;
    bool open = false;
    std::string fname, fvalue;
    int fline = 0;
    auto flush_field = [&]() {
        if (!fname.empty() && open) cur.set(fname, fvalue, fline);
        fname.clear();
        fvalue.clear();
    };
    auto close = [&]() {
        flush_field();
        if (open) out.push_back(cur);
        open = false;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        std::smatch m;
        if (t.empty()) {
            flush_field();
            continue;
        }
        if (t[0] == '*' || t.find_first_not_of('=') == std::string::npos) continue;   // banners, rules
        if (std::regex_match(t, m, set_re)) {
            close();
            cur = Record(rel, lineno, "Set " + m[1].str() + ", vector# " + m[2].str());
            open = true;
            cur.set("header.keysize", keysize, lineno);
            cur.set("header.ivsize", ivsize, lineno);
            if (!streamlen.empty()) cur.set("header.streamlen", streamlen, lineno);
        } else if (std::regex_match(t, m, field_re)) {
            flush_field();
            if (!open) {
                harness_error(at(rel, i), "attribute outside a vector");
                continue;
            }
            fname = m[1].str();
            fvalue = m[2].str();
            fline = lineno;
        } else if (std::regex_match(t, hex_re) && !fname.empty()) {
            fvalue += t;   // continuation of a multi-line value
        } else if (std::regex_match(t, m, size_re)) {
            close();
            (m[1].str() == "Key" ? keysize : ivsize) = m[2].str();
        } else if (std::regex_match(t, m, tv_re)) {
            close();
            streamlen.clear();
        } else if (std::regex_match(t, m, gen_re)) {
            close();
            streamlen = m[1].str();
        } else if (t == "End of test vectors") {
            close();
            keysize.clear();
            ivsize.clear();
        } else if (starts_with(t, "Primitive Name:")) {
            close();
            if (trim(t.substr(15)) != "Salsa20")
                harness_error(at(rel, i), "primitive is not Salsa20: '" + t + "'");
        } else if (starts_with(t, "Profile:")) {
            close();   // the eSTREAM profile (S3___): no bearing on the values
        } else {
            harness_error(at(rel, i), "unrecognised line '" + t.substr(0, 60) + "'");
        }
    }
    close();
    return out;
}

}  // namespace conf

namespace conf {

// ---- NTT Camellia (t_camelia.txt) ------------------------------------------------------------

std::vector<Record> parse_ntt(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    static const std::regex line_re(R"(^([KPC]) No\.(\d+) : ([0-9A-Fa-f ]+)$)");
    std::string key, key_no;
    int key_line = 0;
    Record cur;
    std::string open_no;   // the number of the P line waiting for its C line
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        if (t.empty() || t[0] == '#') continue;
        std::smatch m;
        if (!std::regex_match(t, m, line_re)) {
            harness_error(at(rel, i), "line is not 'K|P|C No.nnn : hex': '" + t.substr(0, 60) + "'");
            continue;
        }
        const std::string kind = m[1].str(), no = m[2].str(), value = trim(m[3].str());
        if (kind == "K") {
            if (!open_no.empty()) harness_error(cur.where(), "P No." + open_no + " without its C line");
            open_no.clear();
            key = value;
            key_no = no;
            key_line = lineno;
        } else if (kind == "P") {
            if (!open_no.empty()) harness_error(cur.where(), "P No." + open_no + " without its C line");
            if (key.empty()) {
                harness_error(at(rel, i), "plaintext before the first key");
                open_no.clear();
                continue;
            }
            cur = Record(rel, lineno, "K No." + key_no);
            cur.set("key", key, key_line);
            cur.set("plaintext", value, lineno);
            open_no = no;
        } else {
            if (open_no.empty() || no != open_no) {
                harness_error(at(rel, i), "C No." + no + " does not follow P No." + no);
                open_no.clear();
                continue;
            }
            cur.set("ciphertext", value, lineno);
            out.push_back(cur);
            open_no.clear();
        }
    }
    if (!open_no.empty()) harness_error(cur.where(), "P No." + open_no + " without its C line at the end");
    return out;
}

// ---- PRESENT reference-tool traces -----------------------------------------------------------

std::vector<Record> parse_present_trace(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    // "Name: hex" lines that carry the run's values, and the trace's own lines.
    static const std::regex key_re(R"(^Given Key \((80|128)bit\): ([0-9a-f]{16}) ([0-9a-f]{4}|[0-9a-f]{16})$)");
    static const std::regex value_re(R"(^(Plaintext|Ciphertext|Given Plaintext|Given Ciphertext|Resulting Cipher|Resulting Plaintext): ([0-9a-f]{16})$)");
    static const std::regex trace_re(
        R"(^(Input: [0-9a-f]{16} [0-9a-f]+|Subkey Round \d+: >>[0-9a-f]{16}<<|Subkey Round \d+ \(after Salt\): >>[0-9a-f]{16}<< [0-9a-f]+|\.\.\.after (Shift|S-Box): [0-9a-f]{16} [0-9a-f]+|Round \d+|Final Round|Subkey: [0-9a-f]{16}|Text after\.\.\.|\.\.\.Key-Xor: [0-9a-f]{16}|\.\.\.\.\.(S|P)-Box: [0-9a-f]{16}|Text: [0-9a-f]{16})$)");
    static const std::regex banner_re(
        R"(^(-+|\*+|PRESENT Commandline Tool v2\.1|Thomas Siebert, thomas\.siebert@rub\.de|Starting values|Verbose output of PRESENT-(Key-Schedule|encryption|decryption)|End of verbose output)$)");
    Record r(rel, 1, "");
    std::string direction;
    bool have_key = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        std::smatch m;
        if (t.empty() || std::regex_match(t, banner_re) || std::regex_match(t, trace_re)) continue;
        if (std::regex_match(t, m, key_re)) {
            if (have_key) harness_error(at(rel, i), "a second key");
            r.set("key", m[2].str() + m[3].str(), lineno);
            r.set("key bits", m[1].str(), lineno);
            have_key = true;
        } else if (std::regex_match(t, m, value_re)) {
            const std::string name = m[1].str();
            const std::string attr = starts_with(name, "Given") ? "given" : starts_with(name, "Resulting") ? "result" : "input";
            r.set(attr, m[2].str(), lineno);
            const std::string word = attr == "input" ? name : name.substr(name.find(' ') + 1);
            // The run's direction fixes which block each line names.
            const bool enc_word = attr == "result" ? word == "Cipher" : word == "Plaintext";
            if (!direction.empty() && enc_word != (direction == "encryption"))
                harness_error(at(rel, i), "'" + name + "' in a run of " + direction);
            if (attr == "input") r.set_locator(rel + ":" + std::to_string(lineno));
        } else if (t == "Starting encryption..." || t == "Starting decryption...") {
            if (!direction.empty()) harness_error(at(rel, i), "a second 'Starting ...' line");
            direction = t == "Starting encryption..." ? "encryption" : "decryption";
            r.set("direction", direction, lineno);
        } else {
            harness_error(at(rel, i), "unrecognised line '" + t.substr(0, 60) + "'");
        }
    }
    if (direction.empty() || !have_key) harness_error(rel, "no 'Starting ...' line or no key");
    else out.push_back(r);
    return out;
}

// ---- OpenSSL evp_test cipher stanzas --------------------------------------------------------

std::vector<Record> parse_evp(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    struct Pending {
        std::string name, value;
        int line;
    };
    std::string title;
    std::vector<Pending> before;   // attributes of this stanza before its Cipher line
    Record cur;
    bool open = false;             // this stanza has its Cipher
    int aad_count = 0;
    auto end_stanza = [&]() {
        if (open) out.push_back(cur);
        else if (!before.empty())
            harness_error(rel + ":" + std::to_string(before.front().line),
                          "stanza without a 'Cipher' line (starts with '" + before.front().name + "')");
        open = false;
        before.clear();
        aad_count = 0;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        if (t.empty()) {
            end_stanza();
            continue;
        }
        if (t[0] == '#') continue;
        const size_t eq = t.find('=');
        if (eq == std::string::npos) {
            harness_error(at(rel, i), "line is not 'Keyword = value': '" + t.substr(0, 60) + "'");
            continue;
        }
        std::string name = trim(t.substr(0, eq));
        const std::string value = trim(t.substr(eq + 1));
        if (name.empty()) {
            harness_error(at(rel, i), "empty keyword");
            continue;
        }
        if (name == "Title") {
            if (open) harness_error(at(rel, i), "Title inside a test stanza");
            title = value;
            continue;
        }
        if (name == "AAD" && ++aad_count > 1) name = "AAD." + std::to_string(aad_count);
        if (name == "Cipher") {
            if (open) {
                harness_error(at(rel, i), "a second 'Cipher' in one stanza");
                continue;
            }
            cur = Record(rel, lineno, title);
            for (const Pending& p : before) cur.set(p.name, p.value, p.line);
            before.clear();
            open = true;
        }
        if (open) cur.set(name, value, lineno);
        else before.push_back(Pending{name, value, lineno});
    }
    end_stanza();
    return out;
}

std::vector<Record> parse_nessie(const std::string& rel) {
    std::vector<Record> out;
    std::vector<std::string> lines;
    if (!load_lines(rel, &lines)) return out;
    static const std::regex set_re(R"(^Set (\d+), vector#\s*(\d+):$)");
    static const std::regex size_re(R"(^(Key|Block) size: (\d+) bits$)");
    static const std::regex tv_re(R"(^Test vectors -- set \d+$)");
    static const std::regex field_re(R"(^([A-Za-z][A-Za-z0-9 ]*?)\s*=\s*([0-9A-Fa-f]+)$)");
    std::string primitive, keysize, blocksize;
    Record cur;
    bool open = false;
    auto close = [&]() {
        if (open) out.push_back(cur);
        open = false;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        const int lineno = static_cast<int>(i + 1);
        std::smatch m;
        if (t.empty()) continue;
        if (t[0] == '*' || t.find_first_not_of('=') == std::string::npos) continue;   // banners, rules
        if (std::regex_match(t, m, set_re)) {
            close();
            cur = Record(rel, lineno, "Set " + m[1].str() + ", vector# " + m[2].str());
            open = true;
            cur.set("header.primitive", primitive, lineno);
            cur.set("header.keysize", keysize, lineno);
            cur.set("header.blocksize", blocksize, lineno);
        } else if (std::regex_match(t, m, field_re)) {
            if (!open) {
                harness_error(at(rel, i), "attribute outside a vector");
                continue;
            }
            cur.set(m[1].str(), m[2].str(), lineno);
        } else if (std::regex_match(t, m, size_re)) {
            close();
            (m[1].str() == "Key" ? keysize : blocksize) = m[2].str();
        } else if (std::regex_match(t, tv_re) || t == "End of test vectors") {
            close();
        } else if (starts_with(t, "Primitive Name:")) {
            close();
            primitive = trim(t.substr(15));
        } else {
            harness_error(at(rel, i), "unrecognised line '" + t.substr(0, 60) + "'");
        }
    }
    close();
    return out;
}

}  // namespace conf
