/* Template (copy_widths.h), inside a table's initializer: the portable kernels of one width. */
[COPY_W] = {COPY_KERNEL(cc), COPY_KERNEL(gc), COPY_KERNEL(sc), COPY_KERNEL(ss), COPY_KERNEL(bc)},
