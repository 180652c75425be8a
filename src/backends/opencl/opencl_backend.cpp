// The OpenCL backend: discovery, context, queues, the chunk pipeline, keys and
// the per-mode kernel launches. Kernels are the dialect cores compiled at run
// time from the embedded sources (cl_embedded.h), one program per family.
#include "backends/opencl/opencl_backend.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>

#include "backends/opencl/cl_embedded.h"
#include "backends/opencl/opencl_kernels.h"
#include "cores/aes/aes.h"
#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "modes/aes_modes.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"

namespace bc {
namespace ocl {
namespace {

constexpr size_t kSlots = 3;                       // buffers in flight: upload | kernel | download
constexpr size_t kDefaultChunk = size_t(16) << 20;  // bytes per device piece

size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Kernel arguments in order; LocalBytes reserves local memory.
struct LocalBytes {
    size_t n;
};
inline void set_one(cl_kernel k, cl_uint i, const LocalBytes& l, cl_int* err) {
    if (*err == CL_SUCCESS) *err = clSetKernelArg(k, i, l.n, nullptr);
}
template <class T>
void set_one(cl_kernel k, cl_uint i, const T& v, cl_int* err) {
    if (*err == CL_SUCCESS) *err = clSetKernelArg(k, i, sizeof(T), &v);
}
template <class... A>
Status set_args(cl_kernel k, const A&... a) {
    cl_int err = CL_SUCCESS;
    cl_uint i = 0;
    (set_one(k, i++, a, &err), ...);
    if (err != CL_SUCCESS) return cl_status(err, "clSetKernelArg");
    return Status::ok();
}

// 16 bytes as the kernels' uint4 of little-endian words.
cl_uint4 le_words(const uint8_t b[16]) {
    cl_uint4 v;
    for (int i = 0; i < 4; ++i) v.s[i] = bc_load_le32(b + 4 * i);
    return v;
}

// A program and the kernels looked up in it.
struct Program {
    ProgramHandle prog;
    std::vector<std::pair<std::string, KernelHandle>> kernels;
    BuildResult build;
    std::string info;      // per kernel: group limit, private and local memory
    Status error;          // a failed build is remembered, not retried per call
    bool tried = false;

    cl_kernel kernel(const char* name) const {
        for (const auto& k : kernels)
            if (k.first == name) return k.second.get();
        return nullptr;
    }
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
    std::string build_options() const override { return options_; }
    std::string build_report() const override;
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

    Status program(Family f, const Program** out);
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

