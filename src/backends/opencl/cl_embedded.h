// The kernel sources and the headers they include, embedded at build time by
// cmake/EmbedKernels.cmake (raw string literals in a generated .cpp). Each file
// is named by its path relative to src/, e.g. "dialect/bc_dialect.h" or
// "backends/opencl/kernels/aes.cl".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "util/status.h"

namespace bc {
namespace ocl {

struct EmbeddedFile {
    const char* name;
    const char* text;
    size_t size;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

// The embedded file of that name, nullptr when absent.
const EmbeddedFile* find_embedded(const std::string& name);

// One translation unit for the run-time compiler: the root file with every
// #include "..." replaced by the named file's text (resolved beside the
// including file, then from src/, as the embedding step did), recursively.
// Each inlined file is wrapped in its own guard, so a file included twice is
// expanded once by the preprocessor wherever it is first active, and
// "#pragma once" is dropped. #line directives keep build logs pointing at the
// original files. Fails (BC_ERR_INTERNAL) on an include that was not embedded.
Status assemble_source(const std::string& root, std::string* out);

// The same for a text of the caller's (a generated prelude), named `name` in #line
// directives; its includes resolve from src/.
Status assemble_text(const std::string& name, const std::string& text, std::string* out);

// A block cipher with a device core, as the cipher folders register it: the
// BC_DEVICE_BLOCK_CIPHER(id, ID) line of a device.inc listed in the embedded
// bc_cipher_devices.inc (generated from the folders by the build).
struct EmbeddedBlockCipher {
    std::string id;          // "aes": the core's function prefix, and the catalogue's cipher name
    std::string uid;         // "AES": the prefix of its macros
    std::string device_inc;  // "cores/aes/device.inc"
    bool tables = false;     // its key holds tables read by data (BC_<ID>_KS_SHARED in its headers)
};
std::vector<EmbeddedBlockCipher> embedded_block_ciphers();

}  // namespace ocl
}  // namespace bc
