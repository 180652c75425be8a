// Checks and runners the one-shot and streaming raw-mode calls share.
#pragma once

#include "capi/capi_internal.h"

namespace bc {

Status raw_check_key_iv(const bc_key* key, const uint8_t* iv, size_t iv_len);
Status raw_check_params(const bc_key* key, const bc_params& p);
// Length rules of the mode for a whole message (one shot).
Status raw_check_length(const bc_key* key, size_t len, const bc_params& p, bool encrypt);
// CTR: the counter C + last block index must stay below 2^128.
Status ctr_check_range(const uint8_t ctr[16], uint64_t offset, size_t len);
// CTR and stream ciphers: refuses a range whose block counter would wrap.
Status raw_check_range(const bc_key* key, const uint8_t* iv, size_t iv_len, uint64_t offset, size_t len);
// Hands one piece to the backend.
Status raw_run(bc_key* key, Dir dir, const uint8_t* iv, size_t iv_len, const uint8_t* in, uint8_t* out,
               size_t len, const bc_params& p, uint64_t offset);
// PKCS#7 check of a decrypted last block, in constant time; false when malformed.
bool pkcs7_strip(const uint8_t* last_block, size_t* pad_len);
// Test hook: off, every one-shot raw call takes the detailed checks (the usual-call path
// of api_cipher.cpp must give the same statuses, outputs and messages).
void set_raw_usual_call_enabled(bool on);

}  // namespace bc
