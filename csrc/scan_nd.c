/* The scan driver: placeholder until the scan engine lands. */
#include "internal.h"

dmlcpu_status dmlcpu_scan(const dmlcpu_view *dst, const dmlcpu_view *src, dmlcpu_dtype dtype,
                          int32_t axis, dmlcpu_scan_op op, int32_t reverse, int32_t exclusive) {
    (void)dst; (void)src; (void)dtype; (void)axis; (void)op; (void)reverse; (void)exclusive;
    return DMLCPU_E_INVALID;
}
