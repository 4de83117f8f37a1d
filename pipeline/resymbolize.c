/* pipeline/resymbolize.c: the profile's frames → the symbolizer → new frame names
 * (resymbolize.h); what it says of them is resym_report.c's. */
#include "pipeline/resymbolize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bg.h"
#include "formats/buf.h"
#include "formats/clock.h"
#include "formats/grow.h"
#include "formats/hashmap.h"
#include "formats/perf_map.h"
#include "pipeline/resym_ids.h"
#include "pipeline/resym_internal.h"
#include "pipeline/resym_kallsyms.h"
#include "pipeline/tmpguard.h"
#include "pipeline/vdso.h"
#include "symbolizer/elf_module.h"
#include "symbolizer/kernel_place.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/text_syms.h"

/* t2f_resym__wants, for a frame of a .nettrace input (`nettrace`) or not. */
static bool t2f_resym_wants(const struct t2f_resym_opts *o, bool nettrace,
			    enum t2f_frame_kind kind, const char *path, size_t len, bool named)
{
	if (named) /* its name stays; its inlined functions are looked up */
		return o->inlines && kind == T2F_FRAME_USER && len > 0 && path[0] == '/';
	if (nettrace) /* the reader names JIT and kernel frames itself */
		return kind == T2F_FRAME_USER;
	if (kind == T2F_FRAME_KERNEL) /* [vdso]: perf's copy of it, see t2f_resym_vdso */
		return o->kallsyms != NULL || (len == 6 && memcmp(path, "[vdso]", 6) == 0);
	if (kind == T2F_FRAME_JIT)
		return true; /* the reader marks only /tmp/perf-PID.map dsos JIT */
	return kind == T2F_FRAME_USER && len > 0 && path[0] == '/';
}

bool t2f_resym__wants(const struct t2f_resym_opts *o, enum t2f_frame_kind kind,
		      const char *path, size_t len, bool named)
{
	return t2f_resym_wants(o, o->nettrace, kind, path, len, named);
}

static bool t2f_resym_wanted(const struct t2f_profile *p, const struct t2f_frame *f,
			     const struct t2f_resym_opts *o)
{
	size_t len;
	const char *path;

	if (f->addr_left) /* counted: see t2f_resym_frame */
		return true;
	if (!f->has_addr || !f->module || (f->module_names && f->space == T2F_SPACE_ABS))
		return false;
	path = t2f_profile__str(p, f->module, &len);
	return t2f_resym_wants(o, f->module_names, f->kind, path, len, f->name && !o->all);
}

/* "DIR/perf-PID.map" (DIR: --perf-map-dir, else /tmp) for the dso "/tmp/perf-PID.map", built
 * from the pid alone (formats/perf_map.h); NULL when out of memory. */
static char *t2f_resym_map_path(const struct t2f_resym *r, int32_t pid)
{
	char *path;

	if (asprintf(&path, "%s/perf-%" PRId32 ".map", r->perf_map_dir ? r->perf_map_dir : "/tmp",
		     pid) < 0)
		return NULL;
	return path;
}

/* A JIT module's perf map. A missing file leaves m->map NULL (its frames count "no map file");
 * one that exists but cannot be read (or is no regular file, or too large) is a warning; a bad
 * line under --strict is the error. */
static int t2f_resym_load_map(struct t2f_resym *r, struct t2f_resym_mod *m)
{
	struct stat st;
	int32_t pid;
	int err;

	if (!t2f_perf_map_pid(m->path, strlen(m->path), &pid))
		return 0; /* not a perf map's name: its frames count "no map file" */
	m->map_path = t2f_resym_map_path(r, pid);
	if (!m->map_path)
		return -ENOMEM;
	if (stat(m->map_path, &st) < 0 && errno == ENOENT)
		return 0;
	err = t2f_text_syms__load(T2F_TEXT_SYMS_PERF_MAP, m->map_path, r->d, &m->map);
	if (err == 0 || err == -ENOMEM || err == -T2F_ERR_FORMAT)
		return err;
	m->map_err = err;
	/* unreadable, too large, or no regular file (a FIFO any local user may have made) */
	return t2f_diag__warn(r->d, m->map_path, 0, "cannot read the perf map (%s); its JIT frames "
			      "stay as printed", t2f_strerror(err));
}

/* [vdso] recorded here without a build-id: this process's vdso is the recording's (the same
 * kernel), as perf takes its own; its own build-id verifies the copy. */
