/* fuzz_snap.c - libFuzzer harness for the SNAP edge-list loader: the input
 * is the file. It must load or be refused with GS_EINPUT. */
#include "datasets/dataset_load.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write("graph.txt", data, size);
    dataset_t d;
    gs_err_t err;
    char path[512];
    snprintf(path, sizeof path, "%s/graph.txt", fuzz_dir());
    int rc = dataset_load(&d, path, 0, NULL, &err);
    if (rc != GS_OK && rc != GS_EINPUT) abort();
    dataset_free(&d);
    return 0;
}
