// Raw modes: one algorithm applied to the whole input with a caller-given key
// and IV, bit-exact with OpenSSL's conventions (docs/cli.md). No container.
#pragma once

#include <cstdint>
#include <string>

namespace bcli {

struct RawOptions {
    std::string algorithm;
    std::string device = "auto";
    std::string options;
    std::string key_hex;
    std::string key_file;
    std::string iv_hex;
    std::string aad_hex;
    std::string pad;              // "" or "pkcs7"
    uint64_t sector_size = 0;     // XTS data unit; 0 = the whole input is one unit
    uint64_t tag_size = 0;        // AEAD; 0 = the algorithm's default
    uint64_t chunk = uint64_t(16) << 20;  // bytes per C API call for the streamable modes
    bool force = false;
    bool json = false;
};

void run_raw(const RawOptions& opt, bool decrypt, const std::string& in_path,
             const std::string& out_path);

}  // namespace bcli
