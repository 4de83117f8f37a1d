/* pipeline/symbols.c: the symbolizer on its own (include/trace2flame.h, t2f_symbols_*): the
 * public face of symbolizer/symbolizer.h, with its own string table and messages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/diag.h"
#include "formats/strtab.h"
#include "formats/sym_version.h"
#include "include/trace2flame.h"
#include "pipeline/msg_sink.h"
#include "pipeline/session.h"
#include "pipeline/symbols.h"
#include "pipeline/tmpguard.h"
#include "pipeline/versioned.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/demangle.h"
#include "symbolizer/symbolizer.h"

static int t2f_symbols_init(struct t2f_symbols *s, const struct t2f_symbols_options *o,
			    const char *const *symbol_dirs)
{
	struct t2f_symbolizer_opts so = {
		.find = {
			.debug_dirs = o->debug_dirs,
			.symbol_dirs = symbol_dirs,
			.unsafe_build_id_match = o->unsafe_build_id_match,
		},
		.demangle = o->raw_names ? T2F_DEMANGLE_NONE
			    : o->no_params ? T2F_DEMANGLE_NO_PARAMS : T2F_DEMANGLE_FULL,
		.perf_rules = o->rules == T2F_RULES_PERF,
		.debuginfod = !o->offline,
		.fetch_temp = o->signals ? t2f_tmpguard__follow : NULL,
		.cache = o->cache,
	};
	int err;

	s->demangle = so.demangle;
	s->cache = o->cache;
	s->msg = o->message ? t2f_msg_sink__open(o->message, o->message_ctx)
			    : t2f_msg_sink__stderr();
	if (!s->msg)
		return -ENOMEM;
	err = t2f_diag__new(s->msg, &s->diag) ?: t2f_strtab__new(&s->names);
	return err ?: t2f_symbolizer__new(&so, s->names, s->diag, &s->sym);
}

void t2f_symbols_free(struct t2f_symbols *s)
{
	if (!s)
		return;
	if (s->sym)
		t2f_symbolizer__cache_save(s->sym);
	t2f_symbolizer__free(s->sym);
	t2f_strtab__free(s->names);
	if (s->diag)
		t2f_diag__flush(s->diag);
	t2f_diag__free(s->diag);
	if (s->msg)
		fclose(s->msg);
	free(s->error);
	free(s);
}

int t2f_symbols_new(const struct t2f_symbols_options *opts, struct t2f_symbols **out)
{
	struct t2f_symbols_options o;
	struct t2f_symbols *s;
	const char **dirs = NULL;
	char **env_dirs = NULL;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	err = t2f_versioned__in(&o, sizeof(o), opts, T2F_SYMBOLS_OPTIONS_SIZE_V1) ?:
	      t2f_versioned__zero(o.reserved, sizeof(o.reserved));
	if (err)
		return err;
	if ((unsigned)o.rules > T2F_RULES_STRICT)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = t2f_symbol_path_join(o.symbol_dirs, getenv("T2F_SYMBOL_PATH"), &env_dirs, &dirs) ?:
	      t2f_symbols_init(s, &o, dirs); /* the symbolizer copies the lists */
	free(dirs);
	free(env_dirs);
	if (err)
		t2f_symbols_free(s);
	*out = err ? NULL : s;
	return err;
}

int t2f_symbols_add_module(struct t2f_symbols *s, const struct t2f_module *mod, uint32_t *id)
{
	uint8_t bid[T2F_BUILD_ID_MAX];
	struct t2f_module m;
	struct t2f_module_desc d;
	int err;

	if (!s || !id)
		return -EINVAL;
	err = t2f_versioned__in(&m, sizeof(m), mod, T2F_MODULE_SIZE_V1) ?:
	      t2f_versioned__zero(m.reserved, sizeof(m.reserved));
	if (err)
		return err;
	if (!m.path && !m.build_id)
		return -EINVAL;
	d = (struct t2f_module_desc){
		.path = m.path ? m.path : "",
		.map_start = m.map_start, .map_end = m.map_end, .map_pgoff = m.map_pgoff,
		.has_segment = m.has_segment, .p_vaddr = m.p_vaddr, .p_offset = m.p_offset,
		.page_size = m.page_size, .has_exec = m.has_exec, .exec_pgoff = m.exec_pgoff,
		.exec_len = m.exec_len,
	};
	if (m.build_id && !t2f_build_id_parse(m.build_id, bid, sizeof(bid), &d.build_id_len))
		return -EINVAL;
	/* with the cache, a module given without a build-id takes its file's own (the one the
	 * search verifies candidates against, debug_find.h), so that it has a cache file */
	if (!m.build_id && s->cache && m.path &&
	    (err = t2f_elf_module__file_id(m.path, bid, &d.build_id_len)))
		return err;
	d.build_id = d.build_id_len ? bid : NULL;
	return t2f_symbolizer__add_module(s->sym, &d, id);
}

static int t2f_symbols_lookup(struct t2f_symbols *s, uint32_t module, enum t2f_space space,
			      uint64_t addr, struct t2f_sym *sym)
{
	switch (space) {
	case T2F_SPACE_ABS:
		return t2f_symbolizer__resolve_abs(s->sym, module, &addr, 1, sym);
	case T2F_SPACE_FILE_OFF:
		return t2f_symbolizer__resolve_file_off(s->sym, module, addr, sym);
	case T2F_SPACE_ELF_VADDR:
		return t2f_symbolizer__resolve_vaddr(s->sym, module, addr, sym);
	}
	return -EINVAL;
}

