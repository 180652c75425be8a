// bc_conformance: the conformance suite's driver.
//
//   bc_conformance [--backends=cpu,portable,cuda,opencl,opencl:N] [--quick] [gtest flags]
//
// Runs the GoogleTest cases of this folder (parser self-checks, every vector
// file on every backend, differential tests against OpenSSL, bad-input
// checks), then prints the conformance table, the skip reasons and the
// failures. Exits non-zero on any failed case, failed test or harness error
// (for example an attribute in a vector file that no test read).
// BC_CONFORMANCE_BACKENDS and BC_CONFORMANCE_QUICK=1 do the same as the flags.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "common.h"
#include "options.h"
#include "runner.h"
#include "table.h"

namespace conf {
Options& options() {
    static Options o;
    return o;
}
}  // namespace conf

namespace {
// A crash inside the library ends the run; say which case caused it.
void on_crash(int sig) {
    char msg[1400];
    int n = std::snprintf(msg, sizeof msg, "\nbc_conformance: CRASH (signal %d) while running: %s\n", sig,
                          conf::current_case());
    if (n > 0) (void)!write(2, msg, static_cast<size_t>(std::min(n, static_cast<int>(sizeof msg))));
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}
}  // namespace

int main(int argc, char** argv) {
    for (int sig : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT}) std::signal(sig, on_crash);
    testing::InitGoogleTest(&argc, argv);
    std::string filter;
    if (const char* e = std::getenv("BC_CONFORMANCE_BACKENDS")) filter = e;
    if (const char* e = std::getenv("BC_CONFORMANCE_QUICK")) conf::options().quick = std::strcmp(e, "0") != 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--backends=", 0) == 0) {
            filter = a.substr(11);
        } else if (a == "--quick") {
            conf::options().quick = true;
        } else {
            std::fprintf(stderr, "bc_conformance: unknown argument '%s'\n", a.c_str());
            return 2;
        }
    }
    std::printf("bulkcrypt %s, vectors from %s\n", bc_version(), conf::vector_path("").c_str());
    conf::open_backends(filter);
    // None of the asked backends here (a run for CUDA on a machine without a GPU): a skip
    // with the reasons (exit 77, CTest's SKIP_RETURN_CODE), never a vacuous pass.
    bool any = false;
    std::string why;
    for (const conf::BackendSlot& b : conf::backends()) {
        if (b.ctx != nullptr) any = true;
        else why += (why.empty() ? "" : "; ") + b.unavailable;
    }
    if (!any) {
        std::printf("skipped: %s\n", why.empty() ? "no backend asked for" : why.c_str());
        conf::close_backends();
        return 77;
    }
    const int gtest_rc = RUN_ALL_TESTS();

    conf::results().print(stdout);
    const auto& errs = conf::harness_errors();
    if (!errs.empty()) {
        std::printf("\n==== harness errors (%zu): the vector files and the suite disagree ====\n", errs.size());
        size_t shown = 0;
        for (const auto& e : errs) {
            if (shown++ == 200) {
                std::printf("  ... and %zu more\n", errs.size() - 200);
                break;
            }
            std::printf("  %s\n", e.c_str());
        }
    }
    conf::close_backends();
    const size_t failed = conf::results().total_failed();
    const bool bad = gtest_rc != 0 || failed != 0 || !errs.empty();
    std::printf("\nconformance: %s (%zu passed, %zu failed, %zu skipped, %zu harness errors, gtest %s)\n",
                bad ? "FAILED" : "PASSED", conf::results().total_passed(), failed,
                conf::results().total_skipped(), errs.size(), gtest_rc ? "failed" : "passed");
    return bad ? 1 : 0;
}
