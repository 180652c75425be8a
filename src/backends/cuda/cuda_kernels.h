// Host-callable launchers of the CUDA AES and GHASH kernels (aes_ecb.cu, aes_ctr.cu,
// aes_cbc.cu, aes_xts.cu, ghash_kernels.cu). Plain C++: included by the backend's .cpp
// files and the benchmark. Every launcher only enqueues work on `stream` and returns the
// launch status; the caller synchronises and turns errors into bc::Status.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tuning/tuning.h"

namespace bc {
namespace cuda {

// Device-resident expanded key (pointers into one device allocation).
struct DevAesKey {
    const uint32_t* bs = nullptr;      // bitsliced masks, (rounds+1)*128 words
    const uint32_t* le_enc = nullptr;  // table variant: enc schedule, little-endian column words
    const uint32_t* le_dec = nullptr;  // table variant: equivalent inverse cipher keys
    int rounds = 0;
    int bs_variant = -1;               // set by the launchers (aes_bs_variant()); callers leave it
};

// Device copies of the table variant's tables, one copy each (te[256], td[256], isb[64]).
struct DevAesTables {
    const uint32_t* te = nullptr;
    const uint32_t* td = nullptr;
    const uint32_t* isb = nullptr;
};

enum class AesImpl { Bitsliced, Table };

// Variants of the bitsliced encryption core (bench/notes/aes-gpu.md),
// chosen at run time so that one benchmark run measures them all; every variant
// gives the same ciphertext. Decryption has three cores: cl's, the straight inverse cipher
// (plain), and for every other variant the equivalent inverse cipher's masks with
// InvMixColumns and the key as one generated network (bc_aes_bs_decrypt_fk; H100,
// 2026-11-25: ECB decryption 345 -> 403 GB/s, bench/notes/aes-gpu.md).
//   0 "plain": AddRoundKey after MixColumns, masks as bc_aes_bs_expand_masks makes them;
//   1 "fk": round keys folded into the S-box outputs (bc_aes_bs_encrypt_fk), 3-input
//     MixColumns in place in a rotating layout (no ShiftRows, no register moves);
//     and CTR / CBC decryption (either impl) load 8 blocks before storing any
//     (variant 0: one load-XOR-store at a time, a memory latency per block);
//   2 "fk-cs": fk, and CTR builds its counters straight in bitsliced form
//     (bc_aes_bs_ctr_slice: no counter adds, byte swaps or input transposition);
//   3 "cl": compact loop, plain masks (bc_aes_bs_encrypt_cl, and for decryption
//     bc_aes_bs_decrypt_cl): a round is a loop of 4 column trips, ~12 KB of code
//     instead of 32-46 KB, to fit the instruction cache; CTR's counters and the
//     grouped loads as in fk-cs.
//   4 "cle": cl's compact loop for encryption, the unrolled core for decryption
//     (measured on the H100, 2026-11-22: compact encryption +19% for CTR, compact
//     decryption -8% for CBC decryption; bench/notes/aes-gpu.md).
//   5 "pair": cle, except aligned CTR, CTR32 (GCM) and ECB encryption, which run on lane
//     pairs: two lanes share a batch, each with half its bytes (64 registers of state,
//     4 warps per scheduler instead of 2; k_ctr_pair). H100, 2026-11-23: AES-128-CTR
//     410 GB/s against cle's 301 (bench/notes/aes-gpu.md).
//   6 "pair-cc": pair, and CTR / CTR32 jobs of at least 4 tiles per warp of one
//     wave cache the counters' constant bytes: rounds 1-2 of a batch start from constants
//     computed once per 2^16 counters (bc_aes_bs_pair_cc_*: 10 S-boxes instead of 32).
//     H100, 2026-11-23: AES-128-CTR 444-447 GB/s, GCM-256 211-213.
//   7 "pair-dec" (default): pair-cc, and aligned ECB, CBC and XTS decryption on lane pairs
//     too, with the equivalent inverse cipher's masks (bc_aes_bs_pair_inv_*; k_ecb_pair,
//     k_cbc_dec_pair, k_xts_pair). H100, 2026-11-25: CBC decryption 412 GB/s against
//     pair-cc's 382, ECB decryption 420 against 401, XTS decryption 400 against 369.
// The launchers take the variant from LaunchShape::aes_variant (the device's tuning entry,
// src/tuning/defaults.cpp, or the context option cuda.aes_variant=NAME), unless the test and
// benchmark hook set_aes_bs_variant(v) chose one (v < 0: the tuning's again). The names are
// tuning::aes_variant_name's.
constexpr int kAesBsVariants = 8;
constexpr int kAesBsPairVariant = 5;  // this and every later variant run on lane pairs
constexpr int kAesBsPairCcVariant = 6;  // this and every later variant cache CTR's constants
constexpr int kAesBsPairDecVariant = 7;  // this and every later variant decrypt on lane pairs
constexpr int kAesBsDefaultVariant = 7;  // the fallback tuning entries' (pair-dec)
// Test hook: pair-cc caches counters at every job size (not only the large ones), so the
// unit tests reach its path, tile edges and 2^16 crossings with small buffers.
void set_pair_cc_always(bool on);
// Test hook: CBC decryption reads the chaining values again from global memory (the path of
// devices whose blocks cannot have kCbcSavedBytes more shared memory) instead of keeping the
// tile's ciphertext in shared memory.
void set_cbc_reload_chain(bool on);
void set_aes_bs_variant(int v);
// The hook's variant, else kAesBsDefaultVariant (what a default LaunchShape runs).
int aes_bs_variant();
const char* aes_bs_variant_name(int v);

// Registers per thread and local-memory bytes (stack frame: spills) of the
// aligned fast-path kernel for `what`: "ecb", "ecb-dec", "ctr", "ctr32",
// "cbc-dec", "xts", "xts-dec" (any data unit), "xts-tiles", "xts-dec-tiles" (units of 32 k
// blocks), and "ecb-pair", "ctr-pair", "ctr32-pair", "xts-pair" (variant "pair"; impl ignored),
// "ecb-dec-pair", "cbc-dec-pair", "xts-dec-pair" (variant "pair-dec").
// cudaErrorInvalidValue for an unknown name.
cudaError_t aes_kernel_resources(const char* what, AesImpl impl, int* regs, int* local_bytes);

// How the launchers size grids and which variants they run. A backend builds it from its
// device's tuning entry (launch_shape); the member defaults are the fallback entries' numbers,
// for benchmarks and tests that launch kernels directly.
struct LaunchShape {
    int sms = 132;               // multiprocessors of the device (grid sizing)
    // Grid cap of the one-lane AES kernels and the generic kernels. The generic kernels of
    // ciphers with tables run one wave at most whatever the cap (block_kernels_impl.cuh).
    int blocks_per_sm = 8;
    int pair_blocks_per_sm = 16;  // grid cap of the AES lane-pair kernels
    int pair_cc_waves = 1;       // pair-cc: waves of resident blocks (1..8)
    int aes_variant = kAesBsDefaultVariant;  // bitsliced variant (set_aes_bs_variant overrides)
    int ghash_variant = 1;       // GHASH table layout (set_ghash_variant overrides)
    // Generic XTS over units of up to 1,024 blocks: 0 = interleaved items with their tweaks
    // in shared memory, 1 = tiles of consecutive blocks staged in shared memory, 2 =
    // interleaved items whose blocks pass through shared memory (the tuning entry of
    // (device, cipher, "xts"), per cipher)
    int xts_layout = 0;
};
// The launch shape of a device with sms multiprocessors under tuning entry aes (an "aes" entry
// of src/tuning; its kernel, pair and ghash fields).
LaunchShape launch_shape(const tuning::Tuning& aes, int sms);

// ECB over nblocks whole blocks.
cudaError_t launch_ecb(AesImpl impl, bool encrypt, const DevAesKey& k, const DevAesTables& t,
                       const uint8_t* in, uint8_t* out, uint64_t nblocks, const LaunchShape& sh,
                       cudaStream_t s);

// CTR: keystream block i (i >= 0) is E(ctr0 + first + i) (128-bit big-endian
// add, or with inc32 only the low 32 bits modulo 2^32, GCM). Keystream block i
// covers data bytes [16*i - shift, 16*i - shift + 16) clipped to [0, len).
cudaError_t launch_ctr(AesImpl impl, const DevAesKey& k, const DevAesTables& t,
                       const uint8_t ctr0[16], uint64_t first, unsigned shift, bool inc32,
                       const uint8_t* in, uint8_t* out, uint64_t len, const LaunchShape& sh,
                       cudaStream_t s);

// CBC decryption of nblocks whole blocks chained from iv. scratch: device memory
// of cbc_dec_scratch_bytes(nblocks) bytes (chaining values saved before an
// in-place run overwrites them).
size_t cbc_dec_scratch_bytes(uint64_t nblocks);
cudaError_t launch_cbc_decrypt(AesImpl impl, const DevAesKey& k, const DevAesTables& t,
                               const uint8_t iv[16], const uint8_t* in, uint8_t* out,
                               uint64_t nblocks, void* scratch, const LaunchShape& sh,
                               cudaStream_t s);

// XTS over whole blocks of many data units. Unit u (0 <= u < nunits) starts at
// byte u*unit_bytes (unit_bytes a multiple of 16) and has its own block count:
// full_blocks for every unit but the last, last_blocks for the last. tweaks: device
// memory of xts_scratch_bytes(nunits, nblocks) bytes, nblocks the blocks of all units
// ((nunits - 1) * full_blocks + last_blocks); it receives E_k2(tweak0 + u) (little-endian
// add) and, on lane pairs, the tweaks where tiles start. Blocks beyond those counts
// (ciphertext stealing) are left to the caller. Aligned data with units of a multiple of 32
// blocks runs on the ECB kernels' coalesced tiles; lane pairs (encryption from variant "pair"
// on, decryption from "pair-dec" on) need units of a multiple of 16 blocks.
size_t xts_scratch_bytes(uint64_t nunits, uint64_t nblocks);
cudaError_t launch_xts(AesImpl impl, bool encrypt, const DevAesKey& k1, const DevAesKey& k2,
                       const DevAesTables& t, const uint8_t tweak0[16], const uint8_t* in,
                       uint8_t* out, uint64_t unit_bytes, uint64_t nunits, uint64_t full_blocks,
                       uint64_t last_blocks, void* tweaks, const uint32_t* alpha_tables,
                       const LaunchShape& sh, cudaStream_t s);

// ---- GHASH -------------------------------------------------------------------

// Device tables derived from H (one allocation, ghash_table_bytes() bytes),
// built on the host by ghash_build_tables and uploaded once per key.
size_t ghash_table_bytes();
// h: the 16 bytes of H = E_K(0^128). out: ghash_table_bytes() bytes of host memory.
void ghash_build_tables(const uint8_t h[16], void* out);

// Variants of the GHASH group kernel, chosen at run time:
//   0 "uint4": 4-bit window tables, one 16-byte entry per nibble value (LDS.128, bank
//     conflicts on random nibbles);
//   1 "planes": the same tables in two 8-byte planes (LDS.64, conflict free);
//   2 "tensor" (the tuning's default): each block times its power of H as a 128 x 128 bit
//     matrix product on the tensor cores (one-bit MMA, AND and popcount; the parity of the
//     sum is the product); compute capability 8.0 and later, "planes" runs elsewhere.
// launch_ghash runs LaunchShape::ghash_variant (tuning entry or context option cuda.ghash=),
// unless the test and benchmark hook set_ghash_variant(v) chose one (v < 0: the tuning's again).
constexpr int kGhashVariants = 3;
void set_ghash_variant(int v);
// The hook's layout, else a default LaunchShape's.
int ghash_variant();
const char* ghash_variant_name(int v);

// R = sum_i X_i * H^(n-i) over the n = ceil(len/16) blocks of data (the last
// zero-padded), written as 16 bytes (GCM byte order) to result_dev (device).
// scratch: ghash_scratch_bytes(len) bytes of device memory.
size_t ghash_scratch_bytes(uint64_t len);
cudaError_t launch_ghash(const void* tables_dev, const uint8_t* data, uint64_t len, void* scratch,
                         uint8_t* result_dev, const LaunchShape& sh, cudaStream_t s);

// XTS multiplier tables (public constants): 3 x 1024 elements alpha^(32*k*1024^i).
size_t xts_alpha_table_bytes();
void xts_build_alpha_tables(void* out);

}  // namespace cuda
}  // namespace bc
