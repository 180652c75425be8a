// Internal status plumbing: a bc_status plus a detail message that becomes the
// thread's bc_last_error() when it crosses the C API.
#pragma once

#include <string>

#include "bulkcrypt/bulkcrypt.h"

namespace bc {

struct Status {
    bc_status code = BC_OK;
    std::string detail;  // what exactly went wrong, for bc_last_error()

    // User-provided, so Status() is not value-initialised: a defaulted constructor
    // made every Status::ok() zero all 40 bytes first (rep stos on the hot path).
    Status() {}
    Status(bc_status c, std::string d = {}) : code(c), detail(std::move(d)) {}
    static Status ok() { return Status(); }
    bool is_ok() const { return code == BC_OK; }
    explicit operator bool() const { return is_ok(); }
};

// Evaluates a Status expression and returns it from the enclosing function on failure.
#define BC_TRY(expr)                      \
    do {                                  \
        ::bc::Status bc_try_s_ = (expr);  \
        if (!bc_try_s_.is_ok()) return bc_try_s_; \
    } while (0)

// Records the thread's last error detail (used by the C API layer).
void set_last_error(const Status& s);
const char* last_error();

}  // namespace bc
