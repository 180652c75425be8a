// The OpenCL backend: discovery, context, queues, keys and the Backend entry
// points, which hand each algorithm to its family's file (ocl_backend_impl.h).
// Kernels are the dialect cores compiled at run time from the embedded sources
// (cl_embedded.h), in program parts built on first use (opencl_kernels.h): a key
// builds the parts its mode launches, and no other.
#include "backends/opencl/ocl_backend_impl.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "backends/opencl/cl_embedded.h"
#include <sstream>

#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
#include "cores/chacha/chacha.h"
#include "cores/salsa/salsa.h"
#include "modes/gcm/gcm.h"
#include "modes/poly1305/poly1305.h"
#include "tuning/tuned.h"

namespace bc {
namespace ocl {

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
    // Launch shapes: the device's tuning entry (src/tuning), this machine's tuned one first
    // unless tuning=shipped, then the context's options.
    traits_ = tuning::DeviceTraits{tuning::DeviceKind::OpenCl, dev_.name, 0, 0, 0, dev_.is_gpu(),
                                   !opt_.tuning.shipped_only};
    tuning::warn_once(tuning::load_tuned(identity(), traits_));
    const tuning::Tuning t = tuning::apply_overrides(tuning::select_tuning(traits_), opt_.tuning);
    local_ = size_t(std::max(1, t.kernel.threads_per_block));
    if (dev_.max_work_group && local_ > dev_.max_work_group) local_ = dev_.max_work_group;
    choose_aes_kernel();
    ghash_per_item_ = dev_.is_gpu() ? 16 : 64;
    // Larger MAC groups on GPUs: fewer group results for the host to fold (one
    // multiplication each), 4096 blocks = 64 KiB per group.
    mac_local_ = dev_.is_gpu() ? 256 : 64;
    if (dev_.max_work_group && mac_local_ > dev_.max_work_group) mac_local_ = dev_.max_work_group;
    std::ostringstream o;
    o << "-cl-std=CL1.2"
      << " -DBC_DEV_GPU=" << (dev_.is_gpu() ? 1 : 0)
      << " -DBC_DEV_CPU=" << (dev_.is_cpu() ? 1 : 0)
      << " -DBC_DEV_NVIDIA=" << (dev_.is_nvidia() ? 1 : 0)
      << " -DBC_DEV_COMPUTE_UNITS=" << dev_.compute_units
      << " -DBC_DEV_LOCAL_MEM=" << dev_.local_mem;
    // (the work-group size is not among them: no kernel is built around it, so every size the
    // tuner tries runs the same cached programs)
    // aes=table: the OpenCL backend has only the constant-time bitsliced AES; the
    // option leaves it as it is (slower than asked for, never weaker). aes=generic:
    // AES's raw modes through the generic block kernels (generic_block).
    options_ = o.str();
    parts_ = Parts(ctx_.get(), dev_, options_);
    return Status::ok();
}

void Backend::choose_aes_kernel() {
    const tuning::Overrides& o = opt_.tuning;
    const tuning::Tuning t = tuning::select_tuning(traits_, "aes", "ctr");  // the generic entry without one
    aes_variant_ = o.opencl_aes_variant >= 0 ? o.opencl_aes_variant : t.kernel.variant;
    if (aes_variant_ < 0 || aes_variant_ >= tuning::kOpenClAesVariantCount) aes_variant_ = 0;
    int wg = o.opencl_aes_work_group ? o.opencl_aes_work_group : o.work_group ? o.work_group : t.kernel.threads_per_block;
    aes_local_ = size_t(std::max(1, wg));
    if (dev_.max_work_group && aes_local_ > dev_.max_work_group) aes_local_ = dev_.max_work_group;
    aes_groups_ = o.opencl_aes_groups ? o.opencl_aes_groups : std::max(0, t.kernel.blocks_per_sm);
    aes_regs_ = 0;
    if (aes_variant_ != 1) return;
    // Pairs need whole tiles in a group and local memory for the masks and the exchange.
    const size_t tile = kAesPairTileItems, asked = aes_local_;
    aes_local_ = std::max(tile, aes_local_ / tile * tile);
    if (dev_.max_work_group) aes_local_ = std::min(aes_local_, dev_.max_work_group / tile * tile);
    auto fits = [&] { return !dev_.local_mem || aes_pair_local_bytes(aes_local_, dev_.pair_shuffles()) <= dev_.local_mem; };
    while (aes_local_ > tile && !fits()) aes_local_ -= tile;
    if (aes_local_ < tile || !fits()) {
        aes_variant_ = 0;  // a device too small for pairs runs the batch kernel
        aes_local_ = asked;
        return;
    }
    if (dev_.pair_shuffles() && aes_groups_ > 0) {
        cl_uint regs = 65536;
        clGetDeviceInfo(dev_.device, 0x4002 /* CL_DEVICE_REGISTERS_PER_BLOCK_NV */, sizeof regs, &regs, nullptr);
        aes_regs_ = aes_pair_register_cap(regs, size_t(aes_groups_), aes_local_);
    }
}

tuning::DeviceIdentity Backend::identity() const {
    // FNV-1a over every embedded source: any kernel change makes a new identity
    static const std::string sources = [] {
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
            const EmbeddedFile& f = kEmbeddedFiles[i];
            for (const char* p = f.name; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ull;
            for (size_t j = 0; j < f.size; ++j) h = (h ^ static_cast<unsigned char>(f.text[j])) * 1099511628211ull;
        }
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
        return std::string(hex);
    }();
    tuning::DeviceIdentity id;
    id.kind = "opencl";
    id.name = dev_.name;
    id.driver = dev_.driver;
    id.runtime = dev_.version;
    id.arch = dev_.platform_name + " " + dev_.platform_version;
    id.bulkcrypt = bc_version();
    id.sources = sources;
    return id;
}

bool Backend::supports(const Algorithm& alg) const {
    if (generic_block(alg)) {
        // A cipher folder with a device core (device.inc) that the build embedded.
        static const std::vector<EmbeddedBlockCipher> ciphers = embedded_block_ciphers();
        for (const EmbeddedBlockCipher& c : ciphers)
            if (c.id == alg.block->name) return true;
        return false;
    }
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
    if (generic_block(*key.alg)) {
        BC_TRY(block_prepare_key(key, k.get()));
        BC_TRY(build_key_parts(*k));
        *out = std::move(k);
        return Status::ok();
    }
    switch (key.alg->cipher) {
        case Cipher::ChaCha20:
        case Cipher::XChaCha20:
            bc_chacha_set_key(k->state, key.raw.data(), static_cast<int>(key.raw.size()));
            break;
        case Cipher::Salsa20:
        case Cipher::XSalsa20:
            bc_salsa_set_key(k->state, key.raw.data(), static_cast<int>(key.raw.size()));
            break;
        case Cipher::AES: {
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
    BC_TRY(build_key_parts(*k));
    *out = std::move(k);
    return Status::ok();
}

// ---- the Backend entry points --------------------------------------------------

Status Backend::cipher(const KeyMaterial& key, const BackendKey& bkey, const CipherOp& op) {
    if (op.memory != BC_MEMORY_HOST)
        return Status(BC_ERR_NOT_SUPPORTED, "OpenCL backend: host memory only");
    const auto& k = static_cast<const OclKey&>(bkey);
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (op.len == 0) return Status::ok();
    if (k.cipher) return block_cipher(k, op);
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
            if (k.cipher) {
                const size_t bb = k.cipher->block_bytes;
                if (op.offset % bb)
                    return Status(BC_ERR_INVALID_ARGUMENT, "cipher_buffer: offset not block aligned");
                uint8_t ctr[16];
                std::memcpy(ctr, op.iv, bb);
                add_be_counter(ctr, bb, op.offset / bb);
                s = finish_all(block_ctr_enqueue(k, slots_[0].queue.get(), buf, ctr, op.len));
                break;
            }
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
