// Which devices of the machine the engine takes as workers, and in which order
// (src/engine/engine_devices.cpp). The rules are pure functions over device descriptions
// (backends/device_desc.h), so that tests can call them with made-up machines.
#pragma once

#include <cstddef>
#include <vector>

#include "backends/device_desc.h"

namespace bc {

// What the engine does with an OpenCL device.
enum class OpenClChoice {
    Take,              // a GPU no other worker drives: a worker
    NotGpu,            // a CPU device (PoCL, Intel's CPU runtime), an accelerator or other: left
                       // out (the CPU backend has the cores; an accelerator's compiler is not the
                       // run-time build the backend needs)
    SameHardware,      // the PCI address of a GPU already taken (CUDA, or an earlier platform)
    NvidiaBesideCuda,  // NVIDIA's, with CUDA devices taken and no PCI address to tell them apart
};

// The choice for OpenCL device d, given the GPUs taken before it (every CUDA device of the
// engine, then the OpenCL GPUs taken in opencl:N order):
//  - only GPU-type devices (a device that says CPU as well is a CPU);
//  - not a GPU whose PCI address equals a taken one's (same domain where both report it);
//  - an NVIDIA device (PCI vendor 0x10de, or "NVIDIA" in its vendor or platform name) while
//    a CUDA device is taken whose address, or d's, is unknown: it may be that device.
OpenClChoice engine_opencl_choice(const DeviceDesc& d, const std::vector<DeviceDesc>& taken);
const char* engine_opencl_choice_text(OpenClChoice c);  // "a CPU device", ...

// Whether a and b are the same PCI function: bus, device and function equal, and the domain
// too where both report it. False when either is unknown.
bool same_pci(const PciAddress& a, const PciAddress& b);

// The order of the GPU workers: indexes into gpus (their enumeration order: CUDA ordinals,
// then opencl:N), given each one's measured rate (GB/s from the tuning tables; 0: not
// measured). A rate orders only devices that all have one, since a missing measurement says
// nothing of a device:
//  - every GPU measured: highest rate first;
//  - otherwise CUDA GPUs ahead of OpenCL GPUs, and within each of those classes highest rate
//    first when every device of the class was measured, else enumeration order.
// Ties keep enumeration order.
std::vector<size_t> engine_gpu_order(const std::vector<DeviceDesc>& gpus, const std::vector<double>& rates_gbs);

}  // namespace bc
