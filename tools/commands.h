/* tools/commands.h: the subcommands beside conversion (`trace2flame symbols ...`,
 * `trace2flame resolve ...`,
 * `trace2flame diff ...`, `trace2flame cache ...`, `trace2flame collect ...`). Each takes its own
 * argv (argv[0] = the subcommand name) and returns
 * the process exit code (T2F_EXIT_* of tools/cli_opts.h). */
#ifndef T2F_COMMANDS_H
#define T2F_COMMANDS_H

#include <stddef.h>

/* trace2flame symbols [--demangle] FILE...: the kept FUNC symbols of each ELF file. */
int t2f_cmd_symbols(int argc, char **argv);
/* trace2flame resolve [--symbol-path DIR] [--build-id HEX] FILE ADDR...: ELF address → function. */
int t2f_cmd_resolve(int argc, char **argv);

/* trace2flame diff [OPTIONS] BEFORE AFTER [-o OUT.svg]: a differential SVG flame graph. */
int t2f_cmd_diff(int argc, char **argv);
/* trace2flame cache list|verify|clear|dir: the symbol cache's files. */
int t2f_cmd_cache(int argc, char **argv);

/* trace2flame collect [OPTIONS] DIR|FILE... -o STORE: a build-id tree of debug-only copies
 * (tools/collect.h). */
int t2f_cmd_collect(int argc, char **argv);

struct t2f_cli_opts;
/* inputs[0..n) → output ("-" or NULL: stdout) with o's options (tools/convert.c); returns the
 * exit code. */
int t2f_convert(const struct t2f_cli_opts *o, char *const *inputs, size_t n, const char *output);
/* The differential conversion of o->inputs[0] (BEFORE) and [1] (AFTER) into o->output, both read
 * with the same options (tools/convert.c); returns the exit code. */
int t2f_convert_diff(const struct t2f_cli_opts *o);

#endif
