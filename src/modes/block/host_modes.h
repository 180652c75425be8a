// The generic block modes on the host, over any block cipher's descriptor
// (catalog/block_cipher.h): block_modes.h instantiated for 16- and 8-byte blocks,
// with the descriptor's portable core as the batch function, 32 blocks a batch.
//
// Each function processes one contiguous piece with an explicit start state, so
// callers may split work anywhere a mode allows; in == out is allowed. These are
// the CPU backend's portable path for every block cipher (AES's included) and
// the reference the device backends are tested against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "catalog/block_cipher.h"

namespace bc {

// A block cipher with one expanded key: what the host modes run.
struct HostBlockKey {
    const BlockCipher* cipher;
    const uint32_t* ks;   // cipher->ks_words words from cipher->expand
};

// An expanded key owned on the host, wiped when destroyed or expanded again.
class HostBlockSchedule {
public:
    HostBlockSchedule() = default;
    HostBlockSchedule(const HostBlockSchedule&) = delete;
    HostBlockSchedule& operator=(const HostBlockSchedule&) = delete;
    HostBlockSchedule(HostBlockSchedule&& o) noexcept : cipher_(o.cipher_), words_(std::move(o.words_)) {
        o.cipher_ = nullptr;
        o.words_.clear();
    }
    HostBlockSchedule& operator=(HostBlockSchedule&& o) noexcept {
        if (this != &o) {
            clear();
            cipher_ = o.cipher_;
            words_ = std::move(o.words_);
            o.cipher_ = nullptr;
            o.words_.clear();
        }
        return *this;
    }
    ~HostBlockSchedule() { clear(); }

    // Expands key (len bytes) for cipher; false, and empty, for a length it refuses.
    bool expand(const BlockCipher* cipher, const uint8_t* key, size_t len);
    void clear();
    bool empty() const { return cipher_ == nullptr; }
    HostBlockKey key() const { return {cipher_, words_.data()}; }

private:
    const BlockCipher* cipher_ = nullptr;
    std::vector<uint32_t> words_;
};

// ECB over nblocks whole blocks.
void block_ecb(const HostBlockKey& k, bool encrypt, const uint8_t* in, uint8_t* out, size_t nblocks);

// CBC. chain (one block): the IV on entry, the last ciphertext block on return.
// Encryption is serial, one block at a time; decryption runs whole batches.
void block_cbc_encrypt(const HostBlockKey& k, uint8_t* chain, const uint8_t* in, uint8_t* out, size_t nblocks);
void block_cbc_decrypt(const HostBlockKey& k, uint8_t* chain, const uint8_t* in, uint8_t* out, size_t nblocks);

// CTR from counter block ctr (one block), starting `offset` bytes into the
// keystream. The counter is the whole block as a big-endian number (the caller
// has checked that it cannot wrap), or with inc32 only its last 32 bits,
// modulo 2^32 (GCM).
void block_ctr(const HostBlockKey& k, const uint8_t* ctr, uint64_t offset, bool inc32, const uint8_t* in,
               uint8_t* out, size_t len);

// XTS (IEEE 1619) of one data unit of len >= 16 bytes, with ciphertext stealing
// for a partial last block: k1 encrypts the data, k2 the tweak. 16-byte blocks
// only: false (nothing written) for an 8-byte cipher or len < 16.
bool block_xts_unit(const HostBlockKey& k1, const HostBlockKey& k2, bool encrypt, const uint8_t tweak[16],
                    const uint8_t* in, uint8_t* out, size_t len);

// XTS's ciphertext stealing alone: the last full block of a unit and the partial
// block after it (16 < len < 32 bytes), t_lo/t_hi the tweak of that full block
// (the unit's encrypted tweak times alpha^index, xts_tweak.h's halves).
void block_xts_steal(const HostBlockKey& k1, bool encrypt, uint64_t t_lo, uint64_t t_hi, const uint8_t* in,
                     uint8_t* out, size_t len);

// Adds n to a width-byte big-endian number (CTR counters) or little-endian one
// (XTS data-unit tweaks), modulo 2^(8*width).
void add_be(uint8_t* v, size_t width, uint64_t n);
void add_le(uint8_t* v, size_t width, uint64_t n);
inline void add_be128(uint8_t v[16], uint64_t n) { add_be(v, 16, n); }
inline void add_le128(uint8_t v[16], uint64_t n) { add_le(v, 16, n); }

}  // namespace bc
