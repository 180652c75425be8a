// The calling thread's shard among 2^bits: Fibonacci hashing of its pthread handle (a few
// cycles; std::hash of a std::thread::id runs a byte hash on every call). Spreads threads
// over per-shard state so that threads rarely share a lock or a cache line.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace bc {

inline size_t thread_shard(unsigned bits) {
    const uint64_t id = static_cast<uint64_t>(pthread_self());
    return static_cast<size_t>((id * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

}  // namespace bc
