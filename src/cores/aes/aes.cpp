#include "cores/aes/aes.h"

#include <cstring>

#include "cores/aes/aes_bitsliced.h"
#include "util/secure.h"

namespace bc {
namespace {

// SubWord on a big-endian word, through the bitsliced S-box (lanes 0..3 used),
// so key expansion is constant time as well.
uint32_t sub_word(uint32_t w) {
    bc_u32 x[8];
    for (int b = 0; b < 8; ++b) {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= ((w >> (8 * i + b)) & 1u) << i;
        x[b] = v;
    }
    bc_aes_bs_sbox(x);
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i)
        for (int b = 0; b < 8; ++b) r |= ((x[b] >> i) & 1u) << (8 * i + b);
    secure_wipe(x, sizeof x);
    return r;
}

inline uint32_t xtime_bytes(uint32_t w) {  // xtime on each byte of w, branch-free
    uint32_t hi = w & 0x80808080u;
    return ((w & 0x7f7f7f7fu) << 1) ^ ((hi >> 7) * 0x1bu);
}

// InvMixColumns of one column held as a big-endian word (row 0 in the top byte).
uint32_t inv_mix_word(uint32_t w) {
    uint32_t w2 = xtime_bytes(w), w4 = xtime_bytes(w2), w8 = xtime_bytes(w4);
    uint32_t w9 = w8 ^ w, w11 = w8 ^ w2 ^ w, w13 = w8 ^ w4 ^ w, w14 = w8 ^ w4 ^ w2;
    auto rot = [](uint32_t x, int n) { return n == 0 ? x : (x << n) | (x >> (32 - n)); };
    // out_r = 14 a_r ^ 11 a_{r+1} ^ 13 a_{r+2} ^ 9 a_{r+3}; row r sits at bits 24-8r.
    return w14 ^ rot(w11, 8) ^ rot(w13, 16) ^ rot(w9, 24);
}

struct Tables {
    uint8_t s[256], is[256];
    Tables() {
        // exp/log over generator 3 give the inverses; S(x) = affine(inv(x)).
        uint8_t exp[256], log[256] = {0};
        uint8_t v = 1;
        for (int i = 0; i < 255; ++i) {
            exp[i] = v;
            log[v] = static_cast<uint8_t>(i);
            uint8_t x2 = static_cast<uint8_t>((v << 1) ^ ((v & 0x80) ? 0x1b : 0));
            v = static_cast<uint8_t>(x2 ^ v);
        }
        exp[255] = exp[0];
        for (int x = 0; x < 256; ++x) {
            uint8_t inv = x == 0 ? 0 : exp[(255 - log[x]) % 255];
            uint8_t r = inv;
            for (int k = 1; k <= 4; ++k) r ^= static_cast<uint8_t>((inv << k) | (inv >> (8 - k)));
            r ^= 0x63;
            s[x] = r;
            is[r] = static_cast<uint8_t>(x);
        }
    }
};

const Tables& tables() {
    static const Tables t;
    return t;
}

}  // namespace

const uint8_t* aes_sbox_table() { return tables().s; }
const uint8_t* aes_inv_sbox_table() { return tables().is; }

void aes_table_words(uint32_t te[256], uint32_t td[256], uint32_t isb[64]) {
    const Tables& t = tables();
    auto mul = [](uint8_t a, int m) {
        uint8_t r = 0;
        for (int i = 0; i < 4; ++i) {
            if (m & (1 << i)) r ^= a;
            a = static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
        }
        return r;
    };
    for (int x = 0; x < 256; ++x) {
        uint32_t s = t.s[x], is = t.is[x];
        te[x] = mul(static_cast<uint8_t>(s), 2) | (s << 8) | (s << 16) |
                (static_cast<uint32_t>(mul(static_cast<uint8_t>(s), 3)) << 24);
        td[x] = mul(static_cast<uint8_t>(is), 14) | (static_cast<uint32_t>(mul(static_cast<uint8_t>(is), 9)) << 8) |
                (static_cast<uint32_t>(mul(static_cast<uint8_t>(is), 13)) << 16) |
                (static_cast<uint32_t>(mul(static_cast<uint8_t>(is), 11)) << 24);
    }
    for (int i = 0; i < 64; ++i)
        isb[i] = t.is[4 * i] | (uint32_t(t.is[4 * i + 1]) << 8) | (uint32_t(t.is[4 * i + 2]) << 16) |
                 (uint32_t(t.is[4 * i + 3]) << 24);
}

bool aes_expand_key(const uint8_t* key, size_t key_len, AesKeySchedule* out) {
    if (!out) return false;
    secure_wipe(out, sizeof *out);
    if (!key || (key_len != 16 && key_len != 24 && key_len != 32)) return false;
    const int nk = static_cast<int>(key_len / 4);
    const int nr = nk + 6;
    const int total = 4 * (nr + 1);
    out->rounds = nr;
    for (int i = 0; i < nk; ++i) out->enc[i] = bc_load_be32(key + 4 * i);
    uint32_t rcon = 1;
    for (int i = nk; i < total; ++i) {
        uint32_t t = out->enc[i - 1];
        if (i % nk == 0) {
            t = sub_word((t << 8) | (t >> 24)) ^ (rcon << 24);
            rcon = (rcon << 1) ^ (((rcon >> 7) & 1u) * 0x11bu);
        } else if (nk > 6 && i % nk == 4) {
            t = sub_word(t);
        }
        out->enc[i] = out->enc[i - nk] ^ t;
    }
    // Equivalent inverse cipher keys, in the order decryption uses them.
    for (int r = 0; r <= nr; ++r) {
        for (int c = 0; c < 4; ++c) {
            uint32_t w = out->enc[4 * (nr - r) + c];
            out->dec[4 * r + c] = (r == 0 || r == nr) ? w : inv_mix_word(w);
        }
    }
    bc_aes_bs_expand_masks(out->enc, nr, out->bs);
    return true;
}

namespace {
template <bool kEncrypt>
void run_blocks(const AesKeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks) {
    bc_u32 s[BC_AES_BS_WORDS];
    while (nblocks > 0) {
        unsigned n = nblocks < BC_AES_BS_BLOCKS ? static_cast<unsigned>(nblocks) : BC_AES_BS_BLOCKS;
        bc_aes_bs_pack(s, in, n);
        if (kEncrypt)
            bc_aes_bs_encrypt(s, ks.bs, ks.rounds);
        else
            bc_aes_bs_decrypt(s, ks.bs, ks.rounds);
        bc_aes_bs_unpack(s, out, n);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
    secure_wipe(s, sizeof s);
}
}  // namespace

void aes_encrypt_blocks(const AesKeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks) {
    run_blocks<true>(ks, in, out, nblocks);
}

void aes_decrypt_blocks(const AesKeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks) {
    run_blocks<false>(ks, in, out, nblocks);
}

void aes_wipe(AesKeySchedule* ks) {
    if (ks) secure_wipe(ks, sizeof *ks);
}

}  // namespace bc
