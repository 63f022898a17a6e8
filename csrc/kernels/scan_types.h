/*
 * The one list of scan kernel types: includes the template named by DMLCPU_SCAN_TEMPLATE (a
 * quoted file name in this folder) once for every type and operation, in
 * [dmlcpu_scan_type][dmlcpu_scan_op] order, then forgets DMLCPU_SCAN_TEMPLATE. Every kernel
 * instance and every full table is made from it. A template sees:
 *   SCAN_TYPE    the type's token (u8 u16 u32 u64 f16 f32 f64), SCAN_ENUM its dmlcpu_scan_type
 *   SCAN_ACC     the accumulator type (FLOAT16 accumulates in float), SCAN_ES the element's bytes
 *   SCAN_FLOAT   1 for a floating-point type
 *   SCAN_OP      cumsum or cumprod, SCAN_OP_ENUM its dmlcpu_scan_op, SCAN_IS_SUM 1 or 0
 *   SCAN_IDENTITY the accumulator's start (-0.0, the exact IEEE identity of a float sum, so a
 *                running total of one element is that element), SCAN_FIRST the value an
 *                exclusive scan writes first (+0.0 or 1)
 * and names from scan_names.h.
 */
#include "scan_names.h"

#define SCAN_TYPE u8
#define SCAN_ENUM DMLCPU_SCAN_U8
#define SCAN_ACC uint8_t
#define SCAN_ES 1
#define SCAN_FLOAT 0
#include "scan_ops.h"

#define SCAN_TYPE u16
#define SCAN_ENUM DMLCPU_SCAN_U16
#define SCAN_ACC uint16_t
#define SCAN_ES 2
#define SCAN_FLOAT 0
#include "scan_ops.h"

#define SCAN_TYPE u32
#define SCAN_ENUM DMLCPU_SCAN_U32
#define SCAN_ACC uint32_t
#define SCAN_ES 4
#define SCAN_FLOAT 0
#include "scan_ops.h"

#define SCAN_TYPE u64
#define SCAN_ENUM DMLCPU_SCAN_U64
#define SCAN_ACC uint64_t
#define SCAN_ES 8
#define SCAN_FLOAT 0
#include "scan_ops.h"

#define SCAN_TYPE f16
#define SCAN_ENUM DMLCPU_SCAN_F16
#define SCAN_ACC float
#define SCAN_ES 2
#define SCAN_FLOAT 1
#include "scan_ops.h"

#define SCAN_TYPE f32
#define SCAN_ENUM DMLCPU_SCAN_F32
#define SCAN_ACC float
#define SCAN_ES 4
#define SCAN_FLOAT 1
#include "scan_ops.h"

#define SCAN_TYPE f64
#define SCAN_ENUM DMLCPU_SCAN_F64
#define SCAN_ACC double
#define SCAN_ES 8
#define SCAN_FLOAT 1
#include "scan_ops.h"

#undef DMLCPU_SCAN_TEMPLATE
