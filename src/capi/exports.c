/* The shared library's own translation unit: everything it exports comes from
 * the internal archive linked whole (see CMakeLists.txt); only the bc_* C API
 * is visible outside. */
#include "bulkcrypt/bulkcrypt.h"
