/* Template (scan_types.h), inside a table's initializer: the portable kernels' entry. */
[SCAN_ENUM][SCAN_OP_ENUM] = {SCAN_KERNEL(outer), SCAN_KERNEL(line)},
