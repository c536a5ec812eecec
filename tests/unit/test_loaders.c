/* test_loaders.c - the OGB and SNAP loaders, the binary cache, the
 * generator, and every bad-input case: each must fail with GS_EINPUT and
 * a message naming the file and the line. */
/* run-under: asan */
#include "test_util.h"

#include <sys/stat.h>

#include "base/checksum.h"
#include "datasets/gen_draw.h"

#include <math.h>

#include "datasets/cache.h"
#include "datasets/generator.h"
#include "datasets/ogb_loader.h"
#include "datasets/snap_loader.h"

static char *cache_dir;

static int setup(void **state)
{
    (void)state;
    cache_dir = tu_mkdtemp();
    setenv("GNNSCOPE_CACHE_DIR", cache_dir, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(cache_dir);
    free(cache_dir);
    return 0;
}

/* A valid 4-node OGB directory; `ext` is ".csv" or ".csv.gz". */
static char *small_ogb(const char *ext)
{
    char *dir = tu_mkdtemp(), name[64];
    const char *files[][2] = {{"num-node-list", "4\n"},  {"num-edge-list", "3\n"},
                              {"edge", "0,1\n1,2\n2,3\n"}, {"node-feat", "1,0\n0,1\n1,1\n0.5,-2e-1\n"},
                              {"node-label", "0\n1\n1\n0\n"}, {"split/train", "0\n1\n"},
                              {"split/valid", "2\n"},       {"split/test", "3\n"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(name, sizeof name, "%s%s", files[i][0], ext);
        tu_write(dir, name, files[i][1]);
    }
    return dir;
}

static void test_cora_shipped(void **state)
{
    (void)state;
    dataset_t d;
    gs_err_t err;
    assert_int_equal(dataset_load(&d, "cora", 0, NULL, &err), GS_OK);
    assert_int_equal(d.n, 2708);
    assert_int_equal(d.npairs, 5278);
    assert_int_equal(d.f, 1433);
    assert_int_equal(d.c, 7);
    assert_int_equal(d.nsplit[SPLIT_TRAIN], 140);
    assert_int_equal(d.nsplit[SPLIT_VALID], 500);
    assert_int_equal(d.nsplit[SPLIT_TEST], 1000);
    graph_t g;
    assert_int_equal(graph_build(&g, &d, &err), GS_OK);
    assert_int_equal(g.m, 2 * 5278 + 2708);
    graph_free(&g);
    dataset_free(&d);
}

static void test_plain_and_gz_agree(void **state)
{
    (void)state;
    char *a = small_ogb(".csv"), *b = small_ogb(".csv.gz");
    dataset_t da, db;
    gs_err_t err;
    assert_int_equal(dataset_load(&da, a, 0, NULL, &err), GS_OK);
    assert_int_equal(dataset_load(&db, b, 0, NULL, &err), GS_OK);
    assert_int_equal(da.n, 4);
    assert_int_equal(da.f, 2);
    assert_int_equal(da.c, 2);
    assert_memory_equal(da.feat, db.feat, sizeof(float) * 8);
    assert_true(fabsf(da.feat[7] + 0.2f) < 1e-7f);
    assert_memory_equal(da.pair_dst, db.pair_dst, sizeof(int32_t) * 3);
    dataset_free(&da), dataset_free(&db);
    tu_rmtree(a), tu_rmtree(b);
    free(a), free(b);
}

static void test_ogb_download_layout(void **state)
{
    (void)state;
    /* OGB downloads keep data in raw/ and splits in split/SCHEME/ */
    char *dir = tu_mkdtemp();
    tu_write(dir, "raw/num-node-list.csv.gz", "3\n");
    tu_write(dir, "raw/num-edge-list.csv.gz", "2\n");
    tu_write(dir, "raw/edge.csv.gz", "0,1\n1,2\n");
    tu_write(dir, "raw/node-feat.csv.gz", "1\n2\n3\n");
    tu_write(dir, "raw/node-label.csv.gz", "0\n1\nnan\n");
    tu_write(dir, "split/time/train.csv.gz", "0\n");
    tu_write(dir, "split/time/valid.csv.gz", "1\n");
    tu_write(dir, "split/time/test.csv.gz", "2\n");
    dataset_t d;
    gs_err_t err;
    assert_int_equal(dataset_load(&d, dir, 0, NULL, &err), GS_OK);
    assert_int_equal(d.label[2], -1);
    assert_int_equal(d.nsplit[SPLIT_TEST], 1);
    dataset_free(&d);
    tu_rmtree(dir);
    free(dir);
}

/* Loads a copy of the small dataset with one file replaced; expects a
 * GS_EINPUT whose message names that file and contains `needle`. */
static void expect_bad(const char *file, const char *content, const char *needle)
{
    char *dir = small_ogb(".csv.gz"), path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    remove(path);
    if (content) tu_write(dir, file, content);
    dataset_t d;
    gs_err_t err = {0};
    int rc = dataset_load(&d, dir, 0, NULL, &err);
    if (rc != GS_EINPUT) fail_msg("%s: expected GS_EINPUT, got %d (%s)", file, rc, err.msg);
    char base[64];
    snprintf(base, sizeof base, "%s", file);
    if (!strstr(err.msg, base)) fail_msg("message does not name %s: %s", file, err.msg);
    if (!strstr(err.msg, needle)) fail_msg("message lacks '%s': %s", needle, err.msg);
    assert_null(strchr(err.msg, '\n'));
    dataset_free(&d);
    tu_rmtree(dir);
    free(dir);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    expect_bad("edge.csv.gz", "0,1\n1,2,3,4\n2,3\n", ":2: expected 2 columns");
    expect_bad("edge.csv.gz", "0,1\n1,x\n2,3\n", ":2: column 2 (dst): 'x' is not an integer");
    expect_bad("edge.csv.gz", "0,1\n-1,2\n2,3\n", ":2: column 1 (src): node id -1 is not in [0, 4)");
    expect_bad("edge.csv.gz", "0,1\n1,2\n2,4\n", ":3: column 2 (dst): node id 4 is not in [0, 4)");
    expect_bad("edge.csv.gz", "0,1\n1,2\n", "file ends early");
    expect_bad("edge.csv.gz", "0,1\n1,2\n2,3\n3,0\n", ":4: extra row");
    expect_bad("edge.csv.gz", "", ":1: file is empty");
    expect_bad("edge.csv.gz", NULL, "missing file");
    expect_bad("node-feat.csv.gz", "1,0\n0,1\n1\n0,1\n", ":3: expected 2 columns");
    expect_bad("node-feat.csv.gz", "1,0\n0,abc\n1,1\n0,1\n", ":2: column 2 (feature): 'abc' is not a number");
    expect_bad("node-feat.csv.gz", "1,0\n0,1\n1,inf\n0,1\n", ":3: column 2 (feature)");
    expect_bad("node-label.csv.gz", "0\n-3\n1\n0\n", ":2: column 1 (label): -3 is out of range");
    expect_bad("node-label.csv.gz", "0\n1\n1\n70000\n", ":4: column 1 (label): 70000 is out of range");
    expect_bad("split/train.csv.gz", "0\n9\n", ":2: column 1 (node index): 9 is not in [0, 4)");
    expect_bad("split/valid.csv.gz", "", ":1: file is empty");
    expect_bad("num-node-list.csv.gz", "99999999999999\n", ":1: column 1 (node count): declared 99999999999999 exceeds the limit");
    expect_bad("num-node-list.csv.gz", "four\n", ":1: column 1 (node count): 'four' is not an integer");
    expect_bad("num-node-list.csv.gz", "", ":1: file is empty");
    expect_bad("num-node-list.csv.gz", "0\n", "num-node-list.csv.gz:1: column 1 (node count): 0, but at least 1 is needed");
    expect_bad("node-label.csv.gz", "0\n1\x1b[31m\x07\n1\n0\n", ":2: column 1 (label): '1?[31m?' is not an integer");
}

/* Files that are not what their names say: raw bytes named .gz (refused
 * before zlib reads them as text, and never echoed), FIFOs and devices
 * (refused instead of blocking). */
static void test_hostile_files(void **state)
{
    (void)state;
    char *dir = small_ogb(".csv.gz"), path[4200];
    snprintf(path, sizeof path, "%s/num-node-list.csv.gz", dir);
    FILE *f = fopen(path, "wb");
    fwrite("\x01\x02\x1b[31mhello\x00", 1, 12, f);
    fclose(f);
    dataset_t d;
    gs_err_t err;
    assert_int_equal(dataset_load(&d, dir, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "num-node-list.csv.gz: not gzip-compressed"));
    for (const char *c = err.msg; *c; c++) assert_true((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f);
    dataset_free(&d);
    tu_write(dir, "num-node-list.csv.gz", "4\n");
    snprintf(path, sizeof path, "%s/edge.csv.gz", dir);
    remove(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(dataset_load(&d, dir, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "edge.csv.gz: not a regular file"));
    dataset_free(&d);
    assert_int_equal(dataset_load(&d, path, 0, NULL, &err), GS_EINPUT); /* the FIFO as the dataset itself */
    assert_non_null(strstr(err.msg, "not a regular file or directory"));
    dataset_free(&d);
    assert_int_equal(dataset_load(&d, "/dev/zero", 0, NULL, &err), GS_EINPUT);
    dataset_free(&d);
    tu_rmtree(dir);
    free(dir);
}

static void test_huge_declared_count_fails_before_allocating(void **state)
{
    (void)state;
    /* 2e9 nodes x 2 features fits the id limit but not in memory on any test machine
     * with < 14 GiB free... so use a wide feature row: 2e9 x 64 floats = 512 GB */
    char *dir = small_ogb(".csv");
    char row[256] = "";
    for (int j = 0; j < 64; j++) strcat(row, j ? ",1" : "1");
    strcat(row, "\n");
    tu_write(dir, "num-node-list.csv", "2000000000\n");
    tu_write(dir, "edge.csv", "0,1\n1,2\n2,3\n");
    tu_write(dir, "node-feat.csv", row);
    dataset_t d;
    gs_err_t err;
    assert_int_equal(dataset_load(&d, dir, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "node-feat.csv:1:"));
    assert_non_null(strstr(err.msg, "GiB"));
    dataset_free(&d);
    tu_rmtree(dir);
    free(dir);
}

static void test_corrupt_and_truncated_gzip(void **state)
{
    (void)state;
    char *dir = small_ogb(".csv.gz"), path[4200];
    /* a long feature file so the stream spans several deflate blocks */
    char *big = malloc(1 << 20);
    big[0] = '\0';
    tu_write(dir, "num-node-list.csv.gz", "4\n");
    snprintf(path, sizeof path, "%s/node-feat.csv.gz", dir);
    gzFile gz = gzopen(path, "wb");
    for (int i = 0; i < 4; i++) gzprintf(gz, "%d.123456789,%d.987654321\n", i * 7919, i * 104729);
    gzclose(gz);
    FILE *f = fopen(path, "rb");
    size_t n = fread(big, 1, 1 << 20, f);
    fclose(f);
    /* truncated: drop the trailer and part of the data */
    f = fopen(path, "wb");
    fwrite(big, 1, n - 12, f);
    fclose(f);
    dataset_t d;
    gs_err_t err;
    assert_int_equal(dataset_load(&d, dir, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "node-feat.csv.gz:"));
    dataset_free(&d);
    /* corrupt: garbage in the middle of the deflate stream */
    for (size_t i = 12; i < n - 8; i++) big[i] ^= 0x5a;
    f = fopen(path, "wb");
    fwrite(big, 1, n, f);
    fclose(f);
    assert_int_equal(dataset_load(&d, dir, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "node-feat.csv.gz:"));
    dataset_free(&d);
    free(big);
    tu_rmtree(dir);
    free(dir);
}

static void test_snap_loader(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), path[4200];
    tu_write(dir, "g.txt", "# a SNAP file\n# FromNodeId ToNodeId\n10\t20\n20 30\n\n30   10\n40 10\n");
    snprintf(path, sizeof path, "%s/g.txt", dir);
    dataset_t d;
    gs_err_t err;
    assert_int_equal(dataset_load(&d, path, 0, NULL, &err), GS_OK);
    assert_int_equal(d.n, 4);
    assert_int_equal(d.npairs, 4);
    assert_int_equal(d.pair_src[0], 0); /* 10 -> 0, 20 -> 1 */
    assert_int_equal(d.pair_dst[0], 1);
    assert_int_equal(d.f, 8);
    assert_int_equal(d.c, 4);
    /* rule: feature 0 is log(1 + degree); vertex 0 (id 10) has degree 3 */
    assert_true(fabsf(d.feat[0] - logf(4.0f)) < 1e-6f);
    assert_int_equal(d.label[0], 3); /* the highest degree is in the top quartile */
    assert_int_equal(d.nsplit[0] + d.nsplit[1] + d.nsplit[2], 4);
    dataset_free(&d);
    tu_write(dir, "bad.txt", "1 2\n3 x\n");
    snprintf(path, sizeof path, "%s/bad.txt", dir);
    assert_int_equal(dataset_load(&d, path, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "bad.txt:2: column 2 (dst): 'x' is not an integer"));
    dataset_free(&d);
    tu_write(dir, "neg.txt", "1 2\n-3 4\n");
    snprintf(path, sizeof path, "%s/neg.txt", dir);
    assert_int_equal(dataset_load(&d, path, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "neg.txt:2: column 1 (src): node id -3 is negative"));
    dataset_free(&d);
    tu_write(dir, "empty.txt", "# only a comment\n");
    snprintf(path, sizeof path, "%s/empty.txt", dir);
    assert_int_equal(dataset_load(&d, path, 0, NULL, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "empty.txt:1: file is empty"));
    dataset_free(&d);
    tu_rmtree(dir);
    free(dir);
}

static void test_cache_round_trip_and_staleness(void **state)
{
    (void)state;
    char *dir = small_ogb(".csv.gz");
    dataset_t a, b;
    gs_err_t err;
    assert_int_equal(dataset_load(&a, dir, 1, NULL, &err), GS_OK); /* writes the cache */
    char cfile[4200], abs[4096];
    assert_non_null(realpath(dir, abs));
    assert_int_equal(cache_path(abs, cfile, sizeof cfile, &err), GS_OK);
    int damaged;
    if (cache_read(&b, cfile, cache_fingerprint(abs), &damaged, &err) != GS_OK) fail_msg("%s", err.msg);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.feat, b.feat, sizeof(float) * (size_t)(a.n * a.f));
    assert_memory_equal(a.split[2], b.split[2], sizeof(int32_t) * (size_t)a.nsplit[2]);
    assert_string_equal(a.name, b.name);
    dataset_free(&b);
    /* a changed source makes the fingerprint differ: the cache is not used */
    sleep(0);
    tu_write(dir, "node-label.csv.gz", "1\n1\n0\n0\n");
    assert_int_not_equal(cache_read(&b, cfile, cache_fingerprint(abs), &damaged, &err), GS_OK);
    assert_int_equal(damaged, 0); /* stale, not damaged: rebuilt without a warning */
    dataset_free(&b);
    if (dataset_load(&b, dir, 1, NULL, &err) != GS_OK) fail_msg("%s", err.msg);
    assert_int_equal(b.label[0], 1);
    dataset_free(&b);
    /* a damaged cache is rejected, and the loader falls back to the source */
    FILE *f = fopen(cfile, "r+b");
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fclose(f);
    assert_int_equal(truncate(cfile, sz - 5), 0);
    assert_int_equal(cache_read(&b, cfile, cache_fingerprint(abs), &damaged, &err), GS_EINPUT);
    assert_int_equal(damaged, 1);
    dataset_free(&b);
    assert_int_equal(dataset_load(&b, dir, 1, NULL, &err), GS_OK);
    dataset_free(&b);
    dataset_free(&a);
    tu_rmtree(dir);
    free(dir);
}

/* Cache header fields at their offsets (cache.c's layout). */
enum { H_BYTES = 12, H_N = 24, H_F = 32, H_C = 40, H_NPAIRS = 48, H_NSPLIT = 56, H_NTYPES = 80, H_HAS_TYPES = 84 };

static int64_t peek64(const unsigned char *b, int off)
{
    int64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

/* Writes img with one int32 changed (at byte off) and, when resum, the
 * checksum recomputed over the header (its checksum zeroed) and the
 * arrays, as a broken build would write it. */
static void write_damaged(const char *file, const unsigned char *img, size_t size, size_t off, int32_t value, int resum)
{
    unsigned char *b = malloc(size);
    memcpy(b, img, size);
    memcpy(b + off, &value, 4);
    uint32_t hb;
    memcpy(&hb, b + H_BYTES, 4);
    if (resum) { /* array by array, as the writer chains it */
        int64_t n = peek64(b, H_N), np = peek64(b, H_NPAIRS), nf = peek64(b, H_F);
        int32_t types;
        memcpy(&types, b + H_HAS_TYPES, 4);
        size_t span[9], k = 0, at = hb;
        for (int i = 0; i < 2 + types; i++) span[k++] = 4 * (size_t)np;
        span[k++] = 4 * (size_t)(n * nf), span[k++] = 4 * (size_t)n;
        for (int i = 0; i < 3; i++) span[k++] = 4 * (size_t)peek64(b, H_NSPLIT + 8 * i);
        memset(b + hb - 8, 0, 8);
        uint64_t sum = gs_checksum(GS_CHECKSUM_SEED, b, hb);
        for (size_t i = 0; i < k; at += span[i++]) sum = gs_checksum(sum, b + at, span[i]);
        memcpy(b + hb - 8, &sum, 8); /* the checksum is the header's last field */
    }
    FILE *f = fopen(file, "wb");
    fwrite(b, size, 1, f);
    fclose(f);
    free(b);
}

/* A damaged cache is never trusted: a flipped byte fails its checksum; a
 * consistent file with out-of-range contents fails the loaders' checks;
 * sizes in the header are checked against the file before any allocation;
 * and loading rebuilds the cache from the sources. */
static void test_damaged_cache_is_refused_and_rebuilt(void **state)
{
    (void)state;
    char *dir = small_ogb(".csv");
    dataset_t a, b;
    gs_err_t err;
    assert_int_equal(dataset_load(&a, dir, 1, NULL, &err), GS_OK);
    char cfile[4200], abs[4096];
    assert_non_null(realpath(dir, abs));
    assert_int_equal(cache_path(abs, cfile, sizeof cfile, &err), GS_OK);
    FILE *f = fopen(cfile, "rb");
    fseek(f, 0, SEEK_END);
    size_t size = (size_t)ftell(f);
    rewind(f);
    unsigned char *img = malloc(size);
    assert_int_equal(fread(img, size, 1, f), 1);
    fclose(f);
    uint32_t hb;
    memcpy(&hb, img + H_BYTES, 4);
    int64_t n = peek64(img, H_N), np = peek64(img, H_NPAIRS), nf = peek64(img, H_F);
    int32_t types = 0;
    memcpy(&types, img + H_HAS_TYPES, 4);
    size_t src = hb, label = hb + 4 * (size_t)np * (2 + (size_t)types) + 4 * (size_t)(n * nf), split = label + 4 * (size_t)n;
    struct {
        size_t off;
        int32_t value;
        const char *why;
    } cases[] = {
        {src, 0x7fffffff, "endpoint out of range"}, {src, (int32_t)n, "endpoint out of range"},
        {label, 60000, "label 60000 out of range"}, {label, -5, "label -5 out of range"},
        {split, 5000000, "vertex 5000000 out of range"}, {split, INT32_MIN, "out of range"},
    };
    uint64_t fp = cache_fingerprint(abs);
    int damaged;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_damaged(cfile, img, size, cases[i].off, cases[i].value, 0);
        assert_int_equal(cache_read(&b, cfile, fp, &damaged, &err), GS_EINPUT);
        assert_int_equal(damaged, 1);
        assert_non_null(strstr(err.msg, "checksum mismatch"));
        write_damaged(cfile, img, size, cases[i].off, cases[i].value, 1);
        assert_int_equal(cache_read(&b, cfile, fp, &damaged, &err), GS_EINPUT);
        assert_int_equal(damaged, 1);
        if (!strstr(err.msg, cases[i].why)) fail_msg("case %zu: %s", i, err.msg);
        assert_int_equal(dataset_load(&b, dir, 1, NULL, &err), GS_OK); /* rebuilt from the sources */
        assert_memory_equal(b.label, a.label, sizeof(int32_t) * (size_t)a.n);
        dataset_free(&b);
        assert_int_equal(cache_read(&b, cfile, fp, &damaged, &err), GS_OK); /* and rewritten */
        dataset_free(&b);
    }
    /* a header field the sizes do not show (the class count, the edge types) is under the checksum too */
    int32_t c100 = 100, t_big = 0x7fffffff;
    size_t fields[][2] = {{H_C, (size_t)c100}, {H_NTYPES, (size_t)t_big}};
    for (size_t i = 0; i < 2; i++) {
        write_damaged(cfile, img, size, fields[i][0], (int32_t)fields[i][1], 0);
        assert_int_equal(cache_read(&b, cfile, fp, &damaged, &err), GS_EINPUT);
        assert_int_equal(damaged, 1);
        assert_non_null(strstr(err.msg, "checksum mismatch"));
    }
    /* sizes that would wrap or overflow are refused before allocating */
    int64_t huge[][2] = {{H_F, (int64_t)1 << 40}, {H_NSPLIT, (int64_t)1 << 62}, {H_NSPLIT + 8, -1}, {H_NPAIRS, (int64_t)1 << 41},
                         {H_F, 1000000}};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        unsigned char *c = malloc(size);
        memcpy(c, img, size);
        memcpy(c + huge[i][0], &huge[i][1], 8);
        f = fopen(cfile, "wb");
        fwrite(c, size, 1, f);
        fclose(f);
        free(c);
        assert_int_equal(cache_read(&b, cfile, fp, &damaged, &err), GS_EINPUT);
        assert_int_equal(damaged, 1);
        assert_null(b.feat); /* nothing was allocated */
    }
    free(img);
    dataset_free(&a);
    tu_rmtree(dir);
    free(dir);
}

static void test_generator(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 3000, .avg_degree = 12, .feats = 16, .classes = 5, .seed = 3};
    dataset_t a, b;
    gs_err_t err;
    assert_int_equal(gen_graph(&a, &p, &err), GS_OK);
    assert_int_equal(gen_graph(&b, &p, &err), GS_OK);
    assert_int_equal(a.npairs, 3000 * 6);
    assert_memory_equal(a.pair_src, b.pair_src, sizeof(int32_t) * (size_t)a.npairs);
    assert_memory_equal(a.feat, b.feat, sizeof(float) * (size_t)(a.n * a.f));
    dataset_free(&b);
    /* power law: the largest degree is far above the mean; homophily holds */
    int64_t *deg = calloc(3000, sizeof *deg), maxd = 0, same = 0;
    for (int64_t i = 0; i < a.npairs; i++) {
        deg[a.pair_src[i]]++, deg[a.pair_dst[i]]++;
        same += a.label[a.pair_src[i]] == a.label[a.pair_dst[i]];
        assert_int_not_equal(a.pair_src[i], a.pair_dst[i]);
    }
    for (int v = 0; v < 3000; v++) maxd = deg[v] > maxd ? deg[v] : maxd;
    assert_true(maxd > 10 * 12);
    assert_true((double)same / (double)a.npairs > 0.6);
    free(deg);
    /* written OGB layout reads back identically */
    char *dir = tu_mkdtemp();
    assert_int_equal(ogb_write(&a, dir, &err), GS_OK);
    assert_int_equal(dataset_load(&b, dir, 0, NULL, &err), GS_OK);
    assert_int_equal(b.n, a.n);
    assert_int_equal(b.npairs, a.npairs);
    assert_memory_equal(b.pair_dst, a.pair_dst, sizeof(int32_t) * (size_t)a.npairs);
    assert_memory_equal(b.label, a.label, sizeof(int32_t) * (size_t)a.n);
    for (int64_t i = 0; i < a.n * a.f; i++) assert_true(fabsf(a.feat[i] - b.feat[i]) <= 1e-4f * (1 + fabsf(a.feat[i])));
    dataset_free(&a), dataset_free(&b);
    tu_rmtree(dir);
    free(dir);
}

