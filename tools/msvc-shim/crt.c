/*
 * Linked (by mingw-w64 gcc) with core objects that clang compiled in MSVC mode: the two MSVC
 * runtime symbols such objects reference and mingw's runtime names differently.
 */
int _fltused = 0; /* MSVC objects that use floating point reference it */
/* MSVC's stack probe for large frames; mingw's ___chkstk_ms has the same contract on x64
 * (size in rax, probes each page, leaves rsp alone). */
__asm__(".globl __chkstk\n__chkstk:\n  jmp ___chkstk_ms\n");
