/* hipport's stand-in for a cuRAND header that clang's CUDA wrapper includes
   unconditionally; CUDA installations without cuRAND do not have it. The real
   header is used where it exists. */
#if __has_include_next(<curand_mtgp32_kernel.h>)
#include_next <curand_mtgp32_kernel.h>
#endif
