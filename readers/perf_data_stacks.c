/* readers/perf_data_stacks.c: samples' frames and stacks into the profile, in batches
 * (perf_data_stacks.h).
 *
 * Two batches: the caller fills one while the thread adds the other. A full batch is handed
 * over once the thread is done with the previous one, so at most one waits. Without the thread
 * a full batch is added at once, in the same order. A batch adds its new frames first (a
 * sample names only frames queued before it), then its samples.
 */
#include "readers/perf_data_stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bg.h"
#include "formats/derive.h"
#include "formats/diag.h"
#include "formats/grow.h"
#include "formats/hashmap.h"

#define PDC_STACKS_BATCH 8192 /* samples per batch */
#define PDC_GROUP 64          /* samples whose stacks are looked up together */

struct pdc_srec {             /* a queued sample; its frames follow the previous one's */
	uint64_t weight, time;
	t2f_thread_id thread;
	t2f_thread_id cell_thread; /* t2f_profile__cell_thread's, asked by the filling thread */
	t2f_event_id event;
	uint32_t n;
};

struct pdc_drec {              /* a switch for the derive stage, between samples */
	size_t at;             /* after the batch's first `at` samples */
	int64_t tid;
	uint64_t time;         /* IN: the switch-in's */
	unsigned state;        /* OUT: enum t2f_cpu_state */
	t2f_thread_id thread;  /* OUT: the thread that waits */
	bool out;              /* OUT: the sample at - 1 takes tid off CPU, at its time */
};

struct pdc_batch {
	struct pdc_srec *s;
	size_t n, cap;
	struct pdc_drec *dr;      /* with a derive stage only */
	size_t ndr, capdr;
	uint32_t *f;              /* the samples' frame references */
	size_t nf, capf;
	struct t2f_frame *fr;     /* the frames queued, in order */
	void **cls;         /* and their class sources (with class_key) */
	size_t nfr, capfr, capcls;
};

struct pdc_class {            /* a class met: its source, key and first frame */
	void *src;
	uint64_t key;
	t2f_frame_id frame;
};

struct t2f_pdc_stacks {
	struct t2f_profile *p;
	struct pdc_batch b[2];
	int fill;                 /* the batch the caller fills */
	uint32_t refs;            /* frame references handed out */
	struct t2f_derive *derive; /* the profile's derive stage, or NULL */
	t2f_frame_id *ids;        /* the thread's: a reference's frame, by reference - 1 */
	size_t n_ids, cap_ids;
	t2f_frame_id *fids;       /* a group's stacks, root first (t2f_profile__stacks) */
	size_t cap_fids;
	uint32_t lens[PDC_GROUP]; /* their lengths */
	t2f_node_id nodes[PDC_GROUP]; /* and their nodes */
	bool threaded;
	struct t2f_bg *bg;        /* the thread (formats/bg.h), from the first batch on */
	int err;                  /* without the thread: the first error */
	t2f_pdc_class_fn class_key; /* NULL: no classes */
	t2f_frame_id *as;         /* the thread's: per frame id, the frame stacks hold it as */
	size_t n_as, cap_as;      /* frame ids met (n_as - 1: as[0] unused) */
	struct pdc_class *classes;
	size_t n_classes, cap_classes;
	struct t2f_hashmap *class_ix;
	uint64_t classed;         /* frames added as another */
};

/* The derive stage's switches queued after the first `upto` samples of b, from *dr on; node:
 * the stack of sample upto - 1. */
static int pdc_derive(struct t2f_pdc_stacks *s, const struct pdc_batch *b, size_t upto,
		      t2f_node_id node, size_t *dr)
{
	int err = 0;

	for (; *dr < b->ndr && b->dr[*dr].at <= upto && !err; (*dr)++) {
		const struct pdc_drec *d = &b->dr[*dr];

		err = d->out ? t2f_derive__switch_out(s->derive, d->tid, b->s[upto - 1].time, node,
						      d->thread, d->state)
			     : t2f_derive__switch_in(s->derive, d->tid, d->time);
	}
	return err;
}

/* Sample i's frames (leaf first in b->f from *at) as frame ids root first into s->fids from
 * *nf; *at and *nf then past them. */
static void pdc_root_first(struct t2f_pdc_stacks *s, const struct pdc_batch *b, size_t i,
			   size_t *at, size_t *nf)
{
	const struct pdc_srec *r = &b->s[i];

	for (size_t k = r->n; k-- > 0;)
		s->fids[(*nf)++] = s->ids[b->f[*at + k] - 1];
	s->lens[i % PDC_GROUP] = r->n;
	*at += r->n;
}

static bool pdc_class_eq(const void *ctx, uint32_t v)
{
	const struct pdc_class *k = ((const struct pdc_class *const *)ctx)[0];
	const struct pdc_class *c = ((const struct pdc_class *const *)ctx)[1] + (v - 1);

	return c->src == k->src && c->key == k->key;
}

/* The frame stacks hold new frame id (queued with class source src) as: the first of its
 * class, else itself. 0 or -ENOMEM. */
