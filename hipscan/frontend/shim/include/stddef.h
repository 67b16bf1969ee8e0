/* hipscan builtin header (the libclang wheel ships no resource directory). */
#ifndef __HIPSCAN_STDDEF_H
#define __HIPSCAN_STDDEF_H
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __SIZE_TYPE__ size_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
#endif
typedef struct { long long __ll __attribute__((__aligned__(__alignof__(long long)))); long double __ld __attribute__((__aligned__(__alignof__(long double)))); } max_align_t;
#ifdef __cplusplus
namespace std { typedef decltype(nullptr) nullptr_t; }
using ::std::nullptr_t;
#define NULL __null
#else
#define NULL ((void *)0)
#endif
#define offsetof(t, d) __builtin_offsetof(t, d)
#endif
#if defined(__need_wint_t) && !defined(__HIPSCAN_WINT_T)
#define __HIPSCAN_WINT_T
typedef __WINT_TYPE__ wint_t;
#endif
#undef __need_ptrdiff_t
#undef __need_size_t
#undef __need_wchar_t
#undef __need_NULL
#undef __need_wint_t
