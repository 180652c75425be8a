// The results table: one row per (algorithm, mode/source, backend) with
// passed / failed / skipped counts, every skip reason with its count, and the
// ids of failed cases with what went wrong.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace conf {

struct RowKey {
    std::string algorithm, source, backend;
    bool operator<(const RowKey& o) const {
        return std::tie(algorithm, source, backend) < std::tie(o.algorithm, o.source, o.backend);
    }
};

class Results {
public:
    void pass(const RowKey& row);
    void fail(const RowKey& row, const std::string& case_id, const std::string& what);
    void skip(const RowKey& row, const std::string& reason);
    // A remark on a passed case that a reader should know about (counted).
    void note(const RowKey& row, const std::string& text);

    // Removes a row and returns its (passed, failed) counts: for self-tests.
    std::pair<size_t, size_t> take_row(const RowKey& row);

    size_t total_failed() const;
    size_t total_passed() const;
    size_t total_skipped() const;
    // Prints the table, the skip reasons and the failures (at most
    // max_failures_per_row listed per row, all counted).
    void print(std::FILE* f, size_t max_failures_per_row = 12) const;

private:
    struct Row {
        size_t passed = 0, failed = 0, skipped = 0;
        std::map<std::string, size_t> skip_reasons;
        std::vector<std::string> failures;
        std::map<std::string, size_t> notes;
    };
    std::map<RowKey, Row> rows_;
};

// The one table of this run.
Results& results();

}  // namespace conf
