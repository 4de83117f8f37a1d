/* formats/profile_sums.c: the cells of a profile whose cells repeat, their repeats added up
 * (t2f_profile__sums, formats/profile.h).
 *
 * Only the cells of threads whose cells may repeat (t2f_profile__cells_repeat) are looked up,
 * each lookup's slot asked for ahead: a thread whose cells all came from one merge has them
 * distinct. A repeat adds its samples and weight to the first cell of its stack, thread and
 * event, found by that cell in a small table of its own (a whole-machine text with 4,640
 * threads, h35.txt: 250K of 474K cells looked up, 38K repeats of 17K cells, 8-9 ms), then put
 * in cell order for the writer (order_more). Made on a thread of its own from
 * t2f_profile__sums_begin on, beside the resolve stage (beside the writer's tables instead,
 * they slowed them: 11-20 ms, the tables 2-6 ms more), or by the writer when nothing began
 * them. */
#include "formats/profile.h"

#include <errno.h>
#include <stdlib.h>

#include "formats/bits.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/profile_int.h"
#include "formats/sat.h"

struct more {
	uint32_t cell;
	uint64_t samples, weight;
};

struct t2f_cell_sums {
	uint64_t *repeat;      /* a bit per cell: it repeats an earlier one */
	struct more *more;     /* [nmore]: what the repeats add, found by cell in more_ix while
				* they are added up, then in cell order (order_more) */
	size_t nmore, more_cap;
	uint64_t *has_more;    /* a bit per cell: in more[] */
	uint32_t *rank;        /* per word of has_more: the entries of more[] before it */
	struct t2f_hashmap *more_ix;
};

struct repeat_probe {
	const struct t2f_profile *p;
	const struct t2f_cell *c;
};

static bool repeat_eq(const void *ctx, uint32_t v)
{
	const struct repeat_probe *q = ctx;
	const struct t2f_cell *a = VEC_AT(q->p->cells, struct t2f_cell, v - 1);

	return a->node == q->c->node && a->thread == q->c->thread && a->event == q->c->event;
}

struct more_probe {
	const struct t2f_cell_sums *s;
	uint32_t cell;
};

static bool more_eq(const void *ctx, uint32_t v)
{
	const struct more_probe *q = ctx;

	return q->s->more[v - 1].cell == q->cell;
}

/* Cell `first` gets c's samples and weight (the sums saturate, as the profile's own do). */
static int add_more(struct t2f_cell_sums *s, uint32_t first, const struct t2f_cell *c)
{
	struct more_probe q = { s, first };
	uint64_t h = t2f_hash_u64(first);
	uint32_t at = t2f_bit_get(s->has_more, first) ? t2f_hashmap__find(s->more_ix, h, more_eq, &q)
						      : 0;
	int err;

	if (at) {
		s->more[at - 1].samples = t2f_sat_add(s->more[at - 1].samples, c->samples);
		s->more[at - 1].weight = t2f_sat_add(s->more[at - 1].weight, c->weight);
		return 0;
	}
	err = t2f_grow((void **)&s->more, &s->more_cap, s->nmore, 1, sizeof(*s->more), 1024,
		       UINT32_MAX);
	if (err)
		return err;
	s->more[s->nmore++] = (struct more){ first, c->samples, c->weight };
	t2f_bit_set(s->has_more, first);
	return t2f_hashmap__insert(s->more_ix, h, (uint32_t)s->nmore);
}

#define AHEAD 16 /* cells ahead whose lookup's slot is asked for */

/* The entry of more[] that cell's is, once in cell order (has_more set for cell). */
static size_t more_rank(const struct t2f_cell_sums *s, uint32_t cell)
{
	uint64_t below = ((uint64_t)1 << (cell % 64)) - 1;

	return s->rank[cell / 64] + (size_t)__builtin_popcountll(s->has_more[cell / 64] & below);
}

/* more[] put in cell order, each entry then found by its rank among the cells in has_more: the
 * writer asks for the cells' sums in cell order, and the lookups in more_ix, one random slot
 * each, were an eighth of its samples' time (h42.txt: 580K cells, 62K repeats). */
static int order_more(struct t2f_cell_sums *s, size_t cells)
{
	size_t words = cells / 64 + 1;
	struct more *in_order = malloc((s->nmore + 1) * sizeof(*in_order));
	uint32_t before = 0;

	s->rank = malloc(words * sizeof(*s->rank));
	if (!in_order || !s->rank) {
		free(in_order);
		return -ENOMEM;
	}
	for (size_t w = 0; w < words; w++) {
		s->rank[w] = before;
		before += (uint32_t)__builtin_popcountll(s->has_more[w]);
	}
	for (size_t i = 0; i < s->nmore; i++)
		in_order[more_rank(s, s->more[i].cell)] = s->more[i];
	free(s->more);
	s->more = in_order;
	s->more_cap = s->nmore + 1;
	t2f_hashmap__free(s->more_ix);
	s->more_ix = NULL;
	return 0;
}

