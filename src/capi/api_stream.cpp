// C API: streaming (create, aad, update, final) for every mode.
//
// Pieces reach the backend with the same start-state conventions as one-shot
// calls, so a stream gives byte-identical results however the caller cuts it:
//   CTR and stream ciphers: no buffering, the keystream position advances;
//   ECB/CBC: whole blocks of the cipher's block size (8 or 16 bytes), the last
//            one held back when decrypting with padding;
//   XTS: whole data units as they complete; without a data_unit_size the
//        message is one unit (at most 2^20 blocks), encrypted at final;
//   AEADs: every byte out at once (the keystream is positional); the MAC takes
//          whole granules (GCM 16 bytes, the ChaCha20 AEADs 64), partial MACs
//          folded as they come, and the granule's bytes so far wait in pending
//          until it completes or final.
#include <string>
#include <vector>

#include "capi/capi_raw.h"
#include "modes/aead/aead.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/gcm.h"

struct bc_stream {
    bc_key* key = nullptr;
    bc::Dir dir = bc::Dir::Encrypt;
    bc_params params{};
    uint8_t iv[1024] = {};          // CBC: chaining value (one block); XTS: tweak of the next unit
    size_t iv_len = 0;
    uint64_t position = 0;          // bytes processed (keystream offset, XTS units x unit size)
    bc::SecureBytes pending;        // input not yet processed (partial block, unit, granule)
    size_t emitted = 0;             // AEAD: leading bytes of pending already output
    bool finished = false;
    bool failed = false;
    // AEAD
    bool aead = false;
    bool body_started = false;
    bc::AeadMessage msg;
    uint64_t aad_len = 0, ct_len = 0;
    bc::SecureBytes aad_pending;
    uint8_t tag[16] = {};
    size_t tag_len = 0;
    bool tag_set = false;
    ~bc_stream() { bc::secure_wipe(iv, sizeof iv); bc::secure_wipe(tag, sizeof tag); }
};

