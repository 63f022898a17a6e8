/*
 * Runtime dispatch: detect the CPU once, then build the kernel table.
 *
 * One table per ISA cap is built at init (scalar slots first, then each usable wider ISA's
 * slots laid over them in order), and an atomic pointer names the active one. Re-selecting
 * (dmlcpu_force_isa, for tests) swaps the pointer: a call already running keeps the table it
 * loaded, and the tables themselves never change after init.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

/* setup.py defines DMLCPU_BUILD_<ISA> when it builds that ISA's units for this target. */
#if (defined(DMLCPU_BUILD_AVX2) || defined(DMLCPU_BUILD_AVX512) ||                            \
     defined(DMLCPU_BUILD_AVX512VBMI)) &&                                                       \
    !(defined(__x86_64__) || defined(_M_X64))
#error "x86 kernels are built only for a compiler that targets x86-64"
#endif
#if defined(DMLCPU_BUILD_NEON) && !(defined(__aarch64__) || defined(_M_ARM64))
#error "NEON kernels are built only for a compiler that targets aarch64"
#endif

typedef const dmlcpu_scan_kernels scan_table[DMLCPU_SCAN_TYPE_COUNT][DMLCPU_SCAN_OP_COUNT];

/* The partial tables of each ISA whose units are built: one line per ISA. */
static const struct isa_tables {
    const dmlcpu_copy_kernels *copy;
    scan_table *scan;
} isa_tables[DMLCPU_ISA_COUNT] = {
    [DMLCPU_ISA_SCALAR] = {&dmlcpu_copy_kernels__scalar, &dmlcpu_scan_kernels__scalar},
#if defined(DMLCPU_BUILD_AVX2)
    [DMLCPU_ISA_AVX2] = {&dmlcpu_copy_kernels__avx2, &dmlcpu_scan_kernels__avx2},
#endif
#if defined(DMLCPU_BUILD_AVX512)
    [DMLCPU_ISA_AVX512] = {&dmlcpu_copy_kernels__avx512, &dmlcpu_scan_kernels__avx512},
#endif
#if defined(DMLCPU_BUILD_NEON)
    [DMLCPU_ISA_NEON] = {&dmlcpu_copy_kernels__neon, &dmlcpu_scan_kernels__neon},
#endif
};

static const char *const isa_names[DMLCPU_ISA_COUNT] = {"scalar", "avx2", "avx512", "neon"};

static uint32_t cpu_features;
static uint32_t usable_isas;
static int auto_isa;             /* the widest usable ISA */
static char config_note[160];
static dmlcpu_dispatch tables[DMLCPU_ISA_COUNT]; /* tables[i]: capped at ISA i (if usable) */
static _Atomic(const dmlcpu_dispatch *) active;

static void overlay_copy(dmlcpu_dispatch *t, const dmlcpu_copy_kernels *k, int isa) {
    for (int w = 0; w < DMLCPU_COPY_WIDTHS; w++)
        for (int l = 0; l < DMLCPU_RUN_LAYOUT_COUNT; l++)
            if (k->run[w][l] != NULL) {
                t->copy.run[w][l] = k->run[w][l];
                t->copy_isa.run[w][l] = (int8_t)isa;
            }
    if (k->stream != NULL) {
        t->copy.stream = k->stream;
        t->copy_isa.stream = (int8_t)isa;
    }
    if (k->stream_rows != NULL) {
        t->copy.stream_rows = k->stream_rows;
        t->copy_isa.stream_rows = (int8_t)isa;
    }
    if (k->rows != NULL) {
        t->copy.rows = k->rows;
        t->copy_isa.rows = (int8_t)isa;
    }
    if (k->blocks != NULL) {
        t->copy.blocks = k->blocks;
        t->copy_isa.blocks = (int8_t)isa;
    }
    if (k->stream_blocks != NULL) {
        t->copy.stream_blocks = k->stream_blocks;
        t->copy_isa.stream_blocks = (int8_t)isa;
    }
}

/* ---- scan section */
static void overlay_scan(dmlcpu_dispatch *t, int isa) {
    scan_table *k = isa_tables[isa].scan;
    for (int ty = 0; ty < DMLCPU_SCAN_TYPE_COUNT; ty++)
        for (int op = 0; op < DMLCPU_SCAN_OP_COUNT; op++) {
            if ((*k)[ty][op].outer != NULL) {
                t->scan[ty][op].outer = (*k)[ty][op].outer;
                t->scan_isa.outer[ty][op] = (int8_t)isa;
            }
            if ((*k)[ty][op].line != NULL) {
                t->scan[ty][op].line = (*k)[ty][op].line;
                t->scan_isa.line[ty][op] = (int8_t)isa;
            }
        }
}
/* ---- end of the scan section */

