/* hipscan shim: declarations come from hipscan_cuda.h and cuda.h. */
#pragma once
#include "cuda.h"
