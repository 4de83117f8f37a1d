/* readers/perf_data_queue.c: perf.data records in time order (perf_data_conv.h).
 *
 * Records that carry a time are copied into a queue (fixed-size entries, their callchain, user
 * registers and stack copy, or string in a pool of u64s) and processed in time order at
 * FINISHED_ROUND; the queue's two buffers (this round's records, and the round before's not
 * yet processed) take turns and are reused, so no record is copied twice and a warm conversion
 * allocates nothing per record. Before a run of samples is processed, its dwarf samples are
 * handed to the unwind callback in batches.
 */
#include <errno.h>
#include <string.h>

#include "formats/derive.h"
#include "formats/grow.h"
#include "readers/perf_data_conv_internal.h"

/* Copies n u64s (or a string of n bytes, NUL-terminated) into q's pool. */
static int pdc_pool_put(struct pdc_queue *q, const void *p, size_t bytes, bool str,
			uint64_t *at)
{
	size_t words = (bytes + (str ? 1 : 0) + 7) / 8;
	int err = t2f_grow((void **)&q->pool, &q->pool_cap, q->pool_n, words ? words : 1,
			sizeof(*q->pool), 64, SIZE_MAX);

	if (err)
		return err;
	*at = q->pool_n;
	if (words)
		q->pool[q->pool_n + words - 1] = 0;
	if (bytes) /* an empty callchain has no pointer */
		memcpy(&q->pool[q->pool_n], p, bytes);
	q->pool_n += words;
	return 0;
}

/* Whether a stack copy of len bytes at file offset off is kept by its top alone: where a window
 * of the file maps it (the walk reads the rest there), or where the queue's pool holds
 * PDC_STACK_KEEP bytes already. Read in blocks, a copy kept by its top was read again from the
 * file for nearly every sample of two programs' recordings (xz, sqlite3: 71K and 28K reads of
 * 1.5-7 KiB), which took more than reading the file itself. */
static bool pdc_top_only(const struct t2f_perf_data_conv *c, const struct pdc_queue *q,
			 uint64_t off, uint64_t len)
{
	return c->o.stack_tops || t2f_perf_data__mapped(c->pd, off, (size_t)len) ||
	       q->pool_n * sizeof(*q->pool) + len > PDC_STACK_KEEP;
}

/* A dwarf sample's registers and stack copy after its callchain, when they will be unwound; of a
 * stack copy longer than PDC_STACK_TOP that the file holds, only its top where pdc_top_only says
 * so (a shallow stack's walk reads no further; the rest is read again when needed). */
static int pdc_ev_user(struct t2f_perf_data_conv *c, struct pdc_queue *q,
		       const struct t2f_perf_record *r, struct pdc_ev *e)
{
	const struct t2f_perf_sample *s = &r->s;
	uint64_t len = s->stack_dyn_size < s->stack_size ? s->stack_dyn_size : s->stack_size;
	uint64_t at;

	if (!c->o.unwind || !c->attrs[e->attr].dwarf || !s->regs_abi || !s->regs_nr)
		return 0;
	e->abi = s->regs_abi;
	e->regs_nr = s->regs_nr;
	e->stack_len = (uint32_t)len; /* a record holds at most 64 KiB */
	if (len > PDC_STACK_TOP && t2f_perf_data__file_offset(c->pd, r, s->stack, &e->stack_off)) {
		if (pdc_top_only(c, q, e->stack_off, len)) {
			e->top_len = PDC_STACK_TOP;
		} else {
			e->stack_off = 0; /* kept whole */
			c->st.stacks_whole++;
		}
	}
	return pdc_pool_put(q, s->regs, (size_t)s->regs_nr * 8, false, &at) ?:
	       pdc_pool_put(q, s->stack, e->stack_off ? e->top_len : (size_t)len, false, &at);
}

/* A sched_switch sample's payload, for the derive stage (PDC_SWITCH); left out, counted, when
 * it cannot be decoded. */
static void pdc_ev_switch(const struct t2f_perf_data_conv *c, const struct t2f_perf_sample *s,
			  struct pdc_ev *e)
{
	struct t2f_pd_switch sw;

	if (!(s->fields & PERF_SAMPLE_RAW) || !s->raw ||
	    !t2f_pd_trace__switch(c->trace, s->raw, s->raw_size, &sw)) {
		t2f_derive__undecoded(c->derive);
		return;
	}
	e->ppid = (int32_t)sw.prev_pid;
	e->ptid = (int32_t)sw.next_pid;
	e->flags = PDC_SWITCH | t2f_cpu_state_of_bits(sw.prev_state);
}

