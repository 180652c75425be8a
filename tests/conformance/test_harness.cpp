// The suite tests itself: an unread attribute, a wrong expected output and a
// wrong expected status must each be caught. Their traces are removed after.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "table.h"
#include "vector_cases.h"

namespace conf {
namespace {

TEST(HarnessSelfTest, UnreadAttributeIsAnError) {
    char dir[] = "/tmp/bc_conf_selftest_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/aes.vec";
    {
        std::ofstream f(path);
        f << "[AES-128]\nKey = 000102030405060708090a0b0c0d0e0f\nIn = 00112233445566778899aabbccddeeff\n"
             "Nonse = 00\nOut = 69c4e0d86a7b0430d8cdb78070b4c55a\n";
    }
    const size_t before = harness_errors().size();
    size_t seen = 0;
    std::vector<Case> cases = load_cases(VectorFile{path, 1, "botan"}, &seen);
    const size_t raised = harness_errors().size() - before;
    const std::string first = raised ? harness_errors()[before] : "";
    harness_errors_truncate(before);
    std::remove(path.c_str());
    rmdir(dir);
    EXPECT_EQ(seen, 1u);
    EXPECT_EQ(raised, 1u);
    EXPECT_NE(first.find("'Nonse' was read by no test"), std::string::npos) << first;
}

TEST(HarnessSelfTest, WrongOutputsAndStatusesFail) {
    // Live slots that take each kind of case (the aes=generic rows take AES raw modes only).
    size_t live = 0, live_aead = 0;
    for (const BackendSlot& b : backends()) {
        live += b.ctx ? 1 : 0;
        Case probe;
        probe.type = CaseType::Aead;
        live_aead += (b.ctx && runs_on(b, probe)) ? 1 : 0;
    }
    if (live == 0) GTEST_SKIP() << "no backend";
    const std::string src = "harness self-test";
    Case raw;
    raw.alg = "aes-128-ctr";
    raw.source = src;
    raw.id = "self-test: wrong ciphertext";
    raw.key.assign(16, 1);
    raw.iv.assign(16, 2);
    raw.pt.assign(33, 3);
    raw.ct.assign(33, 3);   // the identity is not AES-CTR
    run_case(raw);
    size_t raw_failed = 0;
    for (const BackendSlot& b : backends()) raw_failed += results().take_row(RowKey{raw.alg, src, b.label}).second;
    EXPECT_EQ(raw_failed, live);

    Case aead;
    aead.type = CaseType::Aead;
    aead.alg = "chacha20-poly1305";
    aead.source = src;
    aead.id = "self-test: a valid-looking AEAD case with a wrong tag";
    aead.key.assign(32, 1);
    aead.iv.assign(12, 2);
    aead.pt.assign(20, 3);
    aead.ct.assign(20, 3);
    aead.tag.assign(16, 4);
    run_case(aead);
    size_t failed = 0;
    for (const BackendSlot& b : backends()) failed += results().take_row(RowKey{aead.alg, src, b.label}).second;
    EXPECT_EQ(failed, live_aead);

    aead.expect = Expect::IvSize;   // the nonce is fine: must not pass as an IV-size rejection
    aead.id = "self-test: expects BC_ERR_IV_SIZE for a good nonce";
    run_case(aead);
    failed = 0;
    for (const BackendSlot& b : backends()) failed += results().take_row(RowKey{aead.alg, src, b.label}).second;
    EXPECT_EQ(failed, live_aead);
}

}  // namespace
}  // namespace conf
