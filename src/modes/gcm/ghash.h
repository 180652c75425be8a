/*
 * GF(2^128) arithmetic of GCM: the dialect header modes/gcm/ghash_device.h,
 * under the name the host code and the OpenCL AES program include.
 */
#ifndef BC_MODES_GCM_GHASH_H
#define BC_MODES_GCM_GHASH_H

#include "modes/gcm/ghash_device.h"

#endif /* BC_MODES_GCM_GHASH_H */
