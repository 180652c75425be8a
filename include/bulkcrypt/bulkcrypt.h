/*
 * bulkcrypt: bulk symmetric encryption on GPUs, OpenCL devices and CPUs.
 *
 * This header is the contract. Every call returns a bc_status; none aborts, none
 * throws. A failing call leaves its outputs either untouched or wiped (said per
 * call), never partly written with plaintext.
 *
 * Objects
 *   bc_context  owns the devices it was opened on, the CPU thread pool and the
 *               tuning its devices run with: launch shapes, kernel variants, chunk
 *               sizes and pipeline depths, taken from a built-in table per device
 *               class (each entry citing the measurement it came from, with
 *               fallbacks for unmeasured devices) and overridden by the options
 *               below. Create one per process (or per device choice).
 *   bc_key      an algorithm and its key, expanded once on the host and uploaded
 *               once to each device of its context; wiped when destroyed.
 *   bc_stream   one message processed incrementally (init / update / final).
 *
 * Thread safety
 *   A bc_context and a bc_key may be used from any number of threads at once for
 *   one-shot calls (bc_encrypt, bc_aead_seal, ...). A bc_stream belongs to one
 *   thread at a time. Destroying an object while another thread uses it is a bug
 *   in the caller. A key must be destroyed before its context.
 *
 * Buffers and aliasing
 *   Input and output are either the same buffer (in place: out == in) or disjoint.
 *   Partial overlap is refused with BC_ERR_OVERLAP. Buffers need no alignment.
 *   Output bounds are stated per call; out_len always receives the bytes written.
 *
 * Memory
 *   By default buffers are host memory. With bc_params.memory = BC_MEMORY_DEVICE
 *   they are device pointers on the context's device (for CUDA: pointers from
 *   cudaMalloc or equivalent), and the work is ordered on bc_params.stream.
 *
 * Sizes are in bytes everywhere.
 */
#ifndef BULKCRYPT_BULKCRYPT_H
#define BULKCRYPT_BULKCRYPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(BC_BUILDING_LIBRARY)
#define BC_API __attribute__((visibility("default")))
#else
#define BC_API
#endif

#if defined(__GNUC__)
#define BC_MUST_CHECK __attribute__((warn_unused_result))
#else
#define BC_MUST_CHECK
#endif

/* ---- status ------------------------------------------------------------------ */

typedef enum bc_status {
    BC_OK = 0,
    BC_ERR_NULL_POINTER,        /* a required pointer was NULL */
    BC_ERR_INVALID_ARGUMENT,    /* an argument out of range that has no better status */
    BC_ERR_UNKNOWN_ALGORITHM,   /* the algorithm name is not in the catalogue */
    BC_ERR_KEY_SIZE,            /* key length wrong for the algorithm */
    BC_ERR_IV_SIZE,             /* IV, nonce or tweak length wrong for the algorithm */
    BC_ERR_TAG_SIZE,            /* tag length outside what the AEAD allows */
    BC_ERR_INPUT_LENGTH,        /* e.g. ECB/CBC input not whole blocks, XTS under one block */
    BC_ERR_MESSAGE_TOO_LONG,    /* beyond the mode's limit (GCM: 2^36 - 32 bytes; a 64-bit block cipher: 2^32 blocks) */
    BC_ERR_COUNTER_OVERFLOW,    /* the counter would wrap (CTR past the counter block's width:
                                   2^128 blocks of 16 bytes, 2^64 of 8; stream ciphers) */
    BC_ERR_OVERLAP,             /* input and output overlap without being the same buffer */
    BC_ERR_OUTPUT_TOO_SMALL,    /* out_cap is under the bound the call documents */
    BC_ERR_AUTH_FAILED,         /* the tag did not match; the output holds no plaintext */
    BC_ERR_BAD_PADDING,         /* PKCS#7 padding malformed on decryption; output wiped */
    BC_ERR_NOT_SUPPORTED,       /* the operation, mode or memory kind is not available here */
    BC_ERR_BAD_DEVICE,          /* the device string is malformed (see bc_context_create) */
    BC_ERR_NO_DEVICE,           /* the device asked for is not present, or not in this build */
    BC_ERR_DEVICE,              /* the device failed (launch failure, lost device, ...) */
    BC_ERR_OUT_OF_MEMORY,       /* host or device memory exhausted */
    BC_ERR_BAD_STATE,           /* a streaming call out of order */
    BC_ERR_BAD_OPTION,          /* an option string that cannot be parsed or applied */
    BC_ERR_INTERNAL             /* a bug in bulkcrypt; please report it */
} bc_status;

