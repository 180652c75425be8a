// The bulkcrypt file format (docs/format.md): an authenticated header, then
// segments sealed with an AEAD under a STREAM-style nonce.
#pragma once

#include <cstdint>
#include <string>

#include "keys.h"

namespace bcli {

struct ContainerOptions {
    std::string algorithm = "aes-256-gcm";
    std::string device = "auto";
    std::string options;             // bc_context_create options
    std::string key_file;            // -k
    std::string passphrase_file;     // --passphrase-file
    KdfId kdf = KdfId::Scrypt;       // for passphrases when encrypting
    std::string kdf_params;          // overrides, "logN=17,r=8,p=1" / "t=3,m=65536,p=4"
    uint64_t segment_size = uint64_t(4) << 20;
    unsigned jobs = 0;               // worker threads, 0 = default
    uint64_t max_memory = uint64_t(1) << 30;  // segment buffers in flight
    bool force = false;
    bool sync = false;
    bool json = false;
    bool progress = true;            // when stderr is a terminal
    KdfLimits kdf_limits;            // reading: the passphrase KDF cost a file may ask for
    bool weak_kdf = false;           // writing: accept KDF settings under the floor (kdf_weakness)
    // A master key given directly (bench): used instead of -k / passphrases.
    const uint8_t* master_key = nullptr;
};

struct ContainerSummary {
    uint64_t segments = 0;
    uint64_t plaintext_bytes = 0;
    uint64_t container_bytes = 0;
    double seconds = 0;              // the pipeline, header to commit
    unsigned workers = 0;
    unsigned slots = 0;
};

// Limits of the format (docs/format.md).
constexpr uint64_t kMinSegmentSize = 16;
constexpr uint64_t kMaxSegmentSize = uint64_t(64) << 20;

ContainerSummary encrypt_container(const ContainerOptions& opt, const std::string& in_path,
                                   const std::string& out_path);
ContainerSummary decrypt_container(const ContainerOptions& opt, const std::string& in_path,
                                   const std::string& out_path);
// bulkcrypt verify: decrypts every segment and checks the end of the stream, keeping
// nothing (exit 0, or the authentication code at the first segment that fails).
ContainerSummary verify_container(const ContainerOptions& opt, const std::string& in_path);
// bulkcrypt inspect: the header, read without a key (printed as text or JSON).
void inspect_container(const std::string& in_path, bool json);

// The container's algorithms, for `bulkcrypt list`: its id or 0.
uint8_t container_algorithm_id(const std::string& name);

}  // namespace bcli
