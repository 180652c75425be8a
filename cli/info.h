// bulkcrypt devices, bulkcrypt list, bulkcrypt bench.
#pragma once

#include <cstdint>
#include <string>

namespace bcli {

int cmd_devices(bool json);
int cmd_list(bool json);

struct BenchOptions {
    std::string algorithm = "aes-256-gcm";
    std::string device = "auto";
    std::string options;
    uint64_t size = uint64_t(64) << 20;
    double seconds = 1.0;      // measure at least this long (after one warm-up call)
    unsigned min_runs = 3;
    bool decrypt = false;
    uint64_t segment_size = 0; // > 0: also the container's segmented path at this size
    unsigned jobs = 0;         // workers for the segmented path
    bool json = false;
    std::string file;          // also encrypt this file through the container
    std::string file_out = "/dev/null";  // ... to here (a path is replaced)
    std::string memory = "host";         // "device": the data in GPU memory (CUDA devices)
};

int cmd_bench(const BenchOptions& opt);

}  // namespace bcli