    Status aes_kernel(const char* name, cl_kernel* out);
    Status aes_cipher(const OclKey& k, const CipherOp& op);
    Status aes_ctr_enqueue(const OclKey& k, cl_command_queue q, cl_mem buf, const uint8_t ctr[16],
                           bool inc32, size_t nblocks);
    Status aes_xts_piece(const OclKey& k, const CipherOp& op, cl_command_queue q, cl_mem buf,
                         Piece& pc, Slot& slot);
    Status gcm_chunk(const OclKey& k, AeadChunkOp& op);
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
    ContextHandle ctx_;
    Slot slots_[kSlots];
    std::string options_;
    Program programs_[kFamilyCount];
    cl_kernel ghash_kernel_ = nullptr, poly_kernel_ = nullptr;  // their group size is part of the result
    MemHandle apow_;   // XTS: alpha^(2^k), k = 0..63, in GCM's bit order
    size_t local_ = 64;
    size_t ghash_per_item_ = 32;   // GHASH and Poly1305: blocks per work-item
    size_t mac_local_ = 64;        // work-items per MAC group (a group's size is part of its result)
    std::recursive_mutex mu_;
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
        for (auto* m : {&rk_enc, &rk_tweak, &hpow})
            if (*m) be_->wipe_buffer(m->get(), buffer_size(m->get()));
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
    bc_gf128 h{0, 0};
};

// ---------------------------------------------------------------------------

Status Backend::init() {
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     reinterpret_cast<cl_context_properties>(dev_.platform), 0};
    ctx_.reset(clCreateContext(props, 1, &dev_.device, nullptr, nullptr, &err));
    if (err != CL_SUCCESS) return cl_status(err, "clCreateContext");
    for (Slot& s : slots_) {
        s.queue.reset(clCreateCommandQueue(ctx_.get(), dev_.device, CL_QUEUE_PROFILING_ENABLE, &err));
        if (err != CL_SUCCESS) return cl_status(err, "clCreateCommandQueue");
    }
    // Launch shapes: defaults until the tuning table covers OpenCL devices.
    local_ = dev_.is_gpu() ? 256 : 64;
    if (dev_.max_work_group && local_ > dev_.max_work_group) local_ = dev_.max_work_group;
    ghash_per_item_ = dev_.is_gpu() ? 16 : 64;
    // Larger MAC groups on GPUs: fewer group results for the host to fold (one
    // multiplication each), 4096 blocks = 64 KiB per group.
    mac_local_ = dev_.is_gpu() ? 256 : 64;
    if (dev_.max_work_group && mac_local_ > dev_.max_work_group) mac_local_ = dev_.max_work_group;
    std::ostringstream o;
    o << "-cl-std=CL1.2"
      << " -DBC_DEV_GPU=" << (dev_.is_gpu() ? 1 : 0)
      << " -DBC_DEV_CPU=" << (dev_.is_cpu() ? 1 : 0)
      << " -DBC_DEV_NVIDIA=" << (dev_.vendor.find("NVIDIA") != std::string::npos ? 1 : 0)
      << " -DBC_DEV_COMPUTE_UNITS=" << dev_.compute_units
      << " -DBC_DEV_LOCAL_MEM=" << dev_.local_mem
      << " -DBC_DEV_LOCAL_SIZE=" << local_;
    // aes=table: the OpenCL backend has only the constant-time bitsliced AES; the
    // option leaves it as it is (slower than asked for, never weaker).
    options_ = o.str();
    return Status::ok();
}

std::string Backend::build_report() const {
    std::ostringstream o;
    for (int f = 0; f < kFamilyCount; ++f) {
        const Program& p = programs_[f];
        if (!p.tried) continue;
        o << family_name(static_cast<Family>(f)) << ": "
          << (p.error.is_ok() ? (p.build.from_cache ? "cached binary" : "compiled") : "failed") << " in "
          << p.build.seconds << " s";
        if (!p.build.cache_path.empty()) o << " (" << p.build.cache_path << ")";
        o << "\n";
        o << p.info;
    }
    return o.str();
}

Status Backend::program(Family f, const Program** out) {
    Program& p = programs_[f];
    if (!p.tried) {
        p.tried = true;
        std::string src;
        p.error = assemble_source(family_root(f), &src);
        if (p.error.is_ok()) p.error = build_program(ctx_.get(), dev_, src, options_, &p.prog, &p.build);
        if (p.error.is_ok()) {
            for (const char* const* k = family_kernels(f); *k; ++k) {
                cl_int err = CL_SUCCESS;
                KernelHandle kh(clCreateKernel(p.prog.get(), *k, &err));
                if (err != CL_SUCCESS) {
                    p.error = cl_status(err, (std::string("clCreateKernel ") + *k).c_str());
                    break;
                }
                size_t wg = 0;
                cl_ulong priv = 0, loc = 0;
                clGetKernelWorkGroupInfo(kh.get(), dev_.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
                clGetKernelWorkGroupInfo(kh.get(), dev_.device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, nullptr);
                clGetKernelWorkGroupInfo(kh.get(), dev_.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof loc, &loc, nullptr);
                p.info += std::string("  ") + *k + ": max group " + std::to_string(wg) + ", private " +
                          std::to_string(priv) + " B (spills when > 0 on GPUs), local " + std::to_string(loc) + " B\n";
                p.kernels.emplace_back(*k, std::move(kh));
            }
        }
    }
    if (!p.error.is_ok()) return p.error;
    *out = &p;
    return Status::ok();
}

Status Backend::launch(cl_command_queue q, cl_kernel k, size_t items, size_t local, bool record) {
    if (items == 0) return Status::ok();
    // A kernel may allow fewer work-items per group than the device (registers):
    // the bitsliced AES on a GPU, for one. Shrink to the largest power of two it takes.
    size_t kmax = 0;
    if (clGetKernelWorkGroupInfo(k, dev_.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, nullptr) ==
            CL_SUCCESS &&
        kmax > 0 && local > kmax) {
        if (k == ghash_kernel_ || k == poly_kernel_)
            return Status(BC_ERR_DEVICE, "OpenCL: the MAC kernels need " + std::to_string(local) +
                                             " work-items per group; this device allows " + std::to_string(kmax));
        while (local > kmax) local /= 2;
    }
    size_t global = round_up(items, local);
    cl_event ev = nullptr;
    cl_int err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr,
                                        record ? &ev : nullptr);
    if (err != CL_SUCCESS) return cl_status(err, "clEnqueueNDRangeKernel");
    if (ev) kernel_events_.emplace_back(ev);
    return Status::ok();
}

size_t Backend::chunk_bytes(size_t align) const {
    size_t c = opt_.chunk ? opt_.chunk : kDefaultChunk;
    size_t limit = static_cast<size_t>(dev_.max_alloc ? dev_.max_alloc / 2 : c);
    if (c > limit) c = limit;
    c = c / align * align;
    return c ? c : align;
}

Status Backend::ensure(cl_mem*, MemHandle* m, size_t* cap, size_t want) {
    if (*m && *cap >= want) return Status::ok();
    // Commands already enqueued keep the old buffer alive until they complete.
    m->reset();
    *cap = 0;
    cl_int err = CL_SUCCESS;
    m->reset(clCreateBuffer(ctx_.get(), CL_MEM_READ_WRITE, want, nullptr, &err));
    if (err != CL_SUCCESS) return cl_status(err, "clCreateBuffer");
    *cap = want;
    return Status::ok();
}

Status Backend::finish_all(Status s) {
    // Nothing may still write into the caller's memory once we return.
    for (Slot& slot : slots_) {
        cl_int err = clFinish(slot.queue.get());
        if (err != CL_SUCCESS && s.is_ok()) s = cl_status(err, "clFinish");
    }
    double t = 0;
    for (EventHandle& e : kernel_events_) t += event_seconds(e.get());
    kernel_events_.clear();
    last_kernel_s_ = t;
    return s;
}

Status Backend::pipeline(const uint8_t* in, uint8_t* out, size_t len, size_t align, const LeadFn& lead,
                         const KernelFn& kernel, bool single) {
    const size_t chunk = chunk_bytes(align);
    Status s;
    size_t index = 0;
    for (size_t pos = 0; pos < len && s.is_ok(); pos += chunk, ++index) {
        Piece pc;
        pc.index = index;
        pc.pos = pos;
        pc.len = std::min(chunk, len - pos);
        pc.lead = lead ? lead(pos) : 0;
        Slot& slot = slots_[single ? 0 : index % kSlots];
        cl_command_queue q = slot.queue.get();
        s = ensure(nullptr, &slot.buf, &slot.buf_cap, round_up(pc.lead + pc.len, 64) + 64);
        if (!s.is_ok()) break;
        cl_int err = clEnqueueWriteBuffer(q, slot.buf.get(), CL_FALSE, pc.lead, pc.len, in + pos, 0,
                                          nullptr, nullptr);
        if (err != CL_SUCCESS) { s = cl_status(err, "clEnqueueWriteBuffer"); break; }
        s = kernel(q, slot.buf.get(), pc, slot);
        if (!s.is_ok()) break;
        if (out) {
            err = clEnqueueReadBuffer(q, pc.result ? pc.result : slot.buf.get(), CL_FALSE, pc.lead, pc.len, out + pos, 0,
                                      nullptr, nullptr);
            if (err != CL_SUCCESS) { s = cl_status(err, "clEnqueueReadBuffer"); break; }
        }
        // Start the queue now so transfers overlap the next pieces' enqueueing.
        clFlush(q);
    }
    return finish_all(s);
}

Status Backend::upload(const void* p, size_t n, MemHandle* out) {
    cl_int err = CL_SUCCESS;
    out->reset(clCreateBuffer(ctx_.get(), CL_MEM_READ_ONLY, n, nullptr, &err));
    if (err != CL_SUCCESS) return cl_status(err, "clCreateBuffer");
    BC_CL_TRY(clEnqueueWriteBuffer(slots_[0].queue.get(), out->get(), CL_TRUE, 0, n, p, 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
    return Status::ok();
}

void Backend::wipe_buffer(cl_mem m, size_t n) {
    if (n == 0) return;
    std::lock_guard<std::recursive_mutex> lock(mu_);
    const cl_uchar zero = 0;
    cl_command_queue q = slots_[0].queue.get();
    if (clEnqueueFillBuffer(q, m, &zero, 1, 0, n, 0, nullptr, nullptr) == CL_SUCCESS) clFinish(q);
}

bool Backend::supports(const Algorithm& alg) const {
    switch (alg.cipher) {
        case Cipher::AES:
            return alg.mode == Mode::ECB || alg.mode == Mode::CBC || alg.mode == Mode::CTR ||
                   alg.mode == Mode::XTS || alg.mode == Mode::GCM;
        case Cipher::ChaCha20:
        case Cipher::XChaCha20:
            return alg.mode == Mode::Stream || alg.mode == Mode::ChaChaPoly;
        case Cipher::Salsa20:
        case Cipher::XSalsa20:
            return alg.mode == Mode::Stream;
        default:
            return false;
    }
}

// ---- keys ------------------------------------------------------------------

Status Backend::prepare_key(const KeyMaterial& key, std::unique_ptr<BackendKey>* out) {
    if (key.alg == nullptr || !supports(*key.alg))
        return Status(BC_ERR_NOT_SUPPORTED, std::string("OpenCL backend: ") +
                                                (key.alg ? key.alg->name : "(null)") + " is not available");
    std::lock_guard<std::recursive_mutex> lock(mu_);
    auto k = std::make_unique<OclKey>(this);
    k->alg = key.alg;
    const Program* p = nullptr;
    switch (key.alg->cipher) {
        case Cipher::ChaCha20:
        case Cipher::XChaCha20:
            BC_TRY(program(kFamilyStream, &p));
            bc_chacha_set_key(k->state, key.raw.data(), static_cast<int>(key.raw.size()));
            break;
        case Cipher::Salsa20:
        case Cipher::XSalsa20:
            BC_TRY(program(kFamilyStream, &p));
            bc_salsa_set_key(k->state, key.raw.data(), static_cast<int>(key.raw.size()));
            break;
        case Cipher::AES: {
            BC_TRY(program(kFamilyAes, &p));
            const size_t half = key.alg->mode == Mode::XTS ? key.raw.size() / 2 : key.raw.size();
            AesKeySchedule ks;
            if (!aes_expand_key(key.raw.data(), half, &ks))
                return Status(BC_ERR_KEY_SIZE, "OpenCL backend: AES key of " + std::to_string(half) + " bytes");
            k->rounds = ks.rounds;
            const size_t mask_bytes = sizeof(uint32_t) * 128 * static_cast<size_t>(ks.rounds + 1);
            Status s = upload(ks.bs, mask_bytes, &k->rk_enc);
            if (s.is_ok() && key.alg->mode == Mode::GCM) {
                uint8_t zero[16] = {0}, hb[16];
                aes_encrypt_blocks(ks, zero, hb, 1);
                k->h = bc_gf128_load(hb);
                secure_wipe(hb, sizeof hb);
                s = upload_hpow(k->h, &k->hpow);
            }
            if (s.is_ok() && key.alg->mode == Mode::XTS) {
                AesKeySchedule ks2;
                aes_expand_key(key.raw.data() + half, half, &ks2);
                s = upload(ks2.bs, mask_bytes, &k->rk_tweak);
                aes_wipe(&ks2);
            }
            aes_wipe(&ks);
            BC_TRY(s);
            break;
        }
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: no kernel for this cipher");
    }
    *out = std::move(k);
    return Status::ok();
}

// ---- stream ciphers ----------------------------------------------------------

Status Backend::stream_kernel(const OclKey& k, const uint32_t st[16], int layout, cl_command_queue q,
                              cl_mem buf, size_t lead, size_t len) {
    const Program* p = nullptr;
    BC_TRY(program(kFamilyStream, &p));
    const bool chacha = k.alg->cipher == Cipher::ChaCha20 || k.alg->cipher == Cipher::XChaCha20;
    const int rounds = k.alg->rounds;
    const char* name = chacha ? (rounds == 8 ? "bc_chacha8_xor" : rounds == 12 ? "bc_chacha12_xor" : "bc_chacha20_xor")
                              : (rounds == 8 ? "bc_salsa8_xor" : rounds == 12 ? "bc_salsa12_xor" : "bc_salsa20_xor");
    cl_kernel kern = p->kernel(name);
    if (kern == nullptr) return Status(BC_ERR_INTERNAL, std::string("OpenCL kernel missing: ") + name);
    cl_ulong nblocks = (lead + len + 63) / 64;
    cl_uint16 state;
    std::memcpy(state.s, st, 64);
    cl_int lay = layout;
    Status s = chacha ? set_args(kern, buf, nblocks, state, lay) : set_args(kern, buf, nblocks, state);
    secure_wipe(&state, sizeof state);
    BC_TRY(s);
    return launch(q, kern, nblocks, local_, true);
}

Status Backend::stream_cipher(const OclKey& k, const CipherOp& op, cl_mem device_buf) {
    // The state of keystream block 0 from the key words and the IV.
    uint32_t base[16];
    std::memcpy(base, k.state, sizeof base);
    int layout = BC_CHACHA_LAYOUT_IETF;
    bool chacha = true;
    switch (k.alg->cipher) {
        case Cipher::ChaCha20:
            if (std::strcmp(k.alg->name, "chacha20-djb") == 0) {
                layout = BC_CHACHA_LAYOUT_DJB;
                if (op.iv_len == 16) bc_chacha_set_djb(base, bc_load_le64(op.iv), op.iv + 8);
                else bc_chacha_set_djb(base, 0, op.iv);
            } else {
                bc_chacha_set_words12(base, op.iv);
            }
            break;
        case Cipher::XChaCha20: {
            uint8_t sub[32];
            // The key words of the state are the raw key (the ChaCha key layout).
            uint8_t raw[32];
            for (int i = 0; i < 8; ++i) bc_store_le32(raw + 4 * i, k.state[4 + i]);
            bc_hchacha20(raw, op.iv, sub);
            bc_chacha_set_key(base, sub, 32);
            bc_chacha_set_djb(base, 0, op.iv + 16);
            layout = BC_CHACHA_LAYOUT_DJB;
            secure_wipe(sub, sizeof sub);
            secure_wipe(raw, sizeof raw);
            break;
        }
        case Cipher::Salsa20:
            chacha = false;
            bc_salsa_set_nonce(base, op.iv, 0);
            break;
        case Cipher::XSalsa20: {
            chacha = false;
            uint8_t sub[32], raw[32];
            for (int i = 0; i < 4; ++i) bc_store_le32(raw + 4 * i, k.state[1 + i]);
            for (int i = 0; i < 4; ++i) bc_store_le32(raw + 16 + 4 * i, k.state[11 + i]);
            bc_hsalsa20(raw, op.iv, sub);
            bc_salsa_set_key(base, sub, 32);
            bc_salsa_set_nonce(base, op.iv + 16, 0);
            secure_wipe(sub, sizeof sub);
            secure_wipe(raw, sizeof raw);
            break;
        }
        default:
            return Status(BC_ERR_INTERNAL, "stream_cipher: not a stream cipher");
    }
    auto state_at = [&](uint64_t byte, uint32_t st[16]) {
        std::memcpy(st, base, 64);
        if (chacha) bc_chacha_add_counter(st, layout, byte / 64);
        else bc_salsa_add_counter(st, byte / 64);
    };
    Status s;
    if (device_buf) {
        if (op.offset % 64) return Status(BC_ERR_INVALID_ARGUMENT, "cipher_buffer: offset not block aligned");
        uint32_t st[16];
        state_at(op.offset, st);
        s = stream_kernel(k, st, layout, slots_[0].queue.get(), device_buf, 0, op.len);
        secure_wipe(st, sizeof st);
        s = finish_all(s);
    } else {
        auto lead = [&](size_t pos) { return static_cast<size_t>((op.offset + pos) % 64); };
        s = pipeline(op.in, op.out, op.len, 64, lead,
                     [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                         uint32_t st[16];
                         state_at(op.offset + pc.pos, st);
                         Status r = stream_kernel(k, st, layout, q, buf, pc.lead, pc.len);
                         secure_wipe(st, sizeof st);
                         return r;
                     });
    }
    secure_wipe(base, sizeof base);
    return s;
}

// ---- GHASH -------------------------------------------------------------------

Status Backend::upload_hpow(bc_gf128 h, MemHandle* out) {
    uint64_t table[128];
    bc_gf128 p = h;
    for (int k = 0; k < 64; ++k) {
        table[2 * k] = p.hi;
        table[2 * k + 1] = p.lo;
        p = bc_gf128_mul(p, p);
    }
    Status s = upload(table, sizeof table, out);
    secure_wipe(table, sizeof table);
    return s;
}

Status Backend::ghash_enqueue(cl_command_queue q, cl_mem buf, size_t len, cl_mem hpow, Slot& slot,
                              std::vector<uint64_t>* groups) {
    const Program* p = nullptr;
    BC_TRY(program(kFamilyAes, &p));
    cl_kernel kern = p->kernel("bc_ghash_partial");
    if (kern == nullptr) return Status(BC_ERR_INTERNAL, "OpenCL kernel missing: bc_ghash_partial");
    ghash_kernel_ = kern;
    const size_t nblocks = (len + 15) / 16;
    const size_t items = (nblocks + ghash_per_item_ - 1) / ghash_per_item_;
    const size_t ngroups = (items + mac_local_ - 1) / mac_local_;
    groups->assign(2 * ngroups, 0);
    if (ngroups == 0) return Status::ok();
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 16 * ngroups));
    cl_ulong clen = len;
    cl_uint per_item = static_cast<cl_uint>(ghash_per_item_);
    cl_mem aux = slot.aux.get();
    cl_int err = clSetKernelArg(kern, 0, sizeof buf, &buf);
    err |= clSetKernelArg(kern, 1, sizeof clen, &clen);
    err |= clSetKernelArg(kern, 2, sizeof per_item, &per_item);
    err |= clSetKernelArg(kern, 3, sizeof hpow, &hpow);
    err |= clSetKernelArg(kern, 4, sizeof aux, &aux);
    err |= clSetKernelArg(kern, 5, 3 * mac_local_ * sizeof(cl_ulong), nullptr);
    if (err != CL_SUCCESS) return cl_status(err, "clSetKernelArg");
    BC_TRY(launch(q, kern, items, mac_local_, true));
    BC_CL_TRY(clEnqueueReadBuffer(q, aux, CL_FALSE, 0, 16 * ngroups, groups->data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
    return Status::ok();
}

bc_gf128 Backend::ghash_fold_groups(bc_gf128 h, const std::vector<std::vector<uint64_t>>& groups,
                                    const std::vector<size_t>& piece_len) const {
    const uint64_t group_blocks = uint64_t(ghash_per_item_) * mac_local_;
    const bc_gf128 h_group = gf128_pow(h, group_blocks);
    bc_gf128 acc{0, 0};
    for (size_t p = 0; p < groups.size(); ++p) {
        uint64_t blocks = (piece_len[p] + 15) / 16;
        for (size_t g = 0; 2 * g < groups[p].size(); ++g) {
            uint64_t n = std::min<uint64_t>(group_blocks, blocks - g * group_blocks);
            bc_gf128 part{groups[p][2 * g], groups[p][2 * g + 1]};
            acc = bc_gf128_xor(bc_gf128_mul(acc, n == group_blocks ? h_group : gf128_pow(h, n)), part);
        }
    }
    // The kernel's sums are GHASH_H; backend.h's partial has one more factor H.
    return bc_gf128_mul(acc, h);
}

Status Backend::ghash_partial(bc_gf128 h, const uint8_t* data, size_t len, bc_gf128* out) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    MemHandle hpow;
    BC_TRY(upload_hpow(h, &hpow));
    // Pieces are whole blocks; each keeps its group results until the fold.
    std::vector<std::vector<uint64_t>> groups((len + chunk_bytes(16) - 1) / chunk_bytes(16));
    std::vector<size_t> lens(groups.size());
    BC_TRY(pipeline(data, nullptr, len, 16, nullptr,
                    [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                        lens[pc.index] = pc.len;
                        return ghash_enqueue(q, buf, pc.len, hpow.get(), slot, &groups[pc.index]);
                    }));
    *out = ghash_fold_groups(h, groups, lens);
    return Status::ok();
}

// ---- AES ------------------------------------------------------------------------

Status Backend::aes_kernel(const char* name, cl_kernel* out) {
    const Program* p = nullptr;
    BC_TRY(program(kFamilyAes, &p));
    *out = p->kernel(name);
    if (*out == nullptr) return Status(BC_ERR_INTERNAL, std::string("OpenCL kernel missing: ") + name);
    return Status::ok();
}

// Work-items for n blocks at 32 blocks (one bitsliced batch) each.
size_t batches(size_t nblocks) { return (nblocks + 31) / 32; }

Status Backend::aes_ctr_enqueue(const OclKey& k, cl_command_queue q, cl_mem buf, const uint8_t ctr[16],
                                bool inc32, size_t nblocks) {
    cl_kernel kern = nullptr;
    BC_TRY(aes_kernel("bc_aes_ctr", &kern));
    cl_mem rk = k.rk_enc.get();
    BC_TRY(set_args(kern, buf, cl_ulong(nblocks), rk, cl_int(k.rounds), cl_ulong(bc_load_be64(ctr)),
                    cl_ulong(bc_load_be64(ctr + 8)), cl_int(inc32 ? 1 : 0)));
    return launch(q, kern, batches(nblocks), local_, true);
}

Status Backend::alpha_table(cl_mem* out) {
    if (!apow_) {
        // alpha = x: in GCM's bit order the coefficient of x^1 is bit 62 of hi.
        uint64_t table[128];
        bc_gf128 p{uint64_t(1) << 62, 0};
        for (int i = 0; i < 64; ++i) {
            table[2 * i] = p.hi;
            table[2 * i + 1] = p.lo;
            p = bc_gf128_mul(p, p);
        }
        BC_TRY(upload(table, sizeof table, &apow_));
    }
    *out = apow_.get();
    return Status::ok();
}

Status Backend::aes_xts_piece(const OclKey& k, const CipherOp& op, cl_command_queue q, cl_mem buf, Piece& pc,
                              Slot& slot) {
    const bool enc = op.dir == Dir::Encrypt;
    const size_t unit = op.data_unit ? static_cast<size_t>(op.data_unit) : pc.len;
    const size_t full_units = pc.len / unit;
    const size_t rest = pc.len % unit;  // a shorter last unit (>= 16 bytes), at the end of the call
    const size_t units = full_units + (rest ? 1 : 0);
    const uint64_t first_unit = op.data_unit ? pc.pos / op.data_unit : 0;
    cl_mem apow = nullptr;
    BC_TRY(alpha_table(&apow));

    // Encrypted tweaks of the piece's units into the slot's aux buffer.
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 16 * units));
    cl_mem tweaks = slot.aux.get();
    uint8_t t0[16];
    std::memcpy(t0, op.iv, 16);
    add_le128(t0, first_unit);
    cl_kernel kt = nullptr;
    BC_TRY(aes_kernel("bc_aes_xts_tweaks", &kt));
    cl_mem rk2 = k.rk_tweak.get(), rk = k.rk_enc.get();
    BC_TRY(set_args(kt, tweaks, cl_ulong(units), cl_ulong(bc_load_le64(t0)), cl_ulong(bc_load_le64(t0 + 8)), rk2,
                    cl_int(k.rounds)));
    BC_TRY(launch(q, kt, batches(units), local_, true));

