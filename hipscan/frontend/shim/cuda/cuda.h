/* hipscan shim: the runtime and driver functions come from hipscan_cuda.h; the driver API's enum
 * values and types only from here, as in the toolkit (a project that loads the driver itself
 * declares them and never includes cuda.h). */
#pragma once
#include "../hipscan_cuda_driver.h"
