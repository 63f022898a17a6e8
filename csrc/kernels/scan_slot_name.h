/* Template (scan_types.h), inside dispatch.c's table of slot names: "u8_cumsum_outer", ... */
[SCAN_ENUM][SCAN_OP_ENUM] = {DMLCPU_STR(DMLCPU_GLUE(DMLCPU_GLUE(SCAN_TYPE, SCAN_OP), outer)),
                             DMLCPU_STR(DMLCPU_GLUE(DMLCPU_GLUE(SCAN_TYPE, SCAN_OP), line))},
