/*
 * The C test of the core, through the public header only: every test family under every ISA
 * this CPU can run (forced in turn) and under 1 and several threads, each result compared byte
 * for byte with a plain loop. Built and run by tools/check-c-core (natively, and for Windows
 * under wine).
 *
 * usage: test_core [--require-pool] [--default-threads N] [--affinity N] [--config-only]
 *                  [--isa NAME] [THREADS...]
 *   THREADS               thread counts to run (default: 1 3); counts above 1 are skipped, and
 *                         said so, when the build has no thread pool (unless --require-pool)
 *   --require-pool        fail if this build has no thread pool
 *   --default-threads N   fail unless the thread count before any set_num_threads is N (what
 *                         DMLCPU_NUM_THREADS gave)
 *   --affinity N          fail unless the affinity mask holds N CPUs and the thread count before
 *                         any set_num_threads is the detected budget's (cpus.c)
 *   --config-only         check the ones above, print the configuration, run nothing else
 *   --isa NAME            run the test families under that ISA only (it must be usable);
 *                         "default" is the one dispatch picks for this CPU
 * Exit status 0 when every check passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void print_config(void) {
    uint32_t features = dmlcpu_cpu_features();
    printf("cpu features:");
    for (int bit = 0; bit < DMLCPU_CPU_FEATURE_COUNT; bit++)
        if (features & (1u << bit)) printf(" %s", dmlcpu_cpu_feature_name(bit));
    printf("\nusable ISAs:");
    for (int isa = 0; isa < DMLCPU_ISA_COUNT; isa++)
        if (dmlcpu_usable_isas() & (1u << isa)) printf(" %s", dmlcpu_isa_name(isa));
    printf("\nthread pool: %s, default threads: %d\n", dmlcpu_threads_compiled() ? "yes" : "no",
           dmlcpu_get_num_threads());
    const char *note = dmlcpu_config_note();
    if (*note) printf("note: %s\n", note);
}

static void run_all(void) {
    test_seed(0x5eed);
    test_copies();
    test_groups_and_tiles();
    test_scans();
    test_numpy_scans();
}

int main(int argc, char **argv) {
    static const int default_counts[] = {1, 3};
    int counts[16], ncounts = 0, require_pool = 0, default_threads = 0, config_only = 0;
    int affinity = 0;
    const char *only_isa = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--require-pool") == 0) require_pool = 1;
        else if (strcmp(argv[i], "--config-only") == 0) config_only = 1;
        else if (strcmp(argv[i], "--default-threads") == 0 && i + 1 < argc)
            default_threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--affinity") == 0 && i + 1 < argc)
            affinity = atoi(argv[++i]);
        else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc)
            only_isa = argv[++i];
        else if (ncounts < 16) counts[ncounts++] = atoi(argv[i]);
    }
    if (ncounts == 0)
        for (int i = 0; i < 2; i++) counts[ncounts++] = default_counts[i];
    print_config();
    int initial_threads = dmlcpu_get_num_threads();
    if (require_pool) CHECK(dmlcpu_threads_compiled(), "this build has a thread pool");
    if (default_threads) CHECK(initial_threads == default_threads, "the default thread count");
    if (affinity) {
        const dmlcpu_cpu_budget *cpus = dmlcpu_cpus();
        CHECK(cpus->affinity == affinity, "the affinity count");
        CHECK(initial_threads == cpus->threads && cpus->threads >= 1 &&
                  cpus->threads <= cpus->affinity,
              "the default thread count: the CPUs' budget");
    }
    if (config_only) {
        printf("%ld checks, %ld failures\n", test_checks, test_failures);
        return test_failures ? 1 : 0;
    }
    int ran_isas = 0, default_isa = dmlcpu_active_isa();
    test_invalid_arguments();
    test_pool();
    for (int isa = 0; isa < DMLCPU_ISA_COUNT; isa++) {
        if (!(dmlcpu_usable_isas() & (1u << isa))) continue;
        if (only_isa && strcmp(only_isa, dmlcpu_isa_name(isa)) != 0 &&
            !(strcmp(only_isa, "default") == 0 && isa == default_isa))
            continue;
        ran_isas++;
        CHECK(dmlcpu_force_isa(isa) == DMLCPU_OK && dmlcpu_active_isa() == isa, "force ISA");
        for (int c = 0; c < ncounts; c++) {
            int n = counts[c];
            if (n > 1 && !dmlcpu_threads_compiled()) {
                printf("%-7s threads=%d: skipped, this build has no thread pool\n",
                       dmlcpu_isa_name(isa), n);
                continue;
            }
            CHECK(dmlcpu_set_num_threads(n) == DMLCPU_OK && dmlcpu_get_num_threads() == n,
                  "set_num_threads");
            snprintf(test_context, sizeof test_context, "isa=%s threads=%d",
                     dmlcpu_isa_name(isa), n);
            long before = test_checks, failed = test_failures;
            run_all();
            printf("%-7s threads=%d: %ld checks, %ld failures\n", dmlcpu_isa_name(isa), n,
                   test_checks - before, test_failures - failed);
            fflush(stdout);
        }
    }
    CHECK(ran_isas > 0, "at least one usable ISA ran (--isa names a usable one)");
    dmlcpu_force_isa(-1);
    dmlcpu_set_num_threads(initial_threads);
    printf("%ld checks, %ld failures\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
