// C API: the raw modes (ECB, CBC, CTR, XTS, stream ciphers), one shot.
#include "capi/capi_raw.h"

#include <atomic>
#include <string>

#include "cores/chacha/stream_state.h"

namespace bc {

// IEEE 1619 caps a data unit at 2^20 blocks.
constexpr uint64_t kXtsMaxUnit = uint64_t(16) << 20;

Status raw_check_key_iv(const bc_key* key, const uint8_t* iv, size_t iv_len) {
    if (!key) return Status(BC_ERR_NULL_POINTER, "key is required");
    const Algorithm* a = key->material.alg;
    if (a->kind == BC_KIND_AEAD)
        return Status(BC_ERR_NOT_SUPPORTED, std::string(a->name) + " is an AEAD: use bc_aead_seal / bc_aead_open");
    if (iv_len < a->iv_min || iv_len > a->iv_max)
        return Status(BC_ERR_IV_SIZE, std::string(a->name) + " takes a " + std::to_string(a->iv_size) +
                                          "-byte IV, not " + std::to_string(iv_len));
    if (iv_len && !iv) return Status(BC_ERR_NULL_POINTER, "iv is NULL");
    return Status::ok();
}

Status raw_check_params(const bc_key* key, const bc_params& p) {
    const Algorithm* a = key->material.alg;
    if (p.flags & ~uint32_t(BC_FLAG_PAD_PKCS7)) return Status(BC_ERR_INVALID_ARGUMENT, "unknown flag in bc_params.flags");
    if ((p.flags & BC_FLAG_PAD_PKCS7) && a->kind != BC_KIND_BLOCK_MODE)
        return Status(BC_ERR_INVALID_ARGUMENT, "PKCS#7 padding applies to ECB and CBC only");
    if (p.data_unit_size && a->kind != BC_KIND_XTS)
        return Status(BC_ERR_INVALID_ARGUMENT, "data_unit_size applies to XTS only");
    if (p.data_unit_size && (p.data_unit_size < 16 || p.data_unit_size > kXtsMaxUnit))
        return Status(BC_ERR_INVALID_ARGUMENT, "XTS data_unit_size must be 16 bytes to 2^20 blocks");
    if (p.offset && a->kind != BC_KIND_STREAM)
        return Status(BC_ERR_INVALID_ARGUMENT, "offset applies to CTR and stream ciphers only");
    return check_memory(key, p);
}

Status raw_check_length(const bc_key* key, size_t len, const bc_params& p, bool encrypt) {
    const Algorithm* a = key->material.alg;
    const bool pad = p.flags & BC_FLAG_PAD_PKCS7;
    switch (a->kind) {
    case BC_KIND_BLOCK_MODE:
        if (!pad || !encrypt) {
            if (len % 16) return Status(BC_ERR_INPUT_LENGTH, std::string(a->name) + " input must be whole 16-byte blocks");
            if (pad && len == 0) return Status(BC_ERR_INPUT_LENGTH, "padded input holds at least one block");
        }
        return Status::ok();
    case BC_KIND_XTS: {
        uint64_t unit = p.data_unit_size ? p.data_unit_size : len;
        if (len < 16) return Status(BC_ERR_INPUT_LENGTH, "XTS needs at least 16 bytes");
        if (unit > kXtsMaxUnit) return Status(BC_ERR_INPUT_LENGTH, "an XTS data unit is at most 2^20 blocks (IEEE 1619)");
        if (len % unit != 0 && len % unit < 16)
            return Status(BC_ERR_INPUT_LENGTH, "the last XTS data unit is shorter than 16 bytes");
        return Status::ok();
    }
    case BC_KIND_STREAM:
        return Status::ok();
    default:
        return Status(BC_ERR_INTERNAL, "not a raw mode");
    }
}

// Blocks touched: from offset/16 to (offset+len-1)/16; the last counter value
// C + (offset+len-1)/16 must not pass 2^128 - 1.
static bool ctr_range_ok(const uint8_t ctr[16], uint64_t offset, size_t len) {
    if (len == 0) return true;
    const unsigned __int128 c = (unsigned __int128)bc_load_be64(ctr) << 64 | bc_load_be64(ctr + 8);
    const unsigned __int128 last = ((unsigned __int128)offset + len - 1) / 16;
    return last <= ~c;
}

Status ctr_check_range(const uint8_t ctr[16], uint64_t offset, size_t len) {
    if (!ctr_range_ok(ctr, offset, len))
        return Status(BC_ERR_COUNTER_OVERFLOW, "the CTR counter block would wrap past 2^128 - 1");
    return Status::ok();
}

Status raw_check_range(const bc_key* key, const uint8_t* iv, size_t iv_len, uint64_t offset, size_t len) {
    const Algorithm* a = key->material.alg;
    if (a->mode == Mode::CTR) return ctr_check_range(iv, offset, len);
    if (a->mode == Mode::Stream && a->cipher != Cipher::Noop) {  // NO-OP: no counter
        StreamState st;
        BC_TRY(make_stream_state(*a, key->material.raw.data(), key->material.raw.size(), iv, iv_len, &st));
        return check_stream_range(st, offset, len);
    }
    return Status::ok();
}

Status raw_run(bc_key* key, Dir dir, const uint8_t* iv, size_t iv_len, const uint8_t* in, uint8_t* out,
               size_t len, const bc_params& p, uint64_t offset) {
    CipherOp op;
    op.dir = dir;
    op.iv = iv;
    op.iv_len = iv_len;
    op.in = in;
    op.out = out;
    op.len = len;
    op.offset = offset;
    op.data_unit = p.data_unit_size;
    op.memory = p.memory;
    op.stream = p.stream;
    return key->ctx->backend->cipher(key->material, *key->backend_key, op);
}

bool pkcs7_strip(const uint8_t* last_block, size_t* pad_len) {
    // Examines all 16 bytes whatever the pad value, so the time does not depend on it.
    uint8_t p = last_block[15];
    uint32_t bad = bc_ct_mask_nonzero32(p == 0) | bc_ct_mask_nonzero32(p > 16);
    for (unsigned i = 0; i < 16; ++i) {
        uint32_t in_pad = bc_ct_mask_nonzero32(i >= 16u - p);
        bad |= in_pad & bc_ct_mask_nonzero32(last_block[i] ^ p);
    }
    *pad_len = p;
    return bad == 0;
}

namespace {
std::atomic<bool> g_raw_usual_enabled{true};
}  // namespace

void set_raw_usual_call_enabled(bool on) { g_raw_usual_enabled.store(on, std::memory_order_relaxed); }

namespace {

// The usual call, in plain compares with no Status built on the way (on a 4 KiB job the
// checks below cost the C API 50-100 ns on the H100 host, against OpenSSL's ~800 for the
// job): ECB, CBC or CTR on host memory, no flags, data unit or offset, an IV of the
// algorithm's size, whole blocks where the mode needs them, an output at least as long as the
// input, in place or disjoint, a CTR counter that does not wrap. Each condition is one of the
// checks of raw_one_shot passing, so any other call, and every error, takes those checks,
// which name the problem.
bool raw_usual_call(const bc_key* key, const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                    const uint8_t* out, size_t out_cap, const bc_params& p) {
    if (!key || !in || !out || in_len == 0 || out_cap < in_len) return false;
    if (p.flags || p.data_unit_size || p.offset || p.memory != BC_MEMORY_HOST) return false;
    const Algorithm* a = key->material.alg;
    const bool blocks = a->kind == BC_KIND_BLOCK_MODE, ctr = a->mode == Mode::CTR;
    if (!blocks && !ctr) return false;  // AEADs (an error), XTS and the stream ciphers: the full checks
    if (iv_len < a->iv_min || iv_len > a->iv_max || (iv_len && !iv)) return false;
    if (blocks && in_len % 16) return false;
    if (partly_overlap(in, in_len, out, in_len)) return false;
    if (ctr && (iv_len != 16 || !ctr_range_ok(iv, 0, in_len))) return false;
    return key->ctx->backend->supports_memory(BC_MEMORY_HOST);
}

Status raw_one_shot(bc_key* key, Dir dir, const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                    uint8_t* out, size_t out_cap, size_t* out_len, const bc_params* params) {
    if (!out_len) return Status(BC_ERR_NULL_POINTER, "out_len is required");
    *out_len = 0;
    const bc_params& p = params_or_default(params);
    if (g_raw_usual_enabled.load(std::memory_order_relaxed) && raw_usual_call(key, iv, iv_len, in, in_len, out, out_cap, p)) {
        Status s = raw_run(key, dir, iv, iv_len, in, out, in_len, p, 0);
        if (s) *out_len = in_len;
        else wipe_output(key, out, in_len, p);
        return s;
    }
    BC_TRY(raw_check_key_iv(key, iv, iv_len));
    BC_TRY(raw_check_params(key, p));
    const bool enc = dir == Dir::Encrypt;
    const bool pad = p.flags & BC_FLAG_PAD_PKCS7;
    BC_TRY(raw_check_length(key, in_len, p, enc));
    const size_t bound = (pad && enc) ? (in_len / 16 + 1) * 16 : in_len;
    if ((in_len && !in) || (bound && !out)) return Status(BC_ERR_NULL_POINTER, "in and out are required");
    if (out_cap < bound)
        return Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(bound) + " bytes, has " +
                                                   std::to_string(out_cap));
    if (p.memory == BC_MEMORY_HOST) BC_TRY(check_aliasing(in, in_len, out, bound));
    if (pad && p.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "PKCS#7 padding works on host memory only");
    // A counter that would wrap is refused before anything is written.
    BC_TRY(raw_check_range(key, iv, iv_len, p.offset, in_len));

