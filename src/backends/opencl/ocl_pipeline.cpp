// The host-memory pipeline: a call cut into pieces, each uploaded, worked on and
// downloaded on one of kSlots in-order queues, so transfers overlap kernels.
#include "backends/opencl/ocl_backend_impl.h"

#include <algorithm>

namespace bc {
namespace ocl {

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
    size_t c = opt_.chunk ? opt_.chunk : tuning::select_tuning(traits_).pipeline.chunk_bytes;  // tuning entry
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

}  // namespace ocl
}  // namespace bc
