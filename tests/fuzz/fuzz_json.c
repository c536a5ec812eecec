/* fuzz_json.c - libFuzzer harness for the flattening JSON reader that
 * `gnnscope compare` reads run summaries with (base/json_flat.h): any
 * input is parsed or refused with a reason, never read past its end, and a
 * parsed one has at most JSON_FLAT_MAX pairs with terminated paths and
 * texts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_flat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1); /* exactly size bytes: ASan sees any read past the end */
    if (!copy) return 0;
    memcpy(copy, data, size);
    json_flat_t j;
    char why[200];
    if (json_flat_parse(copy, size, &j, why, sizeof why) == 0) {
        if (j.n < 0 || j.n > JSON_FLAT_MAX) abort();
        for (int i = 0; i < j.n; i++)
            if (!memchr(j.pair[i].path, 0, JSON_FLAT_PATH) || !memchr(j.pair[i].text, 0, JSON_FLAT_TEXT)) abort();
        json_flat_free(&j);
    } else if (!memchr(why, 0, sizeof why) || why[0] == '\0') {
        abort();
    }
    free(copy);
    return 0;
}
