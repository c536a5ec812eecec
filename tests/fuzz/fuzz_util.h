/* fuzz_util.h - what the libFuzzer harnesses share: a private working
 * directory made once per process (every file a harness writes stays in
 * it; run.sh passes libFuzzer absolute paths, so a harness may chdir
 * there), writing an input to a file there, and the memory rule tightened
 * (GNNSCOPE_MEM_LIMIT) so that whatever it allows fits libFuzzer's
 * -rss_limit_mb. */
#ifndef GS_FUZZ_UTIL_H
#define GS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The harness's directory, created on first use. */
static inline const char *fuzz_dir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gnnscope-fuzz-XXXXXX");
        if (!mkdtemp(dir)) abort();
        setenv("GNNSCOPE_MEM_LIMIT", "1G", 1);
        setenv("GNNSCOPE_CACHE_DIR", dir, 1); /* a loaded dataset's cache stays here too */
        char split[96];
        snprintf(split, sizeof split, "%s/split", dir);
        (void)mkdir(split, 0700);
    }
    return dir;
}

/* Writes data to name, relative to fuzz_dir(). */
static inline void fuzz_write(const char *name, const void *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size) fwrite(data, 1, size, f);
    fclose(f);
}

#endif
