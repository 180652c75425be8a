// From vector files to test cases: one loader per file, each reading every
// attribute of every record (an unread one is a harness error) and mapping the
// file's conventions onto bulkcrypt's algorithm names and API.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "runner.h"

namespace conf {

struct VectorFile {
    std::string rel;             // path under tests/vectors
    size_t records;              // what the parser must see (the shared README's count)
    const char* format;          // botan, nist, wycheproof, cryptopp, estream, ntt, evp, present-trace, nessie
};

// For GoogleTest's parameter printing.
inline void PrintTo(const VectorFile& f, std::ostream* os) { *os << f.rel; }

// Every file the suite uses, with its expected record count.
const std::vector<VectorFile>& vector_files();

// Parses a file and turns its records into cases (skips carry their reason).
// records_seen receives the parser's record count (implicit records excluded).
std::vector<Case> load_cases(const VectorFile& f, size_t* records_seen);

}  // namespace conf
