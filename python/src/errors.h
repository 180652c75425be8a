// Failures of the C API as Python exceptions: each bc_status maps to one class of
// bulkcrypt.exceptions, carrying the library's sentence and its detail.
#pragma once

#include <nanobind/nanobind.h>

#include <bulkcrypt/bulkcrypt.h>

namespace bcpy {

// The enumerator's name ("BC_ERR_AUTH_FAILED"), or "BC_ERR_UNKNOWN" past the end.
const char* status_name(bc_status status);

// Reads the classes from bulkcrypt.exceptions once, at import.
void load_exception_classes();

// Raises the class for `status` with bc_status_message and bc_last_error of this
// thread; call right after the failing bulkcrypt call, on the same thread.
[[noreturn]] void raise_status(bc_status status);
// Raises the class for `status` with a message of the binding's own.
[[noreturn]] void raise_with(bc_status status, const std::string& message);

inline void check(bc_status status) {
    if (status != BC_OK) raise_status(status);
}

}  // namespace bcpy
