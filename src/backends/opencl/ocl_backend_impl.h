// The OpenCL backend's internals, shared by its files (one concern each):
//   opencl_backend.cpp    context, keys, the Backend entry points, discovery
//   ocl_programs.cpp      program parts, built on first use (binary cache in cl_util), and kernel lookup
//   ocl_pipeline.cpp      the host-memory pipeline: pieces, slots, launches
//   ocl_aes.cpp           AES's own kernels (kernels/aes.cl), GHASH and GCM
//   ocl_stream.cpp        ChaCha20/Salsa20, Poly1305 and ChaCha20-Poly1305
//   ocl_block.cpp         every block cipher through the generic kernels (kernels/block.cl)
#pragma once

#include <map>
#include <mutex>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/opencl_kernels.h"
#include "catalog/block_cipher.h"
#include "util/secure.h"

namespace bc {
namespace ocl {

constexpr size_t kSlots = 3;                       // buffers in flight: upload | kernel | download

inline size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Kernel arguments in order; LocalBytes reserves local memory.
struct LocalBytes {
    size_t n;
};
inline void set_one(cl_kernel k, cl_uint i, const LocalBytes& l, cl_int* err) {
    if (*err == CL_SUCCESS) *err = clSetKernelArg(k, i, l.n, nullptr);
}
template <class T>
inline void set_one(cl_kernel k, cl_uint i, const T& v, cl_int* err) {
    if (*err == CL_SUCCESS) *err = clSetKernelArg(k, i, sizeof(T), &v);
}
template <class... A>
inline Status set_args(cl_kernel k, const A&... a) {
    cl_int err = CL_SUCCESS;
    cl_uint i = 0;
    (set_one(k, i++, a, &err), ...);
    if (err != CL_SUCCESS) return cl_status(err, "clSetKernelArg");
    return Status::ok();
}

// 16 bytes as the kernels' uint4 of little-endian words.
inline cl_uint4 le_words(const uint8_t b[16]) {
    cl_uint4 v;
    for (int i = 0; i < 4; ++i) v.s[i] = bc_load_le32(b + 4 * i);
    return v;
}

// v += n as a big-endian number of len bytes (modulo 2^(8 len)): a counter block.
void add_be_counter(uint8_t* v, size_t len, uint64_t n);

// The keystream kernel of a stream cipher's row (its family and rounds).
const char* stream_kernel_name(const Algorithm& alg);

// A program (one part, opencl_kernels.h) and the kernels looked up in it.
struct Program {
    ProgramHandle prog;
    std::vector<std::pair<std::string, KernelHandle>> kernels;
    BuildResult build;
    std::string info;      // per kernel: group limit, private and local memory
    size_t max_group = 0;  // the smallest of its kernels' largest work-groups (0: none built)
    Status error;          // a failed build is remembered, not retried per call

    cl_kernel kernel(const char* name) const {
        for (const auto& k : kernels)
            if (k.first == name) return k.second.get();
        return nullptr;
    }
};

// The program parts of one device, each built on the first call that needs one of
// its kernels and kept, a failed one included. Not locked: the backend calls it
// under its mutex.
class Parts {
public:
    // Assembles a part's source (cl_embedded.h) on its first use.
    using Source = std::function<Status(std::string*)>;

    Parts() = default;
    Parts(cl_context ctx, DeviceInfo dev, std::string options)
        : ctx_(ctx), dev_(std::move(dev)), options_(std::move(options)) {}

    // Kernel `name` of the part `part`, whose `kernels` are looked up when it is built.
    // extra_options: added to the device's for this part alone (the part's name should say so).
    Status kernel(const std::string& part, const char* const* kernels, const Source& source, const char* name,
                  cl_kernel* out, const std::string& extra_options = std::string());
    // build_report's text: a line per part in the order of first use, then its kernels'.
    std::string report() const;
    std::vector<OpenClPart> list() const;
    // The smallest largest work-group over the kernels of the parts built (0: none).
    size_t work_group_limit() const;

private:
    void build(Program& p, const std::string& part, const Source& source, const char* const* kernels,
               const std::string& options);

    cl_context ctx_ = nullptr;
    DeviceInfo dev_;
    std::string options_;
    std::map<std::string, Program> parts_;
    std::vector<std::string> order_;
};

// One stage of the pipeline: its own in-order queue and device buffers.
struct Slot {
    QueueHandle queue;
    MemHandle buf;     // the piece (in place)
    size_t buf_cap = 0;
    MemHandle aux;     // per-piece results (MAC partials)
    size_t aux_cap = 0;
};

// A piece of one call as the pipeline hands it to a mode: bytes [pos, pos+len)
// of the call, placed `lead` bytes into the slot's buffer.
struct Piece {
    size_t index = 0;
    size_t pos = 0, len = 0, lead = 0;
    cl_mem result = nullptr;   // where the kernel left the output; the piece's buffer when null
};

class OclKey;

class Backend final : public OpenClBackend {
public:
    Backend(DeviceInfo dev, const ContextOptions& opt) : dev_(std::move(dev)), opt_(opt) {}
    ~Backend() override {
        // The staging buffers last held plaintext or ciphertext: zero them before release.
        const cl_uchar zero = 0;
        for (Slot& s : slots_) {
            if (!s.queue) continue;
            clFinish(s.queue.get());
            if (s.buf) clEnqueueFillBuffer(s.queue.get(), s.buf.get(), &zero, 1, 0, s.buf_cap, 0, nullptr, nullptr);
            if (s.aux) clEnqueueFillBuffer(s.queue.get(), s.aux.get(), &zero, 1, 0, s.aux_cap, 0, nullptr, nullptr);
            clFinish(s.queue.get());
        }
    }