/* Scalar first, then every usable ISA up to cap, narrower before wider. */
static void build_table(dmlcpu_dispatch *t, int cap) {
    memset(t, 0, sizeof *t);
    t->copy_isa.stream = -1;
    t->copy_isa.stream_rows = -1;
    t->copy_isa.rows = -1;
    t->copy_isa.blocks = -1;
    t->copy_isa.stream_blocks = -1;
    for (int isa = 0; isa <= cap; isa++)
        if (usable_isas & (1u << isa)) overlay_copy(t, isa_tables[isa].copy, isa);
#if defined(DMLCPU_BUILD_AVX512VBMI)
    /* a checked sub-feature: byte permutes (VBMI) beside avx512, for the 1-byte gather */
    if (cap >= DMLCPU_ISA_AVX512 && (usable_isas & (1u << DMLCPU_ISA_AVX512)) &&
        (cpu_features & DMLCPU_CPU_AVX512VBMI))
        overlay_copy(t, &dmlcpu_copy_kernels__avx512vbmi, DMLCPU_ISA_AVX512);
#endif
    for (int isa = 0; isa <= cap; isa++)
        if (usable_isas & (1u << isa)) overlay_scan(t, isa);
}

static int isa_from_name(const char *name, size_t len) {
    for (int i = 0; i < DMLCPU_ISA_COUNT; i++)
        if (strlen(isa_names[i]) == len && strncmp(isa_names[i], name, len) == 0) return i;
    return -1;
}

static void note(const char *what, const char *value) {
    size_t used = strlen(config_note);
    if (used + 1 >= sizeof config_note) return;
    /* snprintf is avoided in the core; a bounded concatenation is all this needs */
    const char *parts[4] = {used ? "; " : "", what, value, ""};
    for (int p = 0; p < 3; p++)
        for (const char *c = parts[p]; *c && used + 1 < sizeof config_note; c++)
            config_note[used++] = *c;
    config_note[used] = '\0';
}

void dmlcpu_dispatch_init(void) {
    cpu_features = dmlcpu_detect_cpu_features();
    uint32_t compiled = dmlcpu_compiled_isas();
    for (int isa = 0; isa < DMLCPU_ISA_COUNT; isa++) {
        uint32_t need = dmlcpu_isa_requirements(isa);
        if ((compiled & (1u << isa)) && (cpu_features & need) == need) usable_isas |= 1u << isa;
    }
    const char *disable = getenv("DMLCPU_DISABLE_ISA");
    if (disable != NULL) {
        for (const char *p = disable; *p;) {
            size_t len = strcspn(p, ", ");
            int isa = len ? isa_from_name(p, len) : -1;
            if (isa > 0) usable_isas &= ~(1u << isa);
            else if (len)
                note("DMLCPU_DISABLE_ISA names an unknown or non-disableable ISA: ", disable);
            p += len;
            while (*p == ',' || *p == ' ') p++;
        }
    }
    auto_isa = DMLCPU_ISA_SCALAR;
    for (int isa = 0; isa < DMLCPU_ISA_COUNT; isa++)
        if (usable_isas & (1u << isa)) auto_isa = isa;
    for (int isa = 0; isa < DMLCPU_ISA_COUNT; isa++) build_table(&tables[isa], isa);
    int chosen = auto_isa;
    const char *force = getenv("DMLCPU_FORCE_ISA");
    if (force != NULL && *force) {
        int isa = isa_from_name(force, strlen(force));
        if (isa >= 0 && (usable_isas & (1u << isa))) chosen = isa;
        else note("DMLCPU_FORCE_ISA is not usable here, ignored: ", force);
    }
    atomic_store(&active, &tables[chosen]);
}

const dmlcpu_dispatch *dmlcpu_dispatch_table(void) {
    const dmlcpu_dispatch *t = atomic_load_explicit(&active, memory_order_acquire);
    if (t == NULL) {
        dmlcpu_init();
        t = atomic_load_explicit(&active, memory_order_acquire);
    }
    return t;
}

uint32_t dmlcpu_cpu_features(void) {
    dmlcpu_init();
    return cpu_features;
}

const char *dmlcpu_isa_name(int isa) {
    return isa >= 0 && isa < DMLCPU_ISA_COUNT ? isa_names[isa] : NULL;
}

uint32_t dmlcpu_compiled_isas(void) {
    uint32_t m = 0;
    for (int isa = 0; isa < DMLCPU_ISA_COUNT; isa++)
        if (isa_tables[isa].copy != NULL) m |= 1u << isa;
    return m;
}

uint32_t dmlcpu_usable_isas(void) {
    dmlcpu_init();
    return usable_isas;
}

int dmlcpu_active_isa(void) { return (int)(dmlcpu_dispatch_table() - tables); }