    cl_kernel km = nullptr, ks = nullptr;
    BC_TRY(aes_kernel(enc ? "bc_aes_xts_enc" : "bc_aes_xts_dec", &km));
    BC_TRY(aes_kernel(enc ? "bc_aes_xts_steal_enc" : "bc_aes_xts_steal_dec", &ks));
    struct Group {
        size_t base, nunits, unit_bytes, tbase;
    };
    Group groups[2] = {{0, full_units, unit, 0}, {full_units * unit, rest ? 1u : 0u, rest, full_units}};
    for (const Group& g : groups) {
        if (g.nunits == 0) continue;
        const size_t m = g.unit_bytes / 16, tail = g.unit_bytes % 16;
        const size_t plain = tail ? m - 1 : m;
        if (plain) {
            const size_t segs = (plain + 31) / 32;
            BC_TRY(set_args(km, buf, cl_ulong(g.base), cl_ulong(g.nunits), cl_ulong(g.unit_bytes), cl_ulong(plain),
                            cl_ulong(segs), tweaks, cl_ulong(g.tbase), apow, rk, cl_int(k.rounds)));
            BC_TRY(launch(q, km, g.nunits * segs, local_, true));
        }
        if (tail) {
            BC_TRY(set_args(ks, buf, cl_ulong(g.base), cl_ulong(g.nunits), cl_ulong(g.unit_bytes), cl_ulong(m),
                            cl_int(tail), tweaks, cl_ulong(g.tbase), apow, rk, cl_int(k.rounds)));
            BC_TRY(launch(q, ks, batches(g.nunits), local_, true));
        }
    }
    return Status::ok();
}

Status Backend::aes_cipher(const OclKey& k, const CipherOp& op) {
    const bool enc = op.dir == Dir::Encrypt;
    cl_mem rk = k.rk_enc.get();
    const cl_int rounds = k.rounds;
    switch (k.alg->mode) {
        case Mode::ECB: {
            cl_kernel kern = nullptr;
            BC_TRY(aes_kernel(enc ? "bc_aes_ecb_enc" : "bc_aes_ecb_dec", &kern));
            return pipeline(op.in, op.out, op.len, 16, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                const size_t n = pc.len / 16;
                BC_TRY(set_args(kern, buf, cl_ulong(n), rk, rounds));
                return launch(q, kern, batches(n), local_, true);
            });
        }
        case Mode::CTR: {
            auto lead = [&](size_t pos) { return static_cast<size_t>((op.offset + pos) % 16); };
            return pipeline(op.in, op.out, op.len, 16, lead, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                uint8_t ctr[16];
                std::memcpy(ctr, op.iv, 16);
                add_be128(ctr, (op.offset + pc.pos) / 16);
                return aes_ctr_enqueue(k, q, buf, ctr, false, (pc.lead + pc.len + 15) / 16);
            });
        }
        case Mode::CBC: {
            if (enc) {
                // One chain: every piece on one queue, the chaining block kept on the device.
                MemHandle chain;
                cl_uint4 iv = le_words(op.iv);
                BC_TRY(upload(iv.s, 16, &chain));
                cl_kernel kern = nullptr;
                BC_TRY(aes_kernel("bc_aes_cbc_enc", &kern));
                cl_mem c = chain.get();
                return pipeline(op.in, op.out, op.len, 16, nullptr,
                                [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot&) {
                                    BC_TRY(set_args(kern, buf, cl_ulong(pc.len / 16), rk, rounds, c));
                                    return launch(q, kern, 1, 1, true);
                                },
                                true);
            }
            // Decryption: each piece's chaining block is the ciphertext block before it,
            // read now, before an in-place call overwrites it.
            const size_t chunk = chunk_bytes(16);
            std::vector<cl_uint4> chains((op.len + chunk - 1) / chunk);
            for (size_t i = 0; i < chains.size(); ++i)
                chains[i] = le_words(i == 0 ? op.iv : op.in + i * chunk - 16);
            cl_kernel kern = nullptr;
            BC_TRY(aes_kernel("bc_aes_cbc_dec", &kern));
            Status s = pipeline(op.in, op.out, op.len, 16, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, pc.len));
                cl_mem out = slot.aux.get();
                const size_t n = pc.len / 16;
                BC_TRY(set_args(kern, buf, out, cl_ulong(n), rk, rounds, chains[pc.index]));
                pc.result = out;
                return launch(q, kern, batches(n), local_, true);
            });
            secure_wipe(chains.data(), chains.size() * sizeof(cl_uint4));
            return s;
        }
        case Mode::XTS: {
            const size_t align = op.data_unit ? static_cast<size_t>(op.data_unit) : op.len;
            return pipeline(op.in, op.out, op.len, align, nullptr,
                            [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                                return aes_xts_piece(k, op, q, buf, pc, slot);
                            });
        }
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: AES mode not available");
    }
}

