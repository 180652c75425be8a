/*
 * The portable kernel dialect: the one header that asks which compiler it is.
 *
 * Cipher cores and modes are written once against these macros and helpers and
 * compile unchanged as host C/C++, as CUDA (nvcc) and as OpenCL C (the OpenCL
 * backend embeds this file ahead of the kernel sources). Each bit helper has an
 * intrinsic path per compiler and a plain-C path; defining BC_DIALECT_PLAIN
 * forces the plain path everywhere, which is how the tests check one against
 * the other.
 *
 * Macros
 *   BC_FN              a helper callable from kernels and, on CUDA/host, from host code
 *   BC_KERNEL          a kernel entry point (OpenCL/CUDA); nothing on the host
 *   BC_GLOBAL          the global (device memory) address space qualifier
 *   BC_CONSTANT        constant memory (small read-only tables, keys)
 *   BC_LOCAL           work-group / block shared memory
 *   BC_RESTRICT        no-alias hint
 * Types: bc_u8, bc_u32, bc_u64 (exact widths on every compiler).
 */
#ifndef BC_DIALECT_H
#define BC_DIALECT_H

#if defined(__OPENCL_VERSION__)
/* ---------------- OpenCL C ---------------- */
#define BC_TARGET_OPENCL 1
typedef uchar bc_u8;
typedef uint bc_u32;
typedef ulong bc_u64;
#define BC_FN inline
#define BC_KERNEL __kernel
#define BC_GLOBAL __global
#define BC_CONSTANT __constant
#define BC_LOCAL __local
#define BC_RESTRICT restrict

#elif defined(__CUDACC__)
/* ---------------- CUDA ---------------- */
#define BC_TARGET_CUDA 1
#include <stdint.h>
typedef uint8_t bc_u8;
typedef uint32_t bc_u32;
typedef uint64_t bc_u64;
#define BC_FN __host__ __device__ __forceinline__
#define BC_KERNEL __global__
#define BC_GLOBAL
#define BC_CONSTANT
#define BC_LOCAL
#define BC_RESTRICT __restrict__

#else
/* ---------------- host C / C++ ---------------- */
#define BC_TARGET_HOST 1
#include <stdint.h>
typedef uint8_t bc_u8;
typedef uint32_t bc_u32;
typedef uint64_t bc_u64;
#if defined(__GNUC__)
#define BC_FN static inline __attribute__((always_inline))
#else
#define BC_FN static inline
#endif
#define BC_KERNEL
#define BC_GLOBAL
#define BC_CONSTANT
#define BC_LOCAL
#define BC_RESTRICT __restrict
#endif

/* Expanded keys holding tables indexed by data (a core's BC_<ID>_KS_SHARED) are read
 * through BC_KS_AT(ks, i), never ks[i]. A backend may stage such a key as BC_KS_COPIES
 * interleaved copies (word i of copy c at i * BC_KS_COPIES + c) and hand lane l the
 * pointer to copy l: the 32 lanes of a warp then read 32 different shared-memory banks
 * whatever the data (CUDA's generic kernels define 32 before this header). One copy,
 * ks[i] itself, everywhere else. */
#ifndef BC_KS_COPIES
#define BC_KS_COPIES 1
#endif
#define BC_KS_AT(ks, i) ((ks)[BC_KS_COPIES * (i)])

/* True when the intrinsic paths are in use (false under BC_DIALECT_PLAIN). */
#if defined(BC_DIALECT_PLAIN)
#define BC_DIALECT_INTRINSICS 0
#else
#define BC_DIALECT_INTRINSICS 1
#endif

/* ---------------- rotates ---------------- */

/* Plain path: n is taken mod 32 and n == 0 is well defined. */
BC_FN bc_u32 bc_rotl32_plain(bc_u32 x, unsigned n) {
    n &= 31u;
    return (x << n) | (x >> ((32u - n) & 31u));
}
BC_FN bc_u32 bc_rotr32_plain(bc_u32 x, unsigned n) {
    n &= 31u;
    return (x >> n) | (x << ((32u - n) & 31u));
}
BC_FN bc_u64 bc_rotl64_plain(bc_u64 x, unsigned n) {
    n &= 63u;
    return (x << n) | (x >> ((64u - n) & 63u));
}

