// Every block cipher through the generic kernels (kernels/block.cl, one program per
// cipher): ECB, CTR, CBC and XTS from the catalogue's BlockCipher descriptor alone.
// Keys are the descriptor's expansion, uploaded once per key. CBC encryption (one
// chain) and XTS ciphertext stealing (the last two blocks of a unit with a partial
// block) run on the host through the descriptor's portable core.
#include "backends/opencl/ocl_backend_impl.h"

#include <algorithm>
#include <cstring>

#include "cores/aes/aes.h"
#include "modes/aead/aead.h"
#include "modes/block/host_modes.h"
#include "modes/block/xts_tweak.h"

namespace bc {
namespace ocl {
void add_be_counter(uint8_t* v, size_t len, uint64_t n) {
    for (size_t i = len; i-- > 0 && n;) {
        const uint64_t s = uint64_t(v[i]) + (n & 0xff);
        v[i] = static_cast<uint8_t>(s);
        n = (n >> 8) + (s >> 8);
    }
}

namespace {

// The 16 bytes of a tweak <-> (lo, hi) of xts_tweak.h.
void tweak_load(const uint8_t b[16], bc_u64* lo, bc_u64* hi) {
    *lo = bc_load_le64(b);
    *hi = bc_load_le64(b + 8);
}
void tweak_store(bc_u64 lo, bc_u64 hi, uint8_t b[16]) {
    bc_store_le64(b, lo);
    bc_store_le64(b + 8, hi);
}

// One block of XTS: out = E/D(in ^ t) ^ t under the host core.
void xts_block(const BlockCipher& c, const uint32_t* ks, bool enc, const uint8_t t[16], const uint8_t in[16],
               uint8_t out[16]) {
    uint8_t x[16];
    for (int i = 0; i < 16; ++i) x[i] = in[i] ^ t[i];
    if (enc) c.encrypt(ks, x, x, 1);
    else c.decrypt(ks, x, x, 1);
    for (int i = 0; i < 16; ++i) out[i] = x[i] ^ t[i];
    secure_wipe(x, sizeof x);
}

// Ciphertext stealing over the last full block (index m - 1) and the partial block
// (tail bytes) of one data unit of n bytes at p, in place; tweak: E2(the unit's tweak).
void xts_steal(const BlockCipher& c, const uint32_t* ks, bool enc, const uint8_t tweak[16], uint8_t* p, size_t n) {
    const size_t m = n / 16, tail = n % 16;
    bc_u64 lo, hi, a_lo, a_hi;
    tweak_load(tweak, &lo, &hi);
    bc_xts_alpha_pow(m - 1, &a_lo, &a_hi);
    bc_xts_mul_public(&lo, &hi, a_lo, a_hi);
    uint8_t t_prev[16], t_last[16], cc[16];
    tweak_store(lo, hi, t_prev);
    bc_xts_mul_x(&lo, &hi);
    tweak_store(lo, hi, t_last);
    uint8_t* last_full = p + 16 * (m - 1);
    uint8_t* part = p + 16 * m;
    if (enc) {
        xts_block(c, ks, true, t_prev, last_full, cc);
        // The partial plaintext goes into the last full block; the stolen bytes out.
        uint8_t pp[16];
        std::memcpy(pp, part, tail);
        std::memcpy(pp + tail, cc + tail, 16 - tail);
        std::memcpy(part, cc, tail);
        xts_block(c, ks, true, t_last, pp, last_full);
        secure_wipe(pp, sizeof pp);
    } else {
        xts_block(c, ks, false, t_last, last_full, cc);
        uint8_t ct[16];
        std::memcpy(ct, part, tail);
        std::memcpy(ct + tail, cc + tail, 16 - tail);
        std::memcpy(part, cc, tail);
        xts_block(c, ks, false, t_prev, ct, last_full);
        secure_wipe(ct, sizeof ct);
    }
    secure_wipe(cc, sizeof cc);
    secure_wipe(t_prev, sizeof t_prev);
    secure_wipe(t_last, sizeof t_last);
    lo = hi = 0;
}

// The kernels' counter argument: the counter block as big-endian words.
cl_uint4 be_words(const uint8_t* b, size_t len) {
    cl_uint4 v = {};
    for (size_t i = 0; i < len / 4; ++i) v.s[i] = bc_load_be32(b + 4 * i);
    return v;
}

cl_uint4 le_words_n(const uint8_t* b, size_t len) {
    cl_uint4 v = {};
    for (size_t i = 0; i < len / 4; ++i) v.s[i] = bc_load_le32(b + 4 * i);
    return v;
}

}  // namespace

bool Backend::generic_block(const Algorithm& alg) const {
    if (alg.block == nullptr) return false;
    if (alg.cipher != Cipher::Block && !(alg.cipher == Cipher::AES && opt_.aes_generic)) return false;
    switch (alg.mode) {
        case Mode::ECB:
        case Mode::CBC:
        case Mode::CTR:
            return true;
        case Mode::XTS:
        case Mode::GCM:  // GHASH's kernels are AES's (ocl_aes.cpp)
            return alg.block->block_bytes == 16;
        default:
            return false;
    }
}

Status Backend::block_prepare_key(const KeyMaterial& key, OclKey* k) {
    const BlockCipher& c = *key.alg->block;
    const bool xts = key.alg->mode == Mode::XTS;
    const size_t half = xts ? key.raw.size() / 2 : key.raw.size();
    k->cipher = &c;
    k->host_ks.assign(c.ks_words, 0);
    if (!c.expand(key.raw.data(), half, k->host_ks.data()))
        return Status(BC_ERR_KEY_SIZE, std::string("OpenCL backend: ") + c.name + " key of " + std::to_string(half) +
                                           " bytes");
    BC_TRY(upload(k->host_ks.data(), c.ks_words * sizeof(uint32_t), &k->ks));
    if (xts) {
        k->host_ks_tweak.assign(c.ks_words, 0);
        if (!c.expand(key.raw.data() + half, half, k->host_ks_tweak.data()))
            return Status(BC_ERR_KEY_SIZE, "OpenCL backend: XTS tweak key");
        BC_TRY(upload(k->host_ks_tweak.data(), c.ks_words * sizeof(uint32_t), &k->ks_tweak));
    }
    if (key.alg->mode == Mode::GCM) {
        k->h = gcm_hash_subkey(GcmCipher(c, k->host_ks.data()));
        BC_TRY(upload_hpow(k->h, &k->hpow));
    }
    // The host keeps its copy only where the host core runs: CBC encryption, XTS stealing.
    if (key.alg->mode != Mode::CBC && !xts) {
        secure_wipe(k->host_ks.data(), k->host_ks.size() * sizeof(uint32_t));
        k->host_ks.clear();
    }
    return Status::ok();
}

namespace {
// Work-items for n blocks, as block.cl splits them: on GPUs tiles of 32 work-items
// (each a batch, lane-strided), elsewhere one batch of consecutive blocks each.
size_t block_items(bool gpu, size_t batch, uint64_t nblocks) {
    const size_t lanes = gpu ? 32 : 1;
    const uint64_t tile = uint64_t(lanes) * batch;
    return static_cast<size_t>((nblocks + tile - 1) / tile * lanes);
}
}  // namespace

Status Backend::block_ctr_enqueue(const OclKey& k, cl_command_queue q, cl_mem buf, const uint8_t* ctr, size_t len,
                                  bool inc32) {
    const BlockCipher& c = *k.cipher;
    cl_kernel kern = nullptr;
    BC_TRY(block_kernel(k, "bc_block_ctr", &kern));
    BC_TRY(set_args(kern, buf, cl_ulong(len), k.ks.get(), be_words(ctr, c.block_bytes), cl_int(inc32 ? 1 : 0)));
    return launch(q, kern, block_items(dev_.is_gpu(), c.batch_blocks, (len + c.block_bytes - 1) / c.block_bytes),
                  local_, true);
}

Status Backend::xts_alpha_table(cl_mem* out) {
    if (!xts_apow_) {
        // alpha^(2^k) for k = 0..63: alpha = x, then squarings.
        bc_u64 table[128];
        bc_u64 lo = 2, hi = 0;
        for (int i = 0; i < 64; ++i) {
            table[2 * i] = lo;
            table[2 * i + 1] = hi;
            bc_u64 s_lo = lo, s_hi = hi;
            bc_xts_mul_public(&s_lo, &s_hi, lo, hi);
            lo = s_lo;
            hi = s_hi;
        }
        BC_TRY(upload(table, sizeof table, &xts_apow_));
    }
    *out = xts_apow_.get();
    return Status::ok();
}

Status Backend::block_xts_piece(const OclKey& k, const CipherOp& op, cl_command_queue q, cl_mem buf, Piece& pc,
                                Slot& slot) {
    const BlockCipher& c = *k.cipher;
    const bool enc = op.dir == Dir::Encrypt;
    const size_t unit = op.data_unit ? static_cast<size_t>(op.data_unit) : pc.len;
    const size_t full_units = pc.len / unit;
    const size_t rest = pc.len % unit;  // a shorter last unit (>= 16 bytes), at the end of the call
    const size_t units = full_units + (rest ? 1 : 0);
    const uint64_t first_unit = op.data_unit ? pc.pos / op.data_unit : 0;
    cl_mem apow = nullptr;
    BC_TRY(xts_alpha_table(&apow));

    // The units' tweaks into the slot's aux buffer, then encrypted there under key 2.
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 16 * units + 64));
    cl_mem tweaks = slot.aux.get();
    uint8_t t0[16];
    std::memcpy(t0, op.iv, 16);
    add_le128(t0, first_unit);
    cl_kernel kl = nullptr, ke = nullptr;
    BC_TRY(block_kernel(k, "bc_block_xts_list", &kl));
    BC_TRY(block_kernel(k, "bc_block_ecb_enc", &ke));
    BC_TRY(set_args(kl, tweaks, cl_ulong(units), cl_ulong(bc_load_le64(t0)), cl_ulong(bc_load_le64(t0 + 8))));
    BC_TRY(launch(q, kl, units, local_, true));
    BC_TRY(set_args(ke, tweaks, cl_ulong(units), k.ks_tweak.get()));
    BC_TRY(launch(q, ke, block_items(dev_.is_gpu(), c.batch_blocks, units), local_, true));

