#include "modes/aes_modes.h"

#include <cstring>

#include "dialect/bc_dialect.h"
#include "util/secure.h"

namespace bc {
namespace {

// Work in batches so the bitsliced core sees many blocks at once and scratch
// stays on the stack.
constexpr size_t kBatchBlocks = 64;

inline void xor_bytes(uint8_t* out, const uint8_t* a, const uint8_t* b, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = a[i] ^ b[i];
}

// Multiplies an XTS tweak by alpha: a 128-bit little-endian left shift by one,
// reduced by x^128 + x^7 + x^2 + x + 1 (0x87), without a secret-dependent branch.
inline void xts_mul_alpha(uint8_t t[16]) {
    uint64_t lo = bc_load_le64(t), hi = bc_load_le64(t + 8);
    uint64_t carry = 0 - (hi >> 63);
    hi = (hi << 1) | (lo >> 63);
    lo = (lo << 1) ^ (carry & 0x87);
    bc_store_le64(t, lo);
    bc_store_le64(t + 8, hi);
}

}  // namespace

void add_le128(uint8_t v[16], uint64_t n) {
    uint64_t lo = bc_load_le64(v), hi = bc_load_le64(v + 8);
    uint64_t nlo = lo + n;
    hi += (nlo < lo);
    bc_store_le64(v, nlo);
    bc_store_le64(v + 8, hi);
}

void add_be128(uint8_t v[16], uint64_t n) {
    uint64_t hi = bc_load_be64(v), lo = bc_load_be64(v + 8);
    uint64_t nlo = lo + n;
    hi += (nlo < lo);
    bc_store_be64(v, hi);
    bc_store_be64(v + 8, nlo);
}

void aes_ecb_encrypt(const AesKeySchedule& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
    aes_encrypt_blocks(k, in, out, nblocks);
}

void aes_ecb_decrypt(const AesKeySchedule& k, const uint8_t* in, uint8_t* out, size_t nblocks) {
    aes_decrypt_blocks(k, in, out, nblocks);
}

void aes_cbc_encrypt(const AesKeySchedule& k, uint8_t chain[16], const uint8_t* in, uint8_t* out,
                     size_t nblocks) {
    uint8_t block[16];
    for (size_t i = 0; i < nblocks; ++i) {
        xor_bytes(block, in + 16 * i, chain, 16);
        aes_encrypt_blocks(k, block, chain, 1);
        std::memcpy(out + 16 * i, chain, 16);
    }
    secure_wipe(block, sizeof block);
}

void aes_cbc_decrypt(const AesKeySchedule& k, uint8_t chain[16], const uint8_t* in, uint8_t* out,
                     size_t nblocks) {
    uint8_t plain[kBatchBlocks * 16];
    uint8_t next_chain[16];
    for (size_t done = 0; done < nblocks;) {
        size_t n = nblocks - done < kBatchBlocks ? nblocks - done : kBatchBlocks;
        const uint8_t* c = in + 16 * done;
        aes_decrypt_blocks(k, c, plain, n);
        // Save the last ciphertext block before an in-place write overwrites it.
        std::memcpy(next_chain, c + 16 * (n - 1), 16);
        xor_bytes(plain, plain, chain, 16);
        xor_bytes(plain + 16, plain + 16, c, 16 * (n - 1));
        std::memcpy(out + 16 * done, plain, 16 * n);
        std::memcpy(chain, next_chain, 16);
        done += n;
    }
    secure_wipe(plain, sizeof plain);
}

void aes_ctr128(const AesKeySchedule& k, const uint8_t ctr[16], uint64_t offset,
                const uint8_t* in, uint8_t* out, size_t len) {
    uint8_t counter[16];
    std::memcpy(counter, ctr, 16);
    add_be128(counter, offset / 16);
    size_t skip = offset % 16;
    uint8_t ks[kBatchBlocks * 16];
    size_t pos = 0;
    while (pos < len) {
        size_t want = skip + (len - pos);
        size_t n = (want + 15) / 16;
        if (n > kBatchBlocks) n = kBatchBlocks;
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(ks + 16 * i, counter, 16);
            add_be128(counter, 1);
        }
        aes_encrypt_blocks(k, ks, ks, n);
        size_t take = 16 * n - skip;
        if (take > len - pos) take = len - pos;
        xor_bytes(out + pos, in + pos, ks + skip, take);
        pos += take;
        skip = 0;
    }
    secure_wipe(ks, sizeof ks);
    secure_wipe(counter, sizeof counter);
}