/* The record as a queue entry (its callchain or string copied into the pool). */
static int pdc_ev_of(struct t2f_perf_data_conv *c, struct pdc_queue *q,
		     const struct t2f_perf_record *r, struct pdc_ev *e)
{
	const char *s = NULL;

	*e = (struct pdc_ev){ .time = r->s.time, .type = r->type, .misc = r->misc };
	if (r->type == PERF_RECORD_SAMPLE) {
		e->attr = r->attr->index;
		e->pid = r->s.pid;
		e->tid = r->s.tid;
		e->ip = r->s.ip;
		e->period = r->s.period;
		e->has_chain = (r->s.fields & PERF_SAMPLE_CALLCHAIN) != 0;
		e->n = r->s.callchain_nr;
		if (c->attrs[e->attr].sched_switch)
			pdc_ev_switch(c, &r->s, e);
		return pdc_pool_put(q, r->s.callchain, e->n * sizeof(uint64_t), false, &e->data) ?:
		       pdc_ev_user(c, q, r, e);
	}
	if (r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2) {
		const struct t2f_perf_mmap *m = &r->u.mmap;

		e->pid = m->pid;
		e->tid = m->tid;
		e->start = m->start;
		e->len = m->len;
		e->pgoff = m->pgoff;
		e->prot = m->prot;
		e->flags = m->flags;
		e->has_bid = m->has_build_id;
		e->bid_size = m->build_id_size > 20 ? 20 : m->build_id_size;
		memcpy(e->bid, m->build_id, sizeof(e->bid));
		s = m->filename;
	} else if (r->type == PERF_RECORD_SWITCH || r->type == PERF_RECORD_SWITCH_CPU_WIDE) {
		e->pid = r->s.pid; /* the sample_id trailer's: the thread switching */
		e->tid = r->s.tid;
	} else if (r->type == PERF_RECORD_COMM) {
		e->pid = r->u.comm.pid;
		e->tid = r->u.comm.tid;
		e->exec = r->u.comm.exec;
		s = r->u.comm.comm;
	} else {
		e->pid = r->u.task.pid;
		e->tid = r->u.task.tid;
		e->ppid = r->u.task.ppid;
		e->ptid = r->u.task.ptid;
	}
	e->n = s ? strlen(s) : 0;
	return pdc_pool_put(q, s ? s : "", e->n, true, &e->data);
}

static bool pdc_before(const struct pdc_order *x, const struct pdc_order *y)
{
	return x->time < y->time || (x->time == y->time && x->idx < y->idx);
}

/* The end of the ascending run of o[0..n) that starts at i. */
static size_t pdc_run_end(const struct pdc_order *o, size_t i, size_t n)
{
	while (++i < n && !pdc_before(&o[i], &o[i - 1]))
		;
	return i;
}

/* Merges a[0..m) and a[m..n), both ascending, into to[0..n). */
static void pdc_merge(const struct pdc_order *a, size_t m, size_t n, struct pdc_order *to)
{
	size_t i = 0, j = m, k = 0;

	while (i < m && j < n)
		to[k++] = pdc_before(&a[j], &a[i]) ? a[j++] : a[i++];
	while (i < m)
		to[k++] = a[i++];
	while (j < n)
		to[k++] = a[j++];
}

/* Sorts c->order[0..n) by (time, idx): records come in a few ascending runs (one per CPU
 * buffer perf wrote out), so neighbouring runs are merged, pass after pass, through
 * c->order_tmp (the two swap). */
static void pdc_order_sort(struct t2f_perf_data_conv *c, size_t n)
{
	for (;;) {
		struct pdc_order *t = c->order;
		size_t runs = 0, cap = c->order_cap;

		for (size_t i = 0; i < n; runs++) {
			size_t m = pdc_run_end(t, i, n);
			size_t e = m < n ? pdc_run_end(t, m, n) : n;

			pdc_merge(t + i, m - i, e - i, c->order_tmp + i);
			i = e;
		}
		c->order = c->order_tmp;
		c->order_cap = c->order_tmp_cap;
		c->order_tmp = t;
		c->order_tmp_cap = cap;
		if (runs <= 1)
			return;
	}
}

/* The entry order index idx names: of q[!cur] below its count, else of q[cur]; *q its queue. */
static struct pdc_ev *pdc_entry(struct t2f_perf_data_conv *c, size_t idx,
				const struct pdc_queue **q)
{
	struct pdc_queue *prev = &c->q[!c->cur], *cur = &c->q[c->cur];

	*q = idx < prev->n ? prev : cur;
	return idx < prev->n ? &prev->ev[idx] : &cur->ev[idx - prev->n];
}