const char *dmlcpu_config_note(void) {
    dmlcpu_init();
    return config_note;
}

dmlcpu_status dmlcpu_force_isa(int isa) {
    dmlcpu_init();
    if (isa == -1) isa = auto_isa;
    if (isa < 0 || isa >= DMLCPU_ISA_COUNT || !(usable_isas & (1u << isa))) return DMLCPU_E_INVALID;
    atomic_store_explicit(&active, &tables[isa], memory_order_release);
    return DMLCPU_OK;
}

/* Slot listing: widths x layouts of the copy runs, then the stream, rows, blocks and
 * streamed blocks copies. */
static const char *const copy_slot_names[DMLCPU_COPY_WIDTHS][DMLCPU_RUN_LAYOUT_COUNT] = {
    {"x8_copy_cc", "x8_copy_gc", "x8_copy_sc", "x8_copy_ss", "x8_copy_bc"},
    {"x16_copy_cc", "x16_copy_gc", "x16_copy_sc", "x16_copy_ss", "x16_copy_bc"},
    {"x32_copy_cc", "x32_copy_gc", "x32_copy_sc", "x32_copy_ss", "x32_copy_bc"},
    {"x64_copy_cc", "x64_copy_gc", "x64_copy_sc", "x64_copy_ss", "x64_copy_bc"}};
#define COPY_RUN_SLOTS (DMLCPU_COPY_WIDTHS * DMLCPU_RUN_LAYOUT_COUNT)

#define COPY_SLOTS (COPY_RUN_SLOTS + 5)

/* ---- scan section of the listing: type x op x (outer, line), after the copy slots */
static const char *const scan_slot_names[DMLCPU_SCAN_TYPE_COUNT][DMLCPU_SCAN_OP_COUNT][2] = {
#define DMLCPU_SCAN_TEMPLATE "scan_slot_name.h"
#include "kernels/scan_types.h"
};
#define SCAN_SLOTS (DMLCPU_SCAN_TYPE_COUNT * DMLCPU_SCAN_OP_COUNT * 2)

static int scan_slot_isa(const dmlcpu_dispatch *t, int s) {
    int ty = s / (DMLCPU_SCAN_OP_COUNT * 2), op = s / 2 % DMLCPU_SCAN_OP_COUNT;
    return s % 2 ? t->scan_isa.line[ty][op] : t->scan_isa.outer[ty][op];
}
/* ---- end of the scan section */

int dmlcpu_kernel_slot_count(void) { return COPY_SLOTS + SCAN_SLOTS; }

const char *dmlcpu_kernel_slot_name(int slot) {
    if (slot >= 0 && slot < COPY_RUN_SLOTS)
        return copy_slot_names[slot / DMLCPU_RUN_LAYOUT_COUNT][slot % DMLCPU_RUN_LAYOUT_COUNT];
    if (slot == COPY_RUN_SLOTS) return "copy_stream";
    if (slot == COPY_RUN_SLOTS + 1) return "copy_stream_rows";
    if (slot == COPY_RUN_SLOTS + 2) return "copy_rows";
    if (slot == COPY_RUN_SLOTS + 3) return "copy_blocks";
    if (slot == COPY_RUN_SLOTS + 4) return "copy_stream_blocks";
    if (slot >= COPY_SLOTS && slot < COPY_SLOTS + SCAN_SLOTS) {
        int s = slot - COPY_SLOTS;
        return scan_slot_names[s / (DMLCPU_SCAN_OP_COUNT * 2)][s / 2 % DMLCPU_SCAN_OP_COUNT][s % 2];
    }
    return NULL;
}

/* The ISA filling a slot in the active table; -1 for an empty slot or an unknown one. */
int dmlcpu_kernel_slot_isa(int slot) {
    const dmlcpu_dispatch *t = dmlcpu_dispatch_table();
    if (slot >= 0 && slot < COPY_RUN_SLOTS)
        return t->copy_isa.run[slot / DMLCPU_RUN_LAYOUT_COUNT][slot % DMLCPU_RUN_LAYOUT_COUNT];
    if (slot == COPY_RUN_SLOTS) return t->copy_isa.stream;
    if (slot == COPY_RUN_SLOTS + 1) return t->copy_isa.stream_rows;
    if (slot == COPY_RUN_SLOTS + 2) return t->copy_isa.rows;
    if (slot == COPY_RUN_SLOTS + 3) return t->copy_isa.blocks;
    if (slot == COPY_RUN_SLOTS + 4) return t->copy_isa.stream_blocks;
    if (slot >= COPY_SLOTS && slot < COPY_SLOTS + SCAN_SLOTS)
        return scan_slot_isa(t, slot - COPY_SLOTS);
    return -1;
}
