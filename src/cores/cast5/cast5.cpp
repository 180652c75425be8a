#include "cores/cast5/cast5.h"

#include <cstring>

#include "cores/cast5/cast5_block.h"
#include "cores/cast5/cast5_sbox.h"
#include "cores/host_batches.h"
#include "util/secure.h"

namespace bc {

static_assert(kCast5KsWords == BC_CAST5_KS_WORDS, "cast5.h and cast5_block.h disagree");

namespace {

// The key schedule (RFC 2144 2.4) on the key's 16 bytes x (zero-padded) and the
// scratch bytes z, S5..S8 indexed by their bytes (not constant time, as the cipher).
struct Schedule {
    uint8_t x[16], z[16];

    static uint32_t s(int box, uint8_t v) { return kCast5S[box - 1][v]; }
    static uint32_t word(const uint8_t* t) {
        return (uint32_t(t[0]) << 24) | (uint32_t(t[1]) << 16) | (uint32_t(t[2]) << 8) | t[3];
    }
    static void put(uint8_t* t, uint32_t v) {
        t[0] = uint8_t(v >> 24);
        t[1] = uint8_t(v >> 16);
        t[2] = uint8_t(v >> 8);
        t[3] = uint8_t(v);
    }
    void z_from_x() {
        put(z + 0, word(x + 0) ^ s(5, x[13]) ^ s(6, x[15]) ^ s(7, x[12]) ^ s(8, x[14]) ^ s(7, x[8]));
        put(z + 4, word(x + 8) ^ s(5, z[0]) ^ s(6, z[2]) ^ s(7, z[1]) ^ s(8, z[3]) ^ s(8, x[10]));
        put(z + 8, word(x + 12) ^ s(5, z[7]) ^ s(6, z[6]) ^ s(7, z[5]) ^ s(8, z[4]) ^ s(5, x[9]));
        put(z + 12, word(x + 4) ^ s(5, z[10]) ^ s(6, z[9]) ^ s(7, z[11]) ^ s(8, z[8]) ^ s(6, x[11]));
    }
    void x_from_z() {
        put(x + 0, word(z + 8) ^ s(5, z[5]) ^ s(6, z[7]) ^ s(7, z[4]) ^ s(8, z[6]) ^ s(7, z[0]));
        put(x + 4, word(z + 0) ^ s(5, x[0]) ^ s(6, x[2]) ^ s(7, x[1]) ^ s(8, x[3]) ^ s(8, z[2]));
        put(x + 8, word(z + 4) ^ s(5, x[7]) ^ s(6, x[6]) ^ s(7, x[5]) ^ s(8, x[4]) ^ s(5, z[1]));
        put(x + 12, word(z + 12) ^ s(5, x[10]) ^ s(6, x[9]) ^ s(7, x[11]) ^ s(8, x[8]) ^ s(6, z[3]));
    }
    // Four subkeys from t: S5[t[a]] ^ S6[t[b]] ^ S7[t[c]] ^ S8[t[d]] ^ S(5 + i)[t[e]] for
    // the i-th of them.
    static void four(const uint8_t* t, const uint8_t (*idx)[5], uint32_t* k) {
        for (int i = 0; i < 4; ++i) {
            const uint8_t* q = idx[i];
            k[i] = s(5, t[q[0]]) ^ s(6, t[q[1]]) ^ s(7, t[q[2]]) ^ s(8, t[q[3]]) ^ s(5 + i, t[q[4]]);
        }
    }
};

// Byte positions of the four groups of four subkeys (K1..K16; then again for K17..K32).
const uint8_t kFromZ1[4][5] = {{8, 9, 7, 6, 2}, {10, 11, 5, 4, 6}, {12, 13, 3, 2, 9}, {14, 15, 1, 0, 12}};
const uint8_t kFromX1[4][5] = {{3, 2, 12, 13, 8}, {1, 0, 14, 15, 13}, {7, 6, 8, 9, 3}, {5, 4, 10, 11, 7}};
const uint8_t kFromZ2[4][5] = {{3, 2, 12, 13, 9}, {1, 0, 14, 15, 12}, {7, 6, 8, 9, 2}, {5, 4, 10, 11, 6}};
const uint8_t kFromX2[4][5] = {{8, 9, 7, 6, 3}, {10, 11, 5, 4, 7}, {12, 13, 3, 2, 8}, {14, 15, 1, 0, 13}};

}  // namespace

bool cast5_expand_key(const uint8_t* key, size_t len, uint32_t* ks) {
    if (len < kCast5KeyMin || len > kCast5KeyMax) return false;
    Schedule sc;
    std::memset(&sc, 0, sizeof sc);
    std::memcpy(sc.x, key, len);
    uint32_t k[32];
    for (int half = 0; half < 2; ++half) {
        uint32_t* o = k + 16 * half;
        sc.z_from_x();
        Schedule::four(sc.z, kFromZ1, o);
        sc.x_from_z();
        Schedule::four(sc.x, kFromX1, o + 4);
        sc.z_from_x();
        Schedule::four(sc.z, kFromZ2, o + 8);
        sc.x_from_z();
        Schedule::four(sc.x, kFromX2, o + 12);
    }
    for (int i = 0; i < 16; ++i) {
        ks[BC_CAST5_KM + i] = k[i];
        ks[BC_CAST5_KR + i] = k[16 + i] & 31u;
    }
    for (int b = 0; b < 4; ++b) std::memcpy(ks + BC_CAST5_S_OFFSET + 256 * b, kCast5S[b], sizeof kCast5S[b]);
    ks[BC_CAST5_ROUNDS_AT] = len <= 10 ? 12u : 16u;
    secure_wipe(&sc, sizeof sc);
    secure_wipe(k, sizeof k);
    return true;
}

namespace {

void run_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n, int dec) {
    if (dec) run_host_batches<8, BC_CAST5_BATCH>([ks](bc_u32* w) { bc_cast5_decrypt_batch(ks, w); }, in, out, n);
    else run_host_batches<8, BC_CAST5_BATCH>([ks](bc_u32* w) { bc_cast5_encrypt_batch(ks, w); }, in, out, n);
}

}  // namespace

void cast5_encrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 0);
}
void cast5_decrypt_blocks(const uint32_t* ks, const uint8_t* in, uint8_t* out, size_t n) {
    run_blocks(ks, in, out, n, 1);
}

}  // namespace bc