static int pdc_class_as(struct t2f_pdc_stacks *s, t2f_frame_id id, const struct t2f_frame *f,
			void *src, t2f_frame_id *as)
{
	struct pdc_class k = { src, 0, id };
	const struct pdc_class *q[2] = { &k, s->classes };
	uint64_t h;
	uint32_t v;
	int err;

	*as = id;
	if (!src || !s->class_key(src, f->addr, &k.key))
		return 0;
	h = t2f_hash_u64(k.key ^ t2f_hash_u64((uint64_t)(uintptr_t)src));
	v = t2f_hashmap__find(s->class_ix, h, pdc_class_eq, q);
	if (v) {
		*as = s->classes[v - 1].frame;
		s->classed++;
		return 0;
	}
	err = t2f_grow((void **)&s->classes, &s->cap_classes, s->n_classes, 1,
		       sizeof(*s->classes), 256, UINT32_MAX - 1);
	if (err)
		return err;
	s->classes[s->n_classes] = k;
	err = t2f_hashmap__insert(s->class_ix, h, (uint32_t)s->n_classes + 1);
	s->n_classes += !err;
	return err;
}

/* The batch's frame ids s->ids[from..) as stacks hold them: each new one's found once (the
 * profile gives ids in order; those below the first met are older, and stay). 0 or -ENOMEM. */
static int pdc_classes(struct t2f_pdc_stacks *s, const struct pdc_batch *b, size_t from)
{
	int err = 0;

	for (size_t i = 0; i < b->nfr && !err; i++) {
		t2f_frame_id id = s->ids[from + i];

		if (id >= s->n_as) {
			err = t2f_grow((void **)&s->as, &s->cap_as, s->n_as, id + 1 - s->n_as,
				       sizeof(*s->as), 1024, SIZE_MAX);
			for (; !err && s->n_as < id; s->n_as++)
				s->as[s->n_as] = (t2f_frame_id)s->n_as;
			err = err ?: pdc_class_as(s, id, &b->fr[i], b->cls[i], &s->as[id]);
			s->n_as = id + 1;
		}
		s->ids[from + i] = err ? id : s->as[id];
	}
	return err;
}

/* Adds batch b's frames, then its samples, root first, PDC_GROUP samples' stacks at a time
 * (t2f_profile__stacks); 0 or the first error (the rest are left). */
static int pdc_batch_add(struct t2f_pdc_stacks *s, struct pdc_batch *b)
{
	struct t2f_profile *p = s->p;
	size_t at = 0;            /* the next sample's first frame reference in b->f */
	size_t dr = 0;
	int err = t2f_grow((void **)&s->ids, &s->cap_ids, s->n_ids, b->nfr, sizeof(*s->ids), 1024,
			   SIZE_MAX) ?:
		  t2f_grow((void **)&s->fids, &s->cap_fids, 0, b->nf, sizeof(*s->fids), 1024,
			   SIZE_MAX) ?:
		  (b->nfr ? t2f_profile__frames(p, b->nfr, b->fr, s->ids + s->n_ids) : 0);

	if (!err && s->class_key)
		err = pdc_classes(s, b, s->n_ids);
	if (!err)
		s->n_ids += b->nfr;
	if (s->derive)
		err = err ?: pdc_derive(s, b, 0, 0, &dr);
	for (size_t g = 0; g < b->n && !err; g += PDC_GROUP) {
		size_t m = b->n - g < PDC_GROUP ? b->n - g : PDC_GROUP, nf = 0;

		for (size_t i = g; i < g + m; i++)
			pdc_root_first(s, b, i, &at, &nf);
		err = t2f_profile__stacks(p, m, s->lens, s->fids, s->nodes);
		for (int entry = 0; entry < 2 && !err; entry++)
			for (size_t i = 0; i < m; i++)
				if (b->s[g + i].event)
					t2f_profile__prefetch_cell(p, s->nodes[i], b->s[g + i].cell_thread,
								   b->s[g + i].event, entry);
		for (size_t i = 0; i < m && !err; i++) {
			const struct pdc_srec *r = &b->s[g + i];
			t2f_node_id node = s->nodes[i];

			if (r->event) /* else a sched_switch for its switches alone */
				err = t2f_profile__add_sample_to(p, node, r->thread,
								 r->cell_thread, r->event,
								 r->weight, r->time);
			if (s->derive && !err && r->event)
				err = t2f_derive__sample(s->derive, node, r->thread, r->event,
							 r->weight, r->time);
			if (s->derive && !err)
				err = pdc_derive(s, b, g + i + 1, node, &dr);
		}
	}
	b->n = 0;
	b->ndr = 0;
	b->nf = 0;
	b->nfr = 0;
	return err;
}

static int pdc_job(void *ctx, void *batch)
{
	return pdc_batch_add(ctx, batch);
}

