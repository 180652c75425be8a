/*
 * Table-based AES in the portable dialect: the fast, NOT constant-time variant
 * (the table index is key and data dependent, which leaks through caches and
 * shared-memory banks). Opt-in only: the CUDA backend uses it for "aes=table".
 *
 * State: four little-endian column words, st[c] = bytes 4c..4c+3 of the block
 * with row 0 in the low byte. Round keys in the same form (bc_aes_table_le_keys
 * converts the FIPS-197 big-endian schedule words).
 *
 * One table per direction; the other three T-tables are byte rotations of it
 * (one PRMT on CUDA):
 *   te[x] = 2S(x) | S(x) << 8 | S(x) << 16 | 3S(x) << 24
 *   td[x] = 14iS(x) | 9iS(x) << 8 | 13iS(x) << 16 | 11iS(x) << 24
 * The last encryption round takes S(x) from byte 1 of te[x]; the last decryption
 * round reads the inverse S-box from isb, packed four bytes to a word
 * (byte x & 3 of word x >> 2).
 *
 * Replication: entry i of a table is read at T[i * copies + lane]. A GPU stores
 * `copies` = 32 interleaved copies in shared memory and passes its lane so that
 * the 32 lanes of a warp always read 32 different banks; the host passes 1, 0.
 * Decryption takes dec keys (equivalent inverse cipher, AesKeySchedule::dec).
 */
#ifndef BC_CORES_AES_TABLE_H
#define BC_CORES_AES_TABLE_H

#include "dialect/bc_dialect.h"

#ifndef BC_AES_TABLE_SPACE
#define BC_AES_TABLE_SPACE BC_LOCAL
#endif
#ifndef BC_AES_TABLE_KEY_SPACE
#define BC_AES_TABLE_KEY_SPACE BC_GLOBAL
#endif

#if defined(BC_TARGET_CUDA) || defined(BC_TARGET_OPENCL)
#define BC_AES_TAB_NOUNROLL _Pragma("unroll 1")
#else
#define BC_AES_TAB_NOUNROLL
#endif

BC_FN bc_u32 bc_aes_tab_rotl8(bc_u32 x) { return bc_byte_perm(x, x, 0x2103); }
BC_FN bc_u32 bc_aes_tab_rotl16(bc_u32 x) { return bc_byte_perm(x, x, 0x1032); }
BC_FN bc_u32 bc_aes_tab_rotl24(bc_u32 x) { return bc_byte_perm(x, x, 0x0321); }

/* FIPS-197 big-endian words -> little-endian column words (n words). */
BC_FN void bc_aes_table_le_keys(const bc_u32 *w, int n, bc_u32 *out) {
    for (int i = 0; i < n; ++i) out[i] = bc_bswap32(w[i]);
}

#define BC_AES_TAB(T, i) (T)[(bc_u32)(i) * copies + lane]

