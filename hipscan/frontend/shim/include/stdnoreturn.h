/* hipscan builtin header */
#define noreturn _Noreturn