/* Puts dwarf sample e of queue q into the next batch slot. */
static void pdc_batch_add(struct t2f_perf_data_conv *c, const struct pdc_queue *q,
			  struct pdc_ev *e, size_t *n)
{
	const uint64_t *w = &q->pool[e->data + e->n];
	const uint8_t *copied = (const uint8_t *)(w + e->regs_nr); /* after the regs */

	e->slot = (uint32_t)*n;
	c->batch[*n] = (struct t2f_perf_unwind_sample){
		.pid = e->pid, .tid = e->tid, .abi = e->abi,
		.mask = t2f_perf_data__attr(c->pd, e->attr)->attr.sample_regs_user,
		.regs = w, .nr = e->regs_nr,
		.stack = e->stack_off ? NULL : copied, .stack_len = e->stack_len,
		.top = e->stack_off ? copied : NULL, .top_len = e->stack_off ? e->top_len : 0,
		.stack_off = e->stack_off,
		.ips = c->batch_ips + *n * T2F_PERF_UNWIND_MAX,
	};
	(*n)++;
}

/* Whether processing e changes what the unwinder reads: an executable mapping, a new process's
 * mappings; a COMM, an EXIT (it lets an index go, not a mapping) or a data mapping does not. */
static bool pdc_changes_maps(const struct pdc_ev *e)
{
	if (e->type == PERF_RECORD_COMM || e->type == PERF_RECORD_EXIT ||
	    e->type == PERF_RECORD_SWITCH || e->type == PERF_RECORD_SWITCH_CPU_WIDE)
		return false;
	return e->type != PERF_RECORD_MMAP2 && e->type != PERF_RECORD_MMAP ? true : t2f_pdc_exec(e);
}

/* Unwinds the dwarf samples among the records order[from..) up to the first that changes the
 * mappings or a full batch: 0 and *end, the index after the last record covered; or an
 * error. */
static int pdc_batch(struct t2f_perf_data_conv *c, size_t from, size_t n_order, size_t *end)
{
	size_t n = 0, i = from;

	for (; i < n_order && n < T2F_PERF_UNWIND_BATCH; i++) {
		const struct pdc_queue *q;
		struct pdc_ev *e = pdc_entry(c, c->order[i].idx, &q);

		if (e->type != PERF_RECORD_SAMPLE) {
			if (pdc_changes_maps(e))
				break;
			continue;
		}
		if (e->abi)
			pdc_batch_add(c, q, e, &n);
	}
	*end = i > from ? i : from + 1;
	return n ? c->o.unwind(c->o.unwind_ctx, c, c->batch, n) : 0;
}

/* Processes order[0..n) of the queue, the dwarf samples of each run of samples unwound first. */
static int pdc_process_order(struct t2f_perf_data_conv *c, size_t n)
{
	int err = 0;

	for (size_t i = 0, end = 1; i < n && !err; i = end) {
		end = i + 1;
		if (c->o.tick && c->o.unwind && (err = c->o.tick(c->o.tick_ctx, c->offset)) != 0)
			break;
		if (c->o.unwind)
			err = pdc_batch(c, i, n, &end);
		for (size_t k = i; k < end && !err; k++) {
			const struct pdc_queue *q;
			const struct pdc_ev *e = pdc_entry(c, c->order[k].idx, &q);

			err = t2f_pdc_process(c, e, &q->pool[e->data]);
		}
	}
	return err;
}

/* Processes the queued records not newer than limit, in time order (stable): those of the
 * round before not processed yet (all of them: a round's records are not newer than the limit
 * of the flush after the next FINISHED_ROUND, the greatest time read before it), then this
 * round's not newer than limit. The round before is emptied; this round's records left (newer
 * than limit) make it the round before, so no record is copied twice. */
static int pdc_flush(struct t2f_perf_data_conv *c, uint64_t limit)
{
	struct pdc_queue *prev = &c->q[!c->cur], *cur = &c->q[c->cur];
	size_t n = 0, all = prev->n + cur->n, from_cur = 0;
	int err = t2f_grow((void **)&c->order, &c->order_cap, 0, all,
			   sizeof(*c->order), 64, SIZE_MAX) ?:
		  t2f_grow((void **)&c->order_tmp, &c->order_tmp_cap, 0, all,
			   sizeof(*c->order), 64, SIZE_MAX);

	if (err)
		return err;
	for (size_t i = 0; i < prev->n; i++)
		if (prev->ev[i].time > c->done)
			c->order[n++] = (struct pdc_order){ prev->ev[i].time, i };
	for (size_t i = 0; i < cur->n; i++)
		if (cur->ev[i].time <= limit) {
			c->order[n++] = (struct pdc_order){ cur->ev[i].time, prev->n + i };
			from_cur++;
		}
	pdc_order_sort(c, n);
	err = pdc_process_order(c, n);
	if (err)
		return err;
	prev->n = prev->pool_n = 0;
	if (from_cur == cur->n)
		cur->n = cur->pool_n = 0;
	else
		c->cur = !c->cur;
	c->done = limit;
	return 0;
}

