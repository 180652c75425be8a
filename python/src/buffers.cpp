#include "buffers.h"

#include <cstring>
#include <string>

#include "errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace bcpy {

bool HostBuffer::acquire(nb::handle obj, bool writable, const char* what) {
    if (!PyObject_CheckBuffer(obj.ptr())) return false;
    if (PyObject_GetBuffer(obj.ptr(), &view_, writable ? PyBUF_FULL : PyBUF_FULL_RO) != 0) {
        PyErr_Clear();
        if (writable && PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_FULL_RO) == 0) {
            PyBuffer_Release(&view_);
            raise_with(BC_ERR_INVALID_ARGUMENT, std::string(what) + " is read-only");
        }
        PyErr_Clear();
        // GPU arrays (CuPy) have a buffer hook that only refuses: their memory is
        // reached through DLPack or __cuda_array_interface__ instead.
        if (PyObject_HasAttrString(obj.ptr(), "__cuda_array_interface__") ||
            PyObject_HasAttrString(obj.ptr(), "__dlpack__"))
            return false;
        raise_with(BC_ERR_INVALID_ARGUMENT,
                   std::string(what) + ": its buffer cannot be exported (" + Py_TYPE(obj.ptr())->tp_name + ")");
    }
    held_ = true;
    // Object arrays hold pointers to Python objects, not data: encrypting them would
    // encrypt addresses, and writing them would corrupt the interpreter.
    if (view_.format && std::strchr(view_.format, 'O'))
        raise_with(BC_ERR_INVALID_ARGUMENT, std::string(what) + " holds Python objects (format '" + view_.format +
                                                "'), not bytes");
    if (!PyBuffer_IsContiguous(&view_, 'C'))
        raise_with(BC_ERR_INVALID_ARGUMENT,
                   std::string(what) +
                       " is not C-contiguous; bulkcrypt never copies behind your back "
                       "(numpy.ascontiguousarray makes a contiguous copy)");
    return true;
}

void acquire_host_bytes(HostBuffer& buf, nb::handle obj, const char* what, bool allow_none) {
    if (obj.is_none()) {
        if (allow_none) return;
        raise_with(BC_ERR_NULL_POINTER, std::string(what) + " is required");
    }
    if (!buf.acquire(obj, false, what))
        raise_with(BC_ERR_INVALID_ARGUMENT, std::string(what) + " must be a bytes-like object in host memory, not " +
                                                Py_TYPE(obj.ptr())->tp_name);
}

namespace {

// DLPack's ABI, written from its specification (dlpack.h, versions 0.8 and 1.x).
struct DLDevice {
    int32_t device_type;
    int32_t device_id;
};
struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
    uint32_t major;
    uint32_t minor;
};
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};
constexpr uint64_t kDlpackReadOnly = 1u << 0;

bool c_contiguous(const DLTensor& t) {
    if (!t.strides) return true;  // no strides: compact row-major, by the specification
    int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
        if (t.shape[i] != 1 && t.strides[i] != expected) return false;
        expected *= t.shape[i];
    }
    return true;
}

}  // namespace

DlpackView read_dlpack(nb::handle capsule) {
    const DLTensor* t = nullptr;
    DlpackView v;
    PyObject* cap = capsule.ptr();
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
        if (m->version.major != 1)
            raise_with(BC_ERR_NOT_SUPPORTED, "DLPack major version " + std::to_string(m->version.major) +
                                                 " is not supported (1 is)");
        t = &m->dl_tensor;
        v.readonly = (m->flags & kDlpackReadOnly) != 0;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
    } else {
        raise_with(BC_ERR_INVALID_ARGUMENT, "not a DLPack capsule (or one already consumed)");
    }
    uint64_t count = 1;
    for (int i = 0; i < t->ndim; ++i) count *= static_cast<uint64_t>(t->shape[i]);
    const uint64_t item_bits = uint64_t(t->dtype.bits) * t->dtype.lanes;
    if (item_bits % 8 != 0)
        raise_with(BC_ERR_NOT_SUPPORTED, "DLPack tensors of sub-byte elements are not supported");
    v.ptr = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
    v.nbytes = count * (item_bits / 8);
    v.device_type = t->device.device_type;
    v.device_id = t->device.device_id;
    v.contiguous = c_contiguous(*t);
    return v;
}

void bind_buffers(nb::module_& m) {
    m.def(
        "_read_dlpack",
        [](nb::handle capsule) {
            DlpackView v = read_dlpack(capsule);
            return nb::make_tuple(v.ptr, v.nbytes, v.device_type, v.device_id, v.contiguous, v.readonly);
        },
        nb::sig("def _read_dlpack(capsule: object, /) -> tuple[int, int, int, int, bool, bool]"),
        "(pointer, bytes, device type, device id, C-contiguous, read-only) of a DLPack capsule.");
    m.def(
        "_buffer_address",
        [](nb::handle obj) {
            HostBuffer b;
            if (!b.acquire(obj, false, "buffer")) raise_with(BC_ERR_INVALID_ARGUMENT, "not a buffer");
            return reinterpret_cast<uintptr_t>(b.data());
        },
        "obj"_a, "The address of a contiguous buffer; valid while its exporter (e.g. a memoryview) lives.");
}

}  // namespace bcpy
