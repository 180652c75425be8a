#include <algorithm>
#include <cstdio>

#include "table.h"

namespace conf {

Results& results() {
    static Results r;
    return r;
}

void Results::pass(const RowKey& row) { ++rows_[row].passed; }

void Results::fail(const RowKey& row, const std::string& case_id, const std::string& what) {
    Row& r = rows_[row];
    ++r.failed;
    r.failures.push_back(case_id + ": " + what);
}

void Results::skip(const RowKey& row, const std::string& reason) {
    Row& r = rows_[row];
    ++r.skipped;
    ++r.skip_reasons[reason];
}

void Results::note(const RowKey& row, const std::string& text) { ++rows_[row].notes[text]; }

std::pair<size_t, size_t> Results::take_row(const RowKey& row) {
    auto it = rows_.find(row);
    if (it == rows_.end()) return {0, 0};
    std::pair<size_t, size_t> r{it->second.passed, it->second.failed};
    rows_.erase(it);
    return r;
}

size_t Results::total_failed() const {
    size_t n = 0;
    for (const auto& kv : rows_) n += kv.second.failed;
    return n;
}
size_t Results::total_passed() const {
    size_t n = 0;
    for (const auto& kv : rows_) n += kv.second.passed;
    return n;
}
size_t Results::total_skipped() const {
    size_t n = 0;
    for (const auto& kv : rows_) n += kv.second.skipped;
    return n;
}

void Results::print(std::FILE* f, size_t max_failures_per_row) const {
    size_t wa = 9, ws = 13, wb = 7;
    for (const auto& kv : rows_) {
        wa = std::max(wa, kv.first.algorithm.size());
        ws = std::max(ws, kv.first.source.size());
        wb = std::max(wb, kv.first.backend.size());
    }
    const int a = static_cast<int>(wa), s = static_cast<int>(ws), b = static_cast<int>(wb);
    std::fprintf(f, "\n==== conformance table ====\n");
    std::fprintf(f, "%-*s  %-*s  %-*s  %8s %8s %8s\n", a, "algorithm", s, "mode/source", b, "backend",
                 "passed", "failed", "skipped");
    std::fprintf(f, "%s\n", std::string(wa + ws + wb + 33, '-').c_str());
    for (const auto& kv : rows_)
        std::fprintf(f, "%-*s  %-*s  %-*s  %8zu %8zu %8zu%s\n", a, kv.first.algorithm.c_str(), s,
                     kv.first.source.c_str(), b, kv.first.backend.c_str(), kv.second.passed,
                     kv.second.failed, kv.second.skipped, kv.second.failed ? "  <-- FAIL" : "");
    std::fprintf(f, "%s\n", std::string(wa + ws + wb + 33, '-').c_str());
    std::fprintf(f, "%-*s  %8zu %8zu %8zu\n", a + s + b + 4, "total", total_passed(), total_failed(),
                 total_skipped());

    bool any_skip = false;
    for (const auto& kv : rows_) {
        if (kv.second.skip_reasons.empty()) continue;
        if (!any_skip) std::fprintf(f, "\n==== skipped, with reasons ====\n");
        any_skip = true;
        std::fprintf(f, "%s | %s | %s\n", kv.first.algorithm.c_str(), kv.first.source.c_str(),
                     kv.first.backend.c_str());
        for (const auto& r : kv.second.skip_reasons)
            std::fprintf(f, "    %6zu  skipped: %s\n", r.second, r.first.c_str());
    }

    bool any_note = false;
    for (const auto& kv : rows_) {
        if (kv.second.notes.empty()) continue;
        if (!any_note) std::fprintf(f, "\n==== notes on passed cases ====\n");
        any_note = true;
        std::fprintf(f, "%s | %s | %s\n", kv.first.algorithm.c_str(), kv.first.source.c_str(),
                     kv.first.backend.c_str());
        for (const auto& r : kv.second.notes) std::fprintf(f, "    %6zu  %s\n", r.second, r.first.c_str());
    }

    bool any_fail = false;
    for (const auto& kv : rows_) {
        if (kv.second.failures.empty()) continue;
        if (!any_fail) std::fprintf(f, "\n==== failures ====\n");
        any_fail = true;
        std::fprintf(f, "%s | %s | %s: %zu failed\n", kv.first.algorithm.c_str(),
                     kv.first.source.c_str(), kv.first.backend.c_str(), kv.second.failed);
        size_t shown = 0;
        for (const auto& msg : kv.second.failures) {
            if (shown++ == max_failures_per_row) {
                std::fprintf(f, "    ... and %zu more\n", kv.second.failures.size() - max_failures_per_row);
                break;
            }
            std::fprintf(f, "    FAIL %s\n", msg.c_str());
        }
    }
}

}  // namespace conf
