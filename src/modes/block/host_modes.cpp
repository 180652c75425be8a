#include "modes/block/host_modes.h"

#include <cstring>

#include "dialect/bc_dialect.h"
#include "modes/block/xts_tweak.h"
#include "util/secure.h"

namespace bc {
namespace {

// Blocks per call of the descriptor's core on the host.
constexpr int kHostBatch = 32;

// The batch function of the host instantiations: the descriptor's core over the
// batch's words (little-endian words are the block bytes in place on a
// little-endian host; elsewhere they are converted around the call).
inline void host_batch(const HostBlockKey& k, bc_u32* w, size_t words, bool encrypt) {
    uint8_t* b = reinterpret_cast<uint8_t*>(w);
    if (!BC_LITTLE_ENDIAN)
        for (size_t i = 0; i < words; ++i) bc_store_le32(b + 4 * i, w[i]);
    (encrypt ? k.cipher->encrypt : k.cipher->decrypt)(k.ks, b, b, kHostBatch);
    if (!BC_LITTLE_ENDIAN)
        for (size_t i = 0; i < words; ++i) w[i] = bc_load_le32(b + 4 * i);
}

}  // namespace

// The dialect's items, once for each block size.
#define BC_BM_BATCH kHostBatch
#define BC_BM_KS const HostBlockKey&
#define BC_BM_IN const uint8_t*
#define BC_BM_OUT uint8_t*
#define BC_BM_WIPE(p, n) secure_wipe(p, n)
#define BC_BM_ENCRYPT(ks, w) host_batch(ks, w, BC_BM_WORDS, true)  /* BC_BM_WORDS: the header's batch words */
#define BC_BM_DECRYPT(ks, w) host_batch(ks, w, BC_BM_WORDS, false)

namespace hm16 {
#define BC_BM_NAME(x) x
#define BC_BM_BLOCK 16
#include "modes/block/block_modes.h"
#undef BC_BM_NAME
#undef BC_BM_BLOCK
}  // namespace hm16

namespace hm8 {
#define BC_BM_NAME(x) x
#define BC_BM_BLOCK 8
#include "modes/block/block_modes.h"
#undef BC_BM_NAME
#undef BC_BM_BLOCK
}  // namespace hm8

namespace {

inline void xor_bytes(uint8_t* out, const uint8_t* a, const uint8_t* b, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(a[i] ^ b[i]);
}

inline void one_block(const HostBlockKey& k, bool encrypt, const uint8_t* in, uint8_t* out) {
    (encrypt ? k.cipher->encrypt : k.cipher->decrypt)(k.ks, in, out, 1);
}

inline void load_chain(const uint8_t* chain, unsigned bw, bc_u32* w) {
    for (unsigned i = 0; i < bw; ++i) w[i] = bc_load_le32(chain + 4 * i);
}

}  // namespace

bool HostBlockSchedule::expand(const BlockCipher* cipher, const uint8_t* key, size_t len) {
    clear();
    if (cipher == nullptr) return false;
    words_.assign(cipher->ks_words, 0);
    if (!cipher->expand(key, len, words_.data())) {
        clear();
        return false;
    }
    cipher_ = cipher;
    return true;
}

void HostBlockSchedule::clear() {
    if (!words_.empty()) secure_wipe(words_.data(), words_.size() * sizeof(uint32_t));
    words_.clear();
    cipher_ = nullptr;
}

void add_be(uint8_t* v, size_t width, uint64_t n) {
    unsigned carry = 0;
    for (size_t i = width; i-- > 0;) {
        const unsigned s = v[i] + static_cast<unsigned>(n & 0xff) + carry;
        v[i] = static_cast<uint8_t>(s);
        carry = s >> 8;
        n >>= 8;
    }
}

void add_le(uint8_t* v, size_t width, uint64_t n) {
    unsigned carry = 0;
    for (size_t i = 0; i < width; ++i) {
        const unsigned s = v[i] + static_cast<unsigned>(n & 0xff) + carry;
        v[i] = static_cast<uint8_t>(s);
        carry = s >> 8;
        n >>= 8;
    }
}

void block_ecb(const HostBlockKey& k, bool encrypt, const uint8_t* in, uint8_t* out, size_t nblocks) {
    for (size_t first = 0; first < nblocks; first += kHostBatch) {
        if (k.cipher->block_bytes == 16) hm16::ecb_item(k, in, out, nblocks, first, 1, encrypt, 0);
        else hm8::ecb_item(k, in, out, nblocks, first, 1, encrypt, 0);
    }
}

void block_cbc_encrypt(const HostBlockKey& k, uint8_t* chain, const uint8_t* in, uint8_t* out, size_t nblocks) {
    const size_t bb = k.cipher->block_bytes;
    uint8_t block[16];
    for (size_t i = 0; i < nblocks; ++i) {
        xor_bytes(block, in + bb * i, chain, bb);
        one_block(k, true, block, chain);
        std::memcpy(out + bb * i, chain, bb);
    }
    secure_wipe(block, sizeof block);
}

void block_cbc_decrypt(const HostBlockKey& k, uint8_t* chain, const uint8_t* in, uint8_t* out, size_t nblocks) {
    const size_t bb = k.cipher->block_bytes;
    bc_u32 c[4];
    for (size_t first = 0; first < nblocks; first += kHostBatch) {
        const size_t last = (nblocks - first < size_t(kHostBatch) ? nblocks : first + kHostBatch) - 1;
        load_chain(chain, unsigned(bb / 4), c);
        // The item's last ciphertext block chains the next item: saved before an
        // in-place item overwrites it.
        std::memcpy(chain, in + bb * last, bb);
        if (bb == 16) hm16::cbc_dec_item(k, c, in, out, nblocks, first, 0);
        else hm8::cbc_dec_item(k, c, in, out, nblocks, first, 0);
    }
}

void block_ctr(const HostBlockKey& k, const uint8_t* ctr, uint64_t offset, bool inc32, const uint8_t* in,
               uint8_t* out, size_t len) {
    const size_t bb = k.cipher->block_bytes;
    if (len == 0) return;
    // The counter of the keystream block that holds byte `offset`.
    uint8_t c0[16];
    std::memcpy(c0, ctr, bb);
    if (inc32) add_be(c0 + bb - 4, 4, offset / bb);
    else add_be(c0, bb, offset / bb);
    bc_u32 c[4];
    for (size_t i = 0; i < bb / 4; ++i) c[i] = bc_load_be32(c0 + 4 * i);
    const unsigned shift = static_cast<unsigned>(offset % bb);
    const uint64_t nks = (uint64_t(len) + shift + bb - 1) / bb;
    for (uint64_t first = 0; first < nks; first += kHostBatch) {
        if (bb == 16) hm16::ctr_item(k, c, inc32, shift, in, out, len, first, 1, 0);
        else hm8::ctr_item(k, c, inc32, shift, in, out, len, first, 1, 0);
    }
    secure_wipe(c0, sizeof c0);
    secure_wipe(c, sizeof c);
}

void block_xts_steal(const HostBlockKey& k1, bool encrypt, uint64_t t_lo, uint64_t t_hi, const uint8_t* in,
                     uint8_t* out, size_t len) {
    const size_t r = len - 16;
    uint8_t tm1[16], tm[16];  // the tweaks of the full block (m-1) and of the partial one (m)
    bc_store_le64(tm1, t_lo);
    bc_store_le64(tm1 + 8, t_hi);
    bc_xts_mul_x(&t_lo, &t_hi);
    bc_store_le64(tm, t_lo);
    bc_store_le64(tm + 8, t_hi);
    // Encryption runs the full block under T(m-1) first and the stolen block under
    // T(m); decryption undoes them in the other order.
    const uint8_t* t_first = encrypt ? tm1 : tm;
    const uint8_t* t_second = encrypt ? tm : tm1;
    uint8_t cc[16], pp[16];
    xor_bytes(cc, in, t_first, 16);
    one_block(k1, encrypt, cc, cc);
    xor_bytes(cc, cc, t_first, 16);
    // pp = the partial input || the stolen end of cc
    std::memcpy(pp, in + 16, r);
    std::memcpy(pp + r, cc + r, 16 - r);
    xor_bytes(pp, pp, t_second, 16);
    one_block(k1, encrypt, pp, pp);
    xor_bytes(pp, pp, t_second, 16);
    // The short block first: in place it overlaps nothing still to be read.
    std::memcpy(out + 16, cc, r);
    std::memcpy(out, pp, 16);
    secure_wipe(cc, sizeof cc);
    secure_wipe(pp, sizeof pp);
    secure_wipe(tm1, sizeof tm1);
    secure_wipe(tm, sizeof tm);
}

bool block_xts_unit(const HostBlockKey& k1, const HostBlockKey& k2, bool encrypt, const uint8_t tweak[16],
                    const uint8_t* in, uint8_t* out, size_t len) {
    if (k1.cipher->block_bytes != 16 || k2.cipher->block_bytes != 16 || len < 16) return false;
    const size_t tail = len % 16;
    // With stealing, the last full block goes with the partial one.
    const size_t whole = len / 16 - (tail ? 1 : 0);
    uint8_t t[16];
    one_block(k2, true, tweak, t);
    uint64_t lo = bc_load_le64(t), hi = bc_load_le64(t + 8);
    for (size_t first = 0; first < whole; first += kHostBatch) {
        hm16::xts_item(k1, lo, hi, in, out, whole, first, 1, encrypt, 0);
        const size_t n = whole - first < size_t(kHostBatch) ? whole - first : size_t(kHostBatch);
        bc_xts_mul_xs(&lo, &hi, static_cast<unsigned>(n));  // the tweak of block first + n
    }
    if (tail) block_xts_steal(k1, encrypt, lo, hi, in + 16 * whole, out + 16 * whole, 16 + tail);
    secure_wipe(t, sizeof t);
    secure_wipe_object(lo);
    secure_wipe_object(hi);
    return true;
}

}  // namespace bc
