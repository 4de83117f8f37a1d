/* formats/sample_log.h: every sample of a profile in input order, as (cell index, weight).
 *
 * Writers that keep input order (speedscope, the SVG flame chart) read it. A sample takes 8
 * bytes: its cell index (the cell holds node, thread and event) and its weight; the rare weight of
 * 2^32 - 1 or more is kept aside, looked up by sample index. The samples are kept in chunks that
 * never move: growing copies nothing.
 *
 * Ownership: the log owns its memory. Not thread safe.
 */
#ifndef T2F_SAMPLE_LOG_H
#define T2F_SAMPLE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct t2f_sample_log;

int t2f_sample_log__new(struct t2f_sample_log **out); /* 0 or -ENOMEM */
void t2f_sample_log__free(struct t2f_sample_log *l);  /* NULL is fine */

/* Appends one sample. 0, -ENOMEM, or -T2F_E_LIMIT past 2^32 - 1 samples. */
int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t cell, uint64_t weight);

size_t t2f_sample_log__count(const struct t2f_sample_log *l);
/* Sample idx (< count): its cell index and its weight. */
uint32_t t2f_sample_log__cell(const struct t2f_sample_log *l, size_t idx);
uint64_t t2f_sample_log__weight(const struct t2f_sample_log *l, size_t idx);

/* n samples' cells and weights: samples idx[0..n) when idx is given, else [from, from + n).
 * Every index is < count. For bulk reading: one call per batch rather than per sample. */
void t2f_sample_log__read(const struct t2f_sample_log *l, const uint32_t *idx, size_t from,
			  size_t n, uint32_t *cells, uint64_t *weights);

/* Moves src's samples to the end of dst, cell index c replaced by cell_map[c] (cell_map has one
 * entry per cell src's samples use): copied into dst's chunks, src's memory freed; src is left
 * empty. 0, -ENOMEM or -T2F_E_LIMIT (then neither log changed). */
int t2f_sample_log__take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			 const uint32_t *cell_map);

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l); /* memory held */

#endif
