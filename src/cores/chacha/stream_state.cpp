#include "cores/chacha/stream_state.h"

#include <cstring>

#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "util/secure.h"

namespace bc {

StreamState::~StreamState() { secure_wipe(base, sizeof(base)); }

bool stream_is_chacha_ietf(const Algorithm& alg) {
    return alg.mode == Mode::Stream && alg.cipher == Cipher::ChaCha20 && alg.iv_min == 16;
}

Status make_stream_state(const Algorithm& alg, const uint8_t* key, size_t key_len,
                         const uint8_t* iv, size_t iv_len, StreamState* out) {
    if (alg.mode != Mode::Stream) return Status(BC_ERR_NOT_SUPPORTED, "not a stream cipher");
    StreamState st;
    st.rounds = alg.rounds;
    uint8_t subkey[32];
    switch (alg.cipher) {
    case Cipher::ChaCha20:
        if (key_len != 32 && key_len != 16)
            return Status(BC_ERR_KEY_SIZE, "ChaCha20 takes a 16- or 32-byte key");
        st.family = StreamFamily::ChaCha;
        bc_chacha_set_key(st.base, key, (int)key_len);
        if (stream_is_chacha_ietf(alg)) {
            if (iv_len != 16) return Status(BC_ERR_IV_SIZE, "chacha20 takes a 16-byte IV (le32 counter || 12-byte nonce)");
            st.layout = BC_CHACHA_LAYOUT_IETF;
            st.counter_bits = 32;
            bc_chacha_set_words12(st.base, iv);
            st.first_block = st.base[12];
        } else {
            st.layout = BC_CHACHA_LAYOUT_DJB;
            st.counter_bits = 64;
            if (iv_len == 8) {
                bc_chacha_set_djb(st.base, 0, iv);
            } else if (iv_len == 16) {
                bc_chacha_set_words12(st.base, iv);
            } else {
                return Status(BC_ERR_IV_SIZE, "original ChaCha20 takes an 8-byte nonce or 16 bytes le64 counter || nonce");
            }
            st.first_block = ((uint64_t)st.base[13] << 32) | st.base[12];
        }
        break;
    case Cipher::XChaCha20:
        if (key_len != 32) return Status(BC_ERR_KEY_SIZE, "XChaCha20 takes a 32-byte key");
        if (iv_len != 24) return Status(BC_ERR_IV_SIZE, "XChaCha20 takes a 24-byte nonce");
        st.family = StreamFamily::ChaCha;
        st.layout = BC_CHACHA_LAYOUT_DJB;
        st.counter_bits = 64;
        bc_hchacha20(key, iv, subkey);
        bc_chacha_set_key(st.base, subkey, 32);
        bc_chacha_set_djb(st.base, 0, iv + 16);
        secure_wipe(subkey, sizeof(subkey));
        break;
    case Cipher::Salsa20:
        if (key_len != 32 && key_len != 16)
            return Status(BC_ERR_KEY_SIZE, "Salsa20 takes a 16- or 32-byte key");
        if (iv_len != 8) return Status(BC_ERR_IV_SIZE, "Salsa20 takes an 8-byte nonce");
        st.family = StreamFamily::Salsa;
        bc_salsa_set_key(st.base, key, (int)key_len);
        bc_salsa_set_nonce(st.base, iv, 0);
        break;
    case Cipher::XSalsa20:
        if (key_len != 32) return Status(BC_ERR_KEY_SIZE, "XSalsa20 takes a 32-byte key");
        if (iv_len != 24) return Status(BC_ERR_IV_SIZE, "XSalsa20 takes a 24-byte nonce");
        st.family = StreamFamily::Salsa;
        bc_hsalsa20(key, iv, subkey);
        bc_salsa_set_key(st.base, subkey, 32);
        bc_salsa_set_nonce(st.base, iv + 16, 0);
        secure_wipe(subkey, sizeof(subkey));
        break;
    default:
        return Status(BC_ERR_NOT_SUPPORTED, "not a stream cipher of the ChaCha/Salsa family");
    }
    *out = st;
    return Status::ok();
}

Status check_stream_range(const StreamState& st, uint64_t offset, uint64_t len) {
    if (len == 0) return Status::ok();
    // Index (from keystream block 0) of the last block the request touches.
    unsigned __int128 last = ((unsigned __int128)offset + len - 1) >> 6;
    unsigned __int128 end = (unsigned __int128)st.first_block + last;  // last counter value used
    unsigned __int128 limit = ((unsigned __int128)1 << st.counter_bits) - 1;
    if (end > limit)
        return Status(BC_ERR_COUNTER_OVERFLOW,
                      st.counter_bits == 32 ? "the 32-bit ChaCha20 block counter would wrap"
                                            : "the 64-bit block counter would wrap");
    return Status::ok();
}

}  // namespace bc