namespace bc {
namespace {

void append(SecureBytes& buf, const uint8_t* p, size_t n) {
    size_t old = buf.size();
    buf.resize(old + n);
    if (n) std::memcpy(buf.data() + old, p, n);
}

void drop_front(SecureBytes& buf, size_t n) {
    SecureBytes rest(buf.data() + n, buf.size() - n);
    buf = std::move(rest);
}

// Runs one piece of a raw mode and advances the stream's start state.
Status raw_piece(bc_stream* s, const uint8_t* in, uint8_t* out, size_t len) {
    if (len == 0) return Status::ok();
    const Mode mode = s->key->material.alg->mode;
    const size_t bs = s->key->material.alg->block_size;  // CBC: pieces are whole blocks of it
    uint8_t next_chain[kMaxPkcs7Block];
    if (mode == Mode::CBC) {  // the next chaining value is the last ciphertext block
        if (bs > sizeof next_chain || len < bs) return Status(BC_ERR_INTERNAL, "CBC piece shorter than a block");
        if (s->dir == Dir::Decrypt) std::memcpy(next_chain, in + len - bs, bs);
    }
    BC_TRY(raw_run(s->key, s->dir, s->iv, s->iv_len, in, out, len, s->params,
                   s->key->material.alg->kind == BC_KIND_STREAM ? s->position : 0));
    if (mode == Mode::CBC) {
        std::memcpy(s->iv, s->dir == Dir::Encrypt ? out + len - bs : next_chain, bs);
        secure_wipe(next_chain, sizeof next_chain);
    } else if (mode == Mode::XTS && s->params.data_unit_size) {
        add_le128(s->iv, len / s->params.data_unit_size);
    }
    s->position += len;
    return Status::ok();
}

// Feeds the AAD remainder (padded) once the body starts.
Status aead_flush_aad(bc_stream* s) {
    if (s->body_started) return Status::ok();
    s->body_started = true;
    if (s->aad_pending.empty()) return Status::ok();
    MacOp mac;
    mac.mac_key = s->msg.mac_key;
    mac.data = s->aad_pending.data();
    mac.len = s->aad_pending.size();
    BC_TRY(s->key->ctx->backend->mac(s->key->material, *s->key->backend_key, mac));
    aead_fold(s->key, &s->msg, mac.partial, (mac.len + 15) / 16);
    s->aad_pending.clear();
    return Status::ok();
}

// The backend's AEAD chunk at the stream's counter, its partial MAC in op->partial.
Status aead_run(bc_stream* s, const uint8_t* in, uint8_t* out, size_t len, AeadChunkOp& op) {
    op.dir = s->dir;
    std::memcpy(op.ctr, s->msg.ctr, 16);
    op.mac_key = s->msg.mac_key;
    op.subkey = s->msg.use_subkey ? s->msg.subkey : nullptr;
    op.in = in;
    op.out = out;
    op.len = len;
    return s->key->ctx->backend->aead_chunk(s->key->material, *s->key->backend_key, op);
}

// The output of a partial granule (at the stream's counter, under one granule) without
// touching the MAC or the counter: final, or the update that completes the granule,
// runs it again in full.
Status aead_output_only(bc_stream* s, const uint8_t* in, uint8_t* out, size_t len) {
    if (len == 0) return Status::ok();
    AeadChunkOp op;
    const Status st = aead_run(s, in, out, len, op);
    secure_wipe(op.partial, sizeof op.partial);
    return st;
}

Status aead_piece(bc_stream* s, const uint8_t* in, uint8_t* out, size_t len) {
    if (len == 0) return Status::ok();
    AeadChunkOp op;
    BC_TRY(aead_run(s, in, out, len, op));
    aead_fold(s->key, &s->msg, op.partial, (len + 15) / 16);
    // Advance the counter state by the blocks consumed.
    if (s->key->material.alg->mode == Mode::GCM) gcm_inc32(s->msg.ctr, len / 16);
    else chachapoly_ctr_add(s->msg.ctr, len / 64);
    s->ct_len += len;
    return Status::ok();
}

// How many buffered+new bytes may be processed now, keeping what final needs.
size_t processable(const bc_stream* s, size_t avail) {
    const Algorithm* a = s->key->material.alg;
    if (s->aead) {
        size_t g = aead_granule(s->key);
        return avail / g * g;
    }
    switch (a->kind) {
    case BC_KIND_STREAM: return avail;
    case BC_KIND_BLOCK_MODE: {
        const size_t bs = a->block_size;
        size_t whole = avail / bs * bs;
        // Decrypting with padding: keep the last block for final's check.
        if ((s->params.flags & BC_FLAG_PAD_PKCS7) && s->dir == Dir::Decrypt && whole == avail && whole) whole -= bs;
        return whole;
    }
    case BC_KIND_XTS: {
        // Without a data-unit size the whole message is one unit (at most 2^20
        // blocks, so the buffer is bounded): it is encrypted at final.
        if (s->params.data_unit_size == 0) return 0;
        // Keep at least one whole unit back: the last unit may be short and final decides.
        size_t u = s->params.data_unit_size;
        size_t units = avail / u;
        if (units && avail % u == 0) --units;
        return units * u;
    }
    default: return 0;
    }
}

// An AEAD update: all of in_len out now. The granule begun before (pending, all of it
// already output) is completed first, then whole granules, then the new partial granule's
// output alone (kept in pending for the MAC).
Status aead_update(bc_stream* s, const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap, size_t* out_len) {
    if (in_len == 0) return Status::ok();
    if (!out) return Status(BC_ERR_NULL_POINTER, "out is NULL");
    if (out_cap < in_len) return Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(in_len) + " bytes");
    BC_TRY(check_aliasing(in, in_len, out, in_len));
    const size_t g = aead_granule(s->key);
    constexpr size_t kMaxGranule = 64;
    if (g > kMaxGranule || s->pending.size() >= g || s->emitted != s->pending.size())
        return Status(BC_ERR_INTERNAL, "AEAD stream state out of step");
    size_t used = 0;
    Status st;
    uint8_t gin[kMaxGranule], gout[kMaxGranule];
    if (!s->pending.empty()) {
        const size_t p = s->pending.size(), take = std::min(g - p, in_len);
        std::memcpy(gin, s->pending.data(), p);
        std::memcpy(gin + p, in, take);
        st = p + take == g ? aead_piece(s, gin, gout, g) : aead_output_only(s, gin, gout, p + take);
        if (st) {
            std::memcpy(out, gout + p, take);
            s->pending = p + take == g ? SecureBytes() : SecureBytes(gin, p + take);
            s->emitted = s->pending.size();
            used = take;
        }
    }
    const size_t whole = st ? (in_len - used) / g * g : 0;
    if (st && whole) st = aead_piece(s, in + used, out + used, whole);
    if (st) used += whole;
    if (st && used < in_len) {
        // saved before the output overwrites it (in place)
        SecureBytes tail(in + used, in_len - used);
        st = aead_output_only(s, tail.data(), out + used, tail.size());
        if (st) {
            s->pending = std::move(tail);
            s->emitted = s->pending.size();
            used = in_len;
        }
    }
    secure_wipe(gin, sizeof gin);
    secure_wipe(gout, sizeof gout);
    if (!st) {
        s->failed = true;
        wipe_output(s->key, out, in_len, s->params);
        return st;
    }
    *out_len = in_len;
    return Status::ok();
}

Status stream_update(bc_stream* s, const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap, size_t* out_len) {
    *out_len = 0;
    if (s->finished || s->failed) return Status(BC_ERR_BAD_STATE, "the stream is finished or failed");
    if (in_len && !in) return Status(BC_ERR_NULL_POINTER, "in is NULL");
    if (s->aead) {
        BC_TRY(aead_flush_aad(s));
        if (s->ct_len + s->pending.size() + in_len > s->key->material.alg->max_message)
            return Status(BC_ERR_MESSAGE_TOO_LONG, "message longer than the AEAD allows");
        return aead_update(s, in, in_len, out, out_cap, out_len);
    } else if (s->position + s->pending.size() + in_len > s->key->material.alg->max_message) {
        // 64-bit block ciphers: 2^32 blocks a message (the others are unbounded)
        return Status(BC_ERR_MESSAGE_TOO_LONG, "message longer than 2^32 blocks of a 64-bit block cipher");
    }
    const size_t avail = s->pending.size() + in_len;
    if (s->key->material.alg->kind == BC_KIND_XTS && s->params.data_unit_size == 0 && avail > (size_t(16) << 20))
        return Status(BC_ERR_INPUT_LENGTH, "an XTS data unit is at most 2^20 blocks (IEEE 1619); set data_unit_size");
    const size_t now = processable(s, avail);
    if (now && !out) return Status(BC_ERR_NULL_POINTER, "out is NULL");
    if (out_cap < now) return Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(now) + " bytes");
    BC_TRY(raw_check_range(s->key, s->iv, s->iv_len, s->position, now));
    if (now && in) BC_TRY(check_aliasing(in, in_len, out, now));
    // Save what stays buffered before anything is written: in place, the output
    // may cover input bytes that are kept for later.
    const size_t from_pending = std::min(now, s->pending.size());
    const size_t used_in = now - from_pending;
    SecureBytes rest;
    append(rest, s->pending.data() + from_pending, s->pending.size() - from_pending);
    append(rest, in + used_in, in_len - used_in);
    Status st;
    if (now && from_pending == 0) {
        st = s->aead ? aead_piece(s, in, out, now) : raw_piece(s, in, out, now);
    } else if (now) {
        SecureBytes work(now);
        std::memcpy(work.data(), s->pending.data(), from_pending);
        std::memcpy(work.data() + from_pending, in, used_in);
        st = s->aead ? aead_piece(s, work.data(), out, now) : raw_piece(s, work.data(), out, now);
    }
    if (!st) {
        s->failed = true;
        wipe_output(s->key, out, now, s->params);
        return st;
    }
    s->pending = std::move(rest);
    *out_len = now;
    return Status::ok();
}

