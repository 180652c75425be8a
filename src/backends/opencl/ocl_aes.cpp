// AES's own kernels (kernels/aes.cl: the bitsliced core, lane-strided), GHASH and GCM.
#include "backends/opencl/ocl_backend_impl.h"

#include <algorithm>
#include <cstring>

#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "modes/gcm/gcm.h"

namespace bc {
namespace ocl {
namespace {

// Work-items for n blocks at 32 blocks (one bitsliced batch) each.
size_t batches(size_t nblocks) { return (nblocks + 31) / 32; }

}  // namespace

// ---- GHASH -------------------------------------------------------------------

Status Backend::upload_hpow(bc_gf128 h, MemHandle* out) {
    uint64_t table[128];
    bc_gf128 p = h;
    for (int k = 0; k < 64; ++k) {
        table[2 * k] = p.hi;
        table[2 * k + 1] = p.lo;
        p = bc_gf128_mul(p, p);
    }
    Status s = upload(table, sizeof table, out);
    secure_wipe(table, sizeof table);
    return s;
}

Status Backend::ghash_enqueue(cl_command_queue q, cl_mem buf, size_t len, cl_mem hpow, Slot& slot,
                              std::vector<uint64_t>* groups) {
    cl_kernel kern = nullptr;
    BC_TRY(kernel("bc_ghash_partial", &kern));
    ghash_kernel_ = kern;
    const size_t nblocks = (len + 15) / 16;
    const size_t items = (nblocks + ghash_per_item_ - 1) / ghash_per_item_;
    const size_t ngroups = (items + mac_local_ - 1) / mac_local_;
    groups->assign(2 * ngroups, 0);
    if (ngroups == 0) return Status::ok();
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 16 * ngroups));
    cl_ulong clen = len;
    cl_uint per_item = static_cast<cl_uint>(ghash_per_item_);
    cl_mem aux = slot.aux.get();
    cl_int err = clSetKernelArg(kern, 0, sizeof buf, &buf);
    err |= clSetKernelArg(kern, 1, sizeof clen, &clen);
    err |= clSetKernelArg(kern, 2, sizeof per_item, &per_item);
    err |= clSetKernelArg(kern, 3, sizeof hpow, &hpow);
    err |= clSetKernelArg(kern, 4, sizeof aux, &aux);
    err |= clSetKernelArg(kern, 5, 3 * mac_local_ * sizeof(cl_ulong), nullptr);
    if (err != CL_SUCCESS) return cl_status(err, "clSetKernelArg");
    BC_TRY(launch(q, kern, items, mac_local_, true));
    BC_CL_TRY(clEnqueueReadBuffer(q, aux, CL_FALSE, 0, 16 * ngroups, groups->data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
    return Status::ok();
}

bc_gf128 Backend::ghash_fold_groups(bc_gf128 h, const std::vector<std::vector<uint64_t>>& groups,
                                    const std::vector<size_t>& piece_len) const {
    const uint64_t group_blocks = uint64_t(ghash_per_item_) * mac_local_;
    const bc_gf128 h_group = gf128_pow(h, group_blocks);
    bc_gf128 acc{0, 0};
    for (size_t p = 0; p < groups.size(); ++p) {
        uint64_t blocks = (piece_len[p] + 15) / 16;
        for (size_t g = 0; 2 * g < groups[p].size(); ++g) {
            uint64_t n = std::min<uint64_t>(group_blocks, blocks - g * group_blocks);
            bc_gf128 part{groups[p][2 * g], groups[p][2 * g + 1]};
            acc = bc_gf128_xor(bc_gf128_mul(acc, n == group_blocks ? h_group : gf128_pow(h, n)), part);
        }
    }
    // The kernel's sums are GHASH_H; backend.h's partial has one more factor H.
    return bc_gf128_mul(acc, h);
}

Status Backend::ghash_partial(bc_gf128 h, const uint8_t* data, size_t len, bc_gf128* out) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    MemHandle hpow;
    BC_TRY(upload_hpow(h, &hpow));
    // Pieces are whole blocks; each keeps its group results until the fold.
    std::vector<std::vector<uint64_t>> groups((len + chunk_bytes(16) - 1) / chunk_bytes(16));
    std::vector<size_t> lens(groups.size());
    BC_TRY(pipeline(data, nullptr, len, 16, nullptr,
                    [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                        lens[pc.index] = pc.len;
                        return ghash_enqueue(q, buf, pc.len, hpow.get(), slot, &groups[pc.index]);
                    }));
    *out = ghash_fold_groups(h, groups, lens);
    return Status::ok();
}

// ---- AES ------------------------------------------------------------------------

Status Backend::aes_ctr_enqueue(const OclKey& k, cl_command_queue q, cl_mem buf, const uint8_t ctr[16],
                                bool inc32, size_t nblocks) {
    cl_kernel kern = nullptr;
    cl_mem rk = k.rk_enc.get();
    if (aes_variant_ == 1) {
        // 32 work-items a tile of 512 blocks; with a grid cap, the tiles in turns
        BC_TRY(kernel("bc_aes_ctr_pair", &kern));
        size_t items = (nblocks + 511) / 512 * kAesPairTileItems;
        if (aes_groups_ > 0) items = std::min(items, size_t(dev_.compute_units ? dev_.compute_units : 1) * aes_groups_ * aes_local_);
        const LocalBytes exchange{dev_.pair_shuffles() ? sizeof(cl_uint) : kAesPairExchangeBytes * aes_local_};
        BC_TRY(set_args(kern, buf, cl_ulong(nblocks), rk, cl_int(k.rounds), cl_ulong(bc_load_be64(ctr)),
                        cl_ulong(bc_load_be64(ctr + 8)), cl_int(inc32 ? 1 : 0), exchange));
        return launch(q, kern, items, aes_local_, true);
    }
    BC_TRY(kernel("bc_aes_ctr", &kern));
    BC_TRY(set_args(kern, buf, cl_ulong(nblocks), rk, cl_int(k.rounds), cl_ulong(bc_load_be64(ctr)),
                    cl_ulong(bc_load_be64(ctr + 8)), cl_int(inc32 ? 1 : 0)));
    return launch(q, kern, batches(nblocks), aes_local_, true);
}

Status Backend::alpha_table(cl_mem* out) {
    if (!apow_) {
        // alpha = x: in GCM's bit order the coefficient of x^1 is bit 62 of hi.
        uint64_t table[128];
        bc_gf128 p{uint64_t(1) << 62, 0};
        for (int i = 0; i < 64; ++i) {
            table[2 * i] = p.hi;
            table[2 * i + 1] = p.lo;
            p = bc_gf128_mul(p, p);
        }
        BC_TRY(upload(table, sizeof table, &apow_));
    }
    *out = apow_.get();
    return Status::ok();
}

Status Backend::aes_xts_piece(const OclKey& k, const CipherOp& op, cl_command_queue q, cl_mem buf, Piece& pc,
                              Slot& slot) {
    const bool enc = op.dir == Dir::Encrypt;
    const size_t unit = op.data_unit ? static_cast<size_t>(op.data_unit) : pc.len;
    const size_t full_units = pc.len / unit;
    const size_t rest = pc.len % unit;  // a shorter last unit (>= 16 bytes), at the end of the call
    const size_t units = full_units + (rest ? 1 : 0);
    const uint64_t first_unit = op.data_unit ? pc.pos / op.data_unit : 0;
    cl_mem apow = nullptr;
    BC_TRY(alpha_table(&apow));

    // Encrypted tweaks of the piece's units into the slot's aux buffer.
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 16 * units));
    cl_mem tweaks = slot.aux.get();
    uint8_t t0[16];
    std::memcpy(t0, op.iv, 16);
    add_le128(t0, first_unit);
    cl_kernel kt = nullptr;
    BC_TRY(kernel("bc_aes_xts_tweaks", &kt));
    cl_mem rk2 = k.rk_tweak.get(), rk = k.rk_enc.get();
    BC_TRY(set_args(kt, tweaks, cl_ulong(units), cl_ulong(bc_load_le64(t0)), cl_ulong(bc_load_le64(t0 + 8)), rk2,
                    cl_int(k.rounds)));
    BC_TRY(launch(q, kt, batches(units), local_, true));

    struct Group {
        size_t base, nunits, unit_bytes, tbase;
    };
    Group groups[2] = {{0, full_units, unit, 0}, {full_units * unit, rest ? 1u : 0u, rest, full_units}};
    for (const Group& g : groups) {
        if (g.nunits == 0) continue;
        const size_t m = g.unit_bytes / 16, tail = g.unit_bytes % 16;
        const size_t plain = tail ? m - 1 : m;
        if (plain) {
            const size_t segs = (plain + 31) / 32;
            cl_kernel km = nullptr;
            BC_TRY(kernel(enc ? "bc_aes_xts_enc" : "bc_aes_xts_dec", &km));
            BC_TRY(set_args(km, buf, cl_ulong(g.base), cl_ulong(g.nunits), cl_ulong(g.unit_bytes), cl_ulong(plain),
                            cl_ulong(segs), tweaks, cl_ulong(g.tbase), apow, rk, cl_int(k.rounds)));
            BC_TRY(launch(q, km, g.nunits * segs, local_, true));
        }
        if (tail) {
            // Its part is built only once a unit needs stealing.
            cl_kernel ks = nullptr;
            BC_TRY(kernel(enc ? "bc_aes_xts_steal_enc" : "bc_aes_xts_steal_dec", &ks));
            BC_TRY(set_args(ks, buf, cl_ulong(g.base), cl_ulong(g.nunits), cl_ulong(g.unit_bytes), cl_ulong(m),
                            cl_int(tail), tweaks, cl_ulong(g.tbase), apow, rk, cl_int(k.rounds)));
            BC_TRY(launch(q, ks, batches(g.nunits), local_, true));
        }
    }
    return Status::ok();
}