BC_FN void bc_aes_table_encrypt(const BC_AES_TABLE_SPACE bc_u32 *te, unsigned copies, unsigned lane,
                                const BC_AES_TABLE_KEY_SPACE bc_u32 *rk, int rounds, bc_u32 *st) {
    bc_u32 s0 = st[0] ^ rk[0], s1 = st[1] ^ rk[1], s2 = st[2] ^ rk[2], s3 = st[3] ^ rk[3];
    BC_AES_TAB_NOUNROLL
    for (int r = 1; r < rounds; ++r) {
        const BC_AES_TABLE_KEY_SPACE bc_u32 *k = rk + 4 * r;
        /* column c takes row r from column c + r (ShiftRows) */
        bc_u32 t0 = BC_AES_TAB(te, s0 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(te, (s1 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(te, (s2 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(te, s3 >> 24)) ^ k[0];
        bc_u32 t1 = BC_AES_TAB(te, s1 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(te, (s2 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(te, (s3 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(te, s0 >> 24)) ^ k[1];
        bc_u32 t2 = BC_AES_TAB(te, s2 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(te, (s3 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(te, (s0 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(te, s1 >> 24)) ^ k[2];
        bc_u32 t3 = BC_AES_TAB(te, s3 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(te, (s0 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(te, (s1 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(te, s2 >> 24)) ^ k[3];
        s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    }
    const BC_AES_TABLE_KEY_SPACE bc_u32 *k = rk + 4 * rounds;
    /* S(x) is byte 1 of te[x]: gather four such bytes with byte permutes. */
#define BC_AES_TAB_LAST(a, b, c, d)                                                       \
    bc_byte_perm(bc_byte_perm(BC_AES_TAB(te, (a) & 0xffu), BC_AES_TAB(te, ((b) >> 8) & 0xffu), 0x0051), \
                 bc_byte_perm(BC_AES_TAB(te, ((c) >> 16) & 0xffu), BC_AES_TAB(te, (d) >> 24), 0x0051),  \
                 0x5410)
    st[0] = BC_AES_TAB_LAST(s0, s1, s2, s3) ^ k[0];
    st[1] = BC_AES_TAB_LAST(s1, s2, s3, s0) ^ k[1];
    st[2] = BC_AES_TAB_LAST(s2, s3, s0, s1) ^ k[2];
    st[3] = BC_AES_TAB_LAST(s3, s0, s1, s2) ^ k[3];
#undef BC_AES_TAB_LAST
}

BC_FN bc_u32 bc_aes_tab_isb(const BC_AES_TABLE_SPACE bc_u32 *isb, unsigned copies, unsigned lane, bc_u32 x) {
    return (BC_AES_TAB(isb, x >> 2) >> (8u * (x & 3u))) & 0xffu;
}

/* rk: equivalent-inverse-cipher keys in decryption order (LE column words). */
BC_FN void bc_aes_table_decrypt(const BC_AES_TABLE_SPACE bc_u32 *td, const BC_AES_TABLE_SPACE bc_u32 *isb,
                                unsigned copies, unsigned lane,
                                const BC_AES_TABLE_KEY_SPACE bc_u32 *rk, int rounds, bc_u32 *st) {
    bc_u32 s0 = st[0] ^ rk[0], s1 = st[1] ^ rk[1], s2 = st[2] ^ rk[2], s3 = st[3] ^ rk[3];
    BC_AES_TAB_NOUNROLL
    for (int r = 1; r < rounds; ++r) {
        const BC_AES_TABLE_KEY_SPACE bc_u32 *k = rk + 4 * r;
        /* column c takes row r from column c - r (InvShiftRows) */
        bc_u32 t0 = BC_AES_TAB(td, s0 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(td, (s3 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(td, (s2 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(td, s1 >> 24)) ^ k[0];
        bc_u32 t1 = BC_AES_TAB(td, s1 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(td, (s0 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(td, (s3 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(td, s2 >> 24)) ^ k[1];
        bc_u32 t2 = BC_AES_TAB(td, s2 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(td, (s1 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(td, (s0 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(td, s3 >> 24)) ^ k[2];
        bc_u32 t3 = BC_AES_TAB(td, s3 & 0xffu) ^ bc_aes_tab_rotl8(BC_AES_TAB(td, (s2 >> 8) & 0xffu)) ^
                    bc_aes_tab_rotl16(BC_AES_TAB(td, (s1 >> 16) & 0xffu)) ^
                    bc_aes_tab_rotl24(BC_AES_TAB(td, s0 >> 24)) ^ k[3];
        s0 = t0; s1 = t1; s2 = t2; s3 = t3;
    }
    const BC_AES_TABLE_KEY_SPACE bc_u32 *k = rk + 4 * rounds;
#define BC_AES_TAB_ILAST(a, b, c, d)                                                   \
    (bc_aes_tab_isb(isb, copies, lane, (a) & 0xffu) |                                  \
     (bc_aes_tab_isb(isb, copies, lane, ((b) >> 8) & 0xffu) << 8) |                    \
     (bc_aes_tab_isb(isb, copies, lane, ((c) >> 16) & 0xffu) << 16) |                  \
     (bc_aes_tab_isb(isb, copies, lane, (d) >> 24) << 24))
    st[0] = BC_AES_TAB_ILAST(s0, s3, s2, s1) ^ k[0];
    st[1] = BC_AES_TAB_ILAST(s1, s0, s3, s2) ^ k[1];
    st[2] = BC_AES_TAB_ILAST(s2, s1, s0, s3) ^ k[2];
    st[3] = BC_AES_TAB_ILAST(s3, s2, s1, s0) ^ k[3];
#undef BC_AES_TAB_ILAST
}

#undef BC_AES_TAB

#endif /* BC_CORES_AES_TABLE_H */
