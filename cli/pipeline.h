// The segment pipeline: cuts the input into segments, runs a transform on each
// (bc_aead_seal or bc_aead_open) on a pool of worker threads, and writes the
// results, in bounded memory.
//
//   - A ring of `slots` segment buffers is all the memory it holds:
//     slots * (in_stride + out_stride) bytes at most, whatever the file size.
//   - Input that is a regular file is mapped and read in place by the workers
//     (pages released after each segment, so resident memory stays bounded),
//     or read with pread where it cannot be mapped; a pipe is read in order by
//     the dispatching thread, one segment ahead so the last one is known.
//   - Output to a temporary file of known final size is mapped and written in
//     place by the transform (space reserved first, pages released after each
//     segment), else written by the workers with pwrite at the segment's fixed
//     offset; output to stdout is written in order by the dispatching thread,
//     each segment only after its transform succeeded.
//   - The first failure stops the pipeline; segments after it are never
//     written, segments before it (stdout only) were written already.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "io.h"
#include "progress.h"

namespace bcli {

struct Segment {
    uint64_t index = 0;
    bool last = false;
    const uint8_t* in = nullptr;
    size_t in_len = 0;
    uint8_t* out = nullptr;
    size_t out_cap = 0;
    size_t out_len = 0;  // set by the transform
};

// Throws Failure on error. Called from several threads at once.
using SegmentFn = std::function<void(Segment&)>;

struct PipelineSpec {
    size_t in_stride = 0;    // input bytes of every segment but the last
    size_t out_stride = 0;   // output bytes of every segment but the last (and buffer size)
    uint64_t in_base = 0;    // input offset of segment 0 (positioned reads)
    uint64_t out_base = 0;   // output offset of segment 0 (positioned writes)
    uint64_t out_total = 0;  // the output's final size when known (then it may be mapped)
    unsigned workers = 1;
    unsigned slots = 2;      // segments in flight (>= 2)
    bool wipe_in = false;    // the input buffers hold plaintext: wipe them on release
    bool wipe_out = false;   // the output buffers hold plaintext
};

struct PipelineResult {
    uint64_t segments = 0;
    uint64_t in_bytes = 0;
    uint64_t out_bytes = 0;
};

PipelineResult run_pipeline(Input& in, Output& out, const PipelineSpec& spec, const SegmentFn& fn,
                            Progress* progress);

// Worker threads by default: the machine's hardware threads, at least 2, at most 64.
unsigned default_workers();

}  // namespace bcli
