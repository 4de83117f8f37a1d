/* pipeline/resym_like.c: the answers frames read as another take (resym_like.h). */
#include "pipeline/resym_like.h"

#include <errno.h>
#include <stdlib.h>

struct like {
	struct t2f_sym sym;
	uint32_t mod;              /* + 1; 0: not kept */
};

struct t2f_resym_likes {
	uint32_t *slot;            /* per frame id: 1 + its answer's index in likes, 0: none */
	size_t n;                  /* frame ids 0..n - 1 */
	struct like likes[];
};

int t2f_resym_likes__new(const t2f_frame_id *frame_as, size_t n, struct t2f_resym_likes **out)
{
	uint32_t *slot = calloc(n ? n : 1, sizeof(*slot));
	uint32_t k = 0;

	*out = NULL;
	if (!slot)
		return -ENOMEM;
	for (size_t j = 1; j < n; j++) {
		t2f_frame_id as = frame_as[j];

		if (as < j && !slot[as])
			slot[as] = ++k; /* at most n - 1 */
	}
	if (!k) {
		free(slot);
		return 0;
	}
	*out = calloc(1, sizeof(**out) + k * sizeof((*out)->likes[0]));
	if (!*out) {
		free(slot);
		return -ENOMEM;
	}
	(*out)->slot = slot;
	(*out)->n = n;
	return 0;
}

void t2f_resym_likes__free(struct t2f_resym_likes *l)
{
	if (l)
		free(l->slot);
	free(l);
}

void t2f_resym_likes__keep(struct t2f_resym_likes *l, t2f_frame_id id, size_t mod,
			   const struct t2f_sym *sym)
{
	if (l && id < l->n && l->slot[id] && mod < UINT32_MAX)
		l->likes[l->slot[id] - 1] = (struct like){ *sym, (uint32_t)mod + 1 };
}

bool t2f_resym_likes__get(const struct t2f_resym_likes *l, t2f_frame_id as, size_t *mod,
			  const struct t2f_sym **sym)
{
	const struct like *k = l && as < l->n && l->slot[as] ? &l->likes[l->slot[as] - 1] : NULL;

	if (!k || !k->mod)
		return false;
	*mod = k->mod - 1;
	*sym = &k->sym;
	return true;
}