static int sums_make(struct t2f_cell_sums *s, const struct t2f_profile *p)
{
	size_t cells = p->cells.len, looked = 0;
	struct t2f_hashmap *m = NULL;
	int err;

	for (size_t i = 0; i < cells; i++)
		looked += t2f_profile__cells_repeat(p, VEC_AT(p->cells, struct t2f_cell, i)->thread);
	s->repeat = calloc(cells / 64 + 1, sizeof(*s->repeat));
	s->has_more = calloc(cells / 64 + 1, sizeof(*s->has_more));
	err = s->repeat && s->has_more ? t2f_hashmap__new(looked, &m) ?:
					 t2f_hashmap__new(1024, &s->more_ix) : -ENOMEM;
	for (size_t i = 0; !err && i < cells; i++) {
		const struct t2f_cell *c = VEC_AT(p->cells, struct t2f_cell, i);
		struct repeat_probe q = { p, c };
		uint64_t h;
		uint32_t first;

		if (i + AHEAD < cells) {
			const struct t2f_cell *a = VEC_AT(p->cells, struct t2f_cell, i + AHEAD);

			if (t2f_profile__cells_repeat(p, a->thread))
				t2f_hashmap__prefetch(m, t2f_profile__cell_hash(a->node, a->thread,
										a->event));
		}
		if (!t2f_profile__cells_repeat(p, c->thread))
			continue;
		h = t2f_profile__cell_hash(c->node, c->thread, c->event);
		first = t2f_hashmap__find(m, h, repeat_eq, &q);
		if (first) {
			t2f_bit_set(s->repeat, i);
			err = add_more(s, first - 1, c);
			continue;
		}
		err = t2f_hashmap__insert(m, h, (uint32_t)i + 1);
	}
	t2f_hashmap__free(m);
	return err ?: order_more(s, cells);
}

void t2f_cell_sums__free(struct t2f_cell_sums *s)
{
	if (!s)
		return;
	free(s->repeat);
	free(s->more);
	free(s->has_more);
	free(s->rank);
	t2f_hashmap__free(s->more_ix);
	free(s);
}

static int sums_new(const struct t2f_profile *p, struct t2f_cell_sums **out)
{
	struct t2f_cell_sums *s = calloc(1, sizeof(*s));
	int err = s ? sums_make(s, p) : -ENOMEM;

	if (err) {
		t2f_cell_sums__free(s);
		s = NULL;
	}
	*out = s;
	return err;
}

static int sums_job(void *ctx, void *job)
{
	struct t2f_profile *p = ctx;

	(void)job;
	return sums_new(p, &p->sums);
}

int t2f_profile__sums_begin(struct t2f_profile *p)
{
	int err;

	if (!p->repeated || p->sums || p->sums_bg)
		return 0;
	err = t2f_bg__new(sums_job, p, &p->sums_bg);
	if (!err && (err = t2f_bg__hand(p->sums_bg, p)) != 0) {
		t2f_bg__free(p->sums_bg);
		p->sums_bg = NULL;
	}
	return err;
}

bool t2f_profile__sums_begun(const struct t2f_profile *p)
{
	return p->sums_bg != NULL;
}

int t2f_profile__sums(const struct t2f_profile *p, const struct t2f_cell_sums **out,
		      struct t2f_cell_sums **mine)
{
	int err = p->sums_bg ? t2f_bg__wait(p->sums_bg) : 0;

	*mine = NULL;
	*out = p->sums;
	if (p->sums || err)
		return err;
	err = sums_new(p, mine);
	*out = *mine;
	return err;
}

void t2f_profile__sums_drop(struct t2f_profile *p)
{
	t2f_bg__free(p->sums_bg); /* waits for the job */
	p->sums_bg = NULL;
	t2f_cell_sums__free(p->sums);
	p->sums = NULL;
}

const uint64_t *t2f_cell_sums__repeats(const struct t2f_cell_sums *s)
{
	return s->repeat;
}

const uint64_t *t2f_cell_sums__repeated(const struct t2f_cell_sums *s)
{
	return s->has_more;
}

void t2f_cell_sums__add(const struct t2f_cell_sums *s, uint32_t cell, uint64_t v[2])
{
	const struct more *m;

	if (!t2f_bit_get(s->has_more, cell))
		return;
	m = &s->more[more_rank(s, cell)];
	v[0] = t2f_sat_add(v[0], m->samples);
	v[1] = t2f_sat_add(v[1], m->weight);
}
