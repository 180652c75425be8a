#include "common.h"

#include <openssl/crypto.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace bcli {

void fail(int code, const std::string& msg) { throw Failure(code, msg); }

int exit_code_for(bc_status st) {
    switch (st) {
    case BC_OK:
        return kExitOk;
    case BC_ERR_INVALID_ARGUMENT:
    case BC_ERR_UNKNOWN_ALGORITHM:
    case BC_ERR_KEY_SIZE:
    case BC_ERR_IV_SIZE:
    case BC_ERR_TAG_SIZE:
    case BC_ERR_INPUT_LENGTH:
    case BC_ERR_MESSAGE_TOO_LONG:
    case BC_ERR_COUNTER_OVERFLOW:
    case BC_ERR_BAD_DEVICE:
    case BC_ERR_BAD_OPTION:
        return kExitUsage;
    case BC_ERR_AUTH_FAILED:
    case BC_ERR_BAD_PADDING:
        return kExitAuth;
    case BC_ERR_NOT_SUPPORTED:
    case BC_ERR_NO_DEVICE:
    case BC_ERR_DEVICE:
    case BC_ERR_OUT_OF_MEMORY:
        return kExitDevice;
    case BC_ERR_NULL_POINTER:
    case BC_ERR_OVERLAP:
    case BC_ERR_OUTPUT_TOO_SMALL:
    case BC_ERR_BAD_STATE:
    case BC_ERR_INTERNAL:
    default:
        return kExitOther;
    }
}

void check(bc_status st, const std::string& what) {
    if (st == BC_OK) return;
    const char* detail = bc_last_error();
    std::string msg = fmt::format("{}: {}", what, bc_status_message(st));
    if (detail != nullptr && *detail != '\0') msg += fmt::format(" ({})", detail);
    throw Failure(exit_code_for(st), msg);
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::vector<uint8_t> parse_hex(const std::string& hex, const char* what) {
    if (hex.size() % 2 != 0)
        fail(kExitUsage, fmt::format("{}: odd number of hex digits ({})", what, hex.size()));
    std::vector<uint8_t> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            fail(kExitUsage, fmt::format("{}: not a hex digit at position {}", what,
                                         hi < 0 ? 2 * i : 2 * i + 1));
        out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return out;
}

std::string to_hex(const uint8_t* p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s(2 * n, '0');
    for (size_t i = 0; i < n; ++i) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    return s;
}

uint64_t parse_size(const std::string& text, const char* what) {
    if (text.empty()) fail(kExitUsage, fmt::format("{}: empty size", what));
    size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
        ++i;
    if (i == 0) fail(kExitUsage, fmt::format("{}: '{}' is not a size", what, text));
    std::string num = text.substr(0, i), unit = text.substr(i);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    double mult = 1;
    if (unit.empty() || unit == "B") mult = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB") mult = 1024.0;
    else if (unit == "M" || unit == "MB" || unit == "MIB") mult = 1024.0 * 1024;
    else if (unit == "G" || unit == "GB" || unit == "GIB") mult = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "TB" || unit == "TIB") mult = 1024.0 * 1024 * 1024 * 1024;
    else fail(kExitUsage, fmt::format("{}: unknown unit '{}' (use K, M, G or T)", what, unit));
    char* end = nullptr;
    double v = std::strtod(num.c_str(), &end);
    if (end == nullptr || *end != '\0' || !(v >= 0))
        fail(kExitUsage, fmt::format("{}: '{}' is not a size", what, text));
    double bytes = v * mult;
    if (bytes > 1.8e19) fail(kExitUsage, fmt::format("{}: '{}' is too large", what, text));
    if (bytes != std::floor(bytes))
        fail(kExitUsage, fmt::format("{}: '{}' is not a whole number of bytes", what, text));
    return static_cast<uint64_t>(bytes);
}

std::string human_bytes(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        ++u;
    }
    return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, units[u]);
}

SecureBytes& SecureBytes::operator=(SecureBytes&& o) noexcept {
    if (this != &o) {
        wipe();
        v_ = std::move(o.v_);
    }
    return *this;
}

void SecureBytes::wipe() {
    if (!v_.empty()) OPENSSL_cleanse(v_.data(), v_.size());
}

void SecureBytes::resize(size_t n) {
    if (n > v_.capacity()) {
        std::vector<uint8_t> bigger(n);
        if (!v_.empty()) std::memcpy(bigger.data(), v_.data(), v_.size());
        wipe();
        v_.swap(bigger);
    } else {
        if (n < v_.size()) OPENSSL_cleanse(v_.data() + n, v_.size() - n);
        v_.resize(n);
    }
}

RawBuffer::RawBuffer(size_t n, bool wipe_on_free) : n_(n), wipe_(wipe_on_free) {
    if (n > 0) {
        p_ = new (std::nothrow) uint8_t[n];
        if (p_ == nullptr)
            fail(kExitOther, fmt::format("out of host memory allocating {}", human_bytes(double(n))));
    }
}

RawBuffer::RawBuffer(RawBuffer&& o) noexcept : p_(o.p_), n_(o.n_), wipe_(o.wipe_) {
    o.p_ = nullptr;
    o.n_ = 0;
}

RawBuffer& RawBuffer::operator=(RawBuffer&& o) noexcept {
    if (this != &o) {
        release();
        p_ = o.p_;
        n_ = o.n_;
        wipe_ = o.wipe_;
        o.p_ = nullptr;
        o.n_ = 0;
    }
    return *this;
}

RawBuffer::~RawBuffer() { release(); }

void RawBuffer::release() {
    if (p_ != nullptr) {
        if (wipe_) OPENSSL_cleanse(p_, n_);
        delete[] p_;
    }
    p_ = nullptr;
    n_ = 0;
}

void open_context(Context& c, const std::string& device, const std::string& options) {
    bc_status st = bc_context_create(device.c_str(), options.empty() ? nullptr : options.c_str(),
                                     &c.ctx);
    // The options are checked before the device (bulkcrypt.h): a bad one is the user's
    // option, not a device failure.
    if (st == BC_ERR_BAD_OPTION) check(st, fmt::format("--options '{}'", options));
    check(st, fmt::format("cannot open device '{}'", device));
}

double now_seconds() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

}  // namespace bcli
