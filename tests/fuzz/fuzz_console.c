/* fuzz_console.c - libFuzzer harness for the console's command parser and
 * its handlers, on a live session (engine thread, tiny generated graph):
 * each input line is one command. Every '/' becomes '_' and the working
 * directory is the harness's own, so the files commands write (checkpoint
 * save, trace start, export metrics) stay in it. After each input the run
 * is paused again. A command is served or refused; never a crash. */
#include "app/session.h"
#include "fuzz_util.h"

static session_t session;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (chdir(fuzz_dir()) != 0) abort(); /* relative paths in commands land there */
    train_cfg_t c;
    gs_err_t err;
    train_cfg_defaults(&c);
    snprintf(c.dataset, sizeof c.dataset, "gen:nodes=64,degree=4,feats=8,classes=3,seed=1");
    c.threads = 1;
    if (session_open(&session, &c, NULL, 0, NULL, NULL, 0, &err)) {
        fprintf(stderr, "fuzz_console: %s\n", err.msg);
        abort();
    }
    char r[512];
    session_command(&session, "pause", r, sizeof r);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char line[256], r[512];
    size_t at = 0;
    for (int k = 0; k < 16 && at < size; k++) {
        size_t n = 0;
        while (at < size && data[at] != '\n' && n + 1 < sizeof line) {
            line[n++] = data[at] == '/' || data[at] == '\0' ? '_' : (char)data[at];
            at++;
        }
        while (at < size && data[at] != '\n') at++; /* the rest of an overlong line */
        at++;
        line[n] = '\0';
        int rc = session_command(&session, line, r, sizeof r);
        if (rc != GS_OK && rc != GS_EINPUT && rc != GS_EFAIL && rc != SESSION_QUIT) abort();
        if (strlen(r) >= sizeof r) abort();
    }
    session_command(&session, "pause", r, sizeof r);
    return 0;
}
