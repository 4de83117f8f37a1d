/* formats/bg.h: a thread of its own that runs the jobs handed to it one at a time, in order,
 * while the caller prepares the next one (two buffers taking turns).
 *
 * Ownership: a job's data stays the caller's; it must not be touched between the t2f_bg__hand
 * that handed it over and the next t2f_bg__wait or t2f_bg__hand that returned. Errors: the first
 * job that returns a negative code is kept; no later job runs, and every later call returns that
 * code. Threads: one calling thread; the job function runs on the background thread.
 */
#ifndef T2F_BG_H
#define T2F_BG_H

/* Runs one job (ctx as given to t2f_bg__new); 0 or a negative error. */
typedef int (*t2f_bg_fn)(void *ctx, void *job);

struct t2f_bg;

/* Starts the thread. 0, -ENOMEM, or pthread_create's error negated. */
int t2f_bg__new(t2f_bg_fn fn, void *ctx, struct t2f_bg **out);
/* Waits, stops the thread and joins it. NULL is fine. */
void t2f_bg__free(struct t2f_bg *b);

/* Waits until no job runs. The first job error, or 0. */
int t2f_bg__wait(struct t2f_bg *b);
/* Waits until no job runs, then hands `job` over (not when a job failed). The first job error,
 * or 0. */
int t2f_bg__hand(struct t2f_bg *b, void *job);

#endif
