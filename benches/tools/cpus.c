/*
 * LD_PRELOAD shim for the memory benchmark: makes sched_getaffinity report the CPUs
 * 0 .. BENCH_CPUS-1, so that std::thread::available_parallelism (and `nproc`) sees
 * BENCH_CPUS cores and the library sizes its per-core shards for that machine.
 * Without BENCH_CPUS (or with a value that is not a count the mask can hold) it calls the
 * real function. Built by scripts/bench-memory.sh: cc -shared -fPIC -o libcpus.so cpus.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef int (*getaffinity_fn)(pid_t, size_t, cpu_set_t *);

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set) {
    const char *wanted = getenv("BENCH_CPUS");
    char *end = NULL;
    long cpus = wanted ? strtol(wanted, &end, 10) : 0;
    if (wanted == NULL || *end != '\0' || cpus <= 0 || (size_t)cpus > size * 8) {
        getaffinity_fn real = (getaffinity_fn)dlsym(RTLD_NEXT, "sched_getaffinity");
        if (real == NULL) {
            errno = ENOSYS;
            return -1;
        }
        return real(pid, size, set);
    }
    memset(set, 0, size);
    for (long cpu = 0; cpu < cpus; cpu++) {
        CPU_SET_S((size_t)cpu, size, set);
    }
    return 0;
}