Status Backend::gcm_chunk(const OclKey& k, AeadChunkOp& op) {
    const bool enc = op.dir == Dir::Encrypt;
    const size_t chunk = chunk_bytes(64);
    std::vector<std::vector<uint64_t>> groups((op.len + chunk - 1) / chunk);
    std::vector<size_t> lens(groups.size());
    BC_TRY(pipeline(op.in, op.out, op.len, 64, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
        lens[pc.index] = pc.len;
        uint8_t ctr[16];
        std::memcpy(ctr, op.ctr, 16);
        gcm_inc32(ctr, pc.pos / 16);
        // GHASH covers the ciphertext: after the keystream when sealing, before when opening.
        if (!enc) BC_TRY(ghash_enqueue(q, buf, pc.len, k.hpow.get(), slot, &groups[pc.index]));
        BC_TRY(aes_ctr_enqueue(k, q, buf, ctr, true, (pc.len + 15) / 16));
        if (enc) BC_TRY(ghash_enqueue(q, buf, pc.len, k.hpow.get(), slot, &groups[pc.index]));
        return Status::ok();
    }));
    bc_gf128 part = ghash_fold_groups(k.h, groups, lens);
    std::memset(op.partial, 0, sizeof op.partial);
    bc_gf128_store(op.partial, part);
    return Status::ok();
}


