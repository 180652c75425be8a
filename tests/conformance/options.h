// Run options of bc_conformance (set from the command line in main.cpp).
#pragma once

namespace conf {

struct Options {
    bool quick = false;   // leave out the multi-MiB differential cases
};

Options& options();

}  // namespace conf