Status Backend::aes_cipher(const OclKey& k, const CipherOp& op) {
    const bool enc = op.dir == Dir::Encrypt;
    cl_mem rk = k.rk_enc.get();
    const cl_int rounds = k.rounds;
    switch (k.alg->mode) {
        case Mode::ECB: {
            cl_kernel kern = nullptr;
            BC_TRY(kernel(enc ? "bc_aes_ecb_enc" : "bc_aes_ecb_dec", &kern));
            return pipeline(op.in, op.out, op.len, 16, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                const size_t n = pc.len / 16;
                BC_TRY(set_args(kern, buf, cl_ulong(n), rk, rounds));
                return launch(q, kern, batches(n), local_, true);
            });
        }
        case Mode::CTR: {
            auto lead = [&](size_t pos) { return static_cast<size_t>((op.offset + pos) % 16); };
            return pipeline(op.in, op.out, op.len, 16, lead, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                uint8_t ctr[16];
                std::memcpy(ctr, op.iv, 16);
                add_be128(ctr, (op.offset + pc.pos) / 16);
                return aes_ctr_enqueue(k, q, buf, ctr, false, (pc.lead + pc.len + 15) / 16);
            });
        }
        case Mode::CBC: {
            if (enc) {
                // One chain: every piece on one queue, the chaining block kept on the device.
                MemHandle chain;
                cl_uint4 iv = le_words(op.iv);
                BC_TRY(upload(iv.s, 16, &chain));
                cl_kernel kern = nullptr;
                BC_TRY(kernel("bc_aes_cbc_enc", &kern));
                cl_mem c = chain.get();
                return pipeline(op.in, op.out, op.len, 16, nullptr,
                                [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                                    BC_TRY(set_args(kern, buf, cl_ulong(pc.len / 16), rk, rounds, c));
                                    return launch(q, kern, 1, 1, true);
                                },
                                true);
            }
            // Decryption: each piece's chaining block is the ciphertext block before it,
            // read now, before an in-place call overwrites it.
            const size_t chunk = chunk_bytes(16);
            std::vector<cl_uint4> chains((op.len + chunk - 1) / chunk);
            for (size_t i = 0; i < chains.size(); ++i)
                chains[i] = le_words(i == 0 ? op.iv : op.in + i * chunk - 16);
            cl_kernel kern = nullptr;
            BC_TRY(kernel("bc_aes_cbc_dec", &kern));
            Status s = pipeline(op.in, op.out, op.len, 16, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, pc.len));
                cl_mem out = slot.aux.get();
                const size_t n = pc.len / 16;
                BC_TRY(set_args(kern, buf, out, cl_ulong(n), rk, rounds, chains[pc.index]));
                pc.result = out;
                return launch(q, kern, batches(n), local_, true);
            });
            secure_wipe(chains.data(), chains.size() * sizeof(cl_uint4));
            return s;
        }
        case Mode::XTS: {
            const size_t align = op.data_unit ? static_cast<size_t>(op.data_unit) : op.len;
            return pipeline(op.in, op.out, op.len, align, nullptr,
                            [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                                return aes_xts_piece(k, op, q, buf, pc, slot);
                            });
        }
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: AES mode not available");
    }
}

