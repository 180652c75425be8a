// Key material for the command: key files, passphrases, the passphrase KDFs
// (scrypt through OpenSSL, Argon2id through libargon2) and HKDF-SHA256.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common.h"

namespace bcli {

enum class KdfId : uint8_t { KeyFile = 0, Scrypt = 1, Argon2id = 2 };

constexpr size_t kKdfSaltSize = 16;
constexpr size_t kMasterKeySize = 32;

struct KdfParams {
    KdfId id = KdfId::KeyFile;
    // scrypt
    uint8_t log_n = 17;
    uint32_t r = 8;
    uint32_t p = 1;
    // Argon2id (version 0x13)
    uint32_t t_cost = 3;
    uint32_t m_kib = 65536;
    uint32_t lanes = 4;
    uint8_t salt[kKdfSaltSize] = {};
};

const char* kdf_name(KdfId id);
bool argon2_available();

// Defaults for a new file, with "key=value,..." overrides (scrypt: logN, r, p;
// argon2id: t, m (KiB), p) and a fresh random salt. Usage failure on bad text.
KdfParams new_kdf_params(KdfId id, const std::string& overrides);

// The header's KDF block (docs/format.md) and its parser. The parser fails
// with the authentication exit code on malformed or out-of-bounds values:
// the header is untrusted until its segments authenticate.
std::vector<uint8_t> encode_kdf_params(const KdfParams& k);
KdfParams decode_kdf_params(KdfId id, const uint8_t* p, size_t n);

// The 32-byte master key from a passphrase.
SecureBytes derive_from_passphrase(const KdfParams& k, const SecureBytes& passphrase);

// A key file holds exactly `size` raw bytes, or 2*size hex digits (optionally
// followed by a newline).
SecureBytes read_key_file(const std::string& path, size_t size);
// The first line of the file, without its line ending.
SecureBytes read_passphrase_file(const std::string& path);
// Asks on the terminal (/dev/tty) with echo off; twice when confirm.
SecureBytes prompt_passphrase(bool confirm);

SecureBytes hkdf_sha256(const uint8_t* ikm, size_t ikm_len, const uint8_t* salt, size_t salt_len,
                        const std::string& info, size_t out_len);

void random_bytes(uint8_t* p, size_t n);

// bulkcrypt keygen: 32 random bytes to a new file with mode 0600.
void write_key_file(const std::string& path, size_t size, bool hex);

}  // namespace bcli
