/*
 * The NEON copy kernels: only where the portable C does not vectorize (its runtime strides
 * keep GCC and clang scalar): gathers at small constant strides, by NEON's de-interleaving
 * loads (LD2/LD3/LD4 take every 2nd/3rd/4th element of 2-4 vectors at once), and fills of a
 * packed run with one value. Other slots stay NULL and fall back to the portable kernels (the
 * packed copy is memcpy, already the libc's NEON). Their speed could not be measured where
 * they were written (NOTES.md in git); the results are tested bit for bit under qemu.
 */
#include "../simd/neon.h"
#define DMLCPU_ISA neon
#define DMLCPU_COPY_TEMPLATE "copy_portable.h"
#include "copy_widths.h"

/*
 * Gather at element stride 2, 3 or 4 (other strides: 0 done). LANES outputs per load, from
 * LANES * s source elements; returns how many elements were done, the caller does the rest.
 */
#define DMLCPU_NEON_GATHER(BITS, LANES, SFX)                                                    \
    static inline size_t DMLCPU_KERNEL(gather##BITS)(char *dst, const char *src, size_t s,      \
                                                     size_t n) {                                \
        size_t blocks = dmlcpu_neon_gather_blocks(n, s, LANES);                                 \
        const uint##BITS##_t *in = (const uint##BITS##_t *)(const void *)src;                   \
        uint##BITS##_t *out = (uint##BITS##_t *)(void *)dst;                                    \
        size_t j;                                                                               \
        switch (s) {                                                                            \
        case 2:                                                                                 \
            for (j = 0; j < blocks; j++)                                                        \
                vst1q_##SFX(out + j * LANES, vld2q_##SFX(in + j * LANES * 2).val[0]);           \
            break;                                                                              \
        case 3:                                                                                 \
            for (j = 0; j < blocks; j++)                                                        \
                vst1q_##SFX(out + j * LANES, vld3q_##SFX(in + j * LANES * 3).val[0]);           \
            break;                                                                              \
        case 4:                                                                                 \
            for (j = 0; j < blocks; j++)                                                        \
                vst1q_##SFX(out + j * LANES, vld4q_##SFX(in + j * LANES * 4).val[0]);           \
            break;                                                                              \
        default: return 0;                                                                      \
        }                                                                                       \
        return blocks * LANES;                                                                  \
    }                                                                                           \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc_vec)(char *dst, ptrdiff_t ds,            \
                                                            const char *src, ptrdiff_t ss,      \
                                                            size_t n) {                         \
        const ptrdiff_t e = BITS / 8;                                                           \
        size_t done = 0;                                                                        \
        if (ss > 0 && ss % e == 0)                                                              \
            done = DMLCPU_KERNEL(gather##BITS)(dst, src, (size_t)(ss / e), n);                  \
        DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc)(dst + (ptrdiff_t)done * e, ds,                  \
                                                src + (ptrdiff_t)done * ss, ss, n - done);      \
    }
DMLCPU_NEON_GATHER(16, 8, u16)
DMLCPU_NEON_GATHER(32, 4, u32)

/* Fill of a packed run with one value, two vectors a step; a strided destination stays
 * portable. */
#define DMLCPU_NEON_FILL(BITS, LANES, SFX)                                                      \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc_vec)(char *dst, ptrdiff_t ds,            \
                                                            const char *src, ptrdiff_t ss,      \
                                                            size_t n) {                         \
        uint##BITS##_t value;                                                                   \
        if (ds != (ptrdiff_t)sizeof value) {                                                    \
            DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc)(dst, ds, src, ss, n);                       \
            return;                                                                             \
        }                                                                                       \
        memcpy(&value, src, sizeof value);                                                      \
        uint##BITS##x##LANES##_t v = vdupq_n_##SFX(value);                                      \
        size_t bytes = n * sizeof value, i = 0;                                                 \
        for (; i + 2 * DMLCPU_NEON_BYTES <= bytes; i += 2 * DMLCPU_NEON_BYTES) {                \
            vst1q_##SFX((uint##BITS##_t *)(void *)(dst + i), v);                                \
            vst1q_##SFX((uint##BITS##_t *)(void *)(dst + i + DMLCPU_NEON_BYTES), v);            \
        }                                                                                       \
        for (; i < bytes; i += sizeof value) memcpy(dst + i, &value, sizeof value);             \
    }
DMLCPU_NEON_FILL(16, 8, u16)
DMLCPU_NEON_FILL(32, 4, u32)
DMLCPU_NEON_FILL(64, 2, u64)

const dmlcpu_copy_kernels dmlcpu_copy_kernels__neon = {
    .run =
        {
            /* x8: the portable fill is memset */
            [1] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x16_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x16_copy_bc_vec)},
            [2] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x32_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x32_copy_bc_vec)},
            [3] = {[DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x64_copy_bc_vec)},
        },
};
