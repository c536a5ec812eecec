/* fuzz_cache.c - libFuzzer harness for the binary dataset cache reader:
 * the input is the cache file, read with the fingerprint its own header
 * names (so inputs get past the staleness check to the sizes, checksum
 * and contents). A cache that reads must pass the loaders' range checks;
 * every other one is refused. */
#include "datasets/cache.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t fp = 0;
    if (size >= 24) memcpy(&fp, data + 16, 8); /* the header's fingerprint field */
    fuzz_write("x.gsc", data, size);
    char path[512];
    snprintf(path, sizeof path, "%s/x.gsc", fuzz_dir());
    dataset_t d;
    gs_err_t err;
    int damaged;
    if (cache_read(&d, path, fp, &damaged, &err) == GS_OK) {
        if (dataset_check(&d, &err) != GS_OK) abort(); /* a cache read as good must be good */
        dataset_free(&d);
    }
    return 0;
}
