/*
 * The generic block-cipher program: ECB (both directions), CTR (full-width counter
 * or inc32), CBC decryption and XTS (both directions, whole blocks) over any block
 * cipher of the cipher folders, as thin loops over the items of
 * src/modes/block/block_modes.h. The backend builds this file per cipher and
 * program part (opencl_kernels.h: a BC_PART_BLK_* define keeps the part's kernels,
 * so a call compiles only the cores it launches), behind a prelude that names the
 * cipher and includes its device.inc:
 *
 *   #define BC_DEVICE_BLOCK_CIPHER(id, ID)        (empty: the include only brings the core)
 *   #define BC_<ID>_KS_SPACE BC_CONSTANT          (expanded keys in constant memory;
 *                                                  BC_LOCAL and BC_BLK_KS_LOCAL 1 for a
 *                                                  cipher whose key holds tables)
 *   #include "cores/<cipher>/device.inc"
 *   #define BC_CIPHER_ID <id>
 *   #define BC_CIPHER_UID <ID>
 *
 * From id and ID the naming convention of the cipher folders gives the core
 * (bc_<id>_encrypt_batch / _decrypt_batch) and its sizes (BC_<ID>_BLOCK_BYTES,
 * BC_<ID>_BATCH). Kernel names do not depend on the cipher: programs are per cipher.
 *
 * Work split: an item is one batch of the core. On GPUs (BC_DEV_GPU) a tile of
 * 32 * BATCH blocks goes to 32 neighbouring work-items, work-item l taking blocks
 * l, l + 32, ... (stride 32: each load of the 32 work-items reads one contiguous
 * span); elsewhere an item is BATCH consecutive blocks. CBC decryption always takes
 * consecutive blocks. Data buffers are cl_mem allocations (aligned), so ECB, CTR and
 * CBC move words; XTS units of a length that is not a multiple of 4 go bytewise.
 */
#include "dialect/bc_dialect.h"

#define BC_BLK_CAT3(a, b, c) a##b##c
#define BC_BLK_X3(a, b, c) BC_BLK_CAT3(a, b, c)

#define BC_BLK_BLOCK BC_BLK_X3(BC_, BC_CIPHER_UID, _BLOCK_BYTES)
#define BC_BLK_BATCH BC_BLK_X3(BC_, BC_CIPHER_UID, _BATCH)
#define BC_BLK_BW (BC_BLK_BLOCK / 4)
#if BC_DEV_GPU
#define BC_BLK_LANES 32
#else
#define BC_BLK_LANES 1
#endif

/* Every kernel takes the expanded key in constant memory (BC_BLK_KS_PARAM) and opens with
 * BC_BLK_STAGE_KS, which names the key the core reads `ks`. A table cipher's lookups are
 * indexed by data, so a warp's lanes read different words: constant memory would serve
 * them one after another, local memory (one copy a work-group, staged here before any
 * work-item may leave) serves a warp at once less its bank conflicts. */
#if BC_BLK_KS_LOCAL
#define BC_BLK_KS_WORDS BC_BLK_X3(BC_, BC_CIPHER_UID, _KS_WORDS)
typedef BC_LOCAL const bc_u32 *bc_blk_ks;
#define BC_BLK_KS_PARAM BC_CONSTANT const bc_u32 *ks_in
#define BC_BLK_STAGE_KS                                                                          \
    BC_LOCAL bc_u32 ks_copy[BC_BLK_KS_WORDS];                                                    \
    for (size_t i_ = get_local_id(0); i_ < BC_BLK_KS_WORDS; i_ += get_local_size(0)) ks_copy[i_] = ks_in[i_]; \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                \
    const bc_blk_ks ks = ks_copy
#else
typedef BC_CONSTANT const bc_u32 *bc_blk_ks;
#define BC_BLK_KS_PARAM bc_blk_ks ks
#define BC_BLK_STAGE_KS (void)0
#endif