int t2f_symbols_resolve(struct t2f_symbols *s, uint32_t module, enum t2f_space space,
			uint64_t addr, struct t2f_symbol *out)
{
	struct t2f_symbol r;
	struct t2f_sym sym;
	int err;

	if (!s || t2f_versioned__check_out(out, T2F_SYMBOL_SIZE_V1))
		return -EINVAL;
	err = t2f_symbols_lookup(s, module, space, addr, &sym);
	if (err)
		return err;
	r = (struct t2f_symbol){
		.size = sizeof(r),
		.name = sym.miss == T2F_HIT && sym.name ? t2f_strtab__str(s->names, sym.name, NULL)
							 : NULL,
		.offset = sym.offset,
		.elf_vaddr = sym.elf_vaddr,
		.miss = sym.miss == T2F_HIT ? (sym.name ? NULL : "no name") : t2f_miss_name(sym.miss),
		.file = t2f_symbolizer__module_file(s->sym, module),
	};
	t2f_versioned__out(out, &r, sizeof(r));
	return 0;
}

/* A DWARF name demangled per the options (the raw name when it is not mangled), interned in
 * s->names: *id, 0 for NULL. 0 or -ENOMEM. */
static int t2f_symbols_name(struct t2f_symbols *s, const char *raw, t2f_str_id *id)
{
	char *pretty = raw ? t2f_demangle(raw, s->demangle) : NULL;
	const char *name = pretty ? pretty : raw;
	int err = name ? t2f_strtab__intern(s->names, name, strlen(name), id) : 0;

	if (!name)
		*id = 0;
	free(pretty);
	return err;
}

/* The whole chain at elf_vaddr (cut only at T2F_DWARF_MAX_DEPTH, as the cache keeps it): the
 * cache file's when it holds one, else DWARF's, then kept for the cache. Its length, or <0. */
static int t2f_symbols_chain(struct t2f_symbols *s, uint32_t module, uint64_t elf_vaddr,
			     struct t2f_dwarf_frame *frames)
{
	int has = t2f_symbolizer__cached_dwarf(s->sym, module), n, err;
	uint64_t lo = elf_vaddr, last = elf_vaddr;

	if (has <= 0)
		return has;
	n = has == 1 ? t2f_symbolizer__cached_inlines(s->sym, module, elf_vaddr, frames,
						      T2F_DWARF_MAX_DEPTH) : -1;
	if (n >= 0)
		return n;
	n = t2f_symbolizer__inlines(s->sym, module, elf_vaddr, frames, T2F_DWARF_MAX_DEPTH, &lo,
				    &last);
	if (n < 0)
		return n;
	err = t2f_symbolizer__note_inlines(s->sym, module, elf_vaddr, lo, last, frames, (size_t)n);
	return err ? err : n;
}

int t2f_symbols_inlines(struct t2f_symbols *s, uint32_t module, enum t2f_space space,
			uint64_t addr, struct t2f_source_frame *out, size_t max)
{
	struct t2f_dwarf_frame frames[T2F_DWARF_MAX_DEPTH];
	t2f_str_id names[T2F_DWARF_MAX_DEPTH];
	struct t2f_sym sym;
	size_t stride = out && max ? t2f_versioned__size(out) : 0;
	int n, err = 0;

	if (!s || (max && t2f_versioned__check_out(out, T2F_SOURCE_FRAME_SIZE_V1)))
		return -EINVAL;
	/* the symbol too: it names code without a linkage name (below) */
	err = t2f_symbols_lookup(s, module, space, addr, &sym);
	if (err || (sym.miss != T2F_HIT && sym.miss != T2F_MISS_NOT_FOUND))
		return err;
	n = t2f_symbols_chain(s, module, sym.elf_vaddr, frames);
	n = n > 0 && (size_t)n > max ? (int)max : n;
	for (int i = 0; i < n && !err; i++)
		err = t2f_symbols_name(s, frames[i].name, &names[i]);
	/* Code no inlining reached, named in DWARF without a linkage name (or by its copy's, less
	 * a clone suffix), or by no function (a thunk): by its symbol, as a frame without DWARF is
	 * named ("{lambda()#1}::operator()" rather than "operator()"). */
	if (n == 1 && (!frames[0].linkage || frames[0].copy) && !err && sym.miss == T2F_HIT &&
	    sym.name)
		names[0] = sym.name;
	/* pointers only now: interning may move the strings */
	for (int i = 0; i < n && !err; i++) {
		struct t2f_source_frame f = {
			.size = sizeof(f),
			.name = names[i] ? t2f_strtab__str(s->names, names[i], NULL) : NULL,
			.file = frames[i].file,
			.line = frames[i].line,
		};
		void *to = (char *)out + (size_t)i * stride;

		memcpy(to, &stride, sizeof(stride));
		t2f_versioned__out(to, &f, sizeof(f));
	}
	return err ? err : n;
}

char *t2f_demangle_name(const char *raw, bool params)
{
	return raw ? t2f_demangle(raw, params ? T2F_DEMANGLE_FULL : T2F_DEMANGLE_NO_PARAMS) : NULL;
}

char *t2f_symbol_name(const char *raw, bool params)
{
	char *base = raw ? strndup(raw, t2f_sym_version_cut(raw, strlen(raw))) : NULL;
	char *pretty = base ? t2f_demangle_name(base, params) : NULL;

	if (!pretty)
		return base;
	free(base);
	return pretty;
}

void t2f_free(void *p)
{
	free(p);
}
