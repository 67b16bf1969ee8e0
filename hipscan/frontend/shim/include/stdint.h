/* hipscan builtin header: defer to the C library's. */
#if __has_include_next(<stdint.h>)
#include_next <stdint.h>
#endif
