// Shared pieces of the bulkcrypt command: exit codes, the error type that
// carries one, status mapping, hex and size parsing, wiped buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"

namespace bcli {

// Documented in docs/cli.md; scripts rely on them, so they never change.
enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 1,     // bad command line, unknown algorithm, wrong key/IV size, bad option
    kExitIo = 2,        // a file could not be opened, read, written or renamed
    kExitAuth = 3,      // authentication failed: wrong key, modified or truncated input,
                        // not a bulkcrypt file, bad padding
    kExitDevice = 4,    // the device is absent, failed, ran out of memory or cannot do it
    kExitOther = 5,     // anything else (an internal error, an interrupted run)
};

// Every failure in the command is thrown as one of these and turned into a
// message on stderr plus the exit code at the top of main().
class Failure : public std::runtime_error {
public:
    Failure(int code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

[[noreturn]] void fail(int code, const std::string& msg);

// Which exit code a library status means.
int exit_code_for(bc_status st);

// Throws a Failure for any status but BC_OK: "<what>: <status message> (<detail>)".
void check(bc_status st, const std::string& what);

// Hex without separators, upper or lower case; whitespace is refused.
std::vector<uint8_t> parse_hex(const std::string& hex, const char* what);
std::string to_hex(const uint8_t* p, size_t n);

// "4096", "64K", "1M", "2GiB", "1.5G" (binary multiples).
uint64_t parse_size(const std::string& text, const char* what);
// "1.50 GiB" style for people.
std::string human_bytes(double bytes);

// A byte buffer wiped (OPENSSL_cleanse) before it is released: keys,
// passphrases, plaintext scratch.
class SecureBytes {
public:
    SecureBytes() = default;
    explicit SecureBytes(size_t n) : v_(n) {}
    SecureBytes(const uint8_t* p, size_t n) : v_(p, p + n) {}
    SecureBytes(const SecureBytes&) = delete;
    SecureBytes& operator=(const SecureBytes&) = delete;
    SecureBytes(SecureBytes&& o) noexcept : v_(std::move(o.v_)) {}
    SecureBytes& operator=(SecureBytes&& o) noexcept;
    ~SecureBytes() { wipe(); }

    void wipe();
    void resize(size_t n);  // wipes the old contents first if it has to move
    uint8_t* data() { return v_.data(); }
    const uint8_t* data() const { return v_.data(); }
    size_t size() const { return v_.size(); }
    bool empty() const { return v_.empty(); }

private:
    std::vector<uint8_t> v_;
};

// A buffer for bulk data: allocated without zero-filling (new[]), so a 1 GiB
// segment buffer costs nothing until it is touched. Wiped on release when
// asked (plaintext).
class RawBuffer {
public:
    RawBuffer() = default;
    explicit RawBuffer(size_t n, bool wipe_on_free = false);
    RawBuffer(const RawBuffer&) = delete;
    RawBuffer& operator=(const RawBuffer&) = delete;
    RawBuffer(RawBuffer&& o) noexcept;
    RawBuffer& operator=(RawBuffer&& o) noexcept;
    ~RawBuffer();
    uint8_t* data() { return p_; }
    const uint8_t* data() const { return p_; }
    size_t size() const { return n_; }

private:
    void release();
    uint8_t* p_ = nullptr;
    size_t n_ = 0;
    bool wipe_ = false;
};

// Owning handles for the C API objects.
struct Context {
    bc_context* ctx = nullptr;
    Context() = default;
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context() { bc_context_destroy(ctx); }
};
struct Key {
    bc_key* key = nullptr;
    Key() = default;
    Key(const Key&) = delete;
    Key& operator=(const Key&) = delete;
    ~Key() { bc_key_destroy(key); }
};

// Opens a context on a device ("auto", "cpu", "cuda:N", "opencl:N") or fails
// with the device exit code (the usage one for a malformed string or option).
void open_context(Context& c, const std::string& device, const std::string& options);

// Seconds on a monotonic clock.
double now_seconds();

}  // namespace bcli