/* A fixed human sentence for a status, never NULL. */
BC_API const char *bc_status_message(bc_status status);

/* The detail of the most recent failure on the calling thread (for example the
 * CUDA error text or which argument was wrong); "" when the last call succeeded.
 * The pointer stays valid until the next bulkcrypt call on this thread. */
BC_API const char *bc_last_error(void);

/* The library version, "MAJOR.MINOR.PATCH". */
BC_API const char *bc_version(void);

/* ---- algorithms --------------------------------------------------------------- */

typedef enum bc_kind {
    BC_KIND_BLOCK_MODE = 1,     /* ECB, CBC: whole blocks of block_size, optional PKCS#7 padding */
    BC_KIND_STREAM = 2,         /* CTR and stream ciphers: any length, seekable */
    BC_KIND_XTS = 3,            /* XTS: at least 16 bytes per data unit (16-byte blocks only) */
    BC_KIND_AEAD = 4            /* GCM, ChaCha20-Poly1305, ... */
} bc_kind;

typedef struct bc_algorithm_info {
    const char *name;           /* OpenSSL's spelling, e.g. "aes-256-gcm" */
    bc_kind kind;
    size_t key_size;            /* bytes; for XTS both keys together. A cipher of variable
                                   key length (Blowfish, CAST5): its default length */
    size_t key_size_min, key_size_max;  /* the key lengths bc_key_create takes: key_size
                                   alone for most algorithms, a range for those */
    size_t iv_size;             /* default IV / nonce / tweak length; 0 = none (ECB) */
    size_t iv_size_min, iv_size_max;
    size_t tag_size;            /* default tag length; 0 for non-AEAD */
    size_t tag_size_min, tag_size_max;
    size_t block_size;          /* the cipher's block: 16 (AES, Camellia, ...) or 8 (64-bit
                                   block ciphers); 1 for stream ciphers. ECB and CBC take
                                   whole blocks of it, CTR counts in it, PKCS#7 pads to it;
                                   XTS and GCM exist only where it is 16 */
    uint64_t max_message_size;  /* per message (per IV); UINT64_MAX when unbounded */
} bc_algorithm_info;

/* Fills info for an algorithm name (case-insensitive). */
BC_API bc_status bc_algorithm_query(const char *name, bc_algorithm_info *info);
/* The i-th algorithm of the catalogue, NULL past the end: for listing. */
BC_API const char *bc_algorithm_name(size_t index);
/* Sizes as functions, for bindings; 0 for an unknown name. bc_key_size is the default
 * key length (bc_algorithm_info's key_size_min and key_size_max give the range). */
BC_API size_t bc_key_size(const char *algorithm);
BC_API size_t bc_iv_size(const char *algorithm);
BC_API size_t bc_tag_size(const char *algorithm);
BC_API uint64_t bc_max_message_size(const char *algorithm);

/* ---- context ------------------------------------------------------------------- */

typedef struct bc_context bc_context;

