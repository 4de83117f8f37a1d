/* formats/sample_log.h: every sample of a profile as (cell index, weight), kept per group (the
 * profile's thread) in input order, as runs: samples in a row of one group with the same cell
 * are one run of their count and summed weight.
 *
 * Writers that keep input order (speedscope, the SVG flame chart) read it, a thread at a time:
 * the order between samples of different threads is not kept. Runs are packed as variable-length
 * records (a run of samples of one weight takes 3 bytes when its cell index is below 2^14), in
 * chunks that never move: growing copies nothing. A run is never longer than 2^32 - 1 samples
 * nor heavier than 2^64 - 1; the next sample then starts a run. Where runs are cut is not part of
 * the contract: a take keeps the taken log's runs as they are (the runs either side of the seam
 * may have the same cell); readers that need maximal runs join equal neighbours.
 *
 * Ownership: the log owns its memory. Not thread safe.
 */
#ifndef T2F_SAMPLE_LOG_H
#define T2F_SAMPLE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct t2f_sample_log;

/* A run: `samples` (≥ 1) samples in a row with cell index `cell`, weighing `weight` in all. */
struct t2f_log_run {
	uint32_t cell;
	uint32_t samples;
	uint64_t weight;
};

int t2f_sample_log__new(struct t2f_sample_log **out); /* 0 or -ENOMEM */
void t2f_sample_log__free(struct t2f_sample_log *l);  /* NULL is fine */

/* Appends one sample to group g. 0, -ENOMEM, or -T2F_ERR_LIMIT past 2^32 - 1 samples in all. */
int t2f_sample_log__add(struct t2f_sample_log *l, uint32_t g, uint32_t cell, uint64_t weight);

size_t t2f_sample_log__count(const struct t2f_sample_log *l); /* samples of every group */
size_t t2f_sample_log__group_samples(const struct t2f_sample_log *l, uint32_t g); /* 0: none */
size_t t2f_sample_log__group_runs(const struct t2f_sample_log *l, uint32_t g);    /* 0: none */
/* Group g's samples' weights summed, at most 2^64 - 1. */
uint64_t t2f_sample_log__group_weight(const struct t2f_sample_log *l, uint32_t g);

/* Group g's runs [from, from + n) (within its run count) into runs[0..n). Finding `from` decodes
 * up to 31 runs before it: read in batches, not a run at a time. */
void t2f_sample_log__read(const struct t2f_sample_log *l, uint32_t g, size_t from, size_t n,
			  struct t2f_log_run *runs);

/* Moves src's samples to the end of dst's groups: src's group g to dst's group_map[g], cell
 * index c read as cell_map[c] (cell_map has n_cells entries, one for every cell src uses, and is
 * copied; group_map has one for every group src uses). The chunks move, not the runs: the work
 * is per chunk and per group. src is left empty and usable. 0, -ENOMEM or -T2F_ERR_LIMIT (then
 * neither log's samples changed). */
int t2f_sample_log__take(struct t2f_sample_log *dst, struct t2f_sample_log *src,
			 const uint32_t *cell_map, size_t n_cells, const uint32_t *group_map);

size_t t2f_sample_log__bytes(const struct t2f_sample_log *l); /* memory held */

#endif
