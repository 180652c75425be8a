#include "objects.h"

#include <mutex>
#include <optional>
#include <string>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <bulkcrypt/bulkcrypt.h>

#include "buffers.h"
#include "cuda_driver.h"
#include "errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace bcpy {

namespace {

// Calls on at least this many bytes release the GIL; under it, releasing and
// taking it back again costs more than the call (the package's overhead budget
// on small messages is about a microsecond).
constexpr size_t kReleaseGilBytes = 4096;

enum class Op : int { Seal = 0, Open = 1, Encrypt = 2, Decrypt = 3 };

// Python helpers of the package (bulkcrypt/_arrays.py), looked up on first use and kept
// for the life of the process. Not a function-local static initialised by the lookup: the
// import may switch threads, and a second thread would then wait on C++'s initialisation
// guard while holding the GIL (a deadlock). Two threads may both look up; both hold the
// GIL when they store, and the loser's reference is dropped.
PyObject* helper(PyObject** slot, const char* name) {
    if (*slot) return *slot;
    nb::object fn = nb::module_::import_("bulkcrypt._arrays").attr(name);
    if (!*slot) *slot = fn.release().ptr();
    return *slot;
}
PyObject* g_host_empty = nullptr;
PyObject* g_device_call = nullptr;

class Context {
public:
    Context(std::optional<std::string> device, std::optional<std::string> options)
        : device_(device.value_or("auto")), options_(options.value_or("")) {
        bc_status st;
        {
            nb::gil_scoped_release unlocked;
            st = bc_context_create(device_.c_str(), options ? options_.c_str() : nullptr, &ctx_);
        }
        check(st);
    }
    ~Context() { bc_context_destroy(ctx_); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    bc_context* get() const { return ctx_; }
    const std::string& device() const { return device_; }
    const std::string& options() const { return options_; }

private:
    bc_context* ctx_ = nullptr;
    std::string device_, options_;
};

// A key on a context: what AEAD and Cipher share.
class Key {
public:
    Key(const std::string& algorithm, nb::handle key, nb::handle context) {
        check(bc_algorithm_query(algorithm.c_str(), &info_));
        name_ = info_.name;
        if (context.is_none()) context = nb::module_::import_("bulkcrypt").attr("default_context")();
        if (!nb::isinstance<Context>(context)) {
            PyErr_Format(PyExc_TypeError, "context must be a bulkcrypt.Context or None, not %s",
                         Py_TYPE(context.ptr())->tp_name);
            throw nb::python_error();
        }
        context_ = nb::borrow(context);
        Context& ctx = nb::cast<Context&>(context_);
        HostBuffer k;
        acquire_host_bytes(k, key, "key", false);
        bc_status st;
        {
            nb::gil_scoped_release unlocked;
            st = bc_key_create(ctx.get(), name_.c_str(), k.data(), k.size(), &key_);
        }
        check(st);
    }
    ~Key() { bc_key_destroy(key_); }
    Key(const Key&) = delete;
    Key& operator=(const Key&) = delete;