#define BC_BM_NAME(x) bc_blk_##x
#define BC_BM_BLOCK BC_BLK_BLOCK
#define BC_BM_BATCH BC_BLK_BATCH
#define BC_BM_KS bc_blk_ks
#define BC_BM_ENCRYPT(ks, w) BC_BLK_X3(bc_, BC_CIPHER_ID, _encrypt_batch)(ks, w)
#define BC_BM_DECRYPT(ks, w) BC_BLK_X3(bc_, BC_CIPHER_ID, _decrypt_batch)(ks, w)
#include "modes/block/block_modes.h"

/* The first block of work-item g (tiles of BC_BLK_LANES * BATCH blocks). */
BC_FN bc_u64 bc_blk_first(bc_u64 g) {
    return (g / BC_BLK_LANES) * (bc_u64)(BC_BLK_LANES * BC_BLK_BATCH) + g % BC_BLK_LANES;
}

/* ---- ECB: nblocks blocks of buf in place ---- */

#if BC_PART_BLK_ECB_ENC
BC_KERNEL void bc_block_ecb_enc(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, BC_BLK_KS_PARAM) {
    BC_BLK_STAGE_KS;
    const bc_u64 first = bc_blk_first(get_global_id(0));
    if (first < nblocks) bc_blk_ecb_item(ks, buf, buf, nblocks, first, BC_BLK_LANES, 1, 1);
}
#endif

#if BC_PART_BLK_ECB_DEC
BC_KERNEL void bc_block_ecb_dec(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, BC_BLK_KS_PARAM) {
    BC_BLK_STAGE_KS;
    const bc_u64 first = bc_blk_first(get_global_id(0));
    if (first < nblocks) bc_blk_ecb_item(ks, buf, buf, nblocks, first, BC_BLK_LANES, 0, 1);
}
#endif

/* ---- CTR: len bytes of buf in place; ctr holds the counter block of keystream
 * block 0 as big-endian words (the first BW used) ---- */

#if BC_PART_BLK_CTR
BC_KERNEL void bc_block_ctr(BC_GLOBAL bc_u8 *buf, bc_u64 len, BC_BLK_KS_PARAM, uint4 ctr, int inc32) {
    BC_BLK_STAGE_KS;
    const bc_u64 first = bc_blk_first(get_global_id(0));
    if (first * BC_BLK_BLOCK >= len) return;
    bc_u32 c[4] = {ctr.x, ctr.y, ctr.z, ctr.w};
    bc_blk_ctr_item(ks, c, inc32, 0, buf, buf, len, first, BC_BLK_LANES, 1);
}
#endif

/* ---- CBC decryption in place: first the chaining block of every item (the
 * ciphertext block before it; iv for item 0) is saved, then the items run ---- */

#if BC_PART_BLK_CBC_DEC
BC_KERNEL void bc_block_cbc_save(const BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, BC_GLOBAL bc_u32 *chains, uint4 iv) {
    const bc_u64 g = get_global_id(0);
    const bc_u64 first = g * BC_BLK_BATCH;
    if (first >= nblocks) return;
    bc_u32 w[4] = {iv.x, iv.y, iv.z, iv.w};
    if (g > 0) bc_blk_bm_load(buf, first - 1, w, 1);
    for (int q = 0; q < BC_BLK_BW; ++q) chains[BC_BLK_BW * g + q] = w[q];
}

BC_KERNEL void bc_block_cbc_dec(BC_GLOBAL bc_u8 *buf, bc_u64 nblocks, BC_BLK_KS_PARAM,
                                const BC_GLOBAL bc_u32 *chains) {
    BC_BLK_STAGE_KS;
    const bc_u64 g = get_global_id(0);
    const bc_u64 first = g * BC_BLK_BATCH;
    if (first >= nblocks) return;
    bc_u32 chain[BC_BLK_BW];
    for (int q = 0; q < BC_BLK_BW; ++q) chain[q] = chains[BC_BLK_BW * g + q];
    bc_blk_cbc_dec_item(ks, chain, buf, buf, nblocks, first, 1);
}
#endif

#if BC_BLK_BLOCK == 16
/* ---- XTS ---- */

/* The tweak list of units units: t0 + u as a 128-bit little-endian number, to be
 * encrypted in place by bc_block_ecb_enc under the tweak key. */
