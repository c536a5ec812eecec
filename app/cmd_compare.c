/* cmd_compare.c - `gnnscope compare A.json B.json [C.json ...]`: runs'
 * summaries (the last line of `gnnscope train --json`) side by side:
 * every number each run reports, with each run's ratio to the first, then
 * the texts that differ (the knobs in force, the dataset, the model). A
 * number's path is its place in the JSON ("memplan.plan_ms"; an array's
 * last element as "losses[-1]"). Limits: at most 8 runs, files of at most
 * 64 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_flat.h"
#include "commands.h"

enum { MAX_RUNS = 8, MAX_FILE = 64 << 20 };

static void usage(FILE *f)
{
    fprintf(f, "usage: gnnscope compare A.json B.json [C.json ...]\n"
               "  Prints every number the runs' JSON summaries (gnnscope train --json) report, side by side with\n"
               "  each run's ratio to the first, then the texts that differ (the knobs in force).\n");
}

/* The last non-empty line of path, parsed; 0, or 2 with one line said. */
static int load(const char *path, json_flat_t *j)
{
    FILE *f = fopen(path, "rb");
    if (!f) return fprintf(stderr, "gnnscope: error: %s: cannot open it\n", path), 2;
    char *buf = malloc(MAX_FILE + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad || n > MAX_FILE) {
        fprintf(stderr, "gnnscope: error: %s: %s\n", path,
                !buf  ? "out of memory"
                : bad ? "cannot read it"
                      : "larger than 64 MiB");
        free(buf);
        return 2;
    }
    while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
        n--;
    size_t start = n;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    char why[200];
    int rc = json_flat_parse(buf + start, n - start, j, why, sizeof why);
    free(buf);
    if (rc) fprintf(stderr, "gnnscope: error: %s: not a gnnscope JSON summary (its last line, %s)\n", path, why);
    return rc ? 2 : 0;
}

/* Whether path was already printed: it is in an earlier run than r. */
static int seen_before(const json_flat_t *runs, int r, const char *path)
{
    for (int q = 0; q < r; q++)
        if (json_flat_get(&runs[q], path)) return 1;
    return 0;
}

static void print_numbers(const json_flat_t *runs, int nr)
{
    printf("%-34s", "counter");
    for (int r = 0; r < nr; r++)
        printf("          run %d", r + 1);
    for (int r = 1; r < nr; r++)
        printf("     run %d/1", r + 1);
    printf("\n");
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < runs[r].n; i++) {
            const json_pair_t *p = &runs[r].pair[i];
            if (p->is_text || seen_before(runs, r, p->path)) continue;
            printf("%-34s", p->path);
            const json_pair_t *first = json_flat_get(&runs[0], p->path);
            for (int q = 0; q < nr; q++) {
                const json_pair_t *v = json_flat_get(&runs[q], p->path);
                if (v && !v->is_text)
                    printf(" %14.6g", v->num);
                else
                    printf(" %14s", "-");
            }
            for (int q = 1; q < nr; q++) {
                const json_pair_t *v = json_flat_get(&runs[q], p->path);
                if (!v || v->is_text || !first || first->is_text)
                    printf(" %11s", "-");
                else if (v->num == first->num)
                    printf(" %11s", "=");
                else if (first->num != 0)
                    printf(" %10.3gx", v->num / first->num);
                else
                    printf(" %11s", "-");
            }
            printf("\n");
        }
}

static void print_texts(const json_flat_t *runs, int nr)
{
    int header = 0;
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < runs[r].n; i++) {
            const json_pair_t *p = &runs[r].pair[i];
            if (!p->is_text || seen_before(runs, r, p->path)) continue;
            int differ = 0;
            for (int q = 0; q < nr && !differ; q++) {
                const json_pair_t *v = json_flat_get(&runs[q], p->path);
                differ = !v || !v->is_text || strcmp(v->text, p->text) != 0;
            }
            if (!differ) continue;
            if (!header) printf("\ndiffering:\n"), header = 1;
            printf("  %-32s", p->path);
            for (int q = 0; q < nr; q++) {
                const json_pair_t *v = json_flat_get(&runs[q], p->path);
                printf("%s%s", q ? " | " : "", v && v->is_text ? v->text : "-");
            }
            printf("\n");
        }
    if (!header) printf("\nno knob or other text differs\n");
}

int cmd_compare(int argc, char **argv)
{
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) return usage(stdout), 0;
    if (argc < 2 || argc > MAX_RUNS) {
        fprintf(stderr, "gnnscope: error: gnnscope compare takes 2 to %d JSON files (gnnscope compare --help)\n",
                MAX_RUNS);
        return 2;
    }
    json_flat_t runs[MAX_RUNS] = {{0}};
    int rc = 0;
    for (int r = 0; r < argc && !rc; r++)
        rc = load(argv[r], &runs[r]);
    if (!rc) {
        for (int r = 0; r < argc; r++)
            printf("run %d: %s\n", r + 1, argv[r]);
        printf("\n");
        print_numbers(runs, argc);
        print_texts(runs, argc);
    }
    for (int r = 0; r < argc; r++)
        json_flat_free(&runs[r]);
    return rc;
}
