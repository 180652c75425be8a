// bulkcrypt._native: the C API bound for Python. The package (python/bulkcrypt)
// builds its public classes on these; everything here calls bc_* functions only.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <bulkcrypt/bulkcrypt.h>

#include "buffers.h"
#include "cuda_driver.h"
#include "errors.h"
#include "objects.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

nb::dict algorithm_info(const std::string& name) {
    bc_algorithm_info info{};
    bcpy::check(bc_algorithm_query(name.c_str(), &info));
    static const char* kinds[] = {"", "block", "stream", "xts", "aead"};
    nb::dict d;
    d["name"] = info.name;
    d["kind"] = kinds[info.kind >= 1 && info.kind <= 4 ? info.kind : 0];
    d["key_size"] = info.key_size;
    d["key_sizes"] = nb::make_tuple(info.key_size_min, info.key_size_max);
    d["iv_size"] = info.iv_size;
    d["iv_sizes"] = nb::make_tuple(info.iv_size_min, info.iv_size_max);
    d["tag_size"] = info.tag_size;
    d["tag_sizes"] = nb::make_tuple(info.tag_size_min, info.tag_size_max);
    d["block_size"] = info.block_size;
    d["max_message_size"] = info.max_message_size;
    return d;
}

}  // namespace

NB_MODULE(_native, m) {
    nb::set_leak_warnings(false);  // a default context may live until the interpreter ends
    bcpy::load_exception_classes();

    m.def("version", [] { return std::string(bc_version()); }, "The library's version, MAJOR.MINOR.PATCH.");
    m.def(
        "algorithm_names",
        [] {
            nb::list names;
            for (size_t i = 0; const char* n = bc_algorithm_name(i); ++i) names.append(n);
            return names;
        },
        nb::sig("def algorithm_names() -> list[str]"), "Every algorithm of the catalogue, in its order.");
    m.def("algorithm_info", &algorithm_info, "name"_a,
          nb::sig("def algorithm_info(name: str) -> dict[str, object]"),
          "The catalogue's entry for one algorithm (bc_algorithm_query).");
    m.def(
        "status_name", [](int status) { return std::string(bcpy::status_name(static_cast<bc_status>(status))); },
        "status"_a, "The bc_status enumerator's name for a value.");
    m.def(
        "status_message", [](int status) { return std::string(bc_status_message(static_cast<bc_status>(status))); },
        "status"_a, "The library's sentence for a bc_status value.");

    bcpy::bind_buffers(m);
    bcpy::bind_cuda_driver(m);
    bcpy::bind_objects(m);
}
