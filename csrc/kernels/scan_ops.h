/*
 * Part of scan_types.h: includes DMLCPU_SCAN_TEMPLATE for the sum and the product of the type
 * scan_types.h has just described, then forgets the type.
 */
#define SCAN_OP cumsum
#define SCAN_OP_ENUM DMLCPU_SCAN_SUM
#define SCAN_IS_SUM 1
#define SCAN_IDENTITY ((SCAN_ACC)(SCAN_FLOAT ? -0.0 : 0))
#define SCAN_FIRST ((SCAN_ACC)0)
#include DMLCPU_SCAN_TEMPLATE
#undef SCAN_OP
#undef SCAN_OP_ENUM
#undef SCAN_IS_SUM
#undef SCAN_IDENTITY
#undef SCAN_FIRST

#define SCAN_OP cumprod
#define SCAN_OP_ENUM DMLCPU_SCAN_PROD
#define SCAN_IS_SUM 0
#define SCAN_IDENTITY ((SCAN_ACC)1)
#define SCAN_FIRST ((SCAN_ACC)1)
#include DMLCPU_SCAN_TEMPLATE
#undef SCAN_OP
#undef SCAN_OP_ENUM
#undef SCAN_IS_SUM
#undef SCAN_IDENTITY
#undef SCAN_FIRST

#undef SCAN_TYPE
#undef SCAN_ENUM
#undef SCAN_ACC
#undef SCAN_ES
#undef SCAN_FLOAT
