// The 64-bit block ciphers of the catalogue refuse a message longer than 2^32 blocks
// (BC_ERR_MESSAGE_TOO_LONG), one-shot and streaming, before reading or writing a byte:
// the calls below claim such a length over a small buffer, which a check done too late
// would overrun (AddressSanitizer and the wiped-output check would show it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "bulkcrypt/bulkcrypt.h"

namespace {

constexpr uint64_t kLimit = uint64_t(8) << 32;  // 2^32 blocks of 8 bytes

TEST(Block64Limits, LongMessagesRefusedBeforeAnyByte) {
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", nullptr, &ctx)) << bc_last_error();
    int checked = 0;
    for (size_t i = 0; const char* name = bc_algorithm_name(i); ++i) {
        bc_algorithm_info info{};
        ASSERT_EQ(BC_OK, bc_algorithm_query(name, &info)) << name;
        if (info.block_size != 8) continue;
        EXPECT_EQ(kLimit, info.max_message_size) << name;
        EXPECT_EQ(kLimit, bc_max_message_size(name)) << name;
        std::vector<uint8_t> key(info.key_size, 0x5a), iv(info.iv_size, 0x11), buf(64, 0x22);
        bc_key* k = nullptr;
        ASSERT_EQ(BC_OK, bc_key_create(ctx, name, key.data(), key.size(), &k)) << name << ": " << bc_last_error();
        const size_t too_long = size_t(kLimit + 8);
        size_t n = 0;
        EXPECT_EQ(BC_ERR_MESSAGE_TOO_LONG, bc_encrypt(k, iv.empty() ? nullptr : iv.data(), iv.size(), buf.data(),
                                                      too_long, buf.data(), too_long, &n, nullptr))
            << name;
        EXPECT_EQ(0u, n) << name;
        EXPECT_EQ(BC_ERR_MESSAGE_TOO_LONG, bc_decrypt(k, iv.empty() ? nullptr : iv.data(), iv.size(), buf.data(),
                                                      too_long, buf.data(), too_long, &n, nullptr))
            << name;
        for (uint8_t b : buf) ASSERT_EQ(0x22, b) << name << ": the buffer was touched";
        bc_stream* s = nullptr;
        ASSERT_EQ(BC_OK, bc_stream_create(k, BC_ENCRYPT, iv.empty() ? nullptr : iv.data(), iv.size(), nullptr, &s))
            << name << ": " << bc_last_error();
        EXPECT_EQ(BC_ERR_MESSAGE_TOO_LONG, bc_stream_update(s, buf.data(), too_long, buf.data(), too_long, &n))
            << name;
        bc_stream_destroy(s);
        bc_key_destroy(k);
        ++checked;
    }
    EXPECT_GE(checked, 27) << "the 64-bit block ciphers' ECB, CBC and CTR rows";
    bc_context_destroy(ctx);
}

}  // namespace