static int t2f_resym_own_vdso(struct t2f_resym *r, struct t2f_resym_mod *m)
{
	struct t2f_module_desc desc = { 0 };
	struct t2f_elf_module *e = NULL;
	const uint8_t *id = NULL;
	int err = t2f_vdso__dump(&m->map_path);

	if (err)
		return err == -ENOMEM ? err : 0;
	m->own_vdso = true;
	err = t2f_elf_module__open(m->map_path, NULL, &e);
	if (!err)
		id = t2f_elf_module__build_id(e, &desc.build_id_len);
	if (id && desc.build_id_len) {
		m->kind = T2F_FRAME_USER;
		m->by_path = true;
		desc.path = m->map_path;
		desc.build_id = id;
		err = t2f_symbolizer__add_module(r->sym, &desc, &m->sym);
	} else if (err != -ENOMEM) {
		err = 0;
	}
	t2f_elf_module__free(e);
	return err;
}

/* [vdso] (a kernel-kind dso for the perf script reader): perf keeps the recording's vdso image
 * in its build-id cache, $HOME/.debug/[vdso]/BUILD-ID/vdso. With the trace's build-id for
 * [vdso] and that file, its frames are named from it as frames of a user file (the printed
 * address is the offset in the image); else they stay unnamed. */
static int t2f_resym_vdso(struct t2f_resym *r, struct t2f_resym_mod *m)
{
	const struct t2f_resym_id *id = t2f_resym_ids__find(r->ids, "[vdso]");
	struct t2f_module_desc desc = { 0 };
	char hex[2 * T2F_BUILD_ID_MAX + 1];
	struct stat st;

	if (!id && r->trust_by)
		return t2f_resym_own_vdso(r, m);
	if (!id)
		return 0;
	for (size_t k = 0; k < id->len; k++)
		snprintf(hex + 2 * k, 3, "%02x", id->id[k]);
	if (t2f_vdso__perf_copy(hex, &m->map_path))
		return -ENOMEM;
	if (!m->map_path || stat(m->map_path, &st) < 0)
		return 0;
	m->kind = T2F_FRAME_USER;
	m->has_id = true;
	desc.path = m->map_path;
	desc.build_id = id->id;
	desc.build_id_len = id->len;
	return t2f_symbolizer__add_module(r->sym, &desc, &m->sym);
}

/* Whether module m's file may be used without a build-id: the recording was made on this
 * machine and the file is a regular one not changed since (perf's rule there); m->newer when it
 * changed after the recording. */