    Status init();

    // Backend
    const char* name() const override { return "opencl"; }
    std::string device_name() const override { return dev_.describe(); }
    bool supports(const Algorithm& alg) const override;
    bool supports_memory(bc_memory m) const override { return m == BC_MEMORY_HOST; }
    Status prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) override;
    Status cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) override;
    Status aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) override;
    Status mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) override;
    Status wipe(void* p, size_t n, bc_memory memory, void* stream) override;

    // OpenClBackend
    const DeviceInfo& device() const override { return dev_; }
    cl_context cl_ctx() const override { return ctx_.get(); }
    cl_command_queue cl_queue() const override { return slots_[0].queue.get(); }
    tuning::DeviceIdentity identity() const override;
    tuning::DeviceTraits traits() const override { return traits_; }
    size_t work_group() const override { return local_; }
    size_t kernel_work_group_limit() const override;
    std::string build_options() const override { return options_; }
    std::string build_report() const override;
    std::vector<OpenClPart> program_parts() const override;
    Status cipher_buffer(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op,
                         cl_mem buf, double* kernel_seconds) override;
    double last_kernel_seconds() const override { return last_kernel_s_; }
    Status ghash_partial(bc_gf128 h, const uint8_t* data, size_t len, bc_gf128* out) override;
    Status poly1305_partial_device(const uint8_t r[16], const uint8_t* data, size_t len,
                                   uint8_t partial[17]) override;

    // Used by keys.
    Status upload(const void* p, size_t n, MemHandle* out);
    void wipe_buffer(cl_mem m, size_t n);

