"""hipport: port CUDA C++ sources to HIP."""

__version__ = "0.1.0"
