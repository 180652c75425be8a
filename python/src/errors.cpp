#include "errors.h"

#include <string>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace bcpy {

namespace {

// bulkcrypt.exceptions._class_for_status, looked up at import. A plain reference, never
// released: a static nb::object would be released by exit() after the interpreter has
// gone (a crash at exit).
PyObject* g_class_by_status = nullptr;

}  // namespace

const char* status_name(bc_status status) {
    switch (status) {
#define BCPY_NAME(s) \
    case s:          \
        return #s;
        BCPY_NAME(BC_OK)
        BCPY_NAME(BC_ERR_NULL_POINTER)
        BCPY_NAME(BC_ERR_INVALID_ARGUMENT)
        BCPY_NAME(BC_ERR_UNKNOWN_ALGORITHM)
        BCPY_NAME(BC_ERR_KEY_SIZE)
        BCPY_NAME(BC_ERR_IV_SIZE)
        BCPY_NAME(BC_ERR_TAG_SIZE)
        BCPY_NAME(BC_ERR_INPUT_LENGTH)
        BCPY_NAME(BC_ERR_MESSAGE_TOO_LONG)
        BCPY_NAME(BC_ERR_COUNTER_OVERFLOW)
        BCPY_NAME(BC_ERR_OVERLAP)
        BCPY_NAME(BC_ERR_OUTPUT_TOO_SMALL)
        BCPY_NAME(BC_ERR_AUTH_FAILED)
        BCPY_NAME(BC_ERR_BAD_PADDING)
        BCPY_NAME(BC_ERR_NOT_SUPPORTED)
        BCPY_NAME(BC_ERR_BAD_DEVICE)
        BCPY_NAME(BC_ERR_NO_DEVICE)
        BCPY_NAME(BC_ERR_DEVICE)
        BCPY_NAME(BC_ERR_OUT_OF_MEMORY)
        BCPY_NAME(BC_ERR_BAD_STATE)
        BCPY_NAME(BC_ERR_BAD_OPTION)
        BCPY_NAME(BC_ERR_INTERNAL)
#undef BCPY_NAME
    }
    return "BC_ERR_UNKNOWN";
}

void load_exception_classes() {
    nb::module_ exc = nb::module_::import_("bulkcrypt.exceptions");
    nb::object fn = exc.attr("_class_for_status");
    g_class_by_status = fn.release().ptr();
}

void raise_with(bc_status status, const std::string& message) {
    nb::object cls = nb::borrow(g_class_by_status)(status_name(status));
    nb::object err = cls(message, status_name(status));
    PyErr_SetObject(cls.ptr(), err.ptr());
    throw nb::python_error();
}

void raise_status(bc_status status) {
    std::string message = bc_status_message(status);
    std::string detail = bc_last_error() ? bc_last_error() : "";
    // Some details begin with what the status's sentence already says: keep the rest.
    const size_t colon = detail.find(": ");
    if (colon != std::string::npos && message.find(detail.substr(0, colon)) != std::string::npos)
        detail = detail.substr(colon + 2);
    if (!detail.empty() && message.find(detail) == std::string::npos) message += ": " + detail;
    raise_with(status, message);
}

}  // namespace bcpy
