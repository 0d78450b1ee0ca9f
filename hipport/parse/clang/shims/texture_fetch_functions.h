/* hipport's stand-in for a header CUDA 12 removed (texture references), which
   clang's CUDA wrapper before clang 19 still includes. The real header is used
   where the CUDA installation has one. */
#if __has_include_next(<texture_fetch_functions.h>)
#include_next <texture_fetch_functions.h>
#endif