// ---- Poly1305 -------------------------------------------------------------------

// 17 little-endian bytes (< 2^130) <-> the kernels' five 26-bit limbs.
void limbs_from17(const uint8_t b[17], uint32_t l[5]) {
    const uint64_t w0 = bc_load_le64(b), w1 = bc_load_le64(b + 8), w2 = b[16];
    const uint64_t m = 0x3ffffff;
    l[0] = static_cast<uint32_t>(w0 & m);
    l[1] = static_cast<uint32_t>((w0 >> 26) & m);
    l[2] = static_cast<uint32_t>(((w0 >> 52) | (w1 << 12)) & m);
    l[3] = static_cast<uint32_t>((w1 >> 14) & m);
    l[4] = static_cast<uint32_t>(((w1 >> 40) | (w2 << 24)) & m);
}
void limbs_to17(const uint32_t in[5], uint8_t b[17]) {
    uint64_t l[5] = {in[0], in[1], in[2], in[3], in[4]};
    for (int pass = 0; pass < 2; ++pass) {  // every limb below 2^26, the value below 2^130
        for (int i = 0; i < 4; ++i) { l[i + 1] += l[i] >> 26; l[i] &= 0x3ffffff; }
        l[0] += 5 * (l[4] >> 26);
        l[4] &= 0x3ffffff;
    }
    for (int i = 0; i < 4; ++i) { l[i + 1] += l[i] >> 26; l[i] &= 0x3ffffff; }
    const uint64_t w0 = l[0] | (l[1] << 26) | (l[2] << 52);
    const uint64_t w1 = (l[2] >> 12) | (l[3] << 14) | (l[4] << 40);
    bc_store_le64(b, w0);
    bc_store_le64(b + 8, w1);
    b[16] = static_cast<uint8_t>(l[4] >> 24);
}

