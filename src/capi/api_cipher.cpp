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
    // 64-bit block ciphers: one key must not protect more than 2^32 blocks in a message
    if (len > a->max_message)
        return Status(BC_ERR_MESSAGE_TOO_LONG, std::string(a->name) + " messages are at most " +
                                                   std::to_string(a->max_message) +
                                                   " bytes (2^32 blocks: a 64-bit block's birthday bound)");
    switch (a->kind) {
    case BC_KIND_BLOCK_MODE:
        if (!pad || !encrypt) {
            if (len % a->block_size)
                return Status(BC_ERR_INPUT_LENGTH, std::string(a->name) + " input must be whole " +
                                                       std::to_string(a->block_size) + "-byte blocks");
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

// The index of the last block a range touches, (offset + len - 1) / block, for a block
// of 8 or 16 bytes: in 64 bits without overflow (each term is under 2^61), by shifts.
template <unsigned B>
static inline uint64_t ctr_last_block(uint64_t offset, size_t len) {
    const uint64_t e = uint64_t(len) - 1;
    return offset / B + e / B + (offset % B + e % B) / B;
}

// Blocks touched: from offset/block to (offset+len-1)/block; the last counter value
// C + (offset+len-1)/block must not pass 2^(8*block) - 1 (the whole block is the
// counter, big-endian: 128 bits for a 16-byte block, 64 for an 8-byte one).
bool ctr_range_ok(const uint8_t* ctr, size_t block, uint64_t offset, size_t len) {
    if (len == 0) return true;
    switch (block) {
    case 16: {
        // room = 2^128 - 1 - C; the last index fits 64 bits, so only a full high word limits it
        const uint64_t hi = bc_load_be64(ctr), lo = bc_load_be64(ctr + 8);
        return hi != UINT64_MAX || ctr_last_block<16>(offset, len) <= ~lo;
    }
    case 8: return ctr_last_block<8>(offset, len) <= ~bc_load_be64(ctr);
    default: {  // no catalogue row: any other width up to 16 bytes, in 128 bits
        if (block == 0 || block > 16) return false;
        unsigned __int128 c = 0;
        for (size_t i = 0; i < block; ++i) c = c << 8 | ctr[i];
        const unsigned __int128 max = ((unsigned __int128)1 << (8 * block)) - 1;
        const unsigned __int128 last = ((unsigned __int128)offset + len - 1) / block;
        return last <= max - c;
    }
    }
}

Status ctr_check_range(const uint8_t* ctr, size_t block, uint64_t offset, size_t len) {
    if (!ctr_range_ok(ctr, block, offset, len))
        return Status(BC_ERR_COUNTER_OVERFLOW, "the CTR counter block would wrap past 2^" + std::to_string(8 * block) +
                                                   " - 1");
    return Status::ok();
}

Status raw_check_range(const bc_key* key, const uint8_t* iv, size_t iv_len, uint64_t offset, size_t len) {
    const Algorithm* a = key->material.alg;
    if (a->mode == Mode::CTR) return ctr_check_range(iv, a->block_size, offset, len);
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

size_t pkcs7_pad(const uint8_t* tail, size_t tail_len, size_t block, uint8_t* last) {
    const uint8_t fill = static_cast<uint8_t>(block - tail_len);
    if (tail_len) std::memcpy(last, tail, tail_len);
    std::memset(last + tail_len, fill, fill);
    return block;
}

namespace {
// All ones when a < b, else zero, without a branch (a, b < 2^31).
inline uint32_t ct_lt_mask(uint32_t a, uint32_t b) { return 0u - ((a - b) >> 31); }
}  // namespace

bool pkcs7_strip(const uint8_t* last_block, size_t block, size_t* pad_len) {
    *pad_len = 0;
    if (block == 0 || block > kMaxPkcs7Block) return false;  // public: the algorithm's block size
    // Examines every byte of the block whatever the pad value, so the time does not
    // depend on it: the pad p must be 1..block and the last p bytes must all be p.
    const uint32_t bs = static_cast<uint32_t>(block);
    const uint32_t p = last_block[block - 1];
    uint32_t bad = ~bc_ct_mask_nonzero32(p) | ct_lt_mask(bs, p);
    for (uint32_t i = 0; i < bs; ++i) {
        const uint32_t in_pad = ~ct_lt_mask(i + p, bs);  // i >= block - p
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
    if (in_len > key->material.alg->max_message) return false;  // refused by the full checks
    if (p.flags || p.data_unit_size || p.offset || p.memory != BC_MEMORY_HOST) return false;
    const Algorithm* a = key->material.alg;
    const bool blocks = a->kind == BC_KIND_BLOCK_MODE, ctr = a->mode == Mode::CTR;
    if (!blocks && !ctr) return false;  // AEADs (an error), XTS and the stream ciphers: the full checks
    if (iv_len < a->iv_min || iv_len > a->iv_max || (iv_len && !iv)) return false;
    if (blocks && in_len % a->block_size) return false;
    if (partly_overlap(in, in_len, out, in_len)) return false;
    if (ctr && (iv_len != a->block_size || !ctr_range_ok(iv, a->block_size, 0, in_len))) return false;
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
    const size_t bs = key->material.alg->block_size;  // ECB/CBC: the cipher's block, 8 or 16
    const size_t bound = (pad && enc) ? (in_len / bs + 1) * bs : in_len;
    if ((in_len && !in) || (bound && !out)) return Status(BC_ERR_NULL_POINTER, "in and out are required");
    if (out_cap < bound)
        return Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(bound) + " bytes, has " +
                                                   std::to_string(out_cap));
    if (p.memory == BC_MEMORY_HOST) BC_TRY(check_aliasing(in, in_len, out, bound));
    if (pad && p.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "PKCS#7 padding works on host memory only");
    if (pad && bs > kMaxPkcs7Block) return Status(BC_ERR_INTERNAL, "block larger than PKCS#7 handles here");
    // A counter that would wrap is refused before anything is written.
    BC_TRY(raw_check_range(key, iv, iv_len, p.offset, in_len));

    // From here on the output is written: a failure wipes it.
    Status s;
    if (pad && enc) {
        const size_t main = in_len - in_len % bs;
        uint8_t last[kMaxPkcs7Block];
        pkcs7_pad(in + main, in_len % bs, bs, last);  // before an in-place write
        s = raw_run(key, dir, iv, iv_len, in, out, main, p, 0);
        if (s) {
            // CBC chains the last block from the previous ciphertext block.
            const uint8_t* chain = (key->material.alg->mode == Mode::CBC && main) ? out + main - bs : iv;
            uint8_t chain_copy[kMaxPkcs7Block];
            if (iv_len) std::memcpy(chain_copy, chain, iv_len);
            s = raw_run(key, dir, iv_len ? chain_copy : nullptr, iv_len, last, out + main, bs, p, 0);
        }
        secure_wipe(last, sizeof last);
        if (s) *out_len = bound;
    } else {
        s = raw_run(key, dir, iv, iv_len, in, out, in_len, p, p.offset);
        if (s && pad) {  // decrypt: check and strip
            size_t pad_len = 0;
            if (!pkcs7_strip(out + in_len - bs, bs, &pad_len)) s = Status(BC_ERR_BAD_PADDING, "PKCS#7 padding is malformed");
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
