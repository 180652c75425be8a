// C API: AEAD seal and open, one shot, combined and detached tags.
#include <string>

#include "capi/capi_internal.h"
#include "modes/aead/aead.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"

namespace bc {

AeadMessage::~AeadMessage() {
    secure_wipe(mac_key, sizeof mac_key);
    secure_wipe(subkey, sizeof subkey);
    secure_wipe(tag_mask, sizeof tag_mask);
    secure_wipe(acc, sizeof acc);
}

Status check_tag_len(const Algorithm* alg, size_t tag_len) {
    // GCM: 4 to 16 bytes (SP 800-38D names 4, 8 and 12-16, and warns that
    // short tags need limits on message counts); the ChaCha20 AEADs have one size.
    bool ok = tag_len >= alg->tag_min && tag_len <= alg->tag_max;
    if (!ok)
        return Status(BC_ERR_TAG_SIZE, std::string(alg->name) + " does not allow a " + std::to_string(tag_len) +
                                           "-byte tag");
    return Status::ok();
}

size_t aead_granule(const bc_key* key) { return key->material.alg->mode == Mode::GCM ? 16 : 64; }

Status aead_begin(const bc_key* key, const uint8_t* nonce, size_t nonce_len, AeadMessage* m) {
    const Algorithm* a = key->material.alg;
    if (a->mode == Mode::GCM) {
        GcmMessageSetup g;
        if (!gcm_setup(key->gcm_cipher(), nonce, nonce_len, &g, &key->gcm_h))
            return Status(BC_ERR_INTERNAL, std::string(a->name) + ": GCM set-up refused the key or nonce");
        std::memcpy(m->tag_mask, g.ek_j0, 16);
        std::memcpy(m->ctr, g.ctr, 16);
        return Status::ok();
    }
    if (a->mode == Mode::ChaChaPoly) {
        ChachaPolySetup c;
        if (!chachapoly_setup(key->material.raw.data(), nonce, nonce_len, &c))
            return Status(BC_ERR_IV_SIZE, std::string(a->name) + " takes a 12- or 24-byte nonce");
        std::memcpy(m->mac_key, c.mac_key, 32);
        std::memcpy(m->subkey, c.subkey, 32);
        m->use_subkey = c.use_subkey;
        std::memcpy(m->ctr, c.ctr, 16);
        return Status::ok();
    }
    return Status(BC_ERR_NOT_SUPPORTED, std::string(a->name) + " is not an AEAD this build knows");
}

void aead_fold(const bc_key* key, AeadMessage* m, const uint8_t* partial, uint64_t nblocks) {
    if (key->material.alg->mode == Mode::GCM) {
        bc_gf128 acc = ghash_fold(bc_gf128_load(m->acc), bc_gf128_load(partial), nblocks, key->gcm_h);
        bc_gf128_store(m->acc, acc);
        secure_wipe_object(acc);
        return;
    }
    poly1305_combine(m->acc, partial, nblocks, m->mac_key);
}

void aead_tag(const bc_key* key, AeadMessage* m, uint64_t aad_len, uint64_t ct_len, uint8_t tag[16]) {
    if (key->material.alg->mode == Mode::GCM) gcm_tag(bc_gf128_load(m->acc), key->gcm_h, m->tag_mask, aad_len, ct_len, tag);
    else chachapoly_tag(m->acc, m->mac_key, aad_len, ct_len, tag);
}

namespace {

Status aead_check(const bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad, size_t aad_len,
                  size_t tag_len, size_t body_len, const bc_params& p) {
    if (!key) return Status(BC_ERR_NULL_POINTER, "key is required");
    const Algorithm* a = key->material.alg;
    if (a->kind != BC_KIND_AEAD)
        return Status(BC_ERR_NOT_SUPPORTED, std::string(a->name) + " is not an AEAD: use bc_encrypt / bc_decrypt");
    if (nonce_len < a->iv_min || nonce_len > a->iv_max)
        return Status(BC_ERR_IV_SIZE, std::string(a->name) + " takes a " +
                                          (a->iv_min == a->iv_max ? std::to_string(a->iv_min)
                                                                  : std::to_string(a->iv_min) + " to " + std::to_string(a->iv_max)) +
                                          "-byte nonce, not " + std::to_string(nonce_len));
    if (!nonce) return Status(BC_ERR_NULL_POINTER, "nonce is NULL");
    if (aad_len && !aad) return Status(BC_ERR_NULL_POINTER, "aad is NULL");
    BC_TRY(check_tag_len(a, tag_len));
    if (body_len > a->max_message)
        return Status(BC_ERR_MESSAGE_TOO_LONG, std::string(a->name) + " messages are at most " +
                                                   std::to_string(a->max_message) + " bytes");
    if (p.flags || p.data_unit_size || p.offset)
        return Status(BC_ERR_INVALID_ARGUMENT, "AEADs take no flags, data unit or offset");
    return check_memory(key, p);
}

// The body of seal and open: MAC of the AAD, keystream plus MAC of the body,
// then the full tag. Direction decides whether the MAC reads in or out.
Status aead_process(bc_key* key, Dir dir, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad,
                    size_t aad_len, const uint8_t* in, size_t len, uint8_t* out, const bc_params& p,
                    uint8_t full_tag[16]) {
    AeadMessage m;
    BC_TRY(aead_begin(key, nonce, nonce_len, &m));
    Backend& b = *key->ctx->backend;
    if (aad_len) {
        MacOp mac;
        mac.mac_key = m.mac_key;
        mac.data = aad;
        mac.len = aad_len;
        mac.memory = BC_MEMORY_HOST;  // AAD, nonce and tag always live on the host
        BC_TRY(b.mac(key->material, *key->backend_key, mac));
        aead_fold(key, &m, mac.partial, (aad_len + 15) / 16);
    }
    AeadChunkOp op;
    op.dir = dir;
    std::memcpy(op.ctr, m.ctr, 16);
    op.mac_key = m.mac_key;
    op.subkey = m.use_subkey ? m.subkey : nullptr;
    op.in = in;
    op.out = out;
    op.len = len;
    op.memory = p.memory;
    op.stream = p.stream;
    if (len) {
        BC_TRY(b.aead_chunk(key->material, *key->backend_key, op));
        aead_fold(key, &m, op.partial, (len + 15) / 16);
    }
    aead_tag(key, &m, aad_len, len, full_tag);
    return Status::ok();
}

Status seal(bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad, size_t aad_len,
            const uint8_t* in, size_t in_len, uint8_t* out, uint8_t* tag, size_t tag_len, const bc_params& p) {
    if ((in_len && (!in || !out)) || !tag) return Status(BC_ERR_NULL_POINTER, "in, out and tag are required");
    if (p.memory == BC_MEMORY_HOST) {
        BC_TRY(check_aliasing(in, in_len, out, in_len));
        BC_TRY(check_aliasing(in, in_len, tag, tag_len));
    }
    uint8_t full[16];
    Status s = key->ctx->backend->aead_oneshot(key->material, *key->backend_key, Dir::Encrypt, nonce, nonce_len, aad,
                                               aad_len, in, out, in_len, full, 16, p.memory);
    if (s.code == BC_ERR_NOT_SUPPORTED)
        s = aead_process(key, Dir::Encrypt, nonce, nonce_len, aad, aad_len, in, in_len, out, p, full);
    if (s) std::memcpy(tag, full, tag_len);
    else wipe_output(key, out, in_len, p);
    secure_wipe(full, sizeof full);
    return s;
}

Status open(bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad, size_t aad_len,
            const uint8_t* in, size_t in_len, const uint8_t* tag, size_t tag_len, uint8_t* out, const bc_params& p) {
    if ((in_len && (!in || !out)) || !tag) return Status(BC_ERR_NULL_POINTER, "in, out and tag are required");
    if (p.memory == BC_MEMORY_HOST) BC_TRY(check_aliasing(in, in_len, out, in_len));
    uint8_t expected[16], full[16];
    std::memcpy(expected, tag, tag_len);  // the tag may sit right after in, inside out's reach
    Status s = key->ctx->backend->aead_oneshot(key->material, *key->backend_key, Dir::Decrypt, nonce, nonce_len, aad,
                                               aad_len, in, out, in_len, expected, tag_len, p.memory);
    if (s.code == BC_ERR_NOT_SUPPORTED) {
        s = aead_process(key, Dir::Decrypt, nonce, nonce_len, aad, aad_len, in, in_len, out, p, full);
        if (s && !ct_equal(full, expected, tag_len)) s = Status(BC_ERR_AUTH_FAILED, "the tag does not match: message rejected");
    }
    if (!s) wipe_output(key, out, in_len, p);  // never release unauthenticated plaintext
    secure_wipe(full, sizeof full);
    return s;
}

size_t resolve_tag_len(const bc_key* key, size_t tag_len) {
    return tag_len ? tag_len : (key ? key->material.alg->tag_size : 16);
}

}  // namespace
}  // namespace bc

