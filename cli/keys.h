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

// What deriving the key costs: the memory it allocates (scrypt 128·r·N, Argon2id m KiB)
// and its passes over that memory (scrypt 2·p, Argon2id t).
uint64_t kdf_memory(const KdfParams& k);
uint32_t kdf_passes(const KdfParams& k);
// "scrypt logN=17 r=8 p=1" / "argon2id t=3 m=65536 KiB p=4"; "key file" for none.
std::string kdf_description(const KdfParams& k);

// The reader's bounds on that cost (below the format's own bounds): a file may ask for
// up to 4 GiB and many passes, which costs tens of seconds before any check can fail.
struct KdfLimits {
    uint64_t max_memory = uint64_t(1) << 30;  // --max-kdf-memory
    uint32_t max_passes = 16;                 // --max-kdf-passes
};
// Fails (usage code) naming the option that raises the bound.
void check_kdf_limits(const KdfParams& k, const KdfLimits& limits);
// A writer's floor: scrypt under logN 15 or Argon2id under 19 MiB (RFC 9106's lowest
// recommended memory is 19 MiB at t=2) needs --weak-kdf. Empty when strong enough.
std::string kdf_weakness(const KdfParams& k);

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
