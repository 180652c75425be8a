// The stream ciphers (ChaCha20, XChaCha20, Salsa20, XSalsa20), Poly1305 and
// ChaCha20-Poly1305 (kernels/stream.cl, poly1305.cl).
#include "backends/opencl/ocl_backend_impl.h"

#include <algorithm>
#include <cstring>

#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "modes/poly1305/poly1305.h"

namespace bc {
namespace ocl {
namespace {

// ---- Poly1305 -------------------------------------------------------------------

// 17 little-endian bytes (< 2^130) <-> the kernels' five 26-bit limbs.
void limbs_from17(const uint8_t b[17], uint32_t l[5]) {
    const uint64_t w0 = bc_load_le64(b), w1 = bc_load_le64(b + 8), w2 = b[16];
    const uint64_t m = 0x3ffffff;
    l[0] = static_cast<uint32_t>(w0 & m);
    l[1] = static_cast<uint32_t>((w0 >> 26) & m);
    l[2] = static_cast<uint32_t>(((w0 >> 52) | (w1 << 12)) & m);
    l[3] = static_cast<uint32_t>((w1 >> 14) & m);
    l[4] = static_cast<uint32_t>(((w1 >> 40) | (w2 << 24)) & m);
}
void limbs_to17(const uint32_t in[5], uint8_t b[17]) {
    uint64_t l[5] = {in[0], in[1], in[2], in[3], in[4]};
    for (int pass = 0; pass < 2; ++pass) {  // every limb below 2^26, the value below 2^130
        for (int i = 0; i < 4; ++i) { l[i + 1] += l[i] >> 26; l[i] &= 0x3ffffff; }
        l[0] += 5 * (l[4] >> 26);
        l[4] &= 0x3ffffff;
    }
    for (int i = 0; i < 4; ++i) { l[i + 1] += l[i] >> 26; l[i] &= 0x3ffffff; }
    const uint64_t w0 = l[0] | (l[1] << 26) | (l[2] << 52);
    const uint64_t w1 = (l[2] >> 12) | (l[3] << 14) | (l[4] << 40);
    bc_store_le64(b, w0);
    bc_store_le64(b + 8, w1);
    b[16] = static_cast<uint8_t>(l[4] >> 24);
}


}  // namespace

// ---- stream ciphers ----------------------------------------------------------

const char* stream_kernel_name(const Algorithm& alg) {
    const bool chacha = alg.cipher == Cipher::ChaCha20 || alg.cipher == Cipher::XChaCha20;
    const int rounds = alg.rounds;
    return chacha ? (rounds == 8 ? "bc_chacha8_xor" : rounds == 12 ? "bc_chacha12_xor" : "bc_chacha20_xor")
                  : (rounds == 8 ? "bc_salsa8_xor" : rounds == 12 ? "bc_salsa12_xor" : "bc_salsa20_xor");
}

Status Backend::stream_kernel(const OclKey& k, const uint32_t st[16], int layout, cl_command_queue q,
                              cl_mem buf, size_t lead, size_t len) {
    const bool chacha = k.alg->cipher == Cipher::ChaCha20 || k.alg->cipher == Cipher::XChaCha20;
    cl_kernel kern = nullptr;
    BC_TRY(kernel(stream_kernel_name(*k.alg), &kern));
    cl_ulong nblocks = (lead + len + 63) / 64;
    cl_uint16 state;
    std::memcpy(state.s, st, 64);
    cl_int lay = layout;
    Status s = chacha ? set_args(kern, buf, nblocks, state, lay) : set_args(kern, buf, nblocks, state);
    secure_wipe(&state, sizeof state);
    BC_TRY(s);
    return launch(q, kern, nblocks, local_, true);
}

Status Backend::stream_cipher(const OclKey& k, const CipherOp& op, cl_mem device_buf) {
    // The state of keystream block 0 from the key words and the IV.
    uint32_t base[16];
    std::memcpy(base, k.state, sizeof base);
    int layout = BC_CHACHA_LAYOUT_IETF;
    bool chacha = true;
    switch (k.alg->cipher) {
        case Cipher::ChaCha20:
            if (std::strcmp(k.alg->name, "chacha20-djb") == 0) {
                layout = BC_CHACHA_LAYOUT_DJB;
                if (op.iv_len == 16) bc_chacha_set_djb(base, bc_load_le64(op.iv), op.iv + 8);
                else bc_chacha_set_djb(base, 0, op.iv);
            } else {
                bc_chacha_set_words12(base, op.iv);
            }
            break;
        case Cipher::XChaCha20: {
            uint8_t sub[32];
            // The key words of the state are the raw key (the ChaCha key layout).
            uint8_t raw[32];
            for (int i = 0; i < 8; ++i) bc_store_le32(raw + 4 * i, k.state[4 + i]);
            bc_hchacha20(raw, op.iv, sub);
            bc_chacha_set_key(base, sub, 32);
            bc_chacha_set_djb(base, 0, op.iv + 16);
            layout = BC_CHACHA_LAYOUT_DJB;
            secure_wipe(sub, sizeof sub);
            secure_wipe(raw, sizeof raw);
            break;
        }
        case Cipher::Salsa20:
            chacha = false;
            bc_salsa_set_nonce(base, op.iv, 0);
            break;
        case Cipher::XSalsa20: {
            chacha = false;
            uint8_t sub[32], raw[32];
            for (int i = 0; i < 4; ++i) bc_store_le32(raw + 4 * i, k.state[1 + i]);
            for (int i = 0; i < 4; ++i) bc_store_le32(raw + 16 + 4 * i, k.state[11 + i]);
            bc_hsalsa20(raw, op.iv, sub);
            bc_salsa_set_key(base, sub, 32);
            bc_salsa_set_nonce(base, op.iv + 16, 0);
            secure_wipe(sub, sizeof sub);
            secure_wipe(raw, sizeof raw);
            break;
        }
        default:
            return Status(BC_ERR_INTERNAL, "stream_cipher: not a stream cipher");
    }
    auto state_at = [&](uint64_t byte, uint32_t st[16]) {
        std::memcpy(st, base, 64);
        if (chacha) bc_chacha_add_counter(st, layout, byte / 64);
        else bc_salsa_add_counter(st, byte / 64);
    };
    Status s;
    if (device_buf) {
        if (op.offset % 64) return Status(BC_ERR_INVALID_ARGUMENT, "cipher_buffer: offset not block aligned");
        uint32_t st[16];
        state_at(op.offset, st);
        s = stream_kernel(k, st, layout, slots_[0].queue.get(), device_buf, 0, op.len);
        secure_wipe(st, sizeof st);
        s = finish_all(s);
    } else {
        auto lead = [&](size_t pos) { return static_cast<size_t>((op.offset + pos) % 64); };
        s = pipeline(op.in, op.out, op.len, 64, lead,
                     [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                         uint32_t st[16];
                         state_at(op.offset + pc.pos, st);
                         Status r = stream_kernel(k, st, layout, q, buf, pc.lead, pc.len);
                         secure_wipe(st, sizeof st);
                         return r;
                     });
    }
    secure_wipe(base, sizeof base);
    return s;
}


Status Backend::upload_rpow(const uint8_t r[16], MemHandle* out) {
    uint32_t table[5 * 64];
    Poly1305Elem p = poly1305_load_r(r);
    uint8_t b[17];
    for (int k = 0; k < 64; ++k) {
        poly1305_store17(p, b);
        limbs_from17(b, table + 5 * k);
        p = poly1305_mul(p, p);
    }
    Status s = upload(table, sizeof table, out);
    secure_wipe(table, sizeof table);
    secure_wipe(b, sizeof b);
    secure_wipe_object(p);
    return s;
}

Status Backend::poly_enqueue(cl_command_queue q, cl_mem buf, size_t len, cl_mem rpow, Slot& slot,
                             std::vector<uint32_t>* groups) {
    cl_kernel kern = nullptr;
    BC_TRY(kernel("bc_poly1305_partial", &kern));
    poly_kernel_ = kern;
    const size_t nblocks = (len + 15) / 16;
    const size_t items = (nblocks + ghash_per_item_ - 1) / ghash_per_item_;
    const size_t ngroups = (items + mac_local_ - 1) / mac_local_;
    groups->assign(5 * ngroups, 0);
    if (ngroups == 0) return Status::ok();
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 20 * ngroups));
    cl_mem aux = slot.aux.get();
    BC_TRY(set_args(kern, buf, cl_ulong(len), cl_uint(ghash_per_item_), rpow, aux,
                    LocalBytes{6 * mac_local_ * sizeof(cl_uint)}));
    BC_TRY(launch(q, kern, items, mac_local_, true));
    BC_CL_TRY(clEnqueueReadBuffer(q, aux, CL_FALSE, 0, 20 * ngroups, groups->data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
    return Status::ok();
}

void Backend::poly_fold_groups(const uint8_t r[16], const std::vector<std::vector<uint32_t>>& groups,
                               const std::vector<size_t>& piece_len, uint8_t out[17]) const {
    const uint64_t group_blocks = uint64_t(ghash_per_item_) * mac_local_;
    const Poly1305Elem re = poly1305_load_r(r);
    const Poly1305Elem r_group = poly1305_pow(re, group_blocks);
    Poly1305Elem acc{{0, 0, 0}};
    uint8_t b[17];
    for (size_t p = 0; p < groups.size(); ++p) {
        const uint64_t blocks = (piece_len[p] + 15) / 16;
        for (size_t g = 0; 5 * g < groups[p].size(); ++g) {
            const uint64_t n = std::min<uint64_t>(group_blocks, blocks - g * group_blocks);
            limbs_to17(groups[p].data() + 5 * g, b);
            acc = poly1305_add(poly1305_mul(acc, n == group_blocks ? r_group : poly1305_pow(re, n)),
                               poly1305_load17(b));
        }
    }
    poly1305_store17(acc, out);
    secure_wipe(b, sizeof b);
}

Status Backend::poly_partial(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t out[17]) {
    MemHandle rpow;
    BC_TRY(upload_rpow(r, &rpow));
    const size_t chunk = chunk_bytes(16);
    std::vector<std::vector<uint32_t>> groups((len + chunk - 1) / chunk);
    std::vector<size_t> lens(groups.size());
    BC_TRY(pipeline(data, nullptr, len, 16, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
        lens[pc.index] = pc.len;
        return poly_enqueue(q, buf, pc.len, rpow.get(), slot, &groups[pc.index]);
    }));
    poly_fold_groups(r, groups, lens, out);
    return Status::ok();
}

Status Backend::poly1305_partial_device(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t partial[17]) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return poly_partial(r, data, len, partial);
}

