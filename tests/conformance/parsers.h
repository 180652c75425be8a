// Parsers for the vector-file formats the suite reads. Each returns the file's
// test records in file order; malformed lines are harness errors. The parsers
// know the formats, not the ciphers: turning a record into a test case (and
// reading every attribute of it) is the job of vector_cases.cpp.
#pragma once

#include <string>
#include <vector>

#include "common.h"

namespace conf {

// Botan .vec: "[Section]" lines, "#" comments, "Field = value"; a test ends at
// each "Out =" line. Record::section() is the section name.
std::vector<Record> parse_botan_vec(const std::string& rel);

// NIST CAVS / pyca loader format: "[ENCRYPT]"/"[DECRYPT]" sections (optional),
// "#" comments, records started by "COUNT = n", "FIELD = value" lines. Field
// names are case-insensitive and are stored lowercased. section() is the
// bracketed section name ("" when the file has none).
std::vector<Record> parse_nist(const std::string& rel);

// Wycheproof JSON (testvectors_v1). expected_algorithm must equal the file's
// "algorithm"; expected_schema its "schema". Each test becomes one record
// holding the test's attributes (tcId, comment, flags (comma-joined), result,
// key, iv, msg, ct, aad, tag) and its group's (keySize, ivSize, tagSize,
// prefixed "group."). The file-level attributes are checked here: the test
// count against numberOfTests, every flag against notes.
std::vector<Record> parse_wycheproof(const std::string& rel, const std::string& expected_algorithm,
                                     const std::string& expected_schema);

// Crypto++ TestVectors: "Field: value" lines, "\" continuations, "rN xx"
// repetitions; values persist within a section (started by AlgorithmType:)
// and every "Test:" line makes one record of the current values. A value set
// since the previous test is unread until a test reads it; older values are
// pre-read. A complete Key/IV/Plaintext/Ciphertext set that is overwritten
// without a Test line becomes a record with note "implicit" (Test = Encrypt),
// counted apart from the file's own tests. Data values are stored as plain hex.
std::vector<Record> parse_cryptopp(const std::string& rel);

// eSTREAM / ECRYPT "verified.test-vectors" text: one record per
// "Set s, vector# n:" with attributes key, IV, stream[a..b] (one per slice),
// xor-digest, and from the surrounding headers header.keysize and
// header.ivsize (bits) and, where the set states it, header.streamlen (bytes).
// section() is "Set s, vector# n".
std::vector<Record> parse_estream(const std::string& rel);

// NESSIE block-cipher test vectors (DES's, as tinycrypt keeps them): a header of
// "Primitive Name:", "Key size: n bits" and "Block size: n bits" lines, then one record
// per "Set s, vector# n:" with its "name=hex" lines (key, plain, cipher, decrypted or
// encrypted, "Iterated 100 times", "Iterated 1000 times") and header.primitive,
// header.keysize and header.blocksize (bits). section() is "Set s, vector# n".
std::vector<Record> parse_nessie(const std::string& rel);

// NTT's Camellia test file (t_camelia.txt, as pyca ships it): "K No.nnn : hex"
// sets the key for the pairs that follow; each "P No.nnn : hex" line and the
// "C No.nnn : hex" line with the same number make one record with attributes
// key, plaintext and ciphertext (hex with spaces, as written). section() is
// "K No.nnn". "#" lines are comments.
std::vector<Record> parse_ntt(const std::string& rel);

// The PRESENT designers' command-line tool's verbose output ("PRESENT Commandline Tool
// v2.1", one run a file): the starting values, the key schedule's trace, the round
// trace and the result. One record a file, with attributes direction ("encryption" or
// "decryption", from its "Starting ..." line), key (hex, the register as printed
// without its space), key bits (80 or 128), input (the "Plaintext:" or "Ciphertext:"
// starting value), given (the "Given Plaintext:" or "Given Ciphertext:" value the
// run starts from) and result (its "Resulting ...:" value). Trace lines (subkeys,
// per-round values) are checked for their form only; tests/unit/test_present_core.cpp
// reads the subkeys. Any other line is a harness error.
std::vector<Record> parse_present_trace(const std::string& rel);

// OpenSSL's evp_test cipher files (test/recipes/30-test_evp_data/evpciph_*.txt):
// stanzas of "Keyword = value" lines ended by a blank line, "#" comments. Every
// stanza holding "Cipher = NAME" is one record with all its attributes under
// their own names (Cipher, Key, IV, Plaintext, Ciphertext, AAD, Tag, Operation,
// NextIV, Result, Availablein, FIPSversion, ... whatever the file gives);
// attributes before Cipher in the stanza (Availablein, FIPSversion) belong to
// it too. A repeated AAD (OpenSSL feeds each in turn) is stored as "AAD",
// "AAD.2", "AAD.3", ... "Title = ..." labels the stanzas after it and is the
// records' section(). A stanza with attributes but no Cipher, or a Title
// after Cipher, is a harness error.
std::vector<Record> parse_evp(const std::string& rel);

}  // namespace conf