/* device: which devices the context runs on. The strings are exact (lower case, no
 * spaces); anything else is refused with BC_ERR_BAD_DEVICE. NULL means "auto".
 *   "auto"     the CPU and every GPU of the machine, as "hybrid" below, when at least
 *              one GPU is there for it (a CUDA GPU, or an OpenCL GPU) and every CUDA GPU
 *              starts; otherwise (no GPU, no driver, a build without CUDA or OpenCL, or a
 *              CUDA GPU that fails to start) the CPU alone, as "cpu". Never an OpenCL
 *              device of CPU type (PoCL, a CPU runtime): a machine whose only OpenCL
 *              devices are CPUs gets "cpu". bc_context_device_name then begins with
 *              "hybrid" or "cpu", the one chosen.
 *   "cpu"      the CPU backend: OpenSSL's libcrypto or bulkcrypt's portable cores
 *              (cpu.impl=), on a pool of threads=N threads (default: every core).
 *   "cuda:N"   the CUDA GPU of ordinal N (decimal, 1 to 4 digits, as CUDA numbers
 *              them: CUDA_VISIBLE_DEVICES applies), alone. A malformed N is
 *              BC_ERR_BAD_DEVICE; no GPU N (N past the last one, no GPU or no driver
 *              at all, or a build without CUDA) is BC_ERR_NO_DEVICE; a GPU that is
 *              present but fails to start returns that failure (e.g. BC_ERR_DEVICE).
 *   "opencl:N" device N of the list of every device of every installed OpenCL
 *              platform, in the order the ICD loader reports platforms and each
 *              platform its devices, numbered from 0 (`bulkcrypt devices` prints
 *              it). Malformed N: BC_ERR_BAD_DEVICE; no platform installed, no device,
 *              N past the last one, or a build without OpenCL: BC_ERR_NO_DEVICE.
 *   "hybrid"   the engine: the CPU backend (every core unless threads=N), every CUDA
 *              GPU and every OpenCL GPU-type device that is not one of those CUDA GPUs
 *              (told apart by PCI address; without one, NVIDIA's OpenCL devices are left
 *              to CUDA when CUDA has GPUs), pulling pieces of each large call from one
 *              queue; a call under bc_context_cpu_threshold bytes runs whole on one
 *              worker (the CPU, unless other callers keep every core busy: then the
 *              least loaded GPU, the fastest first as measured by `bulkcrypt tune` on
 *              this machine, else CUDA GPUs before OpenCL ones), device pointers go to
 *              the CUDA GPU that owns them. No GPU: BC_ERR_NO_DEVICE (no fallback); a
 *              CUDA GPU that fails to start: that failure; an OpenCL GPU that fails to
 *              open is left out.
 *   "cuda:all" the same engine over every CUDA GPU, without the CPU. No CUDA GPU:
 *              BC_ERR_NO_DEVICE; a GPU that fails to start: that failure.
 * The options are checked first: a bad option is BC_ERR_BAD_OPTION whatever the
 * device. On any failure *ctx is NULL.
 *
 * options: NULL or a comma-separated list of key=value settings, e.g.
 *         "threads=8,cpu.impl=portable,aes=table". Unknown keys are refused
 *         (BC_ERR_BAD_OPTION) so typos never pass silently. Keys:
 *           threads=N        CPU worker threads (default: all cores)
 *           cpu.impl=evp|portable   CPU path: OpenSSL's libcrypto (default) or
 *                            bulkcrypt's own portable cores
 *           aes=bitsliced|table|generic   GPU AES implementation (default bitsliced:
 *                            constant time; generic: the generic block-mode kernels)
 *           seed=bitsliced|table   CUDA SEED (default bitsliced; table: lookup tables
 *                            in shared memory, NOT constant time, for measurement)
 *           chunk=BYTES      host-memory pipeline pieces (a multiple of 64)
 *           depth=N          host-memory pipeline pieces in flight, 1..32
 *           cuda.aes_variant=plain|fk|fk-cs|cl|cle|pair|pair-cc|pair-dec
 *                            bitsliced CUDA AES kernel variant (same output)
 *           cuda.ghash=uint4|planes|tensor CUDA GHASH kernel (window lookups, or
 *                            the tensor cores: the default from compute capability 8.0)
 *           cuda.pair_cc_waves=N           pair-cc grid waves, 1..8
 *           cuda.xts_layout=interleaved|tiles|interleaved-smem   generic CUDA
 *                            kernels' XTS over small units (same output)
 *           cuda.blocks_per_sm=N           CUDA grid: N blocks an SM, 1..64 (default:
 *                            the tuning entry's cap; one wave of resident blocks
 *                            for ciphers with tables)
 *         Options a backend has no use for are accepted and ignored; without them
 *         the device's tuning entry decides. */
BC_API BC_MUST_CHECK bc_status bc_context_create(const char *device, const char *options,
                                                 bc_context **ctx);
BC_API void bc_context_destroy(bc_context *ctx);
/* A one-line description of the device the context runs on. */
BC_API const char *bc_context_device_name(const bc_context *ctx);
/* The backend in use: "cpu", "cuda" or "opencl"; for an engine context "hybrid" or
 * "cuda:all" ("auto" answers one of "hybrid" and "cpu"). */
BC_API const char *bc_context_backend(const bc_context *ctx);
/* Bytes under which a job runs whole on the CPU, on the calling thread, in a context that
 * combines the CPU with GPUs ("auto" on a GPU host): there a GPU's transfers cost more than
 * they save. 0 for a context of one kind of device (no such rule) or NULL. */
BC_API size_t bc_context_cpu_threshold(const bc_context *ctx);

/* ---- keys ---------------------------------------------------------------------- */

typedef struct bc_key bc_key;

