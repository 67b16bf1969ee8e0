/* hipscan shim: declarations come from hipscan_cuda.h. */
#pragma once
