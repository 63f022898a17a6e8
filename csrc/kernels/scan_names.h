/*
 * Names used inside the scan templates (scan_types.h describes the parameters):
 *   SCAN_FN(x)      dmlcpu_<type>_x            (element access and carries, scan_access.h)
 *   SCAN_COMBINE    dmlcpu_<type>_<op>         (the scalar operation)
 *   SCAN_OP_FN(x)   dmlcpu_<type>_<op>_x       (a helper of this type and operation)
 *   SCAN_KERNEL(x)  dmlcpu_<type>_<op>_x__<isa> (a kernel of this unit's ISA)
 *   SCAN_SV(x), SCAN_OV(x)  dmlcpu_sv_<type>_x, dmlcpu_ov_<type>_x: the ISA's lane primitives
 *                   for line and outer kernels (simd/<isa>_scan.h); SCAN_SV_VEC / SCAN_OV_VEC
 *                   their vector types, SCAN_SV_W / SCAN_OV_W their lane counts, SCAN_SV_NT
 *                   whether line kernels stream this type
 *   SCAN_PV(x)      dmlcpu_pv_<type>_x: prefix primitives, lanes of the element's own width
 *                   (SCAN_PV_VEC, SCAN_PV_W), where DMLCPU_HAS_PV_<type> says the ISA has them
 */
#ifndef DMLCPU_SCAN_NAMES_H
#define DMLCPU_SCAN_NAMES_H

#include "kernel.h"

#define SCAN_FN(x) DMLCPU_GLUE(DMLCPU_GLUE(dmlcpu, SCAN_TYPE), x)
#define SCAN_COMBINE SCAN_FN(SCAN_OP)
#define SCAN_OP_FN(x) DMLCPU_GLUE(SCAN_COMBINE, x)
#define SCAN_KERNEL(x) DMLCPU_KERNEL(SCAN_OP_FN(x))
#define SCAN_LOAD SCAN_FN(scan_load)
#define SCAN_STORE SCAN_FN(scan_store)
#define SCAN_CARRY_IN SCAN_FN(carry_in)
#define SCAN_CARRY_OUT SCAN_FN(carry_out)
#define SCAN_SV_VEC DMLCPU_GLUE(dmlcpu_sv, SCAN_TYPE)
#define SCAN_SV(x) DMLCPU_GLUE(SCAN_SV_VEC, x)
#define SCAN_SV_W DMLCPU_GLUE(DMLCPU_SV_W, SCAN_TYPE)
#define SCAN_SV_NT DMLCPU_GLUE(DMLCPU_SV_NT, SCAN_TYPE)
#define SCAN_OV_VEC DMLCPU_GLUE(dmlcpu_ov, SCAN_TYPE)
#define SCAN_OV(x) DMLCPU_GLUE(SCAN_OV_VEC, x)
#define SCAN_OV_W DMLCPU_GLUE(DMLCPU_OV_W, SCAN_TYPE)
#define SCAN_PV_VEC DMLCPU_GLUE(dmlcpu_pv, SCAN_TYPE)
#define SCAN_PV(x) DMLCPU_GLUE(SCAN_PV_VEC, x)
#define SCAN_PV_W DMLCPU_GLUE(DMLCPU_PV_W, SCAN_TYPE)
#define SCAN_HAS_PV DMLCPU_GLUE(DMLCPU_HAS_PV, SCAN_TYPE)

#endif /* DMLCPU_SCAN_NAMES_H */
