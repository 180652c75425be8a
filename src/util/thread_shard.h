// The calling thread's shard among 2^bits: Fibonacci hashing of its pthread handle (a few
// cycles; std::hash of a std::thread::id runs a byte hash on every call). Spreads threads
// over per-shard state so that threads rarely share a lock or a cache line.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace bc {

// The calling thread's handle as a number: never 0 for a live thread (glibc: the address
// of its thread descriptor), unique among the threads alive at one time.
inline uint64_t thread_handle() { return static_cast<uint64_t>(pthread_self()); }

inline size_t shard_of(uint64_t handle, unsigned bits) {
    return static_cast<size_t>((handle * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

inline size_t thread_shard(unsigned bits) { return shard_of(thread_handle(), bits); }

}  // namespace bc
