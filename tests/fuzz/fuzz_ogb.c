/* fuzz_ogb.c - libFuzzer harness for the OGB raw-directory loader, file by
 * file: the first byte picks which file the rest of the input replaces in
 * an otherwise valid 4-vertex dataset (num-node-list, num-edge-list,
 * edge, node-feat, node-label, a split), and whether it is written plain
 * (.csv) or gzip-compressed (.csv.gz). Any input must load or be refused
 * with GS_EINPUT; never crash, leak or read out of bounds. */
#include <zlib.h>

#include "datasets/dataset_load.h"
#include "fuzz_util.h"

static const char *files[] = {"num-node-list", "num-edge-list", "edge", "node-feat", "node-label", "split/train",
                              "split/valid", "split/test"};
static const char *valid[] = {"4\n", "3\n", "0,1\n1,2\n2,3\n", "1,0\n0,1\n1,1\n0.5,-2e-1\n", "0\n1\n1\n0\n", "0\n1\n", "2\n", "3\n"};
enum { NFILES = sizeof files / sizeof files[0] };

static void write_gz(const char *name, const uint8_t *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    gzFile gz = gzopen(path, "wb1");
    if (!gz) abort();
    if (size) gzwrite(gz, data, (unsigned)size);
    gzclose(gz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int which = data[0] % NFILES, gz = (data[0] / NFILES) & 1;
    char name[64];
    for (int i = 0; i < NFILES; i++) {
        snprintf(name, sizeof name, "%s/%s.csv", fuzz_dir(), files[i]);
        remove(name);
        snprintf(name, sizeof name, "%s/%s.csv.gz", fuzz_dir(), files[i]);
        remove(name);
        snprintf(name, sizeof name, "%s.csv", files[i]);
        if (i != which) fuzz_write(name, valid[i], strlen(valid[i]));
    }
    snprintf(name, sizeof name, "%s.csv%s", files[which], gz ? ".gz" : "");
    if (gz) write_gz(name, data + 1, size - 1);
    else fuzz_write(name, data + 1, size - 1);
    dataset_t d;
    gs_err_t err;
    int rc = dataset_load(&d, fuzz_dir(), 0, NULL, &err);
    if (rc != GS_OK && rc != GS_EINPUT) abort(); /* GS_EFAIL: only for a failed allocation, which the rule prevents */
    dataset_free(&d);
    return 0;
}
