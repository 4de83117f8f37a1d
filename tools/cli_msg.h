/* tools/cli_msg.h: the library's messages as the command line shows them. The library names an
 * option by its field ("t2f_options.max_frames", "T2F_REPORT_STATS": docs/library.md,
 * Messages); on the command line the user has flags, so each such name becomes the flag that
 * sets it ("--max-frames N", "--stats") before the line goes to stderr. */
#ifndef T2F_CLI_MSG_H
#define T2F_CLI_MSG_H

/* A t2f_message_fn: line, its option names made flags, and '\n' on stderr as t2f_message_stderr
 * writes them (SIGPIPE held off: a closed stderr loses the message, not the process). ctx is
 * unused. */
void t2f_cli_message(void *ctx, const char *line);
/* "trace2flame: " and a library error message (t2f_session_error), likewise. */
void t2f_cli_error(const char *text);
/* prefix, then text with its option names made flags: malloc'd, or NULL when out of memory. */
char *t2f_cli_as_flags(const char *prefix, const char *text);

#endif