Status stream_final(bc_stream* s, uint8_t* out, size_t out_cap, size_t* out_len) {
    *out_len = 0;
    if (s->finished || s->failed) return Status(BC_ERR_BAD_STATE, "the stream is finished or failed");
    const Algorithm* a = s->key->material.alg;
    const bool pad = s->params.flags & BC_FLAG_PAD_PKCS7;
    size_t n = s->pending.size();
    Status st;
    // A final refused by its checks ends the stream as any failure does (bulkcrypt.h): the
    // data held back is dropped, and later calls get BC_ERR_BAD_STATE.
    auto refuse = [s](Status e) {
        s->failed = true;
        s->pending.clear();
        return e;
    };
    if (s->aead) {
        if (s->dir == Dir::Decrypt && !s->tag_set) return Status(BC_ERR_BAD_STATE, "set the expected tag before final");
        BC_TRY(aead_flush_aad(s));
        // The last partial granule into the MAC; its output went out with its update.
        SecureBytes again(n);
        st = aead_piece(s, s->pending.data(), again.data(), n);
        n = 0;
        if (st) {
            uint8_t full[16];
            aead_tag(s->key, &s->msg, s->aad_len, s->ct_len, full);
            if (s->dir == Dir::Encrypt) std::memcpy(s->tag, full, 16);
            else if (!ct_equal(full, s->tag, s->tag_len)) st = Status(BC_ERR_AUTH_FAILED, "the tag does not match: message rejected");
            secure_wipe(full, sizeof full);
        }
        if (st) *out_len = n;
    } else if (a->kind == BC_KIND_BLOCK_MODE) {
        const size_t bs = a->block_size;  // 8 or 16: what is held back is under one block
        if (pad && bs > kMaxPkcs7Block) return refuse(Status(BC_ERR_INTERNAL, "block larger than PKCS#7 handles here"));
        if (pad && s->dir == Dir::Encrypt) {
            if (!out) return refuse(Status(BC_ERR_NULL_POINTER, "out is NULL"));
            if (out_cap < bs) return refuse(Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(bs) + " bytes"));
            uint8_t last[kMaxPkcs7Block];
            pkcs7_pad(s->pending.data(), n, bs, last);
            st = raw_piece(s, last, out, bs);
            secure_wipe(last, sizeof last);
            if (st) *out_len = bs;
        } else if (pad) {
            if (n != bs) return refuse(Status(BC_ERR_INPUT_LENGTH, "padded input must be whole blocks, at least one"));
            if (!out) return refuse(Status(BC_ERR_NULL_POINTER, "out is NULL"));
            if (out_cap < bs) return refuse(Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(bs) + " bytes"));
            uint8_t last[kMaxPkcs7Block];
            st = raw_piece(s, s->pending.data(), last, bs);
            size_t pad_len = 0;
            if (st && !pkcs7_strip(last, bs, &pad_len)) st = Status(BC_ERR_BAD_PADDING, "PKCS#7 padding is malformed");
            if (st) {
                std::memcpy(out, last, bs - pad_len);
                *out_len = bs - pad_len;
            }
            secure_wipe(last, sizeof last);
        } else if (n) {
            return refuse(Status(BC_ERR_INPUT_LENGTH,
                                 std::string(a->name) + " input must be whole " + std::to_string(bs) + "-byte blocks"));
        }
    } else if (a->kind == BC_KIND_XTS) {
        if ((n && n < 16) || (n == 0 && s->position == 0))
            return refuse(Status(BC_ERR_INPUT_LENGTH, "an XTS data unit needs at least 16 bytes"));
        if (n && !out) return refuse(Status(BC_ERR_NULL_POINTER, "out is NULL"));
        if (out_cap < n) return refuse(Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(n) + " bytes"));
        st = raw_piece(s, s->pending.data(), out, n);
        if (st) *out_len = n;
    }
    s->pending.clear();
    if (!st) {
        s->failed = true;
        // What final may have written: the data held back, or one block (padding).
        const size_t block = a->kind == BC_KIND_BLOCK_MODE ? a->block_size : 16;
        if (out) wipe_output(s->key, out, std::min(out_cap, std::max(n, block)), s->params);
        *out_len = 0;
        return st;
    }
    s->finished = true;
    return Status::ok();
}

}  // namespace
}  // namespace bc

