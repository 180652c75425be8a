// Wiping secrets so the compiler cannot drop the stores, and a byte container
// that wipes itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bc {

// Overwrites n bytes with zeros; never elided (OPENSSL_cleanse underneath).
void secure_wipe(void* p, size_t n);

// Constant-time equality of two byte strings of the same length: true when equal.
bool ct_equal(const uint8_t* a, const uint8_t* b, size_t n);

// A byte vector that wipes its contents when destroyed or reassigned.
class SecureBytes {
public:
    SecureBytes() = default;
    explicit SecureBytes(size_t n) : v_(n) {}
    SecureBytes(const uint8_t* p, size_t n) : v_(p, p + n) {}
    SecureBytes(const SecureBytes&) = delete;
    SecureBytes& operator=(const SecureBytes&) = delete;
    SecureBytes(SecureBytes&& o) noexcept : v_(std::move(o.v_)) {}
    SecureBytes& operator=(SecureBytes&& o) noexcept {
        if (this != &o) { clear(); v_ = std::move(o.v_); }
        return *this;
    }
    ~SecureBytes() { clear(); }

    void clear() { if (!v_.empty()) secure_wipe(v_.data(), v_.size()); v_.clear(); }
    void resize(size_t n) { SecureBytes t(n); for (size_t i = 0; i < n && i < v_.size(); ++i) t.v_[i] = v_[i]; *this = std::move(t); }
    uint8_t* data() { return v_.data(); }
    const uint8_t* data() const { return v_.data(); }
    size_t size() const { return v_.size(); }
    bool empty() const { return v_.empty(); }
    uint8_t& operator[](size_t i) { return v_[i]; }
    const uint8_t& operator[](size_t i) const { return v_[i]; }

private:
    std::vector<uint8_t> v_;
};

// Wipes an object of trivial type in place (round keys held by value, etc).
template <class T>
void secure_wipe_object(T& obj) { secure_wipe(&obj, sizeof(T)); }

}  // namespace bc