static bool pdc_queued_type(const struct t2f_perf_data_conv *c, uint32_t type)
{
	if (type == PERF_RECORD_SWITCH || type == PERF_RECORD_SWITCH_CPU_WIDE)
		return c->derive != NULL;
	return type == PERF_RECORD_SAMPLE || type == PERF_RECORD_MMAP ||
	       type == PERF_RECORD_MMAP2 || type == PERF_RECORD_COMM || type == PERF_RECORD_FORK ||
	       type == PERF_RECORD_EXIT;
}

static int pdc_record(struct t2f_perf_data_conv *c, const struct t2f_perf_record *r)
{
	struct pdc_queue *q = &c->q[c->cur];
	struct pdc_ev e;
	int err;

	c->st.records++;
	if (r->type == T2F_PERF_RECORD_FINISHED_ROUND) {
		err = pdc_flush(c, c->next_flush);
		c->next_flush = c->max_time;
		return err;
	}
	if (!pdc_queued_type(c, r->type) || (r->type == PERF_RECORD_SAMPLE && !r->attr))
		return 0;
	err = t2f_grow((void **)&q->ev, &q->cap, q->n, 1,
			sizeof(*q->ev), 64, SIZE_MAX) ?: pdc_ev_of(c, q, r, &e);
	if (err)
		return err;
	if (!(r->s.fields & PERF_SAMPLE_TIME)) {
		/* no time: processed at once (as perf does), from the pool's end */
		size_t one = 0;

		if (e.abi) {
			pdc_batch_add(c, q, &e, &one);
			err = c->o.unwind(c->o.unwind_ctx, c, c->batch, 1);
		}
		err = err ?: t2f_pdc_process(c, &e, &q->pool[e.data]);
		q->pool_n = e.data;
		return err;
	}
	if (e.time > c->max_time)
		c->max_time = e.time;
	q->ev[q->n++] = e;
	return 0;
}

int t2f_perf_data_conv__stack(const struct t2f_perf_data_conv *c,
			      const struct t2f_perf_unwind_sample *s, uint8_t *buf, size_t from,
			      size_t to)
{
	if (to > s->stack_len)
		to = s->stack_len;
	return from < to ? t2f_perf_data__read_at(c->pd, buf, to - from, s->stack_off + from) : 0;
}

const uint8_t *t2f_perf_data_conv__stack_mapped(const struct t2f_perf_data_conv *c,
						const struct t2f_perf_unwind_sample *s)
{
	return t2f_perf_data__mapped(c->pd, s->stack_off, s->stack_len);
}

int t2f_perf_data_conv__run(struct t2f_perf_data_conv *c)
{
	const struct t2f_perf_record *r;
	const struct t2f_perf_data_stats *ps;
	int err;

	while ((err = t2f_perf_data__next(c->pd, &r)) > 0) {
		c->offset = r->offset;
		if (c->o.tick && ++c->untick == T2F_PERF_TICK_RECORDS) {
			c->untick = 0;
			err = c->o.tick(c->o.tick_ctx, r->offset);
			if (err)
				break;
		}
		err = pdc_record(c, r);
		if (err)
			break;
	}
	/* the samples handed over come before whatever failed here: their error first */
	if (err)
		return t2f_pdc_stacks__finish(c->stk) ?: err;
	err = pdc_flush(c, UINT64_MAX);
	err = t2f_pdc_stacks__finish(c->stk) ?: err;
	c->st.classed = t2f_pdc_stacks__classed(c->stk);
	ps = t2f_perf_data__stats(c->pd);
	t2f_profile__count_lost(c->p, &(struct t2f_lost){ .records = ps->lost_records,
							 .events = ps->lost,
							 .samples = ps->lost_samples,
							 .first_ns = ps->lost_first_ns,
							 .last_ns = ps->lost_last_ns });
	c->st.skipped = ps->skipped + ps->unknown_id;
	c->st.truncated_bytes = ps->truncated_bytes;
	c->st.probe_map_ns = ps->probe_map_ns;
	c->st.probe_read_ns = ps->probe_read_ns;
	c->st.mapped = ps->mapped;
	c->st.read_ahead = ps->read_ahead;
	for (uint64_t i = 0; i < ps->unknown_id; i++) { /* samples the reader could not attribute */
		t2f_profile__count_read(c->p);
		t2f_profile__count_drop(c->p, T2F_DROP_MALFORMED);
	}
	return err;
}
