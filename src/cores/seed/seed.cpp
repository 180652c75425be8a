#include "cores/seed/seed.h"

#include <cstring>

#include "cores/seed/seed_block.h"
#include "cores/seed/seed_table_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kSeedKsWords == BC_SEED_KS_WORDS, "seed.h and seed_block.h disagree");
static_assert(kSeedTableKsWords == BC_SEED_TABLE_KS_WORDS, "seed.h and seed_table_block.h disagree");
static_assert(kSeedTableBatch == BC_SEED_TABLE_BATCH, "seed.h and seed_table_block.h disagree");

namespace {

uint32_t load_be32(const uint8_t* p) {
    return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
           (static_cast<uint32_t>(p[2]) << 8) | p[3];
}

uint32_t rotl32(uint32_t v, unsigned n) { return n == 0 ? v : (v << n) | (v >> (32 - n)); }

// G (RFC 4269 2.1) of two words at once, for the key schedule. The S-boxes go through
// the bitsliced networks (lane q: byte q % 4 of word q / 4), so no table is indexed by
// key material; the masks of the mixing step are constants.
void seed_g2(uint32_t in0, uint32_t in1, uint32_t* out0, uint32_t* out1) {
    static const uint8_t m[4] = {0xfc, 0xf3, 0xcf, 0x3f};
    const uint32_t in[2] = {in0, in1};
    bc_u32 v1[8] = {0}, v2[8];
    for (int q = 0; q < 8; ++q)
        for (int b = 0; b < 8; ++b) v1[b] |= ((in[q >> 2] >> (8 * (q & 3) + b)) & 1u) << q;
    std::memcpy(v2, v1, sizeof v1);
    bc_seed_bs_s1(v1);
    bc_seed_bs_s2(v2);
    uint32_t out[2] = {0, 0};
    for (int q = 0; q < 8; ++q) {
        // S1 on bytes X0 and X2, S2 on X1 and X3
        const bc_u32* v = (q & 1) ? v2 : v1;
        uint32_t y = 0;
        for (int b = 0; b < 8; ++b) y |= ((v[b] >> q) & 1u) << b;
        // Z_k ^= S(X_q) & m_((q + k) mod 4)
        uint32_t z = 0;
        for (int k = 0; k < 4; ++k) z |= (y & m[((q & 3) + k) & 3]) << (8 * k);
        out[q >> 2] ^= z;
        secure_wipe(&y, sizeof y);
        secure_wipe(&z, sizeof z);
    }
    *out0 = out[0];
    *out1 = out[1];
    secure_wipe(v1, sizeof v1);
    secure_wipe(v2, sizeof v2);
    secure_wipe(out, sizeof out);
}

}  // namespace

bool seed_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16) return false;
    uint32_t k[4];
    for (int i = 0; i < 4; ++i) k[i] = load_be32(key + 4 * i);
    std::memset(ks, 0, kSeedKsWords * sizeof(uint32_t));
    ks[0] = BC_SEED_ROUNDS;
    ks[1] = 128;
    // RFC 4269 2.2: K_{i,0} = G(Key0 + Key2 - KC_{i-1}), K_{i,1} = G(Key1 - Key3 + KC_{i-1});
    // then Key0 || Key1 >>>= 8 after odd rounds, Key2 || Key3 <<<= 8 after even ones.
    for (int r = 0; r < BC_SEED_ROUNDS; ++r) {
        const uint32_t kc = rotl32(BC_SEED_KC0, static_cast<unsigned>(r));
        uint32_t k0 = 0, k1 = 0;
        seed_g2(k[0] + k[2] - kc, k[1] - k[3] + kc, &k0, &k1);
        uint32_t* m = ks + BC_SEED_KS_HEADER + BC_SEED_KS_ROUND * r;
        uint32_t kx = k0 ^ k1;
        for (int j = 0; j < 32; ++j) {
            m[j] = 0u - ((k0 >> j) & 1u);
            m[32 + j] = 0u - ((kx >> j) & 1u);
        }
        uint32_t t;
        if ((r & 1) == 0) {  // round r + 1 odd
            t = k[0];
            k[0] = (k[0] >> 8) | (k[1] << 24);
            k[1] = (k[1] >> 8) | (t << 24);
        } else {
            t = k[2];
            k[2] = (k[2] << 8) | (k[3] >> 24);
            k[3] = (k[3] << 8) | (t >> 24);
        }
        secure_wipe(&k0, sizeof k0);
        secure_wipe(&k1, sizeof k1);
        secure_wipe(&kx, sizeof kx);
        secure_wipe(&t, sizeof t);
    }
    secure_wipe(k, sizeof k);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<16, BC_SEED_BATCH>([ks](bc_u32* w) { bc_seed_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<16, BC_SEED_BATCH>([ks](bc_u32* w) { bc_seed_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void seed_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void seed_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

// The table form: the round keys read back from the bitsliced key's masks, and the
// four G tables from the S-box networks over all 256 bytes (public constants).
bool seed_table_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    SecureBytes masks(kSeedKsWords * sizeof(uint32_t));
    uint32_t* m = reinterpret_cast<uint32_t*>(masks.data());
    if (!seed_expand_key(key, len, m)) return false;
    for (int r = 0; r < BC_SEED_ROUNDS; ++r) {
        const uint32_t* rk = m + BC_SEED_KS_HEADER + BC_SEED_KS_ROUND * r;
        uint32_t k0 = 0, kx = 0;
        for (int j = 0; j < 32; ++j) {
            k0 |= (rk[j] & 1u) << j;
            kx |= (rk[32 + j] & 1u) << j;
        }
        ks[2 * r] = k0;
        ks[2 * r + 1] = kx;
    }
    static const uint8_t mk[4] = {0xfc, 0xf3, 0xcf, 0x3f};
    for (int x0 = 0; x0 < 256; x0 += 32) {
        bc_u32 v1[8] = {0}, v2[8];
        for (int b = 0; b < 8; ++b)
            for (int l = 0; l < 32; ++l) v1[b] |= (((x0 + l) >> b) & 1u) << l;
        std::memcpy(v2, v1, sizeof v1);
        bc_seed_bs_s1(v1);
        bc_seed_bs_s2(v2);
        for (int l = 0; l < 32; ++l)
            for (int q = 0; q < 4; ++q) {
                const bc_u32* v = (q & 1) ? v2 : v1;
                uint32_t y = 0, z = 0;
                for (int b = 0; b < 8; ++b) y |= ((v[b] >> l) & 1u) << b;
                for (int k = 0; k < 4; ++k) z |= (y & mk[(q + k) & 3]) << (8 * k);
                ks[32 + 256 * q + x0 + l] = z;
            }
    }
    return true;
}

void seed_table_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_host_batches<16, BC_SEED_TABLE_BATCH>([ks](bc_u32* w) { bc_seed_table_encrypt_batch(ks, w); }, in, out, n);
}
void seed_table_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_host_batches<16, BC_SEED_TABLE_BATCH>([ks](bc_u32* w) { bc_seed_table_decrypt_batch(ks, w); }, in, out, n);
}

}  // namespace bc