BC_FN bc_u32 bc_rotl32(bc_u32 x, unsigned n) {
#if BC_DIALECT_INTRINSICS && defined(BC_TARGET_OPENCL)
    return rotate(x, (bc_u32)n);
#elif BC_DIALECT_INTRINSICS && defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
    return __funnelshift_l(x, x, n);
#else
    return bc_rotl32_plain(x, n);
#endif
}
BC_FN bc_u32 bc_rotr32(bc_u32 x, unsigned n) {
#if BC_DIALECT_INTRINSICS && defined(BC_TARGET_OPENCL)
    return rotate(x, (bc_u32)(32u - (n & 31u)));
#elif BC_DIALECT_INTRINSICS && defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
    return __funnelshift_r(x, x, n);
#else
    return bc_rotr32_plain(x, n);
#endif
}
/* Shifts by 0 <= n <= 32, n = 32 giving 0 (as PTX's shl/shr and unlike C), and the high
 * word of the 64-bit (hi:lo) << n: a funnel shift, n = 32 giving lo. */
BC_FN bc_u32 bc_shl32c_plain(bc_u32 x, unsigned n) { return n >= 32u ? 0u : x << n; }
BC_FN bc_u32 bc_shr32c_plain(bc_u32 x, unsigned n) { return n >= 32u ? 0u : x >> n; }
BC_FN bc_u32 bc_funnel_l32c_plain(bc_u32 lo, bc_u32 hi, unsigned n) {
    return bc_shl32c_plain(hi, n) | bc_shr32c_plain(lo, 32u - n);
}
BC_FN bc_u32 bc_funnel_l32c(bc_u32 lo, bc_u32 hi, unsigned n) {
#if BC_DIALECT_INTRINSICS && defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
    return __funnelshift_lc(lo, hi, n);
#else
    return bc_funnel_l32c_plain(lo, hi, n);
#endif
}

BC_FN bc_u64 bc_rotl64(bc_u64 x, unsigned n) {
#if BC_DIALECT_INTRINSICS && defined(BC_TARGET_OPENCL)
    return rotate(x, (bc_u64)n);
#else
    return bc_rotl64_plain(x, n);
#endif
}

/* ---------------- byte swaps and permutes ---------------- */

BC_FN bc_u32 bc_bswap32_plain(bc_u32 x) {
    return (x >> 24) | ((x >> 8) & 0x0000ff00u) | ((x << 8) & 0x00ff0000u) | (x << 24);
}
BC_FN bc_u32 bc_bswap32(bc_u32 x) {
#if BC_DIALECT_INTRINSICS && defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
    return __byte_perm(x, 0, 0x0123);
#elif BC_DIALECT_INTRINSICS && defined(BC_TARGET_HOST) && defined(__GNUC__)
    return __builtin_bswap32(x);
#else
    return bc_bswap32_plain(x);
#endif
}
BC_FN bc_u64 bc_bswap64(bc_u64 x) {
    return ((bc_u64)bc_bswap32((bc_u32)x) << 32) | (bc_u64)bc_bswap32((bc_u32)(x >> 32));
}

/* CUDA's __byte_perm semantics: the 8 bytes of (hi:lo) are numbered 0..7 from
 * lo's least significant byte; selector nibble i (low nibble first) picks the
 * result's byte i (only the low 3 bits of each nibble are used here). */
BC_FN bc_u32 bc_byte_perm_plain(bc_u32 lo, bc_u32 hi, bc_u32 sel) {
    bc_u64 both = ((bc_u64)hi << 32) | lo;
    bc_u32 r = 0;
    for (unsigned i = 0; i < 4; ++i) {
        unsigned b = (sel >> (4 * i)) & 7u;
        r |= (bc_u32)((both >> (8 * b)) & 0xffu) << (8 * i);
    }
    return r;
}
BC_FN bc_u32 bc_byte_perm(bc_u32 lo, bc_u32 hi, bc_u32 sel) {
#if BC_DIALECT_INTRINSICS && defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)
    return __byte_perm(lo, hi, sel);
#else
    return bc_byte_perm_plain(lo, hi, sel);
#endif
}

/* ---------------- loads and stores (any alignment) ---------------- */
/* Byte-wise so they are alignment- and endian-independent; compilers fuse them
 * into single loads where the target allows. The pointer's address space is
 * given by the caller through the _g (global) variants on OpenCL. */