Status Backend::upload_rpow(const uint8_t r[16], MemHandle* out) {
    uint32_t table[5 * 64];
    Poly1305Elem p = poly1305_load_r(r);
    uint8_t b[17];
    for (int k = 0; k < 64; ++k) {
        poly1305_store17(p, b);
        limbs_from17(b, table + 5 * k);
        p = poly1305_mul(p, p);
    }
    Status s = upload(table, sizeof table, out);
    secure_wipe(table, sizeof table);
    secure_wipe(b, sizeof b);
    secure_wipe_object(p);
    return s;
}

Status Backend::poly_enqueue(cl_command_queue q, cl_mem buf, size_t len, cl_mem rpow, Slot& slot,
                             std::vector<uint32_t>* groups) {
    const Program* p = nullptr;
    BC_TRY(program(kFamilyStream, &p));
    cl_kernel kern = p->kernel("bc_poly1305_partial");
    if (kern == nullptr) return Status(BC_ERR_INTERNAL, "OpenCL kernel missing: bc_poly1305_partial");
    poly_kernel_ = kern;
    const size_t nblocks = (len + 15) / 16;
    const size_t items = (nblocks + ghash_per_item_ - 1) / ghash_per_item_;
    const size_t ngroups = (items + mac_local_ - 1) / mac_local_;
    groups->assign(5 * ngroups, 0);
    if (ngroups == 0) return Status::ok();
    BC_TRY(ensure(nullptr, &slot.aux, &slot.aux_cap, 20 * ngroups));
    cl_mem aux = slot.aux.get();
    BC_TRY(set_args(kern, buf, cl_ulong(len), cl_uint(ghash_per_item_), rpow, aux,
                    LocalBytes{6 * mac_local_ * sizeof(cl_uint)}));
    BC_TRY(launch(q, kern, items, mac_local_, true));
    BC_CL_TRY(clEnqueueReadBuffer(q, aux, CL_FALSE, 0, 20 * ngroups, groups->data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
    return Status::ok();
}

void Backend::poly_fold_groups(const uint8_t r[16], const std::vector<std::vector<uint32_t>>& groups,
                               const std::vector<size_t>& piece_len, uint8_t out[17]) const {
    const uint64_t group_blocks = uint64_t(ghash_per_item_) * mac_local_;
    const Poly1305Elem re = poly1305_load_r(r);
    const Poly1305Elem r_group = poly1305_pow(re, group_blocks);
    Poly1305Elem acc{{0, 0, 0}};
    uint8_t b[17];
    for (size_t p = 0; p < groups.size(); ++p) {
        const uint64_t blocks = (piece_len[p] + 15) / 16;
        for (size_t g = 0; 5 * g < groups[p].size(); ++g) {
            const uint64_t n = std::min<uint64_t>(group_blocks, blocks - g * group_blocks);
            limbs_to17(groups[p].data() + 5 * g, b);
            acc = poly1305_add(poly1305_mul(acc, n == group_blocks ? r_group : poly1305_pow(re, n)),
                               poly1305_load17(b));
        }
    }
    poly1305_store17(acc, out);
    secure_wipe(b, sizeof b);
}

Status Backend::poly_partial(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t out[17]) {
    MemHandle rpow;
    BC_TRY(upload_rpow(r, &rpow));
    const size_t chunk = chunk_bytes(16);
    std::vector<std::vector<uint32_t>> groups((len + chunk - 1) / chunk);
    std::vector<size_t> lens(groups.size());
    BC_TRY(pipeline(data, nullptr, len, 16, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
        lens[pc.index] = pc.len;
        return poly_enqueue(q, buf, pc.len, rpow.get(), slot, &groups[pc.index]);
    }));
    poly_fold_groups(r, groups, lens, out);
    return Status::ok();
}

Status Backend::poly1305_partial_device(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t partial[17]) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return poly_partial(r, data, len, partial);
}