void aes_ctr32(const AesKeySchedule& k, const uint8_t ctr[16], const uint8_t* in, uint8_t* out,
               size_t len) {
    uint8_t ks[kBatchBlocks * 16];
    uint32_t c = bc_load_be32(ctr + 12);
    size_t pos = 0;
    while (pos < len) {
        size_t n = (len - pos + 15) / 16;
        if (n > kBatchBlocks) n = kBatchBlocks;
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(ks + 16 * i, ctr, 12);
            bc_store_be32(ks + 16 * i + 12, c++);
        }
        aes_encrypt_blocks(k, ks, ks, n);
        size_t take = 16 * n < len - pos ? 16 * n : len - pos;
        xor_bytes(out + pos, in + pos, ks, take);
        pos += take;
    }
    secure_wipe(ks, sizeof ks);
}

void aes_xts_unit(const AesKeySchedule& k1, const AesKeySchedule& k2, bool encrypt,
                  const uint8_t tweak[16], const uint8_t* in, uint8_t* out, size_t len) {
    const size_t full = len / 16;
    const size_t tail = len % 16;
    // With stealing, the last full block is handled together with the tail.
    const size_t plain_blocks = tail ? full - 1 : full;
    uint8_t t[16];
    aes_encrypt_blocks(k2, tweak, t, 1);

    uint8_t buf[kBatchBlocks * 16];
    uint8_t tweaks[kBatchBlocks * 16];
    for (size_t done = 0; done < plain_blocks;) {
        size_t n = plain_blocks - done < kBatchBlocks ? plain_blocks - done : kBatchBlocks;
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(tweaks + 16 * i, t, 16);
            xts_mul_alpha(t);
        }
        xor_bytes(buf, in + 16 * done, tweaks, 16 * n);
        if (encrypt) aes_encrypt_blocks(k1, buf, buf, n);
        else aes_decrypt_blocks(k1, buf, buf, n);
        xor_bytes(out + 16 * done, buf, tweaks, 16 * n);
        done += n;
    }
    if (tail) {
        // t is the tweak of block m-1 (the last full one); t_next that of block m.
        uint8_t t_next[16];
        std::memcpy(t_next, t, 16);
        xts_mul_alpha(t_next);
        const uint8_t* last_full = in + 16 * plain_blocks;
        const uint8_t* partial = last_full + 16;
        uint8_t cc[16], pp[16];
        const uint8_t* t_first = encrypt ? t : t_next;   // tweak for the last full block
        const uint8_t* t_second = encrypt ? t_next : t;  // tweak for the stolen block
        xor_bytes(cc, last_full, t_first, 16);
        if (encrypt) aes_encrypt_blocks(k1, cc, cc, 1);
        else aes_decrypt_blocks(k1, cc, cc, 1);
        xor_bytes(cc, cc, t_first, 16);
        // pp = partial input || the stolen end of cc
        std::memcpy(pp, partial, tail);
        std::memcpy(pp + tail, cc + tail, 16 - tail);
        xor_bytes(pp, pp, t_second, 16);
        if (encrypt) aes_encrypt_blocks(k1, pp, pp, 1);
        else aes_decrypt_blocks(k1, pp, pp, 1);
        xor_bytes(pp, pp, t_second, 16);
        // Write the short block first: in place, it overlaps nothing we still read.
        std::memcpy(out + 16 * plain_blocks + 16, cc, tail);
        std::memcpy(out + 16 * plain_blocks, pp, 16);
        secure_wipe(cc, sizeof cc);
        secure_wipe(pp, sizeof pp);
        secure_wipe(t_next, sizeof t_next);
    }
    secure_wipe(t, sizeof t);
    secure_wipe(buf, sizeof buf);
    secure_wipe(tweaks, sizeof tweaks);
}

}  // namespace bc