// ---- ChaCha20-Poly1305 -------------------------------------------------------------

Status Backend::chachapoly_chunk(const OclKey& k, AeadChunkOp& op) {
    const bool enc = op.dir == Dir::Encrypt;
    uint32_t base[16];
    std::memcpy(base, k.state, sizeof base);
    if (op.subkey) bc_chacha_set_key(base, op.subkey, 32);
    bc_chacha_set_words12(base, op.ctr);
    MemHandle rpow;
    Status s = upload_rpow(op.mac_key, &rpow);
    const size_t chunk = chunk_bytes(64);
    std::vector<std::vector<uint32_t>> groups((op.len + chunk - 1) / chunk);
    std::vector<size_t> lens(groups.size());
    if (s.is_ok())
        s = pipeline(op.in, op.out, op.len, 64, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
            lens[pc.index] = pc.len;
            // Poly1305 covers the ciphertext: after the keystream when sealing, before when opening.
            if (!enc) BC_TRY(poly_enqueue(q, buf, pc.len, rpow.get(), slot, &groups[pc.index]));
            uint32_t st[16];
            std::memcpy(st, base, sizeof st);
            bc_chacha_add_counter(st, BC_CHACHA_LAYOUT_IETF, pc.pos / 64);
            Status r = stream_kernel(k, st, BC_CHACHA_LAYOUT_IETF, q, buf, 0, pc.len);
            secure_wipe(st, sizeof st);
            BC_TRY(r);
            if (enc) BC_TRY(poly_enqueue(q, buf, pc.len, rpow.get(), slot, &groups[pc.index]));
            return Status::ok();
        });
    secure_wipe(base, sizeof base);
    BC_TRY(s);
    std::memset(op.partial, 0, sizeof op.partial);
    poly_fold_groups(op.mac_key, groups, lens, op.partial);
    return Status::ok();
}


}  // namespace ocl
}  // namespace bc
