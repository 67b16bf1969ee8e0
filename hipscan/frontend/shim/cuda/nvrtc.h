/* hipscan shim: NVRTC functions come from hipscan_cuda.h; its result codes only from here, as in
 * the toolkit (a project that loads libnvrtc itself declares them and never includes nvrtc.h). */
#pragma once
#include "../hipscan_cuda_rtc.h"