/* local=1 numbers each class's vertices together: classes are id ranges,
 * so most edges (the homophilous 80%) join ids of one range of n / C,
 * where random numbering spreads them; with hubs=1 each range is in
 * decreasing expected degree; the key parses and is refused out of range. */
static void test_generator_local_ids(void **state)
{
    (void)state;
    gen_params_t p = {.nodes = 4000, .avg_degree = 16, .feats = 4, .classes = 8, .seed = 3, .local = 1};
    dataset_t d;
    gs_err_t err;
    double near[2];
    for (int local = 0; local < 2; local++) {
        p.local = local;
        assert_int_equal(gen_graph(&d, &p, &err), GS_OK);
        int64_t in_range = 0;
        for (int64_t i = 0; i < d.npairs; i++) in_range += d.pair_src[i] / 500 == d.pair_dst[i] / 500;
        near[local] = (double)in_range / (double)d.npairs;
        for (int64_t v = 0; local && v < d.n; v++) assert_int_equal(d.label[v], v / 500);
        if (local) assert_string_equal(d.name, "gen-n4000-d16-local");
        dataset_free(&d);
    }
    assert_true(near[1] > 0.75 && near[0] < 0.25);
    p.hubs = GEN_HUBS_FIRST;
    assert_int_equal(gen_graph(&d, &p, &err), GS_OK);
    int64_t deg[4000] = {0}, first = 0, last = 0;
    for (int64_t i = 0; i < d.npairs; i++) deg[d.pair_src[i]]++, deg[d.pair_dst[i]]++;
    for (int k = 0; k < 8; k++)
        for (int v = 0; v < 50; v++) first += deg[500 * k + v], last += deg[500 * k + 450 + v];
    assert_true(first > 4 * last); /* each range's hubs first */
    dataset_free(&d);
    p.hubs = GEN_HUBS_LAST;
    assert_int_equal(gen_graph(&d, &p, &err), GS_OK);
    memset(deg, 0, sizeof deg), first = last = 0;
    for (int64_t i = 0; i < d.npairs; i++) deg[d.pair_src[i]]++, deg[d.pair_dst[i]]++;
    for (int k = 0; k < 8; k++)
        for (int v = 0; v < 50; v++) first += deg[500 * k + v], last += deg[500 * k + 450 + v];
    assert_true(last > 4 * first); /* each range's hubs last */
    assert_string_equal(d.name, "gen-n4000-d16-hubslast-local");
    dataset_free(&d);
    assert_int_equal(gen_parse_spec("gen:hubs=2", &p, &err), GS_OK);
    assert_int_equal(p.hubs, GEN_HUBS_LAST);
    assert_int_equal(gen_parse_spec("gen:hubs=first", &p, &err), GS_OK);
    assert_int_equal(p.hubs, GEN_HUBS_FIRST);
    assert_int_equal(gen_parse_spec("gen:hubs=last", &p, &err), GS_OK);
    assert_int_equal(p.hubs, GEN_HUBS_LAST);
    assert_int_equal(gen_parse_spec("gen:hubs=3", &p, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "hubs=3 is not random, first, last or an integer in [0, 2]"));
    assert_int_equal(gen_parse_spec("gen:hubs=lastly", &p, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "hubs=lastly is not random, first, last or an integer in [0, 2]"));
    assert_int_equal(gen_parse_spec("gen:nodes=100,local=1", &p, &err), GS_OK);
    assert_true(p.local == 1 && p.nodes == 100);
    assert_int_equal(gen_parse_spec("gen:local=2", &p, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "local=2 is not an integer in [0, 1]"));
}

