/* tests/unit/support/diag_sink.h: a diag whose warnings land in a memory buffer
 * (open_memstream), so tests can compare the exact text printed. */
#ifndef T2F_TEST_SUPPORT_DIAG_SINK_H
#define T2F_TEST_SUPPORT_DIAG_SINK_H

#include <stddef.h>
#include <stdio.h>

#include "formats/diag.h"

struct sink {
	FILE *f;
	char *buf;
	size_t len;
	struct t2f_diag *d;
};

/* Opens the memory stream and a diag writing to it (default settings). */
void sink_init(struct sink *s);

/* What the sink holds so far (NUL-terminated by open_memstream after fflush). */
const char *sink_text(struct sink *s);

void sink_close(struct sink *s);

#endif
