#include "cores/sm4/sm4.h"

#include <cstring>

#include "cores/sm4/sm4_block.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kSm4KsWords == BC_SM4_KS_WORDS, "sm4.h and sm4_block.h disagree");

namespace {

uint32_t rotl32(uint32_t v, unsigned n) { return (v << n) | (v >> (32 - n)); }

// CK_i (GB/T 32907-2016 7.3): byte j (0 = the most significant) is (4i + j) * 7 mod 256.
uint32_t ck(int i) {
    uint32_t v = 0;
    for (int j = 0; j < 4; ++j) v = (v << 8) | static_cast<uint32_t>(((4 * i + j) * 7) & 0xff);
    return v;
}

// The key schedule's T'(a) = L'(tau(a)), L'(B) = B ^ B<<<13 ^ B<<<23. tau goes through
// the bitsliced S-box network (lane q = byte q of a), so no table is indexed by key
// material.
uint32_t t_prime(uint32_t a) {
    bc_u32 x[8];
    for (int b = 0; b < 8; ++b) {
        bc_u32 v = 0;
        for (int q = 0; q < 4; ++q) v |= ((a >> (24 - 8 * q + b)) & 1u) << q;
        x[b] = v;
    }
    bc_sm4_bs_sbox(x);
    uint32_t s = 0;
    for (int q = 0; q < 4; ++q)
        for (int b = 0; b < 8; ++b) s |= ((x[b] >> q) & 1u) << (24 - 8 * q + b);
    const uint32_t r = s ^ rotl32(s, 13) ^ rotl32(s, 23);
    secure_wipe(x, sizeof x);
    secure_wipe(&s, sizeof s);
    return r;
}

}  // namespace

bool sm4_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len != 16) return false;
    static const uint32_t fk[4] = {BC_SM4_FK0, BC_SM4_FK1, BC_SM4_FK2, BC_SM4_FK3};
    // K_i = MK_i ^ FK_i; rk_i = K_{i+4} = K_i ^ T'(K_{i+1} ^ K_{i+2} ^ K_{i+3} ^ CK_i),
    // kept in a ring of four words.
    uint32_t k[4];
    for (int i = 0; i < 4; ++i) k[i] = bc_load_be32(key + 4 * i) ^ fk[i];
    for (int i = 0; i < BC_SM4_ROUNDS; ++i) {
        uint32_t rk = k[i & 3] ^ t_prime(k[(i + 1) & 3] ^ k[(i + 2) & 3] ^ k[(i + 3) & 3] ^ ck(i));
        k[i & 3] = rk;
        uint32_t* m = ks + BC_SM4_KS_ROUND * i;
        for (int q = 0; q < 4; ++q)
            for (int b = 0; b < 8; ++b) m[8 * q + b] = 0u - ((rk >> (24 - 8 * q + b)) & 1u);
        secure_wipe(&rk, sizeof rk);
    }
    secure_wipe(k, sizeof k);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<16, BC_SM4_BATCH>([ks](bc_u32* w) { bc_sm4_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<16, BC_SM4_BATCH>([ks](bc_u32* w) { bc_sm4_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void sm4_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void sm4_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