using namespace bc;

extern "C" {

bc_status bc_aead_seal_detached(bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad,
                                size_t aad_len, const uint8_t* in, size_t in_len, uint8_t* out, uint8_t* tag,
                                size_t tag_len, const bc_params* params) {
    return api_call([&]() -> Status {
        const bc_params& p = params_or_default(params);
        tag_len = resolve_tag_len(key, tag_len);
        BC_TRY(aead_check(key, nonce, nonce_len, aad, aad_len, tag_len, in_len, p));
        return seal(key, nonce, nonce_len, aad, aad_len, in, in_len, out, tag, tag_len, p);
    });
}

bc_status bc_aead_open_detached(bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad,
                                size_t aad_len, const uint8_t* in, size_t in_len, const uint8_t* tag,
                                size_t tag_len, uint8_t* out, const bc_params* params) {
    return api_call([&]() -> Status {
        const bc_params& p = params_or_default(params);
        tag_len = resolve_tag_len(key, tag_len);
        BC_TRY(aead_check(key, nonce, nonce_len, aad, aad_len, tag_len, in_len, p));
        return open(key, nonce, nonce_len, aad, aad_len, in, in_len, tag, tag_len, out, p);
    });
}

bc_status bc_aead_seal(bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad, size_t aad_len,
                       const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap, size_t* out_len,
                       size_t tag_len, const bc_params* params) {
    return api_call([&]() -> Status {
        if (!out_len) return Status(BC_ERR_NULL_POINTER, "out_len is required");
        *out_len = 0;
        const bc_params& p = params_or_default(params);
        tag_len = resolve_tag_len(key, tag_len);
        BC_TRY(aead_check(key, nonce, nonce_len, aad, aad_len, tag_len, in_len, p));
        if (p.memory != BC_MEMORY_HOST)
            return Status(BC_ERR_NOT_SUPPORTED, "with device memory use bc_aead_seal_detached (the tag stays on the host)");
        if (!out) return Status(BC_ERR_NULL_POINTER, "out is required");
        if (out_cap < in_len + tag_len)
            return Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(in_len + tag_len) + " bytes");
        BC_TRY(check_aliasing(in, in_len, out, in_len + tag_len));
        BC_TRY(seal(key, nonce, nonce_len, aad, aad_len, in, in_len, out, out + in_len, tag_len, p));
        *out_len = in_len + tag_len;
        return Status::ok();
    });
}

