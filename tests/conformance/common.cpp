#include "common.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

#ifndef BC_VECTOR_DIR
#error "BC_VECTOR_DIR must name the tests/vectors folder"
#endif

namespace conf {

namespace {
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::vector<std::string>& errors_store() {
    static std::vector<std::string> errors;
    return errors;
}
}  // namespace

bool hex_decode(const std::string& text, Bytes* out, bool allow_spaces) {
    out->clear();
    out->reserve(text.size() / 2);
    int high = -1;
    for (char c : text) {
        if (allow_spaces && (c == ' ' || c == '\t')) continue;
        int v = hex_value(c);
        if (v < 0) return false;
        if (high < 0) {
            high = v;
        } else {
            out->push_back(static_cast<uint8_t>(high << 4 | v));
            high = -1;
        }
    }
    return high < 0;
}

std::string hex_encode(const uint8_t* p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(2 * n);
    for (size_t i = 0; i < n; ++i) {
        s.push_back(digits[p[i] >> 4]);
        s.push_back(digits[p[i] & 15]);
    }
    return s;
}

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool starts_with(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= text.size()) {
        size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return lines;
}

bool read_file(const std::string& path, std::string* text, std::string* err) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        *err = "cannot open " + path;
        return false;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    *text = ss.str();
    return true;
}

std::string vector_path(const std::string& rel) {
    return !rel.empty() && rel[0] == '/' ? rel : std::string(BC_VECTOR_DIR) + "/" + rel;
}

void harness_error(const std::string& where, const std::string& what) {
    errors_store().push_back(where + ": " + what);
}

const std::vector<std::string>& harness_errors() { return errors_store(); }

void harness_errors_truncate(size_t n) {
    if (errors_store().size() > n) errors_store().resize(n);
}

// ---- Record ------------------------------------------------------------------------

void Record::set(const std::string& name, const std::string& value, int line, bool pre_read) {
    if (find(name) != nullptr) {
        harness_error(file_ + ":" + std::to_string(line),
                      "attribute '" + name + "' given twice in one record");
        return;
    }
    fields_.push_back(Field{name, value, line, pre_read});
}

std::vector<std::string> Record::names() const {
    std::vector<std::string> n;
    for (const Field& f : fields_) n.push_back(f.name);
    return n;
}

Record::Field* Record::find(const std::string& name) {
    for (Field& f : fields_)
        if (f.name == name) return &f;
    return nullptr;
}

const Record::Field* Record::find(const std::string& name) const {
    for (const Field& f : fields_)
        if (f.name == name) return &f;
    return nullptr;
}

bool Record::has(const std::string& name) const { return find(name) != nullptr; }

const std::string& Record::str(const std::string& name) {
    Field* f = find(name);
    if (f == nullptr) {
        harness_error(where(), "required attribute '" + name + "' missing");
        return empty_;
    }
    f->read = true;
    return f->value;
}

Bytes Record::hex(const std::string& name, bool allow_spaces) {
    Bytes b;
    const std::string& v = str(name);
    if (!hex_decode(v, &b, allow_spaces))
        harness_error(where(), "attribute '" + name + "' is not hex: '" + v.substr(0, 40) + "'");
    return b;
}

uint64_t Record::u64(const std::string& name) {
    const std::string& v = str(name);
    if (v.empty()) {
        harness_error(where(), "attribute '" + name + "' is empty, expected a number");
        return 0;
    }
    size_t used = 0;
    uint64_t x = 0;
    try {
        if (starts_with(v, "0x") || starts_with(v, "0X"))
            x = std::stoull(v.substr(2), &used, 16), used += 2;
        else
            x = std::stoull(v, &used, 10);
    } catch (...) {
        used = 0;
    }
    if (used != v.size() || v[0] == '-')
        harness_error(where(), "attribute '" + name + "' is not a number: '" + v + "'");
    return x;
}

Bytes Record::hex_or(const std::string& name, const Bytes& fallback) {
    return has(name) ? hex(name) : fallback;
}

uint64_t Record::u64_or(const std::string& name, uint64_t fallback) {
    return has(name) ? u64(name) : fallback;
}

std::string Record::where() const {
    return locator_.empty() ? file_ + ":" + std::to_string(line_) : locator_;
}

std::vector<std::string> Record::unread() const {
    std::vector<std::string> names;
    for (const Field& f : fields_)
        if (!f.read) names.push_back(f.name);
    return names;
}

size_t Record::check_all_read() const {
    size_t n = 0;
    for (const Field& f : fields_) {
        if (f.read) continue;
        harness_error(locator_.empty() ? file_ + ":" + std::to_string(f.line) : locator_,
                      "attribute '" + f.name + "' was read by no test");
        ++n;
    }
    return n;
}

}  // namespace conf
