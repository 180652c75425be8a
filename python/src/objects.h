// The binding's objects: Context (bc_context), the keyed objects AEAD and Cipher
// (a bc_key each), and the streaming contexts (bc_stream).
#pragma once

#include <nanobind/nanobind.h>

namespace bcpy {

void bind_objects(nanobind::module_& m);

}  // namespace bcpy
