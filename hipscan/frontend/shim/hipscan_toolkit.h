/* hipscan toolkit mode: the real CUDA runtime headers, parsed by clang without its CUDA wrapper
 * (the libclang wheel does not ship it). Attributes come from the toolkit's host_defines.h. */
#pragma once
#include <cuda_runtime.h>
