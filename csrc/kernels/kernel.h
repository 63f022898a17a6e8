/*
 * Naming for kernels compiled once per ISA: the including unit defines DMLCPU_ISA (a suffix such
 * as scalar or avx2), and DMLCPU_KERNEL(dmlcpu_x32_copy_gc) names that unit's instance,
 * dmlcpu_x32_copy_gc__avx2. DMLCPU_GLUE(a, b) is a_b after expanding both, DMLCPU_STR(x) the
 * expansion of x as a string.
 */
#ifndef DMLCPU_KERNEL_H
#define DMLCPU_KERNEL_H

#define DMLCPU_CAT_(a, b) a##__##b
#define DMLCPU_CAT(a, b) DMLCPU_CAT_(a, b)
#define DMLCPU_KERNEL(name) DMLCPU_CAT(name, DMLCPU_ISA)

#define DMLCPU_GLUE_(a, b) a##_##b
#define DMLCPU_GLUE(a, b) DMLCPU_GLUE_(a, b)
#define DMLCPU_STR_(x) #x
#define DMLCPU_STR(x) DMLCPU_STR_(x)

#if defined(_MSC_VER) && !defined(__clang__)
#define DMLCPU_ALWAYS_INLINE __forceinline
#else
#define DMLCPU_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

#endif /* DMLCPU_KERNEL_H */
