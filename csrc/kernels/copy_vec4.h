/*
 * Four vectors from src to dst, loads first: the unrolled step of every packed copy loop of an ISA
 * unit (simd/<isa>.h wrappers), with ordinary or non-temporal stores (constant at each call).
 */
#ifndef DMLCPU_COPY_VEC4_H
#define DMLCPU_COPY_VEC4_H

#include "kernel.h"

static DMLCPU_ALWAYS_INLINE void dmlcpu_copy_vec4(char *dst, const char *src, int stream) {
    dmlcpu_vec v0 = dmlcpu_vec_load(src), v1 = dmlcpu_vec_load(src + DMLCPU_VEC_BYTES);
    dmlcpu_vec v2 = dmlcpu_vec_load(src + 2 * DMLCPU_VEC_BYTES);
    dmlcpu_vec v3 = dmlcpu_vec_load(src + 3 * DMLCPU_VEC_BYTES);
    if (stream) {
        dmlcpu_vec_stream(dst, v0);
        dmlcpu_vec_stream(dst + DMLCPU_VEC_BYTES, v1);
        dmlcpu_vec_stream(dst + 2 * DMLCPU_VEC_BYTES, v2);
        dmlcpu_vec_stream(dst + 3 * DMLCPU_VEC_BYTES, v3);
    } else {
        dmlcpu_vec_store(dst, v0);
        dmlcpu_vec_store(dst + DMLCPU_VEC_BYTES, v1);
        dmlcpu_vec_store(dst + 2 * DMLCPU_VEC_BYTES, v2);
        dmlcpu_vec_store(dst + 3 * DMLCPU_VEC_BYTES, v3);
    }
}

#endif /* DMLCPU_COPY_VEC4_H */
