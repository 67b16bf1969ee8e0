/* hipscan shim: the runtime and driver functions come from hipscan_cuda.h; the driver API's enum
 * values and types only from here, as in the toolkit (a project that loads the driver itself
 * declares them and never includes cuda.h). */
#pragma once
/* the driver API's version, defined by cuda.h alone (CUDART_VERSION is cuda_runtime_api.h's):
 * `#if CUDA_VERSION >= 11000` arms are what an nvcc build that includes cuda.h compiles */
#ifndef CUDA_VERSION
#define CUDA_VERSION 12040
#endif
#include "../hipscan_cuda_driver.h"
