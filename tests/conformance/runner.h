// The runner: every test case through the public C API, on every backend and
// core variant this build has, in every calling form (one shot, in place,
// misaligned by one byte, streaming in random pieces; AEAD combined, detached
// and streaming, plus the negative re-opens).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"
#include "common.h"

namespace conf {

// ---- backends ------------------------------------------------------------------------

struct BackendSlot {
    std::string label;        // the table's backend column: cpu, cpu/portable, cuda:0, opencl:1
    std::string device;       // bc_context_create's device
    std::string options;      // its options ("" = NULL)
    bc_context* ctx = nullptr;
    std::string unavailable;  // why ctx is null (the skip reason of every case here)
    // The aes=generic rows (cuda:0/generic, opencl:N/generic): that option moves
    // only AES's raw modes onto the generic block-cipher kernels, so only those
    // cases run there; the rest would repeat the plain row.
    bool aes_raw_only = false;
};

// Opens the contexts once. filter: comma-separated families to keep
// ("cpu,portable,cuda,opencl"); empty keeps all. The cuda and opencl families
// include their aes=generic rows; "generic" alone selects only those.
void open_backends(const std::string& filter);
void close_backends();
std::vector<BackendSlot>& backends();

// ---- cases ---------------------------------------------------------------------------

enum class CaseType { Raw, Aead };

// What a case must do. Valid: encrypt gives ct, decrypt gives pt. The others
// are negative cases: the named status is required.
// CounterOverflow: the file expects the counter to wrap (OpenSSL and Botan wrap
// CTR past 2^128 - 1; pyca wraps ChaCha's 64-bit counter), while bulkcrypt's
// contract refuses any wrap with BC_ERR_COUNTER_OVERFLOW: the suite holds it to
// its contract and lists these cases in the skip/note section.
enum class Expect { Valid, AuthFailed, BadPadding, IvSize, CounterOverflow };

struct Case {
    std::string id;           // file and record locator, e.g. ".../aes_gcm_test.json#tcId=17"
    std::string source;       // the table's mode/source column
    std::string alg;          // bulkcrypt algorithm name
    CaseType type = CaseType::Raw;
    Bytes key, iv, aad, pt, ct, tag;
    uint32_t flags = 0;       // BC_FLAG_*
    uint64_t offset = 0;      // bc_params.offset
    uint64_t data_unit = 0;   // bc_params.data_unit_size
    Expect expect = Expect::Valid;
    bool encrypt = true;      // run the encrypt direction
    bool decrypt = true;      // run the decrypt direction
    // Raw cases only: when set, the encrypt (and decrypt) output of pt is judged
    // by this function ("" = good) instead of being compared with ct.
    std::function<std::string(const Bytes& out)> check;
    std::string skip;         // non-empty: skipped on every backend with this reason
};

// Runs one case on every backend; records pass / fail / skip in results().
void run_case(const Case& c);
// Whether run_case runs c on slot b (the aes=generic rows take AES raw modes only).
bool runs_on(const BackendSlot& b, const Case& c);

// The case (or differential test) running now; set_current names one.
const char* current_case();
void set_current(const std::string& what);

// Small helpers shared by the other test files.
std::string status_name(bc_status s);
// "got <hex> want <hex> (first difference at byte n)", shortened for long data.
std::string describe_mismatch(const Bytes& got, const Bytes& want);
// A deterministic generator for lengths, splits and data (seeded per test).
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed ? seed : 0x9e3779b97f4a7c15ull) {}
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    Bytes bytes(size_t n) {
        Bytes b(n);
        for (auto& x : b) x = static_cast<uint8_t>(next() >> 24);
        return b;
    }
};
uint64_t hash_string(const std::string& s);

// Piece sizes for streaming a message of len bytes (they sum to len; zero-length
// pieces included on purpose).
std::vector<size_t> random_split(size_t len, Rng& rng, int style);

}  // namespace conf
