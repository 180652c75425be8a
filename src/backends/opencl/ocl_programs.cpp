// OpenCL program parts: assembled from the embedded sources, built through the
// binary cache (cl_util) when a key or a call first needs one of their kernels,
// their kernels looked up once. A failed build is remembered, not retried per call.
#include "backends/opencl/ocl_backend_impl.h"

#include <cstring>
#include <sstream>

#include "backends/opencl/cl_embedded.h"

namespace bc {
namespace ocl {
namespace {

// A part's root under its define.
std::string part_text(const PartSpec& spec) {
    return std::string("#define ") + spec.define + " 1\n#include \"" + spec.root + "\"\n";
}

// block.cl for one cipher and part: the cipher's device core as its folder registers
// it (device.inc), found by the catalogue's name, so nothing here names a cipher.
Status block_source(const BlockCipher& cipher, const PartSpec& spec, const std::string& name, std::string* out) {
    const EmbeddedBlockCipher* dev = nullptr;
    static const std::vector<EmbeddedBlockCipher> ciphers = embedded_block_ciphers();
    for (const EmbeddedBlockCipher& c : ciphers)
        if (c.id == cipher.name) dev = &c;
    if (dev == nullptr)
        return Status(BC_ERR_NOT_SUPPORTED, std::string("OpenCL backend: block cipher ") + cipher.name +
                                                " has no device core");
    std::ostringstream pre;
    // Keys in constant memory; a table cipher's copied into local memory by each
    // work-group (block.cl, BC_BLK_KS_LOCAL): constant memory serves one address a
    // cycle, and table lookups by data send each lane to its own.
    pre << "#define BC_DEVICE_BLOCK_CIPHER(id, ID)\n"
        << "#define BC_" << dev->uid << "_KS_SPACE " << (dev->tables ? "BC_LOCAL" : "BC_CONSTANT") << "\n"
        << (dev->tables ? "#define BC_BLK_KS_LOCAL 1\n" : "")
        << "#include \"" << dev->device_inc << "\"\n"
        << "#define BC_CIPHER_ID " << dev->id << "\n"
        << "#define BC_CIPHER_UID " << dev->uid << "\n"
        << part_text(spec);
    return assemble_text(name, pre.str(), out);
}

}  // namespace

Status Parts::kernel(const std::string& part, const char* const* kernels, const Source& source, const char* name,
                     cl_kernel* out, const std::string& extra_options) {
    auto it = parts_.find(part);
    if (it == parts_.end()) {
        it = parts_.emplace(part, Program()).first;
        order_.push_back(part);
        build(it->second, part, source, kernels, options_ + extra_options);
    }
    const Program& p = it->second;
    if (!p.error.is_ok()) return p.error;
    *out = p.kernel(name);
    if (*out == nullptr) return Status(BC_ERR_INTERNAL, std::string("OpenCL kernel missing: ") + name + " in " + part);
    return Status::ok();
}

void Parts::build(Program& p, const std::string& part, const Source& source, const char* const* kernels,
                  const std::string& options) {
    std::string src;
    p.error = source(&src);
    if (p.error.is_ok()) p.error = build_program(ctx_, dev_, src, options, &p.prog, &p.build);
    for (const char* const* k = kernels; p.error.is_ok() && *k; ++k) {
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
        if (wg && (p.max_group == 0 || wg < p.max_group)) p.max_group = wg;
        p.info += std::string("  ") + *k + ": max group " + std::to_string(wg) + ", private " +
                  std::to_string(priv) + " B (spills when > 0 on GPUs), local " + std::to_string(loc) + " B\n";
        p.kernels.emplace_back(*k, std::move(kh));
    }
    if (!p.error.is_ok()) {
        p.error.detail = part + ": " + p.error.detail;
        p.kernels.clear();
        p.max_group = 0;
    }
}

std::string Parts::report() const {
    std::ostringstream o;
    for (const std::string& name : order_) {
        const Program& p = parts_.at(name);
        o << name << ": " << (p.error.is_ok() ? (p.build.from_cache ? "cached binary" : "compiled") : "failed")
          << " in " << p.build.seconds << " s";
        if (!p.build.cache_path.empty()) o << " (" << p.build.cache_path << ")";
        o << "\n" << p.info;
    }
    return o.str();
}

std::vector<OpenClPart> Parts::list() const {
    std::vector<OpenClPart> r;
    for (const std::string& name : order_) {
        const Program& p = parts_.at(name);
        r.push_back(OpenClPart{name, p.error.is_ok(), p.build.from_cache, p.build.seconds});
    }
    return r;
}

size_t Parts::work_group_limit() const {
    size_t limit = 0;
    for (const auto& e : parts_) {
        const Program& p = e.second;
        if (p.error.is_ok() && p.max_group && (limit == 0 || p.max_group < limit)) limit = p.max_group;
    }
    return limit;
}

std::string Backend::build_report() const {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return parts_.report();
}

std::vector<OpenClPart> Backend::program_parts() const {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return parts_.list();
}

size_t Backend::kernel_work_group_limit() const {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    return parts_.work_group_limit();
}

Status Backend::kernel(const char* name, cl_kernel* out) {
    const PartSpec* spec = part_of(kParts, name);
    if (spec == nullptr) return Status(BC_ERR_INTERNAL, std::string("OpenCL kernel missing: ") + name);
    std::string part = spec->name, extra;
    if (std::strcmp(spec->define, "BC_PART_AES_CTR_PAIR") == 0 && aes_regs_ > 0) {
        // NVIDIA's OpenCL has no __launch_bounds__: the register cap is how the pair kernel's
        // groups come to reside together (a binary of its own per cap)
        extra = " -cl-nv-maxrregcount=" + std::to_string(aes_regs_);
        part += "/r" + std::to_string(aes_regs_);
    }
    return parts_.kernel(
        part, spec->kernels, [spec](std::string* src) { return assemble_text(spec->name, part_text(*spec), src); },
        name, out, extra);
}

Status Backend::build_key_parts(const OclKey& k) {
    const Mode mode = k.alg->mode;
    std::vector<const char*> own, generic;
    if (k.cipher) {
        switch (mode) {
            case Mode::CTR:
            case Mode::GCM: generic = {"bc_block_ctr"}; break;
            case Mode::ECB: generic = {"bc_block_ecb_enc", "bc_block_ecb_dec"}; break;
            case Mode::CBC: generic = {"bc_block_cbc_dec"}; break;  // encryption runs on the host
            case Mode::XTS:
                generic = {"bc_block_xts_list", "bc_block_ecb_enc", "bc_block_xts_enc", "bc_block_xts_dec"};
                break;
            default: break;
        }
    } else if (k.alg->cipher == Cipher::AES) {
        switch (mode) {
            case Mode::CTR:
            case Mode::GCM: own = {aes_variant_ == 1 ? "bc_aes_ctr_pair" : "bc_aes_ctr"}; break;
            case Mode::ECB: own = {"bc_aes_ecb_enc", "bc_aes_ecb_dec"}; break;
            case Mode::CBC: own = {"bc_aes_cbc_enc", "bc_aes_cbc_dec"}; break;
            case Mode::XTS: own = {"bc_aes_xts_tweaks", "bc_aes_xts_enc", "bc_aes_xts_dec"}; break;
            default: break;
        }
    } else {
        own = {stream_kernel_name(*k.alg)};
    }
    if (mode == Mode::GCM) own.push_back("bc_ghash_partial");
    if (mode == Mode::ChaChaPoly) own.push_back("bc_poly1305_partial");
    cl_kernel unused = nullptr;
    for (const char* name : generic) BC_TRY(block_kernel(k, name, &unused));
    for (const char* name : own) BC_TRY(kernel(name, &unused));
    return Status::ok();
}

Status Backend::block_kernel(const OclKey& k, const char* name, cl_kernel* out) {
    const PartSpec* spec = part_of(kBlockParts, name);
    if (spec == nullptr) return Status(BC_ERR_INTERNAL, std::string("OpenCL kernel missing: ") + name);
    const BlockCipher& cipher = *k.cipher;
    const std::string part = std::string("block/") + cipher.name + "/" + spec->name;
    return parts_.kernel(
        part, spec->kernels, [&](std::string* src) { return block_source(cipher, *spec, part, src); }, name, out);
}

}  // namespace ocl
}  // namespace bc