Status Backend::gcm_chunk(const OclKey& k, AeadChunkOp& op) {
    const bool enc = op.dir == Dir::Encrypt;
    const size_t chunk = chunk_bytes(64);
    std::vector<std::vector<uint64_t>> groups((op.len + chunk - 1) / chunk);
    std::vector<size_t> lens(groups.size());
    BC_TRY(pipeline(op.in, op.out, op.len, 64, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
        lens[pc.index] = pc.len;
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        gcm_inc32(ctr, pc.pos / 16);
        // GHASH covers the ciphertext: after the keystream when sealing, before when opening.
        if (!enc) BC_TRY(ghash_enqueue(q, buf, pc.len, k.hpow.get(), slot, &groups[pc.index]));
        if (k.cipher) BC_TRY(block_ctr_enqueue(k, q, buf, ctr, pc.len, true));  // the generic path's keys
        else BC_TRY(aes_ctr_enqueue(k, q, buf, ctr, true, (pc.len + 15) / 16));
        if (enc) BC_TRY(ghash_enqueue(q, buf, pc.len, k.hpow.get(), slot, &groups[pc.index]));
        return Status::ok();
    }));
    bc_gf128 part = ghash_fold_groups(k.h, groups, lens);
    std::memset(op.partial, 0, sizeof op.partial);
    bc_gf128_store(op.partial, part);
    return Status::ok();
}



}  // namespace ocl
}  // namespace bc
