/* formats/sample_log.h: every sample of a profile as (cell index, weight), kept per group (the
 * profile's thread) in input order.
 *
 * Writers that keep input order (speedscope, the SVG flame chart) read it, a thread at a time:
 * the order between samples of different threads is not kept. A sample takes 8 bytes: its cell
 * index (the cell holds node, thread and event) and its weight; the rare weight of 2^32 - 1 or
 * more is kept aside, looked up by sample index. Each group's samples are kept in chunks that
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

/* Appends one sample to group g. 0, -ENOMEM, or -T2F_E_LIMIT past 2^32 - 1 samples in all. */
int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t g, uint32_t cell, uint64_t weight);

size_t t2f_sample_log__count(const struct t2f_sample_log *l); /* samples of every group */
size_t t2f_sample_log__group_count(const struct t2f_sample_log *l, uint32_t g); /* 0: none */

/* Group g's sample idx (< its count): its cell index and its weight. */
uint32_t t2f_sample_log__cell(const struct t2f_sample_log *l, uint32_t g, size_t idx);
uint64_t t2f_sample_log__weight(const struct t2f_sample_log *l, uint32_t g, size_t idx);

/* Group g's samples [from, from + n) (within its count): cells and weights. For bulk reading:
 * one call per batch rather than per sample. */
void t2f_sample_log__read(const struct t2f_sample_log *l, uint32_t g, size_t from, size_t n,
			  uint32_t *cells, uint64_t *weights);

/* Moves src's samples to the end of dst's groups: src's group g to dst's group_map[g], cell
 * index c read as cell_map[c] (cell_map has n_cells entries, one for every cell src uses, and is
 * copied; group_map has one for every group src uses). The chunks move, not the samples: the
 * work is per chunk. src is left empty and usable. 0, -ENOMEM or -T2F_E_LIMIT (then neither log
 * changed). */
int t2f_sample_log__take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			 const uint32_t *cell_map, size_t n_cells, const uint32_t *group_map);

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l); /* memory held */

#endif
