// Memory the binding hands to the C API: host buffers through Python's buffer
// protocol (held for one call, never copied) and DLPack capsules read in place.
#pragma once

#include <cstddef>
#include <cstdint>

#include <nanobind/nanobind.h>

namespace bcpy {

// A contiguous host buffer exported by `obj` for the lifetime of this object.
class HostBuffer {
public:
    HostBuffer() = default;
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer() {
        if (held_) PyBuffer_Release(&view_);
    }

    // False, with no Python error set, when obj does not export a buffer. Raises
    // bulkcrypt.InvalidArgument (naming `what`) when it does but the buffer is not
    // C-contiguous, or is read-only where `writable` is asked: never a silent copy.
    bool acquire(nanobind::handle obj, bool writable, const char* what);

    uint8_t* data() const { return static_cast<uint8_t*>(view_.buf); }
    size_t size() const { return static_cast<size_t>(view_.len); }

private:
    Py_buffer view_{};
    bool held_ = false;
};

// Like acquire, but None is an empty buffer and anything else without the buffer
// protocol is refused (nonces, IVs, AAD and tags live on the host).
void acquire_host_bytes(HostBuffer& buf, nanobind::handle obj, const char* what, bool allow_none);

// What a DLPack capsule describes, read without consuming it: the producer's
// capsule destructor releases the tensor when the capsule is dropped.
struct DlpackView {
    uintptr_t ptr = 0;
    uint64_t nbytes = 0;
    int device_type = 0;  // DLPack's DLDeviceType: 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed
    int device_id = 0;
    bool contiguous = false;
    bool readonly = false;
};
DlpackView read_dlpack(nanobind::handle capsule);

void bind_buffers(nanobind::module_& m);

}  // namespace bcpy