#if BC_PART_BLK_XTS_TWEAKS
BC_KERNEL void bc_block_xts_list(BC_GLOBAL bc_u32 *list, bc_u64 units, bc_u64 t0_lo, bc_u64 t0_hi) {
    const bc_u64 u = get_global_id(0);
    if (u >= units) return;
    const bc_u64 lo = t0_lo + u;
    const bc_u64 hi = t0_hi + (lo < t0_lo ? 1u : 0u);
    list[4 * u] = (bc_u32)lo;
    list[4 * u + 1] = (bc_u32)(lo >> 32);
    list[4 * u + 2] = (bc_u32)hi;
    list[4 * u + 3] = (bc_u32)(hi >> 32);
}
#endif

/* nunits units of unit_bytes bytes from byte base of buf, in place: the first
 * nblocks whole blocks of each (ciphertext stealing is the host's). Unit u's
 * encrypted tweak is word 4 * (tbase + u) of tweaks; apow[2k], apow[2k+1] are
 * alpha^(2^k) (lo, hi) for k = 0..63, public. items_per_unit work-items a unit. */
BC_FN void bc_blk_xts(BC_GLOBAL bc_u8 *buf, bc_u64 base, bc_u64 nunits, bc_u64 unit_bytes, bc_u64 nblocks,
                      bc_u64 items_per_unit, const BC_GLOBAL bc_u32 *tweaks, bc_u64 tbase,
                      const BC_GLOBAL bc_u64 *apow, bc_blk_ks ks, int enc) {
    const bc_u64 g = get_global_id(0);
    const bc_u64 u = g / items_per_unit;
    const bc_u64 first = bc_blk_first(g % items_per_unit);
    if (u >= nunits || first >= nblocks) return;
    const BC_GLOBAL bc_u32 *t = tweaks + 4 * (tbase + u);
    bc_u64 lo = (bc_u64)t[0] | ((bc_u64)t[1] << 32);
    bc_u64 hi = (bc_u64)t[2] | ((bc_u64)t[3] << 32);
    /* times alpha^first: the low 5 bits of first by a shift, the others from the
     * table (the branches depend on the block index only) */
    const unsigned low = (unsigned)(first & 31u);
    if (low) bc_xts_mul_xs(&lo, &hi, low);
    bc_u64 e = first >> 5;
    for (int k = 5; e != 0; ++k, e >>= 1)
        if (e & 1u) bc_xts_mul_public(&lo, &hi, apow[2 * k], apow[2 * k + 1]);
    BC_GLOBAL bc_u8 *p = buf + base + u * unit_bytes;
    /* a runtime choice inside the loads and stores only: the core is not duplicated */
    const int aligned = (unit_bytes & 3u) == 0 && (base & 3u) == 0;
    bc_blk_xts_item(ks, lo, hi, p, p, nblocks, first, BC_BLK_LANES, enc, aligned);
}

#if BC_PART_BLK_XTS_ENC
BC_KERNEL void bc_block_xts_enc(BC_GLOBAL bc_u8 *buf, bc_u64 base, bc_u64 nunits, bc_u64 unit_bytes,
                                bc_u64 nblocks, bc_u64 items_per_unit, const BC_GLOBAL bc_u32 *tweaks,
                                bc_u64 tbase, const BC_GLOBAL bc_u64 *apow, BC_BLK_KS_PARAM) {
    BC_BLK_STAGE_KS;
    bc_blk_xts(buf, base, nunits, unit_bytes, nblocks, items_per_unit, tweaks, tbase, apow, ks, 1);
}
#endif

#if BC_PART_BLK_XTS_DEC
BC_KERNEL void bc_block_xts_dec(BC_GLOBAL bc_u8 *buf, bc_u64 base, bc_u64 nunits, bc_u64 unit_bytes,
                                bc_u64 nblocks, bc_u64 items_per_unit, const BC_GLOBAL bc_u32 *tweaks,
                                bc_u64 tbase, const BC_GLOBAL bc_u64 *apow, BC_BLK_KS_PARAM) {
    BC_BLK_STAGE_KS;
    bc_blk_xts(buf, base, nunits, unit_bytes, nblocks, items_per_unit, tweaks, tbase, apow, ks, 0);
}
#endif
#endif
