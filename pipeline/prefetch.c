/* pipeline/prefetch.c: a side file read on a thread of its own (prefetch.h). */
#include "pipeline/prefetch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "formats/side_file.h"

struct t2f_prefetch {
	char *path;
	size_t max;
	pthread_t th;
	bool joined;
	int err;             /* the read's, once joined */
	char *text;
	size_t len;
};

static void *t2f_prefetch_main(void *arg)
{
	struct t2f_prefetch *pf = arg;

	pf->err = t2f_side_file__read(pf->path, pf->max, &pf->text, &pf->len);
	return NULL;
}

int t2f_prefetch__start(const char *path, size_t max, struct t2f_prefetch **out)
{
	struct t2f_prefetch *pf = calloc(1, sizeof(*pf));
	int err;

	if (!pf || !(pf->path = strdup(path))) {
		free(pf);
		return -ENOMEM;
	}
	pf->max = max;
	err = pthread_create(&pf->th, NULL, t2f_prefetch_main, pf);
	if (err) {
		free(pf->path);
		free(pf);
		return -err;
	}
	*out = pf;
	return 0;
}

bool t2f_prefetch__is(const struct t2f_prefetch *pf, const char *path)
{
	return pf && !pf->joined && strcmp(pf->path, path) == 0;
}

static void t2f_prefetch_join(struct t2f_prefetch *pf)
{
	if (!pf->joined)
		pthread_join(pf->th, NULL);
	pf->joined = true;
}

int t2f_prefetch__take(struct t2f_prefetch *pf, char **text, size_t *len)
{
	if (pf->joined)
		return -EINVAL;
	t2f_prefetch_join(pf);
	if (pf->err)
		return pf->err;
	*text = pf->text;
	*len = pf->len;
	pf->text = NULL;
	return 0;
}

void t2f_prefetch__free(struct t2f_prefetch *pf)
{
	if (!pf)
		return;
	t2f_prefetch_join(pf);
	free(pf->text);
	free(pf->path);
	free(pf);
}