using namespace bc;

extern "C" {

bc_status bc_stream_create(bc_key* key, bc_direction dir, const uint8_t* iv, size_t iv_len, const bc_params* params,
                           bc_stream** out) {
    return api_call([&]() -> Status {
        if (!out) return Status(BC_ERR_NULL_POINTER, "out is required");
        *out = nullptr;
        if (!key) return Status(BC_ERR_NULL_POINTER, "key is required");
        if (dir != BC_ENCRYPT && dir != BC_DECRYPT) return Status(BC_ERR_INVALID_ARGUMENT, "direction is neither ENCRYPT nor DECRYPT");
        const bc_params& p = params_or_default(params);
        if (p.memory != BC_MEMORY_HOST) return Status(BC_ERR_NOT_SUPPORTED, "streams work on host memory only");
        const Algorithm* a = key->material.alg;
        auto s = std::make_unique<bc_stream>();
        s->key = key;
        s->dir = dir == BC_ENCRYPT ? Dir::Encrypt : Dir::Decrypt;
        s->params = p;
        if (a->kind == BC_KIND_AEAD) {
            if (iv_len < a->iv_min || iv_len > a->iv_max) return Status(BC_ERR_IV_SIZE, std::string(a->name) + ": nonce size not allowed");
            if (!iv) return Status(BC_ERR_NULL_POINTER, "nonce is NULL");
            if (p.flags || p.data_unit_size || p.offset) return Status(BC_ERR_INVALID_ARGUMENT, "AEADs take no flags, data unit or offset");
            s->aead = true;
            BC_TRY(aead_begin(key, iv, iv_len, &s->msg));
        } else {
            BC_TRY(raw_check_key_iv(key, iv, iv_len));
            BC_TRY(raw_check_params(key, p));
            if (iv_len) std::memcpy(s->iv, iv, iv_len);
            s->iv_len = iv_len;
            s->position = p.offset;
        }
        *out = s.release();
        return Status::ok();
    });
}

bc_status bc_stream_aad(bc_stream* s, const uint8_t* aad, size_t aad_len) {
    return api_call([&]() -> Status {
        if (!s) return Status(BC_ERR_NULL_POINTER, "stream is required");
        if (!s->aead) return Status(BC_ERR_BAD_STATE, "AAD applies to AEADs only");
        if (s->body_started || s->finished || s->failed) return Status(BC_ERR_BAD_STATE, "AAD must come before the data");
        if (aad_len && !aad) return Status(BC_ERR_NULL_POINTER, "aad is NULL");
        append(s->aad_pending, aad, aad_len);
        s->aad_len += aad_len;
        // Hash whole blocks now so the buffer stays small.
        size_t whole = s->aad_pending.size() / 16 * 16;
        if (whole >= 4096) {
            MacOp mac;
            mac.mac_key = s->msg.mac_key;
            mac.data = s->aad_pending.data();
            mac.len = whole;
            BC_TRY(s->key->ctx->backend->mac(s->key->material, *s->key->backend_key, mac));
            aead_fold(s->key, &s->msg, mac.partial, whole / 16);
            drop_front(s->aad_pending, whole);
        }
        return Status::ok();
    });
}

bc_status bc_stream_update(bc_stream* s, const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap,
                           size_t* out_len) {
    return api_call([&]() -> Status {
        if (!s || !out_len) return Status(BC_ERR_NULL_POINTER, "stream and out_len are required");
        return stream_update(s, in, in_len, out, out_cap, out_len);
    });
}

bc_status bc_stream_set_tag(bc_stream* s, const uint8_t* tag, size_t tag_len) {
    return api_call([&]() -> Status {
        if (!s || !tag) return Status(BC_ERR_NULL_POINTER, "stream and tag are required");
        if (!s->aead || s->dir != Dir::Decrypt) return Status(BC_ERR_BAD_STATE, "the expected tag applies to AEAD decryption");
        BC_TRY(check_tag_len(s->key->material.alg, tag_len));
        std::memcpy(s->tag, tag, tag_len);
        s->tag_len = tag_len;
        s->tag_set = true;
        return Status::ok();
    });
}

bc_status bc_stream_final(bc_stream* s, uint8_t* out, size_t out_cap, size_t* out_len) {
    return api_call([&]() -> Status {
        if (!s || !out_len) return Status(BC_ERR_NULL_POINTER, "stream and out_len are required");
        return stream_final(s, out, out_cap, out_len);
    });
}

bc_status bc_stream_get_tag(bc_stream* s, uint8_t* tag, size_t tag_len) {
    return api_call([&]() -> Status {
        if (!s || !tag) return Status(BC_ERR_NULL_POINTER, "stream and tag are required");
        if (!s->aead || s->dir != Dir::Encrypt) return Status(BC_ERR_BAD_STATE, "the tag comes from AEAD encryption");
        if (!s->finished) return Status(BC_ERR_BAD_STATE, "call bc_stream_final first");
        BC_TRY(check_tag_len(s->key->material.alg, tag_len));
        std::memcpy(tag, s->tag, tag_len);
        return Status::ok();
    });
}

void bc_stream_destroy(bc_stream* s) { delete s; }

}  // extern "C"
