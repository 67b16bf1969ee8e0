/* hipscan builtin header */
#include <stdlib.h>
static inline void *_mm_malloc(size_t size, size_t align) { void *p = 0; return posix_memalign(&p, align, size) ? 0 : p; }
static inline void _mm_free(void *p) { free(p); }
