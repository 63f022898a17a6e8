/*
 * The odometer every driver walks its outer dims with: an index over sizes[0, ndim), outermost
 * first, and the current element of each of `count` operands, moved by that operand's strides.
 * Seek to any flat (row-major) position, then step; a chunk of a parallel call seeks to its
 * first position. Steps never form a pointer outside the walked elements: a caller steps only
 * when a next position exists, and a carry rewinds a dim by (size - 1) strides.
 * A walk with count = 0 keeps only the index (group_nd.c computes many parts' offsets from it).
 */
#ifndef DMLCPU_WALK_H
#define DMLCPU_WALK_H

#include "internal.h"

typedef struct dmlcpu_walk {
    int32_t ndim;
    const int64_t *sizes;
    size_t count;
    const dmlcpu_operand *ops;
    char **at; /* at[k]: operand k's element at the index (the caller's storage) */
    int64_t index[DMLCPU_MAX_DIMS];
} dmlcpu_walk;

static inline void dmlcpu_walk_seek(dmlcpu_walk *w, int64_t flat);

/* A walk over sizes[0, ndim) of `count` operands, at flat position `flat`. (Filled field by
 * field: zeroing the whole struct first cost more than a tiny copy's kernel.) */
static inline void dmlcpu_walk_start(dmlcpu_walk *w, int32_t ndim, const int64_t *sizes,
                                     size_t count, const dmlcpu_operand *ops, char **at,
                                     int64_t flat) {
    w->ndim = ndim;
    w->sizes = sizes;
    w->count = count;
    w->ops = ops;
    w->at = at;
    dmlcpu_walk_seek(w, flat); /* sets index[0, ndim), all a walk reads */
}

static inline void dmlcpu_walk_seek(dmlcpu_walk *w, int64_t flat) {
    for (size_t k = 0; k < w->count; k++) w->at[k] = w->ops[k].data;
    for (int32_t d = w->ndim - 1; d >= 0; d--) {
        w->index[d] = flat % w->sizes[d];
        flat /= w->sizes[d];
        for (size_t k = 0; k < w->count; k++) w->at[k] += w->index[d] * w->ops[k].strides[d];
    }
}

static inline void dmlcpu_walk_step(dmlcpu_walk *w) {
    for (int32_t d = w->ndim - 1; d >= 0; d--) {
        if (++w->index[d] < w->sizes[d]) {
            for (size_t k = 0; k < w->count; k++) w->at[k] += w->ops[k].strides[d];
            return;
        }
        w->index[d] = 0;
        for (size_t k = 0; k < w->count; k++)
            w->at[k] -= w->ops[k].strides[d] * (w->sizes[d] - 1);
    }
}

/* The byte offset of the walk's index under other strides (over the same dims). */
static inline int64_t dmlcpu_walk_offset(const dmlcpu_walk *w, const int64_t *strides) {
    int64_t offset = 0;
    for (int32_t d = 0; d < w->ndim; d++) offset += w->index[d] * strides[d];
    return offset;
}

#endif /* DMLCPU_WALK_H */
