// The kernel sources and the headers they include, embedded at build time by
// cmake/EmbedKernels.cmake (raw string literals in a generated .cpp). Each file
// is named by its path relative to src/, e.g. "dialect/bc_dialect.h" or
// "backends/opencl/kernels/aes.cl".
#pragma once

#include <cstddef>
#include <string>

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

}  // namespace ocl
}  // namespace bc
