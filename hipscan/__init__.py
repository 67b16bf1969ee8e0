"""hipscan: find what breaks before a CUDA code base is ported to AMD ROCm/HIP."""

__version__ = "0.1.0"