/* Expands the key once and uploads it to the context's device. The caller's key
 * bytes are copied; the caller may wipe its copy afterwards. key_len must lie in the
 * algorithm's [key_size_min, key_size_max] (BC_ERR_KEY_SIZE otherwise). */
BC_API BC_MUST_CHECK bc_status bc_key_create(bc_context *ctx, const char *algorithm,
                                             const uint8_t *key, size_t key_len,
                                             bc_key **out);
/* Wipes every copy of the key (host and device) and frees it. NULL is a no-op. */
BC_API void bc_key_destroy(bc_key *key);
BC_API const char *bc_key_algorithm(const bc_key *key);

/* ---- per-call parameters -------------------------------------------------------- */

typedef enum bc_memory {
    BC_MEMORY_HOST = 0,
    BC_MEMORY_DEVICE = 1        /* pointers on the context's device */
} bc_memory;

enum {
    BC_FLAG_PAD_PKCS7 = 1u << 0 /* ECB/CBC: add (encrypt) or check and strip (decrypt) PKCS#7 */
};

/* Optional settings of one call. Zero-initialise, then set what you need;
 * passing NULL means all defaults. */
typedef struct bc_params {
    uint32_t flags;             /* BC_FLAG_* */
    bc_memory memory;           /* where in and out live */
    void *stream;               /* with BC_MEMORY_DEVICE on CUDA: a cudaStream_t, or NULL */
    uint64_t data_unit_size;    /* XTS: bytes per data unit (sector); 0 = whole input is one
                                   unit. Unit k uses the tweak plus k (128-bit little-endian). */
    uint64_t offset;            /* CTR and stream ciphers: start this many bytes into the
                                   keystream (any byte, not only block starts) */
} bc_params;

/* ---- raw modes, one shot --------------------------------------------------------
 * ECB, CBC, CTR, XTS and the stream ciphers. A block below is the algorithm's
 * block_size (bc_algorithm_info): 16 bytes, or 8 for a 64-bit block cipher.
 * iv: CBC one block (the IV); CTR the initial counter block, one block, incremented
 *     as one big-endian number as wide as the block (128 bits for 16-byte blocks, 64
 *     for 8-byte ones: the whole block is the counter, as OpenSSL does); XTS the
 *     16-byte tweak of the first data unit; ECB none (iv_len 0).
 * Lengths: ECB and CBC take whole blocks (else BC_ERR_INPUT_LENGTH), except when
 *     encrypting with BC_FLAG_PAD_PKCS7, which takes any length and pads to a whole
 *     block with 1 to block_size bytes (PKCS#7 to the algorithm's block size);
 *     decrypting with it takes whole blocks, at least one, and checks the padding
 *     in constant time (BC_ERR_BAD_PADDING, output wiped). CTR and stream ciphers
 *     take any length; CTR refuses with BC_ERR_COUNTER_OVERFLOW, before writing
 *     anything, a call whose last block's counter would pass 2^128 - 1 (16-byte
 *     blocks) or 2^64 - 1 (8-byte blocks). XTS (16-byte block ciphers only) takes at
 *     least 16 bytes per data unit, ciphertext stealing for a partial last block.
 * Output bound: in_len, plus one block when encrypting with BC_FLAG_PAD_PKCS7.
 * On failure *out_len is 0. A call refused by its argument checks writes nothing
 * (so a refused in-place call loses no data); a failure after processing began
 * (bad padding, a device error) wipes the output up to the bound. */
BC_API BC_MUST_CHECK bc_status bc_encrypt(bc_key *key, const uint8_t *iv, size_t iv_len,
                                          const uint8_t *in, size_t in_len,
                                          uint8_t *out, size_t out_cap, size_t *out_len,
                                          const bc_params *params);
BC_API BC_MUST_CHECK bc_status bc_decrypt(bc_key *key, const uint8_t *iv, size_t iv_len,
                                          const uint8_t *in, size_t in_len,
                                          uint8_t *out, size_t out_cap, size_t *out_len,
                                          const bc_params *params);

/* ---- AEAD, one shot --------------------------------------------------------------
 * GCM exists for 16-byte block ciphers only.
 * tag_len 0 means the algorithm's default (16). GCM accepts 4..16 (NIST SP 800-38D
 * recommends at least 12); the ChaCha20 AEADs accept 16.
 * seal:  out receives ciphertext || tag; out_cap >= in_len + tag_len.
 * open:  in is ciphertext || tag; out_cap >= in_len - tag_len. On BC_ERR_AUTH_FAILED
 *        the output is zeroed: no plaintext is ever released.
 * The detached forms keep the tag apart; out_cap there is in_len. */
