#include "util/status.h"

namespace bc {
namespace {
thread_local std::string g_last_error;
}

void set_last_error(const Status& s) {
    if (s.is_ok()) {
        g_last_error.clear();
    } else if (s.detail.empty()) {
        g_last_error = bc_status_message(s.code);
    } else {
        g_last_error = s.detail;
    }
}

const char* last_error() { return g_last_error.c_str(); }

}  // namespace bc
