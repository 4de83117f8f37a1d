/* tools/progress.c: the terminal progress bar (see progress.h). */
#include "tools/progress.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define T2F_PROGRESS_PERIOD_NS 250000000ull
#define T2F_MIB (1024.0 * 1024.0)

struct t2f_progress {
	FILE *tty;
	uint64_t total;
	uint64_t start_ns, last_ns;
	int width;        /* characters of the longest line drawn, to erase it */
	char label[96];   /* "" when none */
};

static uint64_t t2f_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool t2f_progress__wanted(FILE *tty, uint64_t size)
{
	return isatty(fileno(tty)) && (size == 0 || size >= T2F_PROGRESS_MIN_SIZE);
}

int t2f_progress__new(FILE *tty, uint64_t total, const char *label, struct t2f_progress **out)
{
	struct t2f_progress *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->tty = tty;
	p->total = total;
	p->start_ns = p->last_ns = t2f_now_ns();
	if (label) { /* a fetch: say it at once, it may be short */
		snprintf(p->label, sizeof(p->label), "  %s", label);
		p->last_ns -= T2F_PROGRESS_PERIOD_NS;
	}
	*out = p;
	return 0;
}

static void t2f_progress_draw(struct t2f_progress *p, uint64_t done, uint64_t now)
{
	double secs = (double)(now - p->start_ns) / 1e9;
	double rate = secs > 0 ? (double)done / T2F_MIB / secs : 0;
	int n;

	if (p->total) {
		unsigned pct = done >= p->total ? 100 : (unsigned)(done * 100 / p->total);

		n = fprintf(p->tty, "\r%s  %.0f/%.0f MB  %u%%  %.0f MB/s", p->label,
			    (double)done / T2F_MIB, (double)p->total / T2F_MIB, pct, rate);
	} else {
		n = fprintf(p->tty, "\r%s  %.0f MB  %.0f MB/s", p->label, (double)done / T2F_MIB,
			    rate);
	}
	/* A shorter line than the last one leaves old characters behind: blank them. */
	for (int i = n; i < p->width; i++)
		fputc(' ', p->tty);
	if (n > p->width)
		p->width = n;
	fflush(p->tty);
}

void t2f_progress__update(struct t2f_progress *p, uint64_t done)
{
	uint64_t now;

	if (!p)
		return;
	now = t2f_now_ns();
	if (now - p->last_ns < T2F_PROGRESS_PERIOD_NS)
		return;
	p->last_ns = now;
	t2f_progress_draw(p, done, now);
}

void t2f_progress__finish(struct t2f_progress *p)
{
	if (!p)
		return;
	if (p->width) {
		fputc('\r', p->tty);
		for (int i = 0; i < p->width; i++)
			fputc(' ', p->tty);
		fputc('\r', p->tty);
		fflush(p->tty);
	}
	free(p);
}
