// Checks and runners the one-shot and streaming raw-mode calls share.
#pragma once

#include "capi/capi_internal.h"

namespace bc {

Status raw_check_key_iv(const bc_key* key, const uint8_t* iv, size_t iv_len);
Status raw_check_params(const bc_key* key, const bc_params& p);
// Length rules of the mode for a whole message (one shot).
Status raw_check_length(const bc_key* key, size_t len, const bc_params& p, bool encrypt);
// CTR over a block of `block` bytes (8 or 16): the counter block is one big-endian
// number of the block's width (64 or 128 bits, the whole block, as OpenSSL counts),
// and C + the index of the last block the range [offset, offset + len) touches must
// not pass 2^(8*block) - 1. ctr_range_ok answers without building a Status.
bool ctr_range_ok(const uint8_t* ctr, size_t block, uint64_t offset, size_t len);
Status ctr_check_range(const uint8_t* ctr, size_t block, uint64_t offset, size_t len);
// CTR and stream ciphers: refuses a range whose block counter would wrap.
Status raw_check_range(const bc_key* key, const uint8_t* iv, size_t iv_len, uint64_t offset, size_t len);
// Hands one piece to the backend.
Status raw_run(bc_key* key, Dir dir, const uint8_t* iv, size_t iv_len, const uint8_t* in, uint8_t* out,
               size_t len, const bc_params& p, uint64_t offset);
// The largest block PKCS#7 is applied to here (ECB/CBC of the catalogue: 8 or 16).
constexpr size_t kMaxPkcs7Block = 16;
// PKCS#7 padding: last (block bytes) = the tail_len < block bytes of tail, then
// block - tail_len bytes of that value. Returns block.
size_t pkcs7_pad(const uint8_t* tail, size_t tail_len, size_t block, uint8_t* last);
// PKCS#7 check of a decrypted last block of `block` bytes (1..kMaxPkcs7Block), in
// constant time: every byte is examined whatever the pad value. false when malformed
// (a pad of 0 or over block, or a pad byte that differs); *pad_len is the pad value.
bool pkcs7_strip(const uint8_t* last_block, size_t block, size_t* pad_len);
// Test hook: off, every one-shot raw call takes the detailed checks (the usual-call path
// of api_cipher.cpp must give the same statuses, outputs and messages).
void set_raw_usual_call_enabled(bool on);

}  // namespace bc
