/* The portable scan kernels: always built, always the fallback. */
#define DMLCPU_ISA scalar
#include "scan_impl.h"
