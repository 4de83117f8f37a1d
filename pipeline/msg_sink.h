/* pipeline/msg_sink.h: a stdio stream whose lines go to a callback.
 *
 * The diag and the reports print with stdio; a library caller wants lines. The stream is line
 * buffered: each complete line is handed to fn without its '\n' (and control characters as
 * printed); a last line without one is handed over when the stream is closed (fclose).
 *
 * Ownership: fclose() the stream; fn and ctx are the caller's. Not thread safe.
 */
#ifndef T2F_MSG_SINK_H
#define T2F_MSG_SINK_H

#include <stdio.h>

/* The stream, or NULL when out of memory. */
FILE *t2f_msg_sink__open(void (*fn)(void *ctx, const char *line), void *ctx);
/* A stream onto stderr (the FILE, wherever the caller pointed it), unbuffered as stderr is, whose
 * writes never raise SIGPIPE (formats/nosigpipe.h): a closed stderr loses the messages, not the
 * process. NULL when out of memory. */
FILE *t2f_msg_sink__stderr(void);

#endif
