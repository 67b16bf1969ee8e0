#pragma once
#include "../../hipscan_torch.h"
