// Host-side setup shared by every backend for the stream-cipher family
// (Mode::Stream): from an algorithm, key and IV to the 16-word state of the
// message's first keystream block, plus the counter headroom used to refuse
// requests that would wrap the block counter.
//
// IV conventions (catalogue entries in engine/algorithms.cpp):
//   chacha20            16 bytes: le32(counter) || 96-bit nonce (OpenSSL), 32-bit counter
//   chacha20-djb        8 bytes: nonce (counter 0), or 16: le64(counter) || nonce(8); 64-bit counter
//   xchacha20           24 bytes: subkey = HChaCha20(key, iv[0:16]), DJB layout with iv[16:24]
//   salsa20*            8 bytes: nonce; 64-bit counter from 0; 16- or 32-byte key
//   xsalsa20            24 bytes: subkey = HSalsa20(key, iv[0:16]), Salsa20 with iv[16:24]
#pragma once

#include <cstddef>
#include <cstdint>

#include "catalog/catalog.h"
#include "util/status.h"

namespace bc {

enum class StreamFamily { ChaCha, Salsa };

struct StreamState {
    StreamFamily family = StreamFamily::ChaCha;
    int layout = 0;              // BC_CHACHA_LAYOUT_IETF / _DJB (ChaCha only)
    int rounds = 20;
    int counter_bits = 64;       // 32 for the IETF layout
    uint64_t first_block = 0;    // the counter value of keystream byte 0
    uint32_t base[16] = {};      // state of keystream block 0 (counter = first_block)
    StreamState() = default;
    StreamState(const StreamState&) = default;
    StreamState& operator=(const StreamState&) = default;
    ~StreamState();
};

// True for the names whose layout is OpenSSL's chacha20 (16-byte IV with a 32-bit counter).
bool stream_is_chacha_ietf(const Algorithm& alg);

// Builds the state; BC_ERR_KEY_SIZE / BC_ERR_IV_SIZE / BC_ERR_NOT_SUPPORTED on bad input.
Status make_stream_state(const Algorithm& alg, const uint8_t* key, size_t key_len,
                         const uint8_t* iv, size_t iv_len, StreamState* out);

// BC_ERR_COUNTER_OVERFLOW when bytes [offset, offset + len) of the keystream
// would need a block counter past 2^counter_bits - 1 (the counter would wrap).
Status check_stream_range(const StreamState& st, uint64_t offset, uint64_t len);

}  // namespace bc