    // From here on the output is written: a failure wipes it.
    Status s;
    if (pad && enc) {
        const size_t main = in_len - in_len % 16;
        uint8_t last[16];
        const uint8_t fill = static_cast<uint8_t>(16 - in_len % 16);
        std::memcpy(last, in + main, in_len % 16);  // before an in-place write
        std::memset(last + in_len % 16, fill, fill);
        s = raw_run(key, dir, iv, iv_len, in, out, main, p, 0);
        if (s) {
            // CBC chains the last block from the previous ciphertext block.
            const uint8_t* chain = (key->material.alg->mode == Mode::CBC && main) ? out + main - 16 : iv;
            uint8_t chain_copy[16];
            if (iv_len) std::memcpy(chain_copy, chain, 16);
            s = raw_run(key, dir, iv_len ? chain_copy : nullptr, iv_len, last, out + main, 16, p, 0);
        }
        secure_wipe(last, sizeof last);
        if (s) *out_len = bound;
    } else {
        s = raw_run(key, dir, iv, iv_len, in, out, in_len, p, p.offset);
        if (s && pad) {  // decrypt: check and strip
            size_t pad_len = 0;
            if (!pkcs7_strip(out + in_len - 16, &pad_len)) s = Status(BC_ERR_BAD_PADDING, "PKCS#7 padding is malformed");
            else *out_len = in_len - pad_len;
        } else if (s) {
            *out_len = in_len;
        }
    }
    if (!s) {
        wipe_output(key, out, bound, p);
        *out_len = 0;
    }
    return s;
}

}  // namespace
}  // namespace bc

using namespace bc;

extern "C" {

bc_status bc_encrypt(bc_key* key, const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                     uint8_t* out, size_t out_cap, size_t* out_len, const bc_params* params) {
    return api_call([&] { return raw_one_shot(key, Dir::Encrypt, iv, iv_len, in, in_len, out, out_cap, out_len, params); });
}

bc_status bc_decrypt(bc_key* key, const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                     uint8_t* out, size_t out_cap, size_t* out_len, const bc_params* params) {
    return api_call([&] { return raw_one_shot(key, Dir::Decrypt, iv, iv_len, in, in_len, out, out_cap, out_len, params); });
}

}  // extern "C"