BC_API BC_MUST_CHECK bc_status bc_aead_seal(bc_key *key, const uint8_t *nonce, size_t nonce_len,
                                            const uint8_t *aad, size_t aad_len,
                                            const uint8_t *in, size_t in_len,
                                            uint8_t *out, size_t out_cap, size_t *out_len,
                                            size_t tag_len, const bc_params *params);
BC_API BC_MUST_CHECK bc_status bc_aead_open(bc_key *key, const uint8_t *nonce, size_t nonce_len,
                                            const uint8_t *aad, size_t aad_len,
                                            const uint8_t *in, size_t in_len,
                                            uint8_t *out, size_t out_cap, size_t *out_len,
                                            size_t tag_len, const bc_params *params);
BC_API BC_MUST_CHECK bc_status bc_aead_seal_detached(bc_key *key, const uint8_t *nonce,
                                                     size_t nonce_len, const uint8_t *aad,
                                                     size_t aad_len, const uint8_t *in,
                                                     size_t in_len, uint8_t *out, uint8_t *tag,
                                                     size_t tag_len, const bc_params *params);
BC_API BC_MUST_CHECK bc_status bc_aead_open_detached(bc_key *key, const uint8_t *nonce,
                                                     size_t nonce_len, const uint8_t *aad,
                                                     size_t aad_len, const uint8_t *in,
                                                     size_t in_len, const uint8_t *tag,
                                                     size_t tag_len, uint8_t *out,
                                                     const bc_params *params);

/* ---- streaming --------------------------------------------------------------------
 * One message in pieces: create, (aad)*, (update)*, final. Pieces may have any
 * length and the result is byte-identical to the one-shot call, however the
 * message is cut. CTR, the stream ciphers and the AEADs write exactly in_len bytes
 * at each update and nothing at final (an AEAD's final computes or checks the tag).
 * Modes that need whole blocks hold back what they cannot process yet, so update
 * writes at most in_len + 64 bytes (for XTS with a data-unit size: in_len + one data
 * unit; XTS without one is a single data unit of at most 2^20 blocks, held and
 * encrypted at final). final writes what is still held back: at most 64 bytes, one
 * data unit for XTS, or one block of padding for ECB/CBC.
 * Blocks, lengths, PKCS#7 and the CTR counter follow the one-shot rules above (the
 * algorithm's block_size; XTS and GCM 16 bytes).
 * AEAD decryption: set the expected tag before final; final returns
 * BC_ERR_AUTH_FAILED on a mismatch. Plaintext from update calls of an AEAD
 * decryption is unauthenticated until final succeeds: a caller that must never
 * expose it uses the one-shot bc_aead_open instead.
 * After any failure the stream refuses further calls (BC_ERR_BAD_STATE).
 * Host memory only. */

typedef struct bc_stream bc_stream;

typedef enum bc_direction { BC_ENCRYPT = 0, BC_DECRYPT = 1 } bc_direction;

BC_API BC_MUST_CHECK bc_status bc_stream_create(bc_key *key, bc_direction dir,
                                                const uint8_t *iv, size_t iv_len,
                                                const bc_params *params, bc_stream **out);
/* AEAD only, before the first update; may be called several times. */
BC_API BC_MUST_CHECK bc_status bc_stream_aad(bc_stream *s, const uint8_t *aad, size_t aad_len);
BC_API BC_MUST_CHECK bc_status bc_stream_update(bc_stream *s, const uint8_t *in, size_t in_len,
                                                uint8_t *out, size_t out_cap, size_t *out_len);
/* AEAD decryption: the tag to check at final. */
BC_API BC_MUST_CHECK bc_status bc_stream_set_tag(bc_stream *s, const uint8_t *tag, size_t tag_len);
BC_API BC_MUST_CHECK bc_status bc_stream_final(bc_stream *s, uint8_t *out, size_t out_cap,
                                               size_t *out_len);
/* AEAD encryption: the tag, after final. */
BC_API BC_MUST_CHECK bc_status bc_stream_get_tag(bc_stream *s, uint8_t *tag, size_t tag_len);
/* Wipes the stream's state and frees it. NULL is a no-op. */
BC_API void bc_stream_destroy(bc_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* BULKCRYPT_BULKCRYPT_H */
