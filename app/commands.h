/* commands.h - the subcommands of the gnnscope binary. Each returns the
 * process exit code: 0 success, 2 bad usage or input, 1 other failure. */
#ifndef GS_COMMANDS_H
#define GS_COMMANDS_H

int cmd_train(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_topologies(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
