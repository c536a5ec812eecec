/* fuzz_script.c - libFuzzer harness for the workbench's script parser
 * (say, wait, mark, effect, #flags lines and console commands): the input
 * is the script file; it loads or is refused, never crashes. */
#include "app/script.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write("x.gs", data, size);
    char path[512];
    snprintf(path, sizeof path, "%s/x.gs", fuzz_dir());
    script_t sc;
    gs_err_t err;
    if (script_load(&sc, path, &err) == GS_OK) script_free(&sc);
    char *flags[64];
    int n = script_flags(path, flags, 64);
    for (int i = 0; i < n; i++) free(flags[i]);
    return 0;
}
