// The stream-cipher family on the CPU: Salsa20/8/12/20, XSalsa20, ChaCha20
// (OpenSSL's layout and the original), XChaCha20, and the body pieces of
// ChaCha20-Poly1305 / XChaCha20-Poly1305, split over the thread pool.
// OpenSSL's libcrypto (EVP "ChaCha20") makes the ChaCha20 keystream unless
// portable is set; the portable cores (cores/chacha, cores/salsa) do the rest.
#pragma once

#include "backends/backend.h"
#include "util/thread_pool.h"

namespace bc {

// Mode::Stream algorithms. op.iv/op.iv_len as the catalogue says; op.offset is
// the keystream byte offset. BC_ERR_COUNTER_OVERFLOW when the request would
// wrap the block counter (32-bit for "chacha20", 64-bit otherwise). Host memory only.
Status cpu_stream_cipher(const KeyMaterial& key, const CipherOp& op, bool portable,
                         ThreadPool& pool);

// One ChaCha20-Poly1305 body piece (backend.h, AeadChunkOp): keystream XOR from
// op.ctr (with op.subkey in place of the key when non-null), and the Poly1305
// partial of the ciphertext into op.partial[0..16] (bytes 17..31 zeroed).
Status cpu_chachapoly_chunk(const KeyMaterial& key, AeadChunkOp& op, bool portable,
                            ThreadPool& pool);

// The Poly1305 partial of op.data with r = op.mac_key[0..15] (the AAD). Host memory only.
Status cpu_poly1305_mac(MacOp& op);

}  // namespace bc
