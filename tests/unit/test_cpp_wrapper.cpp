#include <gtest/gtest.h>

#include "bulkcrypt/bulkcrypt.hpp"

TEST(CppWrapper, SealOpenRoundTripAndRejectsTampering) {
    bulkcrypt::Context ctx;
    ASSERT_EQ(BC_OK, bulkcrypt::make_context(&ctx, "cpu"));
    std::vector<uint8_t> key_bytes(32, 7), nonce(12, 1), aad = {1, 2, 3}, msg(1000, 9), sealed, back;
    bulkcrypt::Key key;
    ASSERT_EQ(BC_OK, bulkcrypt::make_key(&key, ctx, "aes-256-gcm", key_bytes.data(), key_bytes.size()));
    ASSERT_EQ(BC_OK, bulkcrypt::seal(key, nonce, aad, msg, &sealed));
    EXPECT_EQ(sealed.size(), msg.size() + 16);
    ASSERT_EQ(BC_OK, bulkcrypt::open(key, nonce, aad, sealed, &back));
    EXPECT_EQ(back, msg);
    sealed[3] ^= 1;
    EXPECT_EQ(BC_ERR_AUTH_FAILED, bulkcrypt::open(key, nonce, aad, sealed, &back));
    EXPECT_TRUE(back.empty());
    bulkcrypt::Key bad;
    EXPECT_EQ(BC_ERR_KEY_SIZE, bulkcrypt::make_key(&bad, ctx, "aes-256-gcm", key_bytes.data(), 16));
    EXPECT_EQ(bad, nullptr);
}
