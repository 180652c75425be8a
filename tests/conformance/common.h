// Shared pieces of the conformance suite: byte strings, hex, vector-file records
// that remember which attributes a test read, and the list of harness errors.
//
// The rule (BoringSSL's file-driven harness): every attribute a vector file
// gives must be read by the test that consumes it. An attribute nobody reads is
// a harness error that fails the run, so a typo in a file or a convention this
// suite does not understand can never pass silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace conf {

using Bytes = std::vector<uint8_t>;

// Hex decoding. Accepts upper- and lowercase digits; spaces and tabs are
// ignored when allow_spaces is set. Returns false on any other character or
// on an odd number of digits.
bool hex_decode(const std::string& text, Bytes* out, bool allow_spaces = false);
std::string hex_encode(const uint8_t* p, size_t n);
inline std::string hex_encode(const Bytes& b) { return hex_encode(b.data(), b.size()); }

std::string trim(const std::string& s);
std::string lower(std::string s);
bool starts_with(const std::string& s, const std::string& prefix);
// Splits a file's text into lines, accepting LF and CRLF.
std::vector<std::string> split_lines(const std::string& text);
// Reads a whole file; false (and a message) when it cannot be read.
bool read_file(const std::string& path, std::string* text, std::string* err);
// The vector folder (BC_VECTOR_DIR) joined with a relative path.
std::string vector_path(const std::string& rel);

// Harness errors: malformed files, unread attributes, counts that do not match.
// Each one fails the run; they are printed before the table.
void harness_error(const std::string& where, const std::string& what);
const std::vector<std::string>& harness_errors();
// For the suite's own self-tests only: forget the errors after the first n.
void harness_errors_truncate(size_t n);

// One test record of a vector file: named attributes in file order, each
// remembering whether a test read it.
class Record {
public:
    Record() = default;
    Record(std::string file, int line, std::string section)
        : file_(std::move(file)), line_(line), section_(std::move(section)) {}

    // Adds an attribute; a second value for the same name within one record is
    // a harness error (the file is ambiguous).
    void set(const std::string& name, const std::string& value, int line, bool pre_read = false);
    // A note kept with the record (not an attribute: never checked for reading).
    void set_note(const std::string& note) { note_ = note; }
    const std::string& note() const { return note_; }
    // Attribute names in file order.
    std::vector<std::string> names() const;
    bool has(const std::string& name) const;
    // Reading an attribute marks it read. A missing one is a harness error
    // (and gives "" / empty bytes).
    const std::string& str(const std::string& name);
    Bytes hex(const std::string& name, bool allow_spaces = false);
    uint64_t u64(const std::string& name);   // decimal, or hex with a 0x prefix
    // The optional forms: fallback when absent.
    Bytes hex_or(const std::string& name, const Bytes& fallback);
    uint64_t u64_or(const std::string& name, uint64_t fallback);

    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& section() const { return section_; }
    std::string where() const;   // "file:line", or the locator when one was set
    void set_locator(const std::string& loc) { locator_ = loc; }

    // Names of attributes nobody read.
    std::vector<std::string> unread() const;
    // Reports every unread attribute as a harness error; returns how many.
    size_t check_all_read() const;

private:
    struct Field {
        std::string name, value;
        int line = 0;
        mutable bool read = false;
    };
    Field* find(const std::string& name);
    const Field* find(const std::string& name) const;

    std::string file_;
    int line_ = 0;
    std::string section_;
    std::vector<Field> fields_;
    std::string empty_;
    std::string note_;
    std::string locator_;
};

}  // namespace conf
