/* main.c - gnnscope entry point: dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "base/membudget.h"
#include "base/version.h"
#include "engine/kernels/blas_idle.h"
#include "commands.h"
#include "tui.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gnnscope COMMAND [flags]\n\n"
            "Commands:\n"
            "  (none)   open the workbench on Cora (same as 'gnnscope tui')\n"
            "  tui      the workbench; accepts every train flag plus --max-epochs, --script\n"
            "  attach   the workbench on a run started with --serve PATH (gnnscope attach PATH)\n"
            "  train    train a GNN full-batch and report loss and accuracy\n"
            "  gen      generate a synthetic power-law graph (OGB raw layout)\n"
            "  topologies  list the interconnect models of the device emulation\n"
            "  demo     list the classroom demos; demo NAME runs one\n"
            "  compare  runs' JSON summaries side by side with ratios (gnnscope compare A.json B.json)\n"
            "  help     show this help\n\n"
            "Run 'gnnscope COMMAND --help' for the flags of a command.\n");
}

int main(int argc, char **argv)
{
    gs_blas_idle_briefly(); /* before any thread starts */
    uint64_t limit;
    gs_err_t err;
    if (gs_mem_limit_env(&limit, &err)) { /* the memory rule's limit, checked before it is needed */
        fprintf(stderr, "gnnscope: error: %s\n", err.msg);
        return 2;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("gnnscope %s\n", GS_VERSION);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') return cmd_tui(argc - 1, argv + 1);
    const char *cmd = argv[1];
    if (strcmp(cmd, "tui") == 0) return cmd_tui(argc - 2, argv + 2);
    if (strcmp(cmd, "attach") == 0) return cmd_attach(argc - 2, argv + 2);
    if (strcmp(cmd, "train") == 0) return cmd_train(argc - 2, argv + 2);
    if (strcmp(cmd, "gen") == 0) return cmd_gen(argc - 2, argv + 2);
    if (strcmp(cmd, "topologies") == 0) return cmd_topologies(argc - 2, argv + 2);
    if (strcmp(cmd, "demo") == 0) return cmd_demo(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0) return cmd_compare(argc - 2, argv + 2);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "gnnscope: error: unknown command '%s' (see gnnscope help)\n", cmd);
    return 2;
}
