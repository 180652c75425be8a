#include "util/status.h"

namespace bc {
namespace {
// Every C API call sets the last error, so a success touches only a flag: a plain
// thread-local, where the string (a thread_local with a constructor) goes through its
// initialisation check on every access.
thread_local bool g_failed = false;
thread_local std::string g_last_error;
}  // namespace

void set_last_error(const Status& s) {
    if (s.is_ok()) {
        g_failed = false;
        return;
    }
    g_failed = true;
    if (s.detail.empty()) g_last_error = bc_status_message(s.code);
    else g_last_error = s.detail;
}

const char* last_error() { return g_failed ? g_last_error.c_str() : ""; }

}  // namespace bc