    struct Group {
        size_t base, nunits, unit_bytes, tbase;
    };
    const Group groups[2] = {{0, full_units, unit, 0}, {full_units * unit, rest ? 1u : 0u, rest, full_units}};
    for (const Group& g : groups) {
        if (g.nunits == 0) continue;
        const size_t m = g.unit_bytes / 16;
        const size_t plain = g.unit_bytes % 16 ? m - 1 : m;  // the host steals over the last two
        if (plain == 0) continue;
        const size_t per_unit = block_items(dev_.is_gpu(), c.batch_blocks, plain);
        cl_kernel km = nullptr;
        BC_TRY(block_kernel(k, enc ? "bc_block_xts_enc" : "bc_block_xts_dec", &km));
        BC_TRY(set_args(km, buf, cl_ulong(g.base), cl_ulong(g.nunits), cl_ulong(g.unit_bytes), cl_ulong(plain),
                        cl_ulong(per_unit), tweaks, cl_ulong(g.tbase), apow, k.ks.get()));
        BC_TRY(launch(q, km, g.nunits * per_unit, local_, true));
    }
    return Status::ok();
}

Status Backend::block_cipher(const OclKey& k, const CipherOp& op) {
    const BlockCipher& c = *k.cipher;
    const size_t bb = c.block_bytes;
    const bool enc = op.dir == Dir::Encrypt;
    const bool gpu = dev_.is_gpu();
    switch (k.alg->mode) {
        case Mode::ECB: {
            if (op.len % bb) return Status(BC_ERR_INVALID_ARGUMENT, "ECB: length not a multiple of the block");
            cl_kernel kern = nullptr;
            BC_TRY(block_kernel(k, enc ? "bc_block_ecb_enc" : "bc_block_ecb_dec", &kern));
            return pipeline(op.in, op.out, op.len, bb, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                const size_t n = pc.len / bb;
                BC_TRY(set_args(kern, buf, cl_ulong(n), k.ks.get()));
                return launch(q, kern, block_items(gpu, c.batch_blocks, n), local_, true);
            });
        }
        case Mode::CTR: {
            // Each piece sits `lead` bytes into its buffer, so that its keystream starts
            // on a block boundary of the buffer.
            auto lead = [&](size_t pos) { return static_cast<size_t>((op.offset + pos) % bb); };
            return pipeline(op.in, op.out, op.len, bb, lead, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                uint8_t ctr[16];
                std::memcpy(ctr, op.iv, bb);
                add_be_counter(ctr, bb, (op.offset + pc.pos) / bb);
                Status s = block_ctr_enqueue(k, q, buf, ctr, pc.lead + pc.len);
                secure_wipe(ctr, sizeof ctr);
                return s;
            });
        }
        case Mode::CBC: {
            if (op.len % bb) return Status(BC_ERR_INVALID_ARGUMENT, "CBC: length not a multiple of the block");
            if (enc) {
                // One chain: on the host, block by block through the portable core.
                uint8_t chain[16], x[16];
                std::memcpy(chain, op.iv, bb);
                for (size_t pos = 0; pos < op.len; pos += bb) {
                    for (size_t i = 0; i < bb; ++i) x[i] = op.in[pos + i] ^ chain[i];
                    c.encrypt(k.host_ks.data(), x, chain, 1);
                    std::memcpy(op.out + pos, chain, bb);
                }
                secure_wipe(x, sizeof x);
                secure_wipe(chain, sizeof chain);
                return Status::ok();
            }
            // Decryption: each piece chains from the ciphertext block before it, read
            // now, before an in-place call overwrites it; inside a piece the kernel
            // saves every item's chaining block before any item writes.
            const size_t chunk = chunk_bytes(bb);
            std::vector<cl_uint4> chains((op.len + chunk - 1) / chunk);
            for (size_t i = 0; i < chains.size(); ++i)
                chains[i] = le_words_n(i == 0 ? op.iv : op.in + i * chunk - bb, bb);
            cl_kernel ks = nullptr, kd = nullptr;
            BC_TRY(block_kernel(k, "bc_block_cbc_save", &ks));
            BC_TRY(block_kernel(k, "bc_block_cbc_dec", &kd));
            Status s = pipeline(op.in, op.out, op.len, bb, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc,
                                                                         Slot& slot) {
                const size_t n = pc.len / bb;
                const size_t items = (n + c.batch_blocks - 1) / c.batch_blocks;
                BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, items * bb + 64));
                cl_mem saved = slot.aux.get();
                BC_TRY(set_args(ks, buf, cl_ulong(n), saved, chains[pc.index]));
                BC_TRY(launch(q, ks, items, local_, true));
                BC_TRY(set_args(kd, buf, cl_ulong(n), k.ks.get(), saved));
                return launch(q, kd, items, local_, true);
            });
            secure_wipe(chains.data(), chains.size() * sizeof(cl_uint4));
            return s;
        }
        case Mode::XTS: {
            const size_t unit = op.data_unit ? static_cast<size_t>(op.data_unit) : op.len;
            if (op.len < 16 || unit < 16) return Status(BC_ERR_INVALID_ARGUMENT, "XTS: a data unit under 16 bytes");
            BC_TRY(pipeline(op.in, op.out, op.len, unit, nullptr,
                            [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                                return block_xts_piece(k, op, q, buf, pc, slot);
                            }));
            // Units with a partial last block: the device left their last full block
            // and the partial one as they were; steal over them here.
            uint64_t u = 0;
            for (size_t pos = 0; pos < op.len; pos += unit, ++u) {
                const size_t n = std::min(unit, op.len - pos);
                if (n % 16 == 0) continue;
                if (n < 16) return Status(BC_ERR_INVALID_ARGUMENT, "XTS: a data unit under 16 bytes");
                uint8_t t[16];
                std::memcpy(t, op.iv, 16);
                add_le128(t, u);
                c.encrypt(k.host_ks_tweak.data(), t, t, 1);
                xts_steal(c, k.host_ks.data(), enc, t, op.out + pos, n);
                secure_wipe(t, sizeof t);
            }
            return Status::ok();
        }
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: block mode not available");
    }
}

}  // namespace ocl
}  // namespace bc