int t2f_pdc_stacks__new(struct t2f_profile *p, bool threaded, t2f_pdc_class_fn class_key,
			struct t2f_pdc_stacks **out)
{
	struct t2f_pdc_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->class_key = class_key;
	if (class_key && t2f_hashmap__new(1024, &s->class_ix)) {
		free(s);
		return -ENOMEM;
	}
	s->p = p;
	s->derive = t2f_profile__derive(p);
	s->threaded = threaded && !s->derive; /* the stage makes events: the reading thread's */
	*out = s;
	return 0;
}

/* Hands the filled batch over (or adds it here) and switches to the other. */
static int pdc_hand_over(struct t2f_pdc_stacks *s)
{
	int err;

	if (!s->threaded)
		return s->err = s->err ?: pdc_batch_add(s, &s->b[s->fill]);
	if (!s->bg && (err = t2f_bg__new(pdc_job, s, &s->bg)))
		return err;
	err = t2f_bg__hand(s->bg, &s->b[s->fill]);
	s->fill ^= 1;
	return err;
}

int t2f_pdc_stacks__frame(struct t2f_pdc_stacks *s, const struct t2f_frame *f, void *cls,
			  uint32_t *ref)
{
	struct pdc_batch *b = &s->b[s->fill];
	int err = t2f_grow((void **)&b->fr, &b->capfr, b->nfr, 1, sizeof(*b->fr), 64, SIZE_MAX);

	if (!err && s->class_key)
		err = t2f_grow((void **)&b->cls, &b->capcls, b->nfr, 1, sizeof(*b->cls), 64,
			       SIZE_MAX);
	if (err)
		return err;
	if (s->refs == UINT32_MAX)
		return -T2F_ERR_LIMIT;
	if (s->class_key)
		b->cls[b->nfr] = cls;
	b->fr[b->nfr++] = *f;
	*ref = ++s->refs;
	return 0;
}

int t2f_pdc_stacks__add(struct t2f_pdc_stacks *s, t2f_thread_id thread, t2f_event_id event,
			uint64_t weight, uint64_t time, const uint32_t *frames, size_t n)
{
	struct pdc_batch *b = &s->b[s->fill];
	int err = t2f_grow((void **)&b->s, &b->cap, b->n, 1, sizeof(*b->s), 64, SIZE_MAX) ?:
		  t2f_grow((void **)&b->f, &b->capf, b->nf, n, sizeof(*b->f), 256, SIZE_MAX);

	if (err)
		return err;
	b->s[b->n++] = (struct pdc_srec){ weight, time, thread,
					  t2f_profile__cell_thread(s->p, thread), event,
					  (uint32_t)n };
	if (n)
		memcpy(b->f + b->nf, frames, n * sizeof(*frames));
	b->nf += n;
	return b->n < PDC_STACKS_BATCH ? 0 : pdc_hand_over(s);
}

static int pdc_drec_put(struct t2f_pdc_stacks *s, const struct pdc_drec *d)
{
	struct pdc_batch *b = &s->b[s->fill];
	int err = t2f_grow((void **)&b->dr, &b->capdr, b->ndr, 1, sizeof(*b->dr), 64, SIZE_MAX);

	if (!err)
		b->dr[b->ndr++] = *d;
	return err;
}

int t2f_pdc_stacks__switch_in(struct t2f_pdc_stacks *s, int64_t tid, uint64_t time)
{
	return pdc_drec_put(s, &(struct pdc_drec){ .at = s->b[s->fill].n, .tid = tid,
						   .time = time });
}

int t2f_pdc_stacks__switch_out(struct t2f_pdc_stacks *s, int64_t tid, t2f_thread_id thread,
				unsigned state)
{
	return pdc_drec_put(s, &(struct pdc_drec){ .at = s->b[s->fill].n + 1, .tid = tid,
						   .thread = thread, .state = state, .out = true });
}

int t2f_pdc_stacks__finish(struct t2f_pdc_stacks *s)
{
	int err = s->b[s->fill].n || s->b[s->fill].ndr ? pdc_hand_over(s) : 0;

	if (!s->bg)
		return err ?: s->err;
	return t2f_bg__wait(s->bg);
}

uint64_t t2f_pdc_stacks__classed(const struct t2f_pdc_stacks *s)
{
	return s->classed;
}

t2f_frame_id *t2f_pdc_stacks__take_as(struct t2f_pdc_stacks *s, size_t *n)
{
	t2f_frame_id *as = s->classed ? s->as : NULL;

	*n = as ? s->n_as : 0;
	if (as) {
		s->as = NULL;
		s->n_as = s->cap_as = 0;
	}
	return as;
}

void t2f_pdc_stacks__free(struct t2f_pdc_stacks *s)
{
	if (!s)
		return;
	t2f_bg__free(s->bg);
	for (int i = 0; i < 2; i++) {
		free(s->b[i].s);
		free(s->b[i].f);
		free(s->b[i].fr);
		free(s->b[i].cls);
		free(s->b[i].dr);
	}
	free(s->as);
	free(s->classes);
	t2f_hashmap__free(s->class_ix);
	free(s->ids);
	free(s->fids);
	free(s);
}