/* The generator's guide table (gen_draw.c) picks the vertex a plain binary
 * search over the cumulative weights picks, for every u, on a power-law
 * weight vector with ties and zero weights, at the buckets' edges too. */
static void test_guide_sampling_is_the_binary_search(void **state)
{
    (void)state;
    enum { N = 5000 };
    gen_sampler_t s = {malloc(sizeof(int32_t) * N), malloc(sizeof(double) * N), N, NULL};
    double acc = 0;
    for (int i = 0; i < N; i++) {
        double w = i % 97 == 0 ? 0.0 : i % 13 == 0 ? 1.0 : pow((i % 389 + 1) / 390.0, -1.0 / 1.5);
        acc += w;
        s.ids[i] = 10 * i, s.cum[i] = acc;
    }
    assert_int_equal(gen_sampler_guide(&s), 0);
    for (int k = 0; k < 200000; k++) {
        double u = k < 2 * N ? (double)(k / 2) / N + (k % 2 ? 1e-12 : 0) : (double)(gs_hash2(7, (uint64_t)k) >> 11) / 9007199254740992.0;
        if (u >= 1) continue;
        double x = u * s.cum[N - 1];
        int64_t lo = 0, hi = N - 1;
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (s.cum[mid] <= x) lo = mid + 1;
            else hi = mid;
        }
        if (gen_sample(&s, u) != s.ids[lo]) fail_msg("u = %.17g: guide %d, search %d", u, gen_sample(&s, u), s.ids[lo]);
    }
    gen_sampler_free(&s);
}

