// Helpers shared by the stream-cipher unit tests: hex, vector files (read from
// tests/vectors, never pasted into source), Botan .vec and NIST-style parsing.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace bc_test_stream {

using Bytes = std::vector<uint8_t>;

inline std::string vector_dir() {
    std::string f = __FILE__;
    size_t slash = f.find_last_of('/');
    return (slash == std::string::npos ? std::string(".") : f.substr(0, slash)) + "/../vectors";
}

inline bool read_text(const std::string& rel, std::string* out) {
    std::ifstream in(vector_dir() + "/" + rel, std::ios::binary);
    if (!in) return false;
    std::stringstream ss;
    ss << in.rdbuf();
    *out = ss.str();
    return true;
}

inline Bytes hex(const std::string& s) {
    Bytes b;
    int hi = -1;
    for (char c : s) {
        int v;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        else continue;  // spaces, line breaks
        if (hi < 0) hi = v;
        else { b.push_back(uint8_t(hi << 4 | v)); hi = -1; }
    }
    return b;
}

inline std::string to_hex(const uint8_t* p, size_t n) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) { s += d[p[i] >> 4]; s += d[p[i] & 15]; }
    return s;
}
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

inline std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace((unsigned char)s[a])) ++a;
    while (b > a && std::isspace((unsigned char)s[b - 1])) --b;
    return s.substr(a, b - a);
}

inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : text) {
        if (c == '\n') { out.push_back(cur); cur.clear(); }
        else if (c != '\r') cur += c;
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

// A record of "Field = value" lines; section is the last [Name] seen.
struct Record {
    std::string section;
    std::map<std::string, std::string> f;
    bool has(const std::string& k) const { return f.count(k) != 0; }
    std::string get(const std::string& k) const { auto it = f.find(k); return it == f.end() ? "" : it->second; }
};

// Botan .vec: a record ends at each line whose field is `end_field` (Out).
inline std::vector<Record> parse_botan_vec(const std::string& text, const std::string& end_field = "Out") {
    std::vector<Record> out;
    Record cur;
    std::string section;
    for (const std::string& raw : lines(text)) {
        std::string l = trim(raw);
        if (l.empty() || l[0] == '#') continue;
        if (l[0] == '[') { section = l.substr(1, l.find(']') - 1); cur = Record(); continue; }
        size_t eq = l.find('=');
        if (eq == std::string::npos) continue;
        std::string k = trim(l.substr(0, eq)), v = trim(l.substr(eq + 1));
        cur.f[k] = v;
        if (k == end_field) { cur.section = section; out.push_back(cur); cur = Record(); }
    }
    return out;
}

// NIST loader style: records start at COUNT; field names upper-cased.
inline std::vector<Record> parse_nist(const std::string& text) {
    std::vector<Record> out;
    Record cur;
    bool open = false;
    for (const std::string& raw : lines(text)) {
        std::string l = trim(raw);
        if (l.empty() || l[0] == '#' || l[0] == '[') continue;
        size_t eq = l.find('=');
        if (eq == std::string::npos) continue;
        std::string k = trim(l.substr(0, eq)), v = trim(l.substr(eq + 1));
        for (char& c : k) c = (char)std::toupper((unsigned char)c);
        if (k == "COUNT") {
            if (open) out.push_back(cur);
            cur = Record();
            open = true;
        }
        cur.f[k] = v;
    }
    if (open) out.push_back(cur);
    return out;
}

inline Bytes random_bytes(std::mt19937_64& rng, size_t n) {
    Bytes b(n);
    for (auto& x : b) x = uint8_t(rng());
    return b;
}

}  // namespace bc_test_stream