private:
    using KernelFn = std::function<Status(cl_command_queue, cl_mem buf, Piece&, Slot&)>;
    using LeadFn = std::function<size_t(size_t pos)>;

    // A kernel of AES, GHASH, the stream ciphers or Poly1305 (kParts), its part built on first use.
    Status kernel(const char* name, cl_kernel* out);
    // The parts a key's mode launches, in either direction: a device that cannot build them
    // fails the key (the engine leaves it out of that key), and calls compile nothing
    // mid-job. XTS's stealing parts wait for a unit with a partial block.
    Status build_key_parts(const OclKey& k);
    Status launch(cl_command_queue q, cl_kernel k, size_t items, size_t local, bool record);
    size_t chunk_bytes(size_t align) const;
    // Runs `kernel` over the call's data piece by piece, kSlots pieces in flight.
    // Pieces are multiples of `align` bytes (but the last). `single` keeps every
    // piece on one queue, for modes whose pieces depend on each other.
    Status pipeline(const uint8_t* in, uint8_t* out, size_t len, size_t align, const LeadFn& lead,
                    const KernelFn& kernel, bool single = false);
    Status finish_all(Status s);
    Status ensure(cl_mem* unused, MemHandle* m, size_t* cap, size_t want);

    Status stream_cipher(const OclKey& k, const CipherOp& op, cl_mem device_buf);
    Status stream_kernel(const OclKey& k, const uint32_t st[16], int layout, cl_command_queue q,
                         cl_mem buf, size_t lead, size_t len);
    Status chachapoly_chunk(const OclKey& k, AeadChunkOp& op);
    // Poly1305 partials on the device, as GHASH: groups to the host, folded there.
    Status poly_enqueue(cl_command_queue q, cl_mem buf, size_t len, cl_mem rpow, Slot& slot,
                        std::vector<uint32_t>* groups);
    void poly_fold_groups(const uint8_t r[16], const std::vector<std::vector<uint32_t>>& groups,
                          const std::vector<size_t>& piece_len, uint8_t out[17]) const;
    Status upload_rpow(const uint8_t r[16], MemHandle* out);
    Status poly_partial(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t out[17]);

    Status aes_cipher(const OclKey& k, const CipherOp& op);
    // The AES CTR kernel's variant, group size and caps from the tuning entry and the options.
    void choose_aes_kernel();
    Status aes_ctr_enqueue(const OclKey& k, cl_command_queue q, cl_mem buf, const uint8_t ctr[16],
                           bool inc32, size_t nblocks);
    Status aes_xts_piece(const OclKey& k, const CipherOp& op, cl_command_queue q, cl_mem buf,
                         Piece& pc, Slot& slot);
    Status gcm_chunk(const OclKey& k, AeadChunkOp& op);

    // True when alg runs through the generic block kernels: every Cipher::Block
    // algorithm, and AES's raw modes under the context option aes=generic.
    bool generic_block(const Algorithm& alg) const;
    Status block_prepare_key(const KeyMaterial& key, OclKey* k);
    // A generic block kernel of the key's cipher (kBlockParts), its part built on first use.
    Status block_kernel(const OclKey& k, const char* name, cl_kernel* out);
    Status block_cipher(const OclKey& k, const CipherOp& op);
    // inc32: GCM's counter (its last 32 bits only), else the whole block big-endian.
    Status block_ctr_enqueue(const OclKey& k, cl_command_queue q, cl_mem buf, const uint8_t* ctr, size_t len,
                             bool inc32 = false);
    Status block_xts_piece(const OclKey& k, const CipherOp& op, cl_command_queue q, cl_mem buf, Piece& pc,
                           Slot& slot);
    Status xts_alpha_table(cl_mem* out);
    Status alpha_table(cl_mem* out);
    // Enqueues the GHASH partial of `len` bytes at the start of buf; group results go
    // to the slot's aux buffer and then (non-blocking) to host `groups`.
    Status ghash_enqueue(cl_command_queue q, cl_mem buf, size_t len, cl_mem hpow, Slot& slot,
                         std::vector<uint64_t>* groups);
    // Folds the groups of every piece, in order, into one partial.
    bc_gf128 ghash_fold_groups(bc_gf128 h, const std::vector<std::vector<uint64_t>>& groups,
                               const std::vector<size_t>& piece_len) const;
    Status upload_hpow(bc_gf128 h, MemHandle* out);

    DeviceInfo dev_;
    ContextOptions opt_;
    tuning::DeviceTraits traits_;
    ContextHandle ctx_;
    Slot slots_[kSlots];
    std::string options_;
    Parts parts_;
    cl_kernel ghash_kernel_ = nullptr, poly_kernel_ = nullptr;  // their group size is part of the result
    MemHandle apow_;   // XTS: alpha^(2^k), k = 0..63, in GCM's bit order
    MemHandle xts_apow_;   // generic XTS: alpha^(2^k), k = 0..63, as (lo, hi) of xts_tweak.h
    size_t local_ = 64;
    // The AES CTR kernel (GCM's too), from the device's ("aes", "ctr") entry: variant 0 one
    // work-item a batch (bc_aes_ctr), 1 lane pairs (bc_aes_ctr_pair); its group size; the pair
    // kernel's resident groups a compute unit (0: no grid cap) and, on NVIDIA, the register cap
    // that lets that many groups reside (0: the compiler's choice).
    int aes_variant_ = 0;
    size_t aes_local_ = 64;
    int aes_groups_ = 0;
    int aes_regs_ = 0;
    size_t ghash_per_item_ = 32;   // GHASH and Poly1305: blocks per work-item
    size_t mac_local_ = 64;        // work-items per MAC group (a group's size is part of its result)
    mutable std::recursive_mutex mu_;
    std::vector<EventHandle> kernel_events_;
    bool recording_ = false;
    double last_kernel_s_ = 0;
    friend class OclKey;
};

// A key as the device holds it. Host copies are wiped and device buffers
// overwritten with zeros before release.
class OclKey final : public BackendKey {
public:
    explicit OclKey(Backend* be) : be_(be) {}
    ~OclKey() override {
        for (auto* m : {&rk_enc, &rk_tweak, &hpow, &ks, &ks_tweak})
            if (*m) be_->wipe_buffer(m->get(), buffer_size(m->get()));
        if (!host_ks.empty()) secure_wipe(host_ks.data(), host_ks.size() * sizeof(uint32_t));
        if (!host_ks_tweak.empty()) secure_wipe(host_ks_tweak.data(), host_ks_tweak.size() * sizeof(uint32_t));
        secure_wipe(state, sizeof state);
        secure_wipe_object(h);
    }

    static size_t buffer_size(cl_mem m) {
        size_t n = 0;
        clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof n, &n, nullptr);
        return n;
    }

    Backend* be_;
    const Algorithm* alg = nullptr;
    uint32_t state[16] = {};   // stream ciphers: constants and key words
    int rounds = 0;
    MemHandle rk_enc, rk_tweak;  // AES bitsliced round-key masks (tweak: XTS key 2)
    MemHandle hpow;            // GCM: H^(2^k), k = 0..63
    // The generic block path: the descriptor's expanded keys (tweak: XTS key 2), on the
    // device and on the host (CBC encryption and XTS ciphertext stealing run there).
    const BlockCipher* cipher = nullptr;
    MemHandle ks, ks_tweak;
    std::vector<uint32_t> host_ks, host_ks_tweak;
    bc_gf128 h{0, 0};
};

}  // namespace ocl
}  // namespace bc