/* gen:like=NAME: a paper's published shape; other keys override it, scale
 * multiplies the vertices and keeps the degree; bad names and scales fail. */
static void test_generator_like_a_paper(void **state)
{
    (void)state;
    gen_params_t p;
    gs_err_t err;
    assert_int_equal(gen_parse_spec("gen:like=reddit", &p, &err), GS_OK);
    assert_int_equal(p.nodes, 232965);
    assert_true(fabs(p.avg_degree * 232965 - 114848857) < 1);
    assert_true(p.feats == 602 && p.classes == 41);
    assert_int_equal(gen_parse_spec("gen:feats=32,like=amazon,scale=0.001", &p, &err), GS_OK);
    assert_true(p.nodes == 8600 && p.feats == 32 && p.classes == 22);
    assert_true(fabs(p.avg_degree - 231.6e6 / 8.6e6) < 1e-9);
    /* NeuGraph's blog: 10.3K vertices, 668.0K edges, drawn within 2% */
    dataset_t d;
    assert_int_equal(gen_parse_spec("gen:like=blog", &p, &err), GS_OK);
    assert_int_equal(gen_graph(&d, &p, &err), GS_OK);
    assert_true(d.n == 10300 && d.f == 128 && d.c == 39);
    assert_true(fabs(2.0 * (double)d.npairs - 668.0e3) < 0.02 * 668.0e3);
    assert_string_equal(d.name, "like-blog-n10300");
    dataset_free(&d);
    assert_int_equal(gen_parse_spec("gen:like=cora2", &p, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "like=cora2 is not a known shape (pubmed, blog,"));
    assert_int_equal(gen_parse_spec("gen:like=amazon,scale=0", &p, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "scale=0 is not a number in"));
    assert_int_equal(gen_parse_spec("gen:like=pubmed,scale=1e-6", &p, &err), GS_EINPUT);
    assert_non_null(strstr(err.msg, "makes 0 vertices"));
    assert_int_equal(gen_parse_spec("gen:like=reddit,scale=0.001", &p, &err), GS_EINPUT); /* 233 vertices, degree 493 */
    assert_non_null(strstr(err.msg, "more than half of nodes-1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cora_shipped),
        cmocka_unit_test(test_plain_and_gz_agree),
        cmocka_unit_test(test_ogb_download_layout),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_hostile_files),
        cmocka_unit_test(test_huge_declared_count_fails_before_allocating),
        cmocka_unit_test(test_corrupt_and_truncated_gzip),
        cmocka_unit_test(test_snap_loader),
        cmocka_unit_test(test_cache_round_trip_and_staleness),
        cmocka_unit_test(test_damaged_cache_is_refused_and_rebuilt),
        cmocka_unit_test(test_generator),
        cmocka_unit_test(test_generator_like_a_paper),
        cmocka_unit_test(test_generator_local_ids),
        cmocka_unit_test(test_guide_sampling_is_the_binary_search),
    };
    return cmocka_run_group_tests_name("loaders", tests, setup, teardown);
}