// ---- ChaCha20-Poly1305 -------------------------------------------------------------

Status Backend::chachapoly_chunk(const OclKey& k, AeadChunkOp& op) {
    const bool enc = op.dir == Dir::Encrypt;
    uint32_t base[16];
    std::memcpy(base, k.state, sizeof base);
    if (op.subkey) bc_chacha_set_key(base, op.subkey, 32);
    bc_chacha_set_words12(base, op.ctr);
    MemHandle rpow;
    Status s = upload_rpow(op.mac_key, &rpow);
    const size_t chunk = chunk_bytes(64);
    std::vector<std::vector<uint32_t>> groups((op.len + chunk - 1) / chunk);
    std::vector<size_t> lens(groups.size());
    if (s.is_ok())
        s = pipeline(op.in, op.out, op.len, 64, nullptr, [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
            lens[pc.index] = pc.len;
            // Poly1305 covers the ciphertext: after the keystream when sealing, before when opening.
            if (!enc) BC_TRY(poly_enqueue(q, buf, pc.len, rpow.get(), slot, &groups[pc.index]));
            uint32_t st[16];
            std::memcpy(st, base, sizeof st);
            bc_chacha_add_counter(st, BC_CHACHA_LAYOUT_IETF, pc.pos / 64);
            Status r = stream_kernel(k, st, BC_CHACHA_LAYOUT_IETF, q, buf, 0, pc.len);
            secure_wipe(st, sizeof st);
            BC_TRY(r);
            if (enc) BC_TRY(poly_enqueue(q, buf, pc.len, rpow.get(), slot, &groups[pc.index]));
            return Status::ok();
        });
    secure_wipe(base, sizeof base);
    BC_TRY(s);
    std::memset(op.partial, 0, sizeof op.partial);
    poly_fold_groups(op.mac_key, groups, lens, op.partial);
    return Status::ok();
}