    bc_key* get() const { return key_; }
    const bc_algorithm_info& info() const { return info_; }
    const std::string& name() const { return name_; }
    nb::object context() const { return context_; }

private:
    bc_key* key_ = nullptr;
    bc_algorithm_info info_{};
    std::string name_;
    nb::object context_;  // the context outlives its keys (the C API's rule)
};

class Aead : public Key {
public:
    Aead(const std::string& algorithm, nb::handle key, nb::handle context, std::optional<size_t> tag_length)
        : Key(algorithm, key, context) {
        if (info().kind != BC_KIND_AEAD)
            raise_with(BC_ERR_INVALID_ARGUMENT, "'" + name() + "' is not an AEAD; bulkcrypt.Cipher takes raw modes");
        tag_len_ = tag_length.value_or(info().tag_size);
        if (tag_len_ < info().tag_size_min || tag_len_ > info().tag_size_max)
            raise_with(BC_ERR_TAG_SIZE, "tag_length " + std::to_string(tag_len_) + " outside " +
                                            std::to_string(info().tag_size_min) + ".." +
                                            std::to_string(info().tag_size_max) + " for " + name());
    }
    size_t tag_len() const { return tag_len_; }

private:
    size_t tag_len_ = 16;
};

class Cipher : public Key {
public:
    Cipher(const std::string& algorithm, nb::handle key, nb::handle context) : Key(algorithm, key, context) {
        if (info().kind == BC_KIND_AEAD)
            raise_with(BC_ERR_INVALID_ARGUMENT, "'" + name() + "' is an AEAD; use bulkcrypt.AEAD");
    }
};

// One call of the C API on pointers that are already checked.
struct Call {
    Op op;
    const uint8_t* iv = nullptr;
    size_t iv_len = 0;
    const uint8_t* aad = nullptr;
    size_t aad_len = 0;
    const uint8_t* in = nullptr;
    size_t in_len = 0;
    uint8_t* out = nullptr;
    size_t out_cap = 0;
    size_t tag_len = 0;
    bc_params params{};
};

bc_status run(bc_key* key, const Call& c, size_t* out_len) {
    switch (c.op) {
    case Op::Seal:
        return bc_aead_seal(key, c.iv, c.iv_len, c.aad, c.aad_len, c.in, c.in_len, c.out, c.out_cap, out_len,
                            c.tag_len, &c.params);
    case Op::Open:
        return bc_aead_open(key, c.iv, c.iv_len, c.aad, c.aad_len, c.in, c.in_len, c.out, c.out_cap, out_len,
                            c.tag_len, &c.params);
    case Op::Encrypt:
        return bc_encrypt(key, c.iv, c.iv_len, c.in, c.in_len, c.out, c.out_cap, out_len, &c.params);
    case Op::Decrypt:
        return bc_decrypt(key, c.iv, c.iv_len, c.in, c.in_len, c.out, c.out_cap, out_len, &c.params);
    }
    return BC_ERR_INTERNAL;
}

size_t run_checked(bc_key* key, const Call& c, bool release_gil) {
    size_t out_len = 0;
    bc_status st;
    if (release_gil) {
        nb::gil_scoped_release unlocked;
        st = run(key, c, &out_len);
    } else {
        st = run(key, c, &out_len);
    }
    check(st);
    return out_len;
}

// Output bytes the call may write: the C API's bound for each operation.
size_t output_bound(const Key& k, Op op, size_t in_len, size_t tag_len, bool padding) {
    switch (op) {
    case Op::Seal:
        return in_len + tag_len;
    case Op::Open:
        return in_len >= tag_len ? in_len - tag_len : 0;
    case Op::Encrypt:
        return in_len + (padding ? k.info().block_size : 0);
    case Op::Decrypt:
        return in_len;
    }
    return in_len;
}

// A fresh output for a host input: bytes for bytes-like objects (as pyca/cryptography
// returns), else what bulkcrypt._arrays.host_empty gives (a NumPy array for one).
struct HostOut {
    nb::object obj;
    uint8_t* data = nullptr;
    bool is_bytes = false;
    HostBuffer view;
};

void new_bytes_output(HostOut& o, size_t cap) {
    o.obj = nb::steal(PyBytes_FromStringAndSize(nullptr, Py_ssize_t(cap)));
    if (!o.obj.is_valid()) throw nb::python_error();
    o.data = reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(o.obj.ptr()));
    o.is_bytes = true;
}

void new_host_output(HostOut& o, nb::handle like, size_t cap, bool same_shape) {
    PyObject* l = like.ptr();
    if (!PyBytes_Check(l) && !PyByteArray_Check(l) && !PyMemoryView_Check(l)) {
        nb::object made = nb::steal(PyObject_CallFunction(helper(&g_host_empty, "host_empty"), "OnO", l, Py_ssize_t(cap),
                                                          same_shape ? Py_True : Py_False));
        if (!made.is_valid()) throw nb::python_error();
        if (!made.is_none()) {
            o.obj = made;
            o.view.acquire(o.obj, true, "output");
            o.data = o.view.data();
            return;
        }
    }
    new_bytes_output(o, cap);
}

nb::object finish_host_output(HostOut& o, size_t cap, size_t out_len) {
    if (out_len == cap) return o.obj;
    if (o.is_bytes) {
        PyObject* p = o.obj.release().ptr();
        if (_PyBytes_Resize(&p, Py_ssize_t(out_len)) != 0) throw nb::python_error();
        return nb::steal(p);
    }
    return o.obj[nb::slice(size_t(0), out_len)];
}

struct CallArgs {
    nb::handle self, iv, data, aad, out, stream;
    uint64_t offset = 0, data_unit_size = 0;
    bool padding = false;
};

// One-shot call with an output allocated here (out is None) or the caller's (out given,
// returns the byte count). Host buffers run here; anything else (arrays in GPU memory,
// DLPack or __cuda_array_interface__ producers) goes to bulkcrypt._arrays.call.
nb::object one_shot(Key& k, Op op, size_t tag_len, const CallArgs& a) {
    const bool into = !a.out.is_none();
    HostBuffer in;
    HostBuffer out_view;
    bool host = in.acquire(a.data, false, "data");
    if (host && into) host = out_view.acquire(a.out, true, "buf");
    if (!host) {
        nb::object r = nb::steal(PyObject_CallFunction(
            helper(&g_device_call, "call"), "OiOOOOOKKOn", a.self.ptr(), int(op), a.iv.ptr(),
            a.data.ptr(), a.aad.ptr(), a.out.ptr(), a.stream.ptr(), (unsigned long long)a.offset,
            (unsigned long long)a.data_unit_size, a.padding ? Py_True : Py_False, Py_ssize_t(tag_len)));
        if (!r.is_valid()) throw nb::python_error();
        return r;
    }
    HostBuffer iv, aad;
    acquire_host_bytes(iv, a.iv, op == Op::Seal || op == Op::Open ? "nonce" : "iv", true);
    acquire_host_bytes(aad, a.aad, "associated_data", true);
    Call c{op};
    c.iv = iv.data();
    c.iv_len = iv.size();
    c.aad = aad.data();
    c.aad_len = aad.size();
    c.in = in.data();
    c.in_len = in.size();
    c.tag_len = tag_len;
    c.params.flags = a.padding ? BC_FLAG_PAD_PKCS7 : 0;
    c.params.offset = a.offset;
    c.params.data_unit_size = a.data_unit_size;
    const bool release = in.size() >= kReleaseGilBytes;
    if (into) {
        c.out = out_view.data();
        c.out_cap = out_view.size();
        return nb::int_(run_checked(k.get(), c, release));
    }
    if ((op == Op::Open) && in.size() < tag_len)
        raise_with(BC_ERR_INPUT_LENGTH, "data is shorter than the " + std::to_string(tag_len) + "-byte tag");
    HostOut o;
    const size_t cap = output_bound(k, op, in.size(), tag_len, a.padding);
    new_host_output(o, a.data, cap, (op == Op::Encrypt || op == Op::Decrypt) && !a.padding);
    c.out = o.data;
    c.out_cap = cap;
    const size_t n = run_checked(k.get(), c, release);
    return finish_host_output(o, cap, n);
}

// The low-level entry bulkcrypt._arrays uses once it has pointers: any memory kind,
// the GIL released. An AEAD in device memory goes through the detached calls (the C API
// keeps tags on the host): seal writes the tag after the ciphertext on the stream, open
// reads it from there first, so both keep ciphertext || tag in one device buffer.
size_t call_pointers(Key& k, int op, nb::handle iv_obj, nb::handle aad_obj, uintptr_t in, size_t in_len,
                     uintptr_t out, size_t out_cap, int memory, uintptr_t stream, uint64_t offset,
                     uint64_t data_unit_size, bool padding, size_t tag_len, int device) {
    HostBuffer iv, aad;
    acquire_host_bytes(iv, iv_obj, op <= 1 ? "nonce" : "iv", true);
    acquire_host_bytes(aad, aad_obj, "associated_data", true);
    Call c{static_cast<Op>(op)};
    c.iv = iv.data();
    c.iv_len = iv.size();
    c.aad = aad.data();
    c.aad_len = aad.size();
    c.in = reinterpret_cast<const uint8_t*>(in);
    c.in_len = in_len;
    c.out = reinterpret_cast<uint8_t*>(out);
    c.out_cap = out_cap;
    c.tag_len = tag_len;
    c.params.flags = padding ? BC_FLAG_PAD_PKCS7 : 0;
    c.params.memory = memory ? BC_MEMORY_DEVICE : BC_MEMORY_HOST;
    c.params.stream = reinterpret_cast<void*>(stream);
    c.params.offset = offset;
    c.params.data_unit_size = data_unit_size;
    const bool aead = c.op == Op::Seal || c.op == Op::Open;
    if (!memory || !aead) return run_checked(k.get(), c, true);

    uint8_t tag[16] = {};
    if (tag_len > sizeof tag) raise_with(BC_ERR_TAG_SIZE, "tags are at most 16 bytes");
    if (c.op == Op::Seal && out_cap < in_len + tag_len)
        raise_with(BC_ERR_OUTPUT_TOO_SMALL, "buf holds " + std::to_string(out_cap) + " bytes; ciphertext and tag need " +
                                                std::to_string(in_len + tag_len));
    if (c.op == Op::Open && (in_len < tag_len || out_cap < in_len - tag_len))
        raise_with(in_len < tag_len ? BC_ERR_INPUT_LENGTH : BC_ERR_OUTPUT_TOO_SMALL,
                   in_len < tag_len ? "data is shorter than the tag" : "buf is smaller than the plaintext");
    bc_status st = BC_OK;
    std::string error;
    bool copied = true;
    {
        nb::gil_scoped_release unlocked;
        if (c.op == Op::Seal) {
            st = bc_aead_seal_detached(k.get(), c.iv, c.iv_len, c.aad, c.aad_len, c.in, in_len, c.out, tag, tag_len,
                                       &c.params);
            if (st == BC_OK) copied = cuda_copy_to_device(out + in_len, tag, tag_len, stream, device, &error);
        } else {
            const size_t n = in_len - tag_len;
            copied = cuda_copy_to_host(tag, in + n, tag_len, stream, device, &error);
            if (copied)
                st = bc_aead_open_detached(k.get(), c.iv, c.iv_len, c.aad, c.aad_len, c.in, n, tag, tag_len, c.out,
                                           &c.params);
        }
    }
    check(st);
    if (!copied) raise_with(BC_ERR_DEVICE, error);
    return c.op == Op::Seal ? in_len + tag_len : in_len - tag_len;
}

// One message in pieces (bc_stream). A stream belongs to one thread at a time (the C
// API's contract); a second thread arriving while a call runs is refused, not queued.
class Stream {
public:
    Stream(Key& k, nb::object owner, bc_direction dir, nb::handle iv_obj, uint64_t data_unit_size, bool padding,
           size_t tag_len)
        : owner_(std::move(owner)), dir_(dir), aead_(k.info().kind == BC_KIND_AEAD), tag_len_(tag_len),
          unit_(data_unit_size), xts_(k.info().kind == BC_KIND_XTS) {
        HostBuffer iv;
        acquire_host_bytes(iv, iv_obj, aead_ ? "nonce" : "iv", true);
        bc_params p{};
        p.flags = padding ? BC_FLAG_PAD_PKCS7 : 0;
        p.data_unit_size = data_unit_size;
        check(bc_stream_create(k.get(), dir, iv.data(), iv.size(), &p, &s_));
    }
    ~Stream() { bc_stream_destroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    void aad(nb::handle data) {
        Guard g(*this);
        HostBuffer a;
        acquire_host_bytes(a, data, "data", false);
        check(bc_stream_aad(s_, a.data(), a.size()));
    }

    nb::object update(nb::handle data) {
        Guard g(*this);
        HostBuffer in;
        if (!in.acquire(data, false, "data"))
            raise_with(BC_ERR_NOT_SUPPORTED, "streaming takes host buffers; one-shot calls take GPU arrays");
        const size_t cap = in.size() + update_slack();
        HostOut o;
        new_bytes_output(o, cap);
        const size_t n = call_update(in, o.data, cap);
        return finish_host_output(o, cap, n);
    }

    size_t update_into(nb::handle data, nb::handle buf) {
        Guard g(*this);
        HostBuffer in, out;
        if (!in.acquire(data, false, "data") || !out.acquire(buf, true, "buf"))
            raise_with(BC_ERR_NOT_SUPPORTED, "streaming takes host buffers; one-shot calls take GPU arrays");
        return call_update(in, out.data(), out.size());
    }

    nb::object finalize() {
        if (aead_ && dir_ == BC_DECRYPT)
            raise_with(BC_ERR_BAD_STATE, "an AEAD decryption ends with finalize_with_tag(tag)");
        return do_final();
    }

    nb::object finalize_with_tag(nb::handle tag) {
        if (!aead_ || dir_ != BC_DECRYPT)
            raise_with(BC_ERR_BAD_STATE, "finalize_with_tag is for AEAD decryption only");
        {
            Guard g(*this);
            HostBuffer t;
            acquire_host_bytes(t, tag, "tag", false);
            // The whole tag of this key's length: a shorter one would be a weaker check.
            if (t.size() != tag_len_)
                raise_with(BC_ERR_TAG_SIZE, "tag is " + std::to_string(t.size()) + " bytes; this key's tags are " +
                                                std::to_string(tag_len_));
            check(bc_stream_set_tag(s_, t.data(), t.size()));
        }
        return do_final();
    }

    nb::bytes tag() const {
        if (!aead_ || dir_ != BC_ENCRYPT) raise_with(BC_ERR_BAD_STATE, "only an AEAD encryption has a tag");
        if (tag_.empty()) raise_with(BC_ERR_BAD_STATE, "the tag is known after finalize()");
        return nb::bytes(tag_.data(), tag_.size());
    }

private:
    // try_lock: refuse concurrent use instead of blocking while holding the GIL.
    struct Guard {
        explicit Guard(Stream& s) : s_(s) {
            if (!s.busy_.try_lock())
                raise_with(BC_ERR_BAD_STATE, "a stream is used by one thread at a time");
        }
        ~Guard() { s_.busy_.unlock(); }
        Stream& s_;
    };

    size_t update_slack() const { return xts_ && unit_ ? unit_ : 64; }

    size_t call_update(const HostBuffer& in, uint8_t* out, size_t cap) {
        size_t n = 0;
        bc_status st;
        if (in.size() >= kReleaseGilBytes) {
            nb::gil_scoped_release unlocked;
            st = bc_stream_update(s_, in.data(), in.size(), out, cap, &n);
        } else {
            st = bc_stream_update(s_, in.data(), in.size(), out, cap, &n);
        }
        check(st);
        fed_ += in.size();
        return n;
    }

    nb::object do_final() {
        Guard g(*this);
        // What final may still write: one data unit for XTS (the whole message
        // without a unit size), at most 64 bytes otherwise.
        const size_t cap = xts_ ? (unit_ ? unit_ : fed_) : 64;
        HostOut o;
        new_bytes_output(o, cap);
        size_t n = 0;
        bc_status st;
        {
            nb::gil_scoped_release unlocked;
            st = bc_stream_final(s_, o.data, cap, &n);
        }
        check(st);
        if (aead_ && dir_ == BC_ENCRYPT) {
            tag_.resize(tag_len_);
            check(bc_stream_get_tag(s_, reinterpret_cast<uint8_t*>(&tag_[0]), tag_len_));
        }
        return finish_host_output(o, cap, n);
    }

    bc_stream* s_ = nullptr;
    nb::object owner_;  // the key object: it outlives its streams
    bc_direction dir_;
    bool aead_;
    size_t tag_len_;
    uint64_t unit_;
    bool xts_;
    uint64_t fed_ = 0;
    std::string tag_;
    std::mutex busy_;
};

}  // namespace

void bind_objects(nb::module_& m) {
    nb::class_<Context>(m, "Context",
                        "Devices to run on, with their thread pool and tuning (a bc_context).\n\n"
                        "device: 'auto' (default), 'cpu', 'cuda:N', 'cuda:all', 'opencl:N' or 'hybrid'.\n"
                        "options: the C API's option string, e.g. 'threads=8,cpu.impl=portable'.")
        .def(nb::init<std::optional<std::string>, std::optional<std::string>>(), "device"_a = "auto",
             "options"_a = nb::none())
        .def_prop_ro("device", &Context::device, "The device string the context was opened with.")
        .def_prop_ro("options", &Context::options, "The option string the context was opened with.")
        .def_prop_ro(
            "device_name", [](const Context& c) { return std::string(bc_context_device_name(c.get())); },
            "A one-line description of the device(s).")
        .def_prop_ro(
            "backend", [](const Context& c) { return std::string(bc_context_backend(c.get())); },
            "'cpu', 'cuda', 'opencl', 'hybrid' or 'cuda:all'.")
        .def_prop_ro(
            "cpu_threshold", [](const Context& c) { return bc_context_cpu_threshold(c.get()); },
            "Bytes under which a call runs on the CPU in a context that mixes CPU and GPUs; 0 otherwise.")
        .def("__repr__", [](const Context& c) {
            return "<bulkcrypt.Context " + c.device() + ": " + bc_context_device_name(c.get()) + ">";
        });

    nb::class_<Key>(m, "_Key")
        .def_prop_ro("algorithm", &Key::name, "The algorithm's name, as the catalogue spells it.")
        .def_prop_ro("context", &Key::context, "The Context the key lives on.")
        .def_prop_ro("key_size", [](const Key& k) { return k.info().key_size; })
        .def_prop_ro("block_size", [](const Key& k) { return k.info().block_size; })
        .def("_call_pointers", &call_pointers, "op"_a, "iv"_a.none(), "aad"_a.none(), "in_ptr"_a, "in_len"_a,
             "out_ptr"_a, "out_cap"_a, "memory"_a, "stream"_a, "offset"_a, "data_unit_size"_a, "padding"_a,
             "tag_len"_a, "device"_a)
        .def("__repr__", [](const Key& k) { return "<bulkcrypt " + k.name() + " key>"; });

    nb::class_<Aead, Key>(m, "_Aead")
        .def(nb::init<const std::string&, nb::handle, nb::handle, std::optional<size_t>>(), "algorithm"_a, "key"_a,
             "context"_a = nb::none(), "tag_length"_a = nb::none())
        .def_prop_ro("nonce_size", [](const Aead& a) { return a.info().iv_size; })
        .def_prop_ro("tag_size", &Aead::tag_len)
        .def(
            "encrypt",
            [](nb::pointer_and_handle<Aead> a, nb::handle nonce, nb::handle data, nb::handle aad, nb::handle stream) {
                return one_shot(*a.p, Op::Seal, a.p->tag_len(), {a.h, nonce, data, aad, nb::none(), stream});
            },
            "nonce"_a, "data"_a, "associated_data"_a.none() = nb::none(), nb::kw_only(),
            "stream"_a.none() = nb::none(),
            nb::sig("def encrypt(self, nonce: bytes, data: object, associated_data: bytes | None = None, *, "
                    "stream: object = None) -> object"),
            "Ciphertext followed by the tag, as a new object of the input's kind.")
        .def(
            "decrypt",
            [](nb::pointer_and_handle<Aead> a, nb::handle nonce, nb::handle data, nb::handle aad, nb::handle stream) {
                return one_shot(*a.p, Op::Open, a.p->tag_len(), {a.h, nonce, data, aad, nb::none(), stream});
            },
            "nonce"_a, "data"_a, "associated_data"_a.none() = nb::none(), nb::kw_only(),
            "stream"_a.none() = nb::none(),
            nb::sig("def decrypt(self, nonce: bytes, data: object, associated_data: bytes | None = None, *, "
                    "stream: object = None) -> object"),
            "The plaintext of ciphertext || tag; raises InvalidTag (and releases nothing) on a mismatch.")
        .def(
            "encrypt_into",
            [](nb::pointer_and_handle<Aead> a, nb::handle nonce, nb::handle data, nb::handle aad, nb::handle buf,
               nb::handle stream) {
                return one_shot(*a.p, Op::Seal, a.p->tag_len(), {a.h, nonce, data, aad, buf, stream});
            },
            "nonce"_a, "data"_a, "associated_data"_a.none(), "buf"_a, nb::kw_only(), "stream"_a.none() = nb::none(),
            nb::sig("def encrypt_into(self, nonce: bytes, data: object, associated_data: bytes | None, buf: object, "
                    "*, stream: object = None) -> int"),
            "Writes ciphertext || tag into buf (len(data) + tag_size bytes at least); returns the count. "
            "buf may begin at data (in place).")
        .def(
            "decrypt_into",
            [](nb::pointer_and_handle<Aead> a, nb::handle nonce, nb::handle data, nb::handle aad, nb::handle buf,
               nb::handle stream) {
                return one_shot(*a.p, Op::Open, a.p->tag_len(), {a.h, nonce, data, aad, buf, stream});
            },
            "nonce"_a, "data"_a, "associated_data"_a.none(), "buf"_a, nb::kw_only(), "stream"_a.none() = nb::none(),
            nb::sig("def decrypt_into(self, nonce: bytes, data: object, associated_data: bytes | None, buf: object, "
                    "*, stream: object = None) -> int"),
            "Writes the plaintext into buf; on InvalidTag buf's first len(data) - tag_size bytes are zeroed.")
        .def(
            "encryptor",
            [](nb::handle self, nb::handle nonce) {
                Aead& a = nb::cast<Aead&>(self);
                return new Stream(a, nb::borrow(self), BC_ENCRYPT, nonce, 0, false, a.tag_len());
            },
            "nonce"_a, "A streaming encryption: authenticate_additional_data, update, finalize, then tag.")
        .def(
            "decryptor",
            [](nb::handle self, nb::handle nonce) {
                Aead& a = nb::cast<Aead&>(self);
                return new Stream(a, nb::borrow(self), BC_DECRYPT, nonce, 0, false, a.tag_len());
            },
            "nonce"_a,
            "A streaming decryption ending in finalize_with_tag(tag). Its update() output is NOT "
            "authenticated until then: use decrypt() where unverified plaintext must never be seen.");

    nb::class_<Cipher, Key>(m, "_Cipher")
        .def(nb::init<const std::string&, nb::handle, nb::handle>(), "algorithm"_a, "key"_a, "context"_a = nb::none())
        .def_prop_ro("iv_size", [](const Cipher& c) { return c.info().iv_size; })
        .def(
            "encrypt",
            [](nb::pointer_and_handle<Cipher> c, nb::handle iv, nb::handle data, uint64_t offset, uint64_t unit, bool padding,
               nb::handle stream) {
                return one_shot(*c.p, Op::Encrypt, 0, {c.h, iv, data, nb::none(), nb::none(), stream, offset, unit, padding});
            },
            "iv"_a.none(), "data"_a, nb::kw_only(), "offset"_a = 0, "data_unit_size"_a = 0, "padding"_a = false,
            "stream"_a.none() = nb::none(),
            nb::sig("def encrypt(self, iv: bytes | None, data: object, *, offset: int = 0, data_unit_size: int = 0, "
                    "padding: bool = False, stream: object = None) -> object"),
            "The ciphertext, as a new object of the input's kind.")
        .def(
            "decrypt",
            [](nb::pointer_and_handle<Cipher> c, nb::handle iv, nb::handle data, uint64_t offset, uint64_t unit, bool padding,
               nb::handle stream) {
                return one_shot(*c.p, Op::Decrypt, 0, {c.h, iv, data, nb::none(), nb::none(), stream, offset, unit, padding});
            },
            "iv"_a.none(), "data"_a, nb::kw_only(), "offset"_a = 0, "data_unit_size"_a = 0, "padding"_a = false,
            "stream"_a.none() = nb::none(),
            nb::sig("def decrypt(self, iv: bytes | None, data: object, *, offset: int = 0, data_unit_size: int = 0, "
                    "padding: bool = False, stream: object = None) -> object"),
            "The plaintext, as a new object of the input's kind.")
        .def(
            "encrypt_into",
            [](nb::pointer_and_handle<Cipher> c, nb::handle iv, nb::handle data, nb::handle buf, uint64_t offset, uint64_t unit, bool padding,
               nb::handle stream) {
                return one_shot(*c.p, Op::Encrypt, 0, {c.h, iv, data, nb::none(), buf, stream, offset, unit, padding});
            },
            "iv"_a.none(), "data"_a, "buf"_a, nb::kw_only(), "offset"_a = 0, "data_unit_size"_a = 0,
            "padding"_a = false, "stream"_a.none() = nb::none(),
            nb::sig("def encrypt_into(self, iv: bytes | None, data: object, buf: object, *, offset: int = 0, "
                    "data_unit_size: int = 0, padding: bool = False, stream: object = None) -> int"),
            "Writes the ciphertext into buf (buf may be data: in place); returns the count.")
        .def(
            "decrypt_into",
            [](nb::pointer_and_handle<Cipher> c, nb::handle iv, nb::handle data, nb::handle buf, uint64_t offset, uint64_t unit, bool padding,
               nb::handle stream) {
                return one_shot(*c.p, Op::Decrypt, 0, {c.h, iv, data, nb::none(), buf, stream, offset, unit, padding});
            },
            "iv"_a.none(), "data"_a, "buf"_a, nb::kw_only(), "offset"_a = 0, "data_unit_size"_a = 0,
            "padding"_a = false, "stream"_a.none() = nb::none(),
            nb::sig("def decrypt_into(self, iv: bytes | None, data: object, buf: object, *, offset: int = 0, "
                    "data_unit_size: int = 0, padding: bool = False, stream: object = None) -> int"),
            "Writes the plaintext into buf (buf may be data: in place); returns the count.")
        .def(
            "encryptor",
            [](nb::handle self, nb::handle iv, uint64_t unit, bool padding) {
                return new Stream(nb::cast<Cipher&>(self), nb::borrow(self), BC_ENCRYPT, iv, unit, padding, 0);
            },
            "iv"_a.none(), nb::kw_only(), "data_unit_size"_a = 0, "padding"_a = false,
            "A streaming encryption: update (any piece sizes), then finalize.")
        .def(
            "decryptor",
            [](nb::handle self, nb::handle iv, uint64_t unit, bool padding) {
                return new Stream(nb::cast<Cipher&>(self), nb::borrow(self), BC_DECRYPT, iv, unit, padding, 0);
            },
            "iv"_a.none(), nb::kw_only(), "data_unit_size"_a = 0, "padding"_a = false,
            "A streaming decryption: update (any piece sizes), then finalize.");

    nb::class_<Stream>(m, "StreamContext", "One message in pieces (bc_stream); one thread at a time.")
        .def("authenticate_additional_data", &Stream::aad, "data"_a,
             "AEAD: associated data, before the first update (may be called several times).")
        .def("update", &Stream::update, "data"_a,
             nb::sig("def update(self, data: bytes | bytearray | memoryview) -> bytes"))
        .def("update_into", &Stream::update_into, "data"_a, "buf"_a,
             "Writes what update would return into buf (it needs len(data) + 64 bytes, or + one data unit "
             "for XTS); returns the count.")
        .def("finalize", &Stream::finalize, nb::sig("def finalize(self) -> bytes"))
        .def("finalize_with_tag", &Stream::finalize_with_tag, "tag"_a,
             nb::sig("def finalize_with_tag(self, tag: bytes) -> bytes"),
             "AEAD decryption: checks the tag; raises InvalidTag on a mismatch.")
        .def_prop_ro("tag", &Stream::tag, "AEAD encryption: the tag, after finalize().");
}

}  // namespace bcpy