static bool t2f_resym_trusted(const struct t2f_resym *r, struct t2f_resym_mod *m)
{
	struct stat st;

	if (!r->trust_by || stat(m->path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	m->newer = (int64_t)st.st_mtime > r->trust_by;
	return !m->newer;
}

/* A lookup's key in mod_index or exec_index: a path's string id. */
struct t2f_resym_key {
	const struct t2f_resym *r;
	const struct t2f_profile *p;
	t2f_str_id path;
};

static bool t2f_resym_mod_eq(const void *ctx, uint32_t value)
{
	const struct t2f_resym_key *k = ctx;

	return k->r->mods[value - 1].path_id == k->path;
}

static bool t2f_resym_exec_eq(const void *ctx, uint32_t value)
{
	const struct t2f_resym_key *k = ctx;

	return t2f_profile__module_map_at(k->p, value - 1)->path == k->path;
}

/* Whether a module map is an executable mapping ("r-xp" as perf prints MMAP2, "x" for MMAP). */
static bool t2f_resym_is_exec(const struct t2f_profile *p, const struct t2f_module_map *mm)
{
	size_t len;
	const char *prot = mm->prot ? t2f_profile__str(p, mm->prot, &len) : NULL;

	return mm->path && mm->len && prot &&
	       ((len >= 3 && prot[2] == 'x') || (len == 1 && prot[0] == 'x'));
}

/* exec_index: the first executable mapping the trace recorded of each file (perf MMAP2; text
 * with --show-mmap-events). 0 or -ENOMEM. */
static int t2f_resym_index_exec(struct t2f_resym *r, const struct t2f_profile *p)
{
	uint32_t n = t2f_profile__module_map_count(p);
	int err = t2f_hashmap__new(n, &r->exec_index);

	for (uint32_t i = 0; i < n && !err; i++) {
		const struct t2f_module_map *mm = t2f_profile__module_map_at(p, i);
		struct t2f_resym_key k = { r, p, mm->path };
		uint64_t h = t2f_hash_u64(mm->path);

		if (t2f_resym_is_exec(p, mm) &&
		    !t2f_hashmap__find(r->exec_index, h, t2f_resym_exec_eq, &k))
			err = t2f_hashmap__insert(r->exec_index, h, i + 1);
	}
	return err;
}

/* The first executable mapping of the file `path`, for a debug file found without its binary
 * (symbolizer.h has_exec). */
static void t2f_resym_exec_map(const struct t2f_resym *r, const struct t2f_profile *p,
			       t2f_str_id path, struct t2f_module_desc *desc)
{
	struct t2f_resym_key k = { r, p, path };
	uint32_t v = r->exec_index ? t2f_hashmap__find(r->exec_index, t2f_hash_u64(path),
						       t2f_resym_exec_eq, &k) : 0;
	const struct t2f_module_map *mm;

	if (!v)
		return;
	mm = t2f_profile__module_map_at(p, v - 1);
	desc->has_exec = true;
	desc->exec_pgoff = mm->pgoff;
	desc->exec_len = mm->len;
	desc->page_size = mm->page_size;
}

/* Registers the module of f's path (hash: its hash in mod_index). */
static int t2f_resym_new_mod(struct t2f_resym *r, const struct t2f_profile *p,
			     const struct t2f_frame *f, uint64_t hash, struct t2f_resym_mod **out)
{
	struct t2f_resym_mod *m;
	const struct t2f_resym_id *id;
	struct t2f_module_desc desc = { 0 };

	if (t2f_grow((void **)&r->mods, &r->cap_mods, r->n_mods, 1, sizeof(*r->mods), 16, SIZE_MAX))
		return -ENOMEM;
	m = &r->mods[r->n_mods];
	*m = (struct t2f_resym_mod){ .path_id = f->module, .kind = f->kind };
	m->path = strdup(t2f_profile__str(p, f->module, NULL));
	m->path_len = m->path ? strlen(m->path) : 0;
	if (!m->path || r->n_mods >= UINT32_MAX - 1 ||
	    t2f_hashmap__insert(r->mod_index, hash, (uint32_t)r->n_mods + 1)) {
		free(m->path);
		return -ENOMEM;
	}
	r->n_mods++;
	*out = m;
	m->vdso = m->kind == T2F_FRAME_KERNEL && strcmp(m->path, "[vdso]") == 0;
	if (m->vdso)
		return t2f_resym_vdso(r, m);
	if (m->kind != T2F_FRAME_USER)
		return 0; /* a JIT module's map is read at its first frame (t2f_resym_mod_of) */
	id = t2f_resym_ids__find(r->ids, m->path);
	desc.path = m->path;
	desc.build_id = id ? id->id : NULL;
	desc.build_id_len = id ? id->len : 0;
	m->has_id = id != NULL;
	m->by_path = !id && t2f_resym_trusted(r, m);
	desc.path_trusted = m->by_path;
	m->has_segment = r->nettrace && id && id->has_segment;
	m->p_vaddr = m->has_segment ? id->p_vaddr : 0;
	m->p_offset = m->has_segment ? id->p_offset : 0;
	desc.has_segment = m->has_segment;
	desc.p_vaddr = m->p_vaddr;
	desc.p_offset = m->p_offset;
	if (!f->module_names)
		t2f_resym_exec_map(r, p, f->module, &desc); /* perf inputs */
	return t2f_symbolizer__add_module(r->sym, &desc, &m->sym);
}

/* The module of a frame's dso path, registered on first use. */
static int t2f_resym_mod_reg(struct t2f_resym *r, const struct t2f_profile *p,
			     const struct t2f_frame *f, struct t2f_resym_mod **out)
{
	struct t2f_resym_key k = { r, p, f->module };
	uint64_t h = t2f_hash_u64(f->module);
	uint32_t v = t2f_hashmap__find(r->mod_index, h, t2f_resym_mod_eq, &k);

	if (v) {
		*out = &r->mods[v - 1];
		return 0;
	}
	return t2f_resym_new_mod(r, p, f, h, out);
}

/* Whether frame id (f) is to be named: as t2f_resym_ahead found it, for the frames it saw. */
static bool t2f_resym_wanted_at(const struct t2f_resym *r, const struct t2f_profile *p,
				t2f_frame_id id, const struct t2f_frame *f,
				const struct t2f_resym_opts *o)
{
	return id < r->n_places ? r->mod_at[id] != 0 : t2f_resym_wanted(p, f, o);
}

/* The module of frame id (f), its JIT map read at the module's first frame (warnings in frame
 * order). */
static int t2f_resym_mod_of(struct t2f_resym *r, const struct t2f_profile *p, t2f_frame_id id,
			    const struct t2f_frame *f, struct t2f_resym_mod **out)
{
	int err = 0;

	if (id < r->n_places && r->mod_at[id])
		*out = &r->mods[r->mod_at[id] - 1];
	else
		err = t2f_resym_mod_reg(r, p, f, out);
	if (err || (*out)->kind != T2F_FRAME_JIT || (*out)->map_tried)
		return err;
	(*out)->map_tried = true;
	return t2f_resym_load_map(r, *out);
}

/* err, named in d when it is -ENOMEM while naming frame f. */
static int t2f_resym_oom(struct t2f_diag *d, const struct t2f_profile *p,
			 const struct t2f_frame *f, int err)
{
	if (err == -ENOMEM)
		t2f_diag__error(d, err, t2f_profile__str(p, f->module, NULL), 0,
				"out of memory while naming its frames");
	return err;
}

/* Whether frame f's lookup in module m goes to its user file. */
static bool t2f_resym_looks_up(const struct t2f_resym *r, const struct t2f_frame *f,
			       const struct t2f_resym_mod *m)
{
	return m->kind == T2F_FRAME_USER && f->space != T2F_SPACE_ABS && !f->addr_left &&
	       (m->has_id || m->by_path || r->unsafe);
}

/* Every module registered in the order of the frames' first uses (whichever pass names them:
 * the modules' order, and what --stats lists, is the same for every -j), and with `ahead` the
 * files of those looked up searched ahead on a thread (symbolizer.h): the passes' lookups then
 * find them searched. 0 or -ENOMEM. */
static int t2f_resym_ahead(struct t2f_resym *r, const struct t2f_profile *p,
			   const struct t2f_resym_opts *o, struct t2f_diag *d, bool ahead)
{
	uint32_t n = t2f_profile__frame_count(p);
	t2f_sym_module_id *ids = NULL;
	size_t n_ids = 0, cap = 0;
	int err = 0;

	for (t2f_frame_id id = 1; id <= n && !err; id++) {
		const struct t2f_frame *f = t2f_profile__frame_at(p, id);
		struct t2f_resym_mod *m;

		if (!t2f_resym_wanted(p, f, o))
			continue;
		err = t2f_resym_oom(d, p, f, t2f_resym_mod_reg(r, p, f, &m));
		if (!err && id < r->n_places)
			r->mod_at[id] = (uint32_t)(m - r->mods) + 1;
		if (err || !ahead || m->listed || !t2f_resym_looks_up(r, f, m))
			continue;
		m->listed = true;
		err = t2f_grow((void **)&ids, &cap, n_ids, 1, sizeof(*ids), 16, SIZE_MAX);
		if (!err)
			ids[n_ids++] = m->sym;
	}
	err = err ?: ahead ? t2f_symbolizer__search_ahead(r->sym, ids, n_ids) : 0;
	free(ids);
	return err;
}


/* The kernel's placement in the kallsyms table t, set at its first use; a file that cannot
 * be checked, or recordings placed differently, are a warning (the error under --strict). */
static int t2f_resym_kplace(struct t2f_resym *r, const struct t2f_text_syms *t)
{
	struct t2f_kernel_place *k = &r->kplace;

	r->kplace_set = true;
	t2f_kernel_place__set(k, r->kref, r->kref_addr, r->krefs_differ, t);
	if (k->how == T2F_KERNEL_UNCHECKED)
		return t2f_diag__warn(r->d, r->kallsyms_path, 0, "no %s line: where the recording's "
				      "kernel sat (%s at 0x%" PRIx64 ") is not checked against this "
				      "file; kernel frames named at their addresses as recorded",
				      k->ref, k->ref, k->then);
	if (k->how == T2F_KERNEL_DIFFER)
		return t2f_diag__warn(r->d, r->kallsyms_path, 0, "the inputs' kernels sat at "
				      "different places when recorded: their kernel frames are not "
				      "named (convert them apart)");
	return 0;
}

/* addr in t: a kernel frame's by the kernel's placement (symbolizer/kernel_place.h), *moved
 * when that refuses it. */
static bool t2f_resym_find(const struct t2f_resym *r, const struct t2f_resym_mod *m,
			   const struct t2f_text_syms *t, uint64_t addr, struct t2f_text_sym *sym,
			   bool *moved)
{
	*moved = false;
	if (m->kind != T2F_FRAME_KERNEL)
		return t2f_text_syms__lookup(t, addr, sym);
	return t2f_kernel_place__lookup(&r->kplace, t, m->path, m->path_len, addr, sym, moved);
}

/* A kernel frame through the kallsyms file (a lazy one read at the first), a JIT frame through
 * its perf map; a [vdso] frame left here had no copy of its image: not found (its offsets are no
 * kernel addresses). */
static int t2f_resym_text_frame(struct t2f_resym *r, struct t2f_profile *p, t2f_frame_id id,
				struct t2f_resym_mod *m)
{
	uint64_t addr = t2f_profile__frame_at(p, id)->addr;
	const struct t2f_text_syms *t;
	struct t2f_text_sym sym;
	bool found, moved = false;
	t2f_str_id name;
	int err;

	if (m->kind == T2F_FRAME_KERNEL && !m->vdso && r->ks_opts) {
		err = t2f_resym__kallsyms(r->ks_opts, r->d, false, &r->kallsyms);
		r->ks_opts = NULL;
		if (err)
			return err;
	}
	t = m->kind == T2F_FRAME_KERNEL ? r->kallsyms : m->map;
	if (t && t == r->kallsyms && !r->kplace_set) {
		err = t2f_resym_kplace(r, t);
		if (err)
			return err;
	}
	r->tried++;
	found = !m->vdso && t && t2f_resym_find(r, m, t, addr, &sym, &moved);
	if (!found && !moved && !m->vdso && t && t == r->kallsyms && t2f_text_syms__partial(t)) {
		/* a kept table holds part of its file: the file itself says */
		struct t2f_text_syms *whole;

		err = t2f_resym__kallsyms(r->ks_whole, r->d, true, &whole);
		if (err)
			return err;
		t2f_text_syms__free(r->kallsyms);
		t = r->kallsyms = whole;
		found = t2f_resym_find(r, m, t, addr, &sym, &moved);
	}
	if (!found) {
		if (moved)
			m->moved++;
		else
			m->miss[t || m->vdso ? T2F_MISS_NOT_FOUND : T2F_MISS_NO_FILE]++;
		r->unresolved++;
		return 0;
	}
	m->resolved++;
	err = t2f_profile__intern(p, sym.name, strlen(sym.name), &name);
	return err ?: t2f_profile__set_frame_name(p, id, name);
}

/* nettrace: "FILE!function" on a hit (sym != 0), "FILE!0xFILE_OFF" on a miss; FILE is the
 * module path's last component. */
static int t2f_resym_nettrace_name(struct t2f_resym *r, struct t2f_profile *p, t2f_frame_id id,
				   const struct t2f_resym_mod *m, t2f_str_id sym)
{
	const struct t2f_frame *f = t2f_profile__frame_at(p, id);
	const char *base = strrchr(m->path, '/');
	const char *name;
	char addr[24];
	size_t len;
	t2f_str_id out;
	int err;

	base = base && base[1] ? base + 1 : m->path;
	r->name.len = 0;
	if (sym) {
		name = t2f_profile__str(p, sym, &len);
	} else {
		len = (size_t)snprintf(addr, sizeof(addr), "0x%" PRIx64, f->addr);
		name = addr;
	}
	err = t2f_buf__put(&r->name, base, strlen(base)) ?: t2f_buf__put(&r->name, "!", 1) ?:
	      t2f_buf__put(&r->name, name, len) ?:
	      t2f_profile__intern(p, r->name.p, r->name.len, &out);
	return err ?: t2f_profile__set_frame_name(p, id, out);
}

/* A miss (looked up, or not looked up at all: counted in m's no_id, no_map): counted;
 * nettrace frames get their FILE!0xADDR name. */
static int t2f_resym_missed(struct t2f_resym *r, struct t2f_profile *p, t2f_frame_id id,
			    const struct t2f_resym_mod *m, bool looked_up)
{
	r->tried += looked_up;
	r->unresolved += looked_up;
	return t2f_profile__frame_at(p, id)->module_names ? t2f_resym_nettrace_name(r, p, id, m, 0)
							  : 0;
}

/* Where the symbolizer placed an address (a hit, or mapped but outside every symbol). */
static void t2f_resym_place(struct t2f_resym *r, t2f_frame_id id, const struct t2f_resym_mod *m,
			    const struct t2f_sym *sym)
{
	if (sym->miss == T2F_HIT || sym->miss == T2F_MISS_NOT_FOUND)
		r->places[id] = (struct t2f_resym_place){ .elf_vaddr = sym->elf_vaddr,
							  .mod = m->sym, .found = true };
}

/* A frame perf named, looked up only to place it for its inlined functions: its name stays,
 * and nothing is counted against it (a module without a build-id is simply not used). */
static int t2f_resym_named(struct t2f_resym *r, const struct t2f_profile *p, t2f_frame_id id)
{
	const struct t2f_frame *f = t2f_profile__frame_at(p, id);
	struct t2f_resym_mod *m;
	struct t2f_sym sym;
	int err = t2f_resym_mod_of(r, p, id, f, &m);

	if (err || !t2f_resym_looks_up(r, f, m))
		return err;
	err = t2f_symbolizer__resolve_file_off(r->sym, m->sym, f->addr, &sym);
	if (!err) {
		t2f_resym_place(r, id, m, &sym);
		m->placed += r->places[id].found;
	}
	return err;
}

/* Frame id's answer sym, in module m: placed, counted, and its name given. */
static int t2f_resym_answered(struct t2f_resym *r, struct t2f_profile *p, t2f_frame_id id,
			      const struct t2f_frame *f, struct t2f_resym_mod *m,
			      const struct t2f_sym *sym)
{
	t2f_resym_place(r, id, m, sym);
	if (sym->miss != T2F_HIT || !sym->name) {
		m->miss[sym->miss == T2F_HIT ? T2F_MISS_NOT_FOUND : sym->miss]++;
		return t2f_resym_missed(r, p, id, m, true);
	}
	r->tried++;
	m->resolved++;
	if (f->module_names)
		return t2f_resym_nettrace_name(r, p, id, m, sym->name);
	return t2f_profile__set_frame_name(p, id, sym->name);
}

/* A frame read as another (t2f_resym_opts.frame_as) whose first's answer is kept, in the same
 * module: named by that answer (its own place), as t2f_resym_frame would name it had it
 * searched. 1 when so, 0 when it is to be looked up itself, or an error. */
static int t2f_resym_classed(struct t2f_resym *r, struct t2f_profile *p, t2f_frame_id id,
			     const struct t2f_frame *f)
{
	t2f_frame_id as = id < r->n_frame_as ? r->frame_as[id] : id;
	const struct t2f_sym *like;
	struct t2f_sym sym;
	size_t mod;
	int err;

	if (as >= id || f->name || f->addr_left || !f->has_addr || f->kind != T2F_FRAME_USER ||
	    f->space == T2F_SPACE_ABS || f->module_names ||
	    !t2f_resym_likes__get(r->likes, as, &mod, &like) || r->mods[mod].path_id != f->module)
		return 0;
	err = t2f_symbolizer__resolve_file_off_like(r->sym, r->mods[mod].sym, f->addr, like, &sym);
	return err ?: t2f_resym_answered(r, p, id, f, &r->mods[mod], &sym) ?: 1;
}

static int t2f_resym_frame(struct t2f_resym *r, struct t2f_profile *p, t2f_frame_id id)
{
	const struct t2f_frame *f = t2f_profile__frame_at(p, id);
	struct t2f_resym_mod *m;
	struct t2f_sym sym;
	int err;

	err = t2f_resym_mod_of(r, p, id, f, &m);
	if (!err && f->addr_left) { /* the frames of one address each it stands for: no build-id */
		m->no_id += r->lefts ? r->lefts[id] : 0;
		return t2f_resym_missed(r, p, id, m, false);
	}
	if (!err && m->kind != T2F_FRAME_USER)
		return t2f_resym_text_frame(r, p, id, m);
	if (!err && (f->space == T2F_SPACE_ABS || (!m->has_id && !m->by_path && !r->unsafe))) {
		if (f->space == T2F_SPACE_ABS)
			m->no_map++;
		else
			m->no_id++; /* docs/design.md §5: nothing to verify a file against: refuse */
		return t2f_resym_missed(r, p, id, m, false);
	}
	if (!err)
		err = t2f_symbolizer__resolve_file_off(r->sym, m->sym, f->addr, &sym);
	if (err)
		return err;
	t2f_resym_likes__keep(r->likes, id, (size_t)(m - r->mods), &sym);
	return t2f_resym_answered(r, p, id, f, m, &sym);
}

static bool t2f_resym_any(const struct t2f_profile *p, const struct t2f_resym_opts *o)
{
	uint32_t n = t2f_profile__frame_count(p);

	for (t2f_frame_id id = 1; id <= n; id++)
		if (t2f_resym_wanted(p, t2f_profile__frame_at(p, id), o))
			return true;
	return false;
}

/* The addresses each frame was made without (t2f_profile__leave_addr). 0 or -ENOMEM. */
static int t2f_resym_count_lefts(struct t2f_resym *r, const struct t2f_profile *p)
{
	size_t n = t2f_profile__left_addr_count(p);

	if (!n)
		return 0;
	r->lefts = calloc(r->n_places, sizeof(*r->lefts));
	if (!r->lefts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		t2f_frame_id id = t2f_profile__left_addr_frame(p, i);

		if (id < r->n_places)
			r->lefts[id]++;
	}
	return 0;
}

int t2f_resym__make_symbolizer(const struct t2f_resym_opts *o, struct t2f_profile *p,
			       struct t2f_diag *d, struct t2f_symbolizer **out)
{
	struct t2f_symbolizer_opts so = {
		.demangle = o->no_params ? T2F_DEMANGLE_NO_PARAMS : T2F_DEMANGLE_FULL,
		.perf_rules = o->perf_rules,
		.debuginfod = !o->offline,
		.fetch_progress = o->progress,
		.fetch_ctx = o->progress_ctx,
		.fetch_temp = o->signals ? t2f_tmpguard__follow : NULL,
		.find = { .debug_dirs = o->debug_dirs,
			  .unsafe_build_id_match = o->unsafe_build_id_match },
		.cache = o->cache, .cache_max = o->cache_max, .cache_ahead = o->cache_ahead,
		.threads = o->threads, .no_lines = o->no_lines,
	};
	char **env_dirs = NULL;
	const char **symbol_dirs = NULL;
	int err = t2f_symbol_path_join(o->symbol_dirs, getenv("T2F_SYMBOL_PATH"), &env_dirs,
				       &symbol_dirs);

	so.find.symbol_dirs = symbol_dirs; /* --symbol-path, then T2F_SYMBOL_PATH (copied) */
	err = err ?: t2f_symbolizer__new(&so, t2f_profile__strtab(p), d, out);
	free(symbol_dirs);
	free(env_dirs);
	return err;
}

static int t2f_resym_setup(struct t2f_resym *r, struct t2f_profile *p,
			   const struct t2f_resym_opts *o, struct t2f_diag *d)
{
	int err = t2f_hashmap__new(64, &r->mod_index) ?: t2f_resym_ids__new(&r->ids) ?:
		  t2f_resym_ids__add_maps(r->ids, p, d);

	if (!err && o->buildids)
		err = t2f_resym_ids__read(r->ids, o->buildids, d);
	if (!err)
		err = t2f_resym_index_exec(r, p);
	if (err)
		return err;
	r->unsafe = o->unsafe_build_id_match;
	r->trust_by = o->trust_by;
	r->nettrace = o->nettrace;
	r->d = d;
	r->kallsyms_path = o->kallsyms;
	r->kref = o->kernel_ref;
	r->kref_addr = o->kernel_ref_addr;
	r->krefs_differ = o->kernel_refs_differ;
	r->perf_map_dir = o->perf_map_dir;
	return r->sym ? 0 : t2f_resym__make_symbolizer(o, p, d, &r->sym); /* o->sym, taken */
}

/* Names the wanted frames of the kernel (kernel) or of every other kind (!kernel). */
static int t2f_resym_pass(struct t2f_resym *r, struct t2f_profile *p,
			  const struct t2f_resym_opts *o, struct t2f_diag *d, bool kernel)
{
	uint32_t n = t2f_profile__frame_count(p);
	int err = 0;

	for (t2f_frame_id id = 1; id <= n && !err; id++) {
		const struct t2f_frame *f = t2f_profile__frame_at(p, id);
		int done = kernel ? 0 : t2f_resym_classed(r, p, id, f);

		if (done || (f->kind == T2F_FRAME_KERNEL) != kernel ||
		    !t2f_resym_wanted_at(r, p, id, f, o)) {
			err = t2f_resym_oom(d, p, f, done < 0 ? done : 0);
			continue;
		}
		if (f->name && !o->all)
			err = t2f_resym_named(r, p, id);
		else
			err = t2f_resym_frame(r, p, id);
		err = t2f_resym_oom(d, p, f, err);
	}
	return err;
}

int t2f_resym__run(struct t2f_profile *p, const struct t2f_resym_opts *o, struct t2f_diag *d,
		   struct t2f_resym **out)
{
	uint32_t n = t2f_profile__frame_count(p);
	struct t2f_resym *r = NULL;
	struct t2f_text_syms *ksyms = NULL;
	int err = 0;

	*out = NULL;
	/* A --kallsyms file is checked even when no kernel frame needs it; the file picked for a
	 * recording is read at the first kernel frame (t2f_resym_text_frame). */
	if (o->kallsyms && !o->kallsyms_lazy)
		err = t2f_resym__kallsyms(o, d, false, &ksyms);
	r = err || !t2f_resym_any(p, o) ? NULL : calloc(1, sizeof(*r));
	if (!r) {
		t2f_text_syms__free(ksyms);
		t2f_symbolizer__free(o->sym);
		return err ? err : t2f_resym_any(p, o) ? -ENOMEM : 0;
	}
	r->sym = o->sym;
	r->kallsyms = ksyms;
	r->ks_opts = o->kallsyms && o->kallsyms_lazy ? o : NULL;
	r->ks_whole = o;
	r->threads = o->threads;
	r->places = calloc((size_t)n + 1, sizeof(*r->places));
	r->mod_at = calloc((size_t)n + 1, sizeof(*r->mod_at));
	r->n_places = r->places && r->mod_at ? n + 1 : 0;
	r->frame_as = o->frame_as;
	r->n_frame_as = o->frame_as ? (o->n_frame_as < r->n_places ? o->n_frame_as : r->n_places) : 0;
	if (r->n_frame_as)
		err = t2f_resym_likes__new(r->frame_as, r->n_frame_as, &r->likes);
	err = err ?: r->n_places ? t2f_resym_count_lefts(r, p) ?: t2f_resym_setup(r, p, o, d) : -ENOMEM;
	if (!err)
		err = t2f_resym_ahead(r, p, o, d, o->threads >= 2);
	/* the kernel's frames first: the kallsyms table (200K symbols, 7 MB for /proc/kallsyms) is
	 * then let go before the user modules' indexes are built (the process's share may still
	 * keep it) */
	err = err ?: t2f_resym_pass(r, p, o, d, true);
	r->ks_opts = r->ks_whole = NULL; /* o is the caller's */
	t2f_text_syms__free(r->kallsyms);
	r->kallsyms = NULL;
	err = err ?: t2f_resym_pass(r, p, o, d, false);
	if (err)
		goto fail;
	t2f_symbolizer__symbols_done(r->sym); /* indexes the inline stage needs not are let go */
	*out = r;
	return 0;
fail:
	t2f_resym__free(r);
	return err;
}

void t2f_resym__free(struct t2f_resym *r)
{
	if (!r)
		return;
	t2f_bg__free(r->saving); /* the cache written first */
	t2f_symbolizer__free(r->sym);
	t2f_text_syms__free(r->kallsyms);
	for (size_t i = 0; i < r->n_mods; i++) {
		free(r->mods[i].path);
		if (r->mods[i].own_vdso)
			unlink(r->mods[i].map_path);
		free(r->mods[i].map_path);
		t2f_text_syms__free(r->mods[i].map);
	}
	free(r->mods);
	t2f_hashmap__free(r->mod_index);
	t2f_hashmap__free(r->exec_index);
	t2f_resym_ids__free(r->ids);
	t2f_buf__free(&r->name);
	free(r->places);
	free(r->mod_at);
	free(r->lefts);
	t2f_resym_likes__free(r->likes);
	free(r);
}

bool t2f_resym__place(const struct t2f_resym *r, t2f_frame_id id, t2f_sym_module_id *mod,
		      uint64_t *elf_vaddr)
{
	if (!r || id >= r->n_places || !r->places[id].found)
		return false;
	*mod = r->places[id].mod;
	*elf_vaddr = r->places[id].elf_vaddr;
	return true;
}

static int save_job(void *ctx, void *job)
{
	struct t2f_resym *r = job;
	uint64_t t0 = t2f_clock_ns();

	(void)ctx;
	t2f_symbolizer__cache_save(r->sym);
	r->save_ns = t2f_clock_ns() - t0;
	return 0;
}

/* On a thread of its own where -j allows one (a cold run's 155 new cache files took 40 ms,
 * mostly waiting on the file system, while the output could be written); else here. */
void t2f_resym__save(struct t2f_resym *r)
{
	if (!r || !r->sym || r->saving)
		return;
	if (r->threads < 2 || t2f_bg__new(save_job, NULL, &r->saving) ||
	    t2f_bg__hand(r->saving, r))
		save_job(NULL, r);
}

void t2f_resym_saved(const struct t2f_resym *r)
{
	if (r && r->saving)
		t2f_bg__wait(r->saving);
}

struct t2f_symbolizer *t2f_resym__symbolizer(const struct t2f_resym *r)
{
	t2f_resym_saved(r);
	return r ? r->sym : NULL;
}
