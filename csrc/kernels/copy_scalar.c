/* The portable copy kernels: always built, always the fallback. */
#define DMLCPU_ISA scalar
#include "copy_impl.h"