// ---- the Backend entry points --------------------------------------------------

Status Backend::cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) {
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: host memory only");
    const auto& k = static_cast<const OclKey&>(bkey);
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (op.len == 0) return Status::ok();
    switch (k.alg->mode) {
        case Mode::Stream:
            return stream_cipher(k, op, nullptr);
        case Mode::ECB:
        case Mode::CBC:
        case Mode::CTR:
        case Mode::XTS:
            return aes_cipher(k, op);
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: not a raw mode");
    }
}

Status Backend::cipher_buffer(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op,
                              cl_mem buf, double* kernel_seconds) {
    const auto& k = static_cast<const OclKey&>(bkey);
    std::lock_guard<std::recursive_mutex> lock(mu_);
    Status s;
    switch (k.alg->mode) {
        case Mode::Stream:
            s = stream_cipher(k, op, buf);
            break;
        case Mode::CTR: {
            if (op.offset % 16) return Status(BC_ERR_INVALID_ARGUMENT, "cipher_buffer: offset not block aligned");
            uint8_t ctr[16];
            std::memcpy(ctr, op.iv, 16);
            add_be128(ctr, op.offset / 16);
            s = finish_all(aes_ctr_enqueue(k, slots_[0].queue.get(), buf, ctr, false, (op.len + 15) / 16));
            break;
        }
        default:
            s = Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: mode not available on device buffers");
    }
    if (kernel_seconds) *kernel_seconds = last_kernel_s_;
    return s;
}

Status Backend::aead_chunk(const KeyMaterial& key, const BackendKey& bkey, AeadChunkOp& op) {
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: host memory only");
    const auto& k = static_cast<const OclKey&>(bkey);
    std::lock_guard<std::recursive_mutex> lock(mu_);
    switch (k.alg->mode) {
        case Mode::GCM:
            if (op.len == 0) {
                std::memset(op.partial, 0, sizeof op.partial);
                return Status::ok();
            }
            return gcm_chunk(k, op);
        case Mode::ChaChaPoly:
            if (op.len == 0) {
                std::memset(op.partial, 0, sizeof op.partial);
                return Status::ok();
            }
            return chachapoly_chunk(k, op);
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: not an AEAD");
    }
}

Status Backend::mac(const KeyMaterial& key, const BackendKey& bkey, MacOp& op) {
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: host memory only");
    const auto& k = static_cast<const OclKey&>(bkey);
    std::memset(op.partial, 0, sizeof op.partial);
    switch (k.alg->mode) {
        case Mode::GCM: {
            // A device round trip costs more than hashing a short AAD here.
            constexpr size_t kDeviceMacMin = 4096;
            bc_gf128 part{0, 0};
            if (op.len < kDeviceMacMin) {
                part = bc::ghash_partial(k.h, op.data, op.len);
            } else {
                std::lock_guard<std::recursive_mutex> lock(mu_);
                const size_t chunk = chunk_bytes(16);
                std::vector<std::vector<uint64_t>> groups((op.len + chunk - 1) / chunk);
                std::vector<size_t> lens(groups.size());
                BC_TRY(pipeline(op.data, nullptr, op.len, 16, nullptr,
                                [&](cl_command_queue q, cl_mem buf, Piece& pc, Slot& slot) {
                                    lens[pc.index] = pc.len;
                                    return ghash_enqueue(q, buf, pc.len, k.hpow.get(), slot, &groups[pc.index]);
                                }));
                part = ghash_fold_groups(k.h, groups, lens);
            }
            bc_gf128_store(op.partial, part);
            return Status::ok();
        }
        case Mode::ChaChaPoly: {
            if (op.len < 4096) {  // as for GCM: short AADs are cheaper here
                poly1305_partial(op.mac_key, op.data, op.len, op.partial);
                return Status::ok();
            }
            std::lock_guard<std::recursive_mutex> lock(mu_);
            return poly_partial(op.mac_key, op.data, op.len, op.partial);
        }
        default:
            return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: no MAC for this algorithm");
    }
}

Status Backend::wipe(void* p, size_t n, bc_memory memory, void*) {
    if (memory != BC_MEMORY_HOST) return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: host memory only");
    if (p && n) secure_wipe(p, n);
    return Status::ok();
}

}  // namespace
}  // namespace ocl

Status opencl_device_list(std::vector<std::string>* out) {
    out->clear();
    std::vector<ocl::DeviceInfo> devs;
    BC_TRY(ocl::list_devices(&devs));
    for (size_t i = 0; i < devs.size(); ++i)
        out->push_back("opencl:" + std::to_string(i) + " " + devs[i].describe());
    return Status::ok();
}

Status make_opencl_backend(int index, const ContextOptions& opt, std::unique_ptr<Backend>* out) {
    std::vector<ocl::DeviceInfo> devs;
    BC_TRY(ocl::list_devices(&devs));
    if (devs.empty())
        return Status(BC_ERR_NO_DEVICE, "OpenCL: the installed platforms report no device");
    if (index < 0 || static_cast<size_t>(index) >= devs.size())
        return Status(BC_ERR_NO_DEVICE, "OpenCL: no device opencl:" + std::to_string(index) + " (this machine has " +
                                            std::to_string(devs.size()) + ", numbered from 0)");
    auto be = std::make_unique<ocl::Backend>(devs[static_cast<size_t>(index)], opt);
    BC_TRY(be->init());
    *out = std::move(be);
    return Status::ok();
}

}  // namespace bc
