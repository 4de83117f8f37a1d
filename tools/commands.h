/* tools/commands.h: the subcommands beside conversion (`trace2flame symbols ...`,
 * `trace2flame resolve ...`). Each takes its own argv (argv[0] = the subcommand name) and returns
 * the process exit code (T2F_EXIT_* of tools/cli_opts.h). */
#ifndef T2F_COMMANDS_H
#define T2F_COMMANDS_H

/* trace2flame symbols [--demangle] FILE...: the kept FUNC symbols of each ELF file. */
int t2f_cmd_symbols(int argc, char **argv);
/* trace2flame resolve [--symbol-path DIR] [--build-id HEX] FILE ADDR...: ELF address → function. */
int t2f_cmd_resolve(int argc, char **argv);

#endif
