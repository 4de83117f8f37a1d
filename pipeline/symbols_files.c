/* pipeline/symbols_files.c: the files behind a t2f_symbols handle (include/trace2flame.h): the
 * candidates refused for a module, and the function symbols of an ELF file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/symbols.h"
#include "pipeline/versioned.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/elf_module.h"

size_t t2f_symbols_refusal_count(const struct t2f_symbols *s, uint32_t module)
{
	const struct t2f_debug_result *r = s ? t2f_symbolizer__module_files(s->sym, module) : NULL;

	return r ? r->n_refused : 0;
}

int t2f_symbols_refusal(const struct t2f_symbols *s, uint32_t module, size_t i,
			struct t2f_refused *out)
{
	struct t2f_refused all;
	const struct t2f_debug_result *r;
	const struct t2f_debug_refused *e;

	if (!s || t2f_versioned__check_out(out, T2F_REFUSED_SIZE_V1))
		return -EINVAL;
	r = t2f_symbolizer__module_files(s->sym, module);
	if (!r)
		return -EINVAL;
	if (i >= r->n_refused)
		return -ERANGE;
	e = &r->refused[i];
	all = (struct t2f_refused){
		.size = sizeof(all), .path = e->path, .reason = e->why,
		.why = t2f_refusal_name(e->why), .found_id = e->found_id,
		.expected_id = r->expected_id,
	};
	t2f_versioned__out(out, &all, sizeof(all));
	return 0;
}

struct t2f_each {
	int (*fn)(void *ctx, const struct t2f_elf_symbol *sym);
	void *ctx;
	int stopped;                /* fn's nonzero return */
};

static int t2f_each_sym(void *ctx, const struct t2f_elf_sym *sym)
{
	struct t2f_each *e = ctx;
	const struct t2f_elf_symbol out = {
		.name = sym->name, .table = sym->table, .value = sym->value, .size = sym->size,
	};

	e->stopped = e->fn(e->ctx, &out);
	return e->stopped;
}

/* Keeps the message of err: the diag's, else "PATH: what". */
static int t2f_symbols_failed(struct t2f_symbols *s, struct t2f_diag *d, const char *path,
			      int err)
{
	const char *msg = d ? t2f_diag__last_error(d) : NULL;
	char *text = NULL;

	if (msg)
		text = strdup(msg);
	else if (asprintf(&text, "%s: %s", path, t2f_strerror(err)) < 0)
		text = NULL;
	free(s->error);
	s->error = text;
	return err;
}

int t2f_symbols_each_function(struct t2f_symbols *s, const char *path,
			      int (*fn)(void *ctx, const struct t2f_elf_symbol *sym), void *ctx)
{
	struct t2f_each e = { .fn = fn, .ctx = ctx };
	struct t2f_elf_module *m = NULL;
	struct t2f_diag *d = NULL;
	int err;

	if (!s || !path || !fn)
		return -EINVAL;
	err = t2f_diag__new(s->msg, &d);
	if (!err)
		err = t2f_elf_module__open(path, d, &m);
	if (!err)
		err = t2f_elf_module__each_symbol(m, t2f_each_sym, &e);
	if (err && !(e.stopped && err == e.stopped))
		t2f_symbols_failed(s, d, path, err);
	t2f_elf_module__free(m);
	if (d)
		t2f_diag__flush(d);
	t2f_diag__free(d);
	return err;
}

const char *t2f_symbols_error(const struct t2f_symbols *s)
{
	return s && s->error ? s->error : "";
}
