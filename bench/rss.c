/* bench/rss.c — preloaded (LD_PRELOAD) into a measured command by bench/bench.sh, and so into
 * every process it starts: at exit each one writes its own peak resident set
 * (getrusage(RUSAGE_SELF), KiB) and its name to a file of $BENCH_RSS_DIR. /usr/bin/time reports
 * the largest process of the tree, which for `continuity sync` over file:// is the remote's own
 * `git receive-pack` (the server side of the push), not git-majordomus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((destructor)) static void bench_rss_report(void) {
    const char *dir = getenv("BENCH_RSS_DIR");
    struct rusage u;
    char name[64] = "?", path[4096];
    FILE *f;
    if (!dir || getrusage(RUSAGE_SELF, &u) != 0) return;
    if ((f = fopen("/proc/self/comm", "r"))) {
        if (fgets(name, sizeof name, f)) name[strcspn(name, "\n")] = 0;
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/%d", dir, (int)getpid());
    if ((f = fopen(path, "w"))) {
        fprintf(f, "%ld %s\n", u.ru_maxrss, name);
        fclose(f);
    }
}
