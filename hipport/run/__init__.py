"""`hipport verify --run`: build ported programs against the HIP CPU Runtime and run them.

See execute.py for the flow, bridge.py and prelude.h for what differs from
real HIP and is bridged in a temporary copy, and runtime.py for the toolchain.
"""
