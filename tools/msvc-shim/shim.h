/*
 * Forced into every unit (-include) when tools/check-c-core (x64) and check-cross-compile
 * (ARM64) compile the core with clang in MSVC mode (_MSC_VER defined, no __GNUC__ of its own)
 * against mingw-w64's headers, because this machine has no MSVC or Windows SDK headers. It
 * only keeps mingw's <setjmp.h> out: its _setjmp declaration conflicts with the MSVC one in
 * clang's <intrin.h> (which cpu.c includes for __cpuidex and _xgetbv). The project's code sees
 * the compiler exactly as MSVC mode sets it.
 */
#define _INC_SETJMP
typedef struct { unsigned long long part[2]; } dmlcpu_shim_jbtype;
typedef dmlcpu_shim_jbtype jmp_buf[16];
