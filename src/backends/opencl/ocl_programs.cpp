// OpenCL programs: assembled from the embedded sources, built through the
// binary cache (cl_util), their kernels looked up once. A failed build is
// remembered, not retried per call.
#include "backends/opencl/ocl_backend_impl.h"

#include <cctype>
#include <sstream>

#include "backends/opencl/cl_embedded.h"

namespace bc {
namespace ocl {
namespace {

// The generic block program's kernels (kernels/block.cl); the XTS ones exist for
// 16-byte blocks only.
const char* const kBlockKernels[] = {"bc_block_ecb_enc", "bc_block_ecb_dec", "bc_block_ctr",
                                     "bc_block_cbc_save", "bc_block_cbc_dec", nullptr};
const char* const kBlockKernels16[] = {"bc_block_ecb_enc",  "bc_block_ecb_dec",  "bc_block_ctr",
                                       "bc_block_cbc_save", "bc_block_cbc_dec",  "bc_block_xts_list",
                                       "bc_block_xts_enc",  "bc_block_xts_dec",  nullptr};

void report_program(std::ostringstream& o, const std::string& name, const Program& p) {
    if (!p.tried) return;
    o << name << ": " << (p.error.is_ok() ? (p.build.from_cache ? "cached binary" : "compiled") : "failed")
      << " in " << p.build.seconds << " s";
    if (!p.build.cache_path.empty()) o << " (" << p.build.cache_path << ")";
    o << "\n" << p.info;
}

}  // namespace

std::string Backend::build_report() const {
    std::ostringstream o;
    for (int f = 0; f < kFamilyCount; ++f) report_program(o, family_name(static_cast<Family>(f)), programs_[f]);
    for (const auto& b : block_programs_) report_program(o, "block/" + b.first, b.second);
    return o.str();
}

size_t Backend::kernel_work_group_limit() const {
    size_t limit = 0;
    auto take = [&](const Program& p) {
        if (p.tried && p.error.is_ok() && p.max_group && (limit == 0 || p.max_group < limit)) limit = p.max_group;
    };
    for (const Program& p : programs_) take(p);
    for (const auto& b : block_programs_) take(b.second);
    return limit;
}

Status Backend::build(Program& p, const std::string& root_name, const std::string& source,
                      const char* const* kernels) {
    p.tried = true;
    p.error = build_program(ctx_.get(), dev_, source, options_, &p.prog, &p.build);
    if (!p.error.is_ok()) {
        p.error.detail = root_name + ": " + p.error.detail;
        return p.error;
    }
    for (const char* const* k = kernels; *k; ++k) {
        cl_int err = CL_SUCCESS;
        KernelHandle kh(clCreateKernel(p.prog.get(), *k, &err));
        if (err != CL_SUCCESS) {
            p.error = cl_status(err, (std::string("clCreateKernel ") + *k).c_str());
            return p.error;
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
    return Status::ok();
}

Status Backend::program(Family f, const Program** out) {
    Program& p = programs_[f];
    if (!p.tried) {
        std::string src;
        p.error = assemble_source(family_root(f), &src);
        if (p.error.is_ok()) build(p, family_root(f), src, family_kernels(f));
        p.tried = true;
    }
    if (!p.error.is_ok()) return p.error;
    *out = &p;
    return Status::ok();
}

Status Backend::block_program(const BlockCipher& cipher, const Program** out) {
    Program& p = block_programs_[cipher.name];
    if (!p.tried) {
        p.tried = true;
        // The cipher's device core as its folder registers it (device.inc), found by
        // the catalogue's name: nothing here names a particular cipher.
        const EmbeddedBlockCipher* dev = nullptr;
        static const std::vector<EmbeddedBlockCipher> ciphers = embedded_block_ciphers();
        for (const EmbeddedBlockCipher& c : ciphers)
            if (c.id == cipher.name) dev = &c;
        if (dev == nullptr) {
            p.error = Status(BC_ERR_NOT_SUPPORTED,
                             std::string("OpenCL backend: block cipher ") + cipher.name + " has no device core");
            return p.error;
        }
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
            << "#include \"backends/opencl/kernels/block.cl\"\n";
        std::string src;
        const std::string name = std::string("block/") + cipher.name;
        p.error = assemble_text(name, pre.str(), &src);
        if (p.error.is_ok()) build(p, name, src, cipher.block_bytes == 16 ? kBlockKernels16 : kBlockKernels);
    }
    if (!p.error.is_ok()) return p.error;
    *out = &p;
    return Status::ok();
}

}  // namespace ocl
}  // namespace bc
