/* tests/unit/support/diag_sink.c: see diag_sink.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/diag_sink.h"

void sink_init(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
	assert_int_equal(t2f_diag__new(s->f, &s->d), 0);
}

const char *sink_text(struct sink *s)
{
	assert_int_equal(fflush(s->f), 0);
	return s->buf ? s->buf : "";
}

void sink_close(struct sink *s)
{
	t2f_diag__free(s->d);
	fclose(s->f);
	free(s->buf);
}