bc_status bc_aead_open(bc_key* key, const uint8_t* nonce, size_t nonce_len, const uint8_t* aad, size_t aad_len,
                       const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap, size_t* out_len,
                       size_t tag_len, const bc_params* params) {
    return api_call([&]() -> Status {
        if (!out_len) return Status(BC_ERR_NULL_POINTER, "out_len is required");
        *out_len = 0;
        const bc_params& p = params_or_default(params);
        tag_len = resolve_tag_len(key, tag_len);
        if (p.memory != BC_MEMORY_HOST)
            return Status(BC_ERR_NOT_SUPPORTED, "with device memory use bc_aead_open_detached (the tag stays on the host)");
        if (!in) return Status(BC_ERR_NULL_POINTER, "in is required");
        if (in_len < tag_len) return Status(BC_ERR_INPUT_LENGTH, "input is shorter than the tag");
        const size_t body = in_len - tag_len;
        BC_TRY(aead_check(key, nonce, nonce_len, aad, aad_len, tag_len, body, p));
        if (body && !out) return Status(BC_ERR_NULL_POINTER, "out is required");
        if (out_cap < body) return Status(BC_ERR_OUTPUT_TOO_SMALL, "output needs " + std::to_string(body) + " bytes");
        BC_TRY(open(key, nonce, nonce_len, aad, aad_len, in, body, in + body, tag_len, out, p));
        *out_len = body;
        return Status::ok();
    });
}

}  // extern "C"
