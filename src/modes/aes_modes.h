// Kept for the files that still include it: the block modes are generic now, in
// modes/block/host_modes.h (over any block cipher's descriptor, AES's included);
// this header only forwards to it and to AES's core. No mode code lives here.
#pragma once

#include "cores/aes/aes.h"
#include "modes/block/host_modes.h"