#define BC_DEFINE_LOADSTORE(SUFFIX, SPACE)                                             \
    BC_FN bc_u32 bc_load_le32##SUFFIX(const SPACE bc_u8 *p) {                          \
        return (bc_u32)p[0] | ((bc_u32)p[1] << 8) | ((bc_u32)p[2] << 16) |            \
               ((bc_u32)p[3] << 24);                                                   \
    }                                                                                  \
    BC_FN bc_u32 bc_load_be32##SUFFIX(const SPACE bc_u8 *p) {                          \
        return (bc_u32)p[3] | ((bc_u32)p[2] << 8) | ((bc_u32)p[1] << 16) |            \
               ((bc_u32)p[0] << 24);                                                   \
    }                                                                                  \
    BC_FN bc_u64 bc_load_le64##SUFFIX(const SPACE bc_u8 *p) {                          \
        return (bc_u64)bc_load_le32##SUFFIX(p) |                                       \
               ((bc_u64)bc_load_le32##SUFFIX(p + 4) << 32);                            \
    }                                                                                  \
    BC_FN bc_u64 bc_load_be64##SUFFIX(const SPACE bc_u8 *p) {                          \
        return ((bc_u64)bc_load_be32##SUFFIX(p) << 32) |                               \
               (bc_u64)bc_load_be32##SUFFIX(p + 4);                                    \
    }                                                                                  \
    BC_FN void bc_store_le32##SUFFIX(SPACE bc_u8 *p, bc_u32 v) {                       \
        p[0] = (bc_u8)v;                                                               \
        p[1] = (bc_u8)(v >> 8);                                                        \
        p[2] = (bc_u8)(v >> 16);                                                       \
        p[3] = (bc_u8)(v >> 24);                                                       \
    }                                                                                  \
    BC_FN void bc_store_be32##SUFFIX(SPACE bc_u8 *p, bc_u32 v) {                       \
        p[0] = (bc_u8)(v >> 24);                                                       \
        p[1] = (bc_u8)(v >> 16);                                                       \
        p[2] = (bc_u8)(v >> 8);                                                        \
        p[3] = (bc_u8)v;                                                               \
    }                                                                                  \
    BC_FN void bc_store_le64##SUFFIX(SPACE bc_u8 *p, bc_u64 v) {                       \
        bc_store_le32##SUFFIX(p, (bc_u32)v);                                           \
        bc_store_le32##SUFFIX(p + 4, (bc_u32)(v >> 32));                               \
    }                                                                                  \
    BC_FN void bc_store_be64##SUFFIX(SPACE bc_u8 *p, bc_u64 v) {                       \
        bc_store_be32##SUFFIX(p, (bc_u32)(v >> 32));                                   \
        bc_store_be32##SUFFIX(p + 4, (bc_u32)v);                                       \
    }

/* Private/generic memory (registers, stack arrays, host pointers). */
BC_DEFINE_LOADSTORE(, )
#if defined(BC_TARGET_OPENCL)
/* Global memory needs its own spelling on OpenCL 1.2 (no generic address space). */
BC_DEFINE_LOADSTORE(_g, __global)
#else
#define bc_load_le32_g bc_load_le32
#define bc_load_be32_g bc_load_be32
#define bc_load_le64_g bc_load_le64
#define bc_load_be64_g bc_load_be64
#define bc_store_le32_g bc_store_le32
#define bc_store_be32_g bc_store_be32
#define bc_store_le64_g bc_store_le64
#define bc_store_be64_g bc_store_be64
#endif

/* ---------------- endianness of the compiling target ---------------- */
/* Cores never depend on it (they use the explicit loads above); it is here for
 * the vectorised fast paths that reinterpret memory as words. */
#if defined(BC_TARGET_OPENCL)
#if defined(__ENDIAN_LITTLE__)
#define BC_LITTLE_ENDIAN 1
#else
#define BC_LITTLE_ENDIAN 0
#endif
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BC_LITTLE_ENDIAN 1
#elif defined(BC_TARGET_CUDA)
#define BC_LITTLE_ENDIAN 1 /* every CUDA target is little-endian */
#else
#define BC_LITTLE_ENDIAN 0
#endif

/* ---------------- constant-time helpers ---------------- */

/* All ones when x != 0, else zero, without a branch. */
BC_FN bc_u32 bc_ct_mask_nonzero32(bc_u32 x) {
    return (bc_u32)0 - ((x | ((bc_u32)0 - x)) >> 31);
}
/* a when mask is all ones, b when it is zero. */
BC_FN bc_u32 bc_ct_select32(bc_u32 mask, bc_u32 a, bc_u32 b) {
    return b ^ (mask & (a ^ b));
}

#endif /* BC_DIALECT_H */
