/* pipeline/resym_report.c: what the resolve stage says of the frames it named and did not:
 * --stats per module, the warnings without it, the library's counts and module reports
 * (resymbolize.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/plural.h"
#include "formats/utf8.h"
#include "pipeline/resym_internal.h"
#include "symbolizer/debug_find.h"
#include "symbolizer/symcache.h"

/* Paths from the trace (dso names, debuglinks) are shown with control characters as "\xNN". */
static void t2f_resym_print_files(FILE *f, const struct t2f_debug_result *res,
				  const char *used)
{
	char vis[T2F_VISIBLE_MAX];

	if (!res)
		return;
	if (used)
		fprintf(f, "    file: %s\n", t2f_utf8_visible(used, vis, sizeof(vis)));
	for (size_t i = 0; i < res->n_refused; i++) {
		const struct t2f_debug_refused *e = &res->refused[i];

		fprintf(f, "    refused: %s: %s", t2f_utf8_visible(e->path, vis, sizeof(vis)),
			t2f_refusal_name(e->why));
		if (e->why == T2F_REFUSAL_BUILD_ID)
			fprintf(f, " (found %s, expected %s)", e->found_id[0] ? e->found_id : "none",
				res->expected_id[0] ? res->expected_id : "none");
		else if (e->why == T2F_REFUSAL_FILE_NO_BUILD_ID)
			fprintf(f, " (expected %s)", res->expected_id);
		fputc('\n', f);
	}
}

/* A kernel module's kallsyms file, and where it placed the kernel when that is not as recorded. */
static void t2f_resym_print_kernel_file(FILE *f, const struct t2f_resym *r)
{
	char vis[T2F_VISIBLE_MAX];

	fprintf(f, "    file: %s\n", r->kallsyms_path ? t2f_utf8_visible(r->kallsyms_path, vis,
								       sizeof(vis))
						 : "none (t2f_options.kallsyms)");
	if (r->kplace_set)
		t2f_kernel_place__print(f, &r->kplace);
}

/* A kernel or JIT module: counts, then the kallsyms / map file used or missing. */
static void t2f_resym_print_text_mod(FILE *f, const struct t2f_resym *r,
				     const struct t2f_resym_mod *m)
{
	uint32_t no_file = m->miss[T2F_MISS_NO_FILE], not_found = m->miss[T2F_MISS_NOT_FOUND];
	char vis[T2F_VISIBLE_MAX];

	fprintf(f, "  %s: %u resolved, %u unresolved", t2f_utf8_visible(m->path, vis, sizeof(vis)),
		m->resolved, no_file + not_found + m->moved);
	if (no_file)
		fprintf(f, ", no map file %u", no_file);
	if (not_found)
		fprintf(f, ", not found %u", not_found);
	if (m->moved)
		fprintf(f, ", placed elsewhere when recorded %u", m->moved);
	fputc('\n', f);
	if (m->kind == T2F_FRAME_KERNEL && m->vdso && m->map_path)
		fprintf(f, "    missing: %s (perf's copy of the recorded vdso)\n",
			t2f_utf8_visible(m->map_path, vis, sizeof(vis)));
	else if (m->kind == T2F_FRAME_KERNEL && m->vdso)
		fputs("    no build-id known for the vdso (t2f_options.buildids), and not recorded on "
		      "this machine\n", f);
	else if (m->kind == T2F_FRAME_KERNEL)
		t2f_resym_print_kernel_file(f, r);
	else if (!m->map_path)
		fputs("    not a perf map's name (/tmp/perf-PID.map): not looked up\n", f);
	else if (m->map)
		fprintf(f, "    file: %s\n", t2f_utf8_visible(m->map_path, vis, sizeof(vis)));
	else if (m->map_err)
		fprintf(f, "    unreadable: %s (%s)\n", t2f_utf8_visible(m->map_path, vis, sizeof(vis)),
			t2f_strerror(m->map_err));
	else
		fprintf(f, "    missing: %s\n", t2f_utf8_visible(m->map_path, vis, sizeof(vis)));
}

static void t2f_resym_print_mod(FILE *f, const struct t2f_resym *r, const struct t2f_resym_mod *m)
{
	uint32_t missed = 0;
	char vis[T2F_VISIBLE_MAX];

	for (int k = 1; k < T2F_MISS_COUNT; k++)
		missed += m->miss[k];
	fprintf(f, "  %s: %u resolved, %u unresolved", t2f_utf8_visible(m->path, vis, sizeof(vis)),
		m->resolved,
		missed + m->no_id + m->no_map);
	for (int k = 1; k < T2F_MISS_COUNT; k++)
		if (m->miss[k])
			fprintf(f, ", %s %u", t2f_miss_name((enum t2f_miss)k), m->miss[k]);
	if (m->no_id && m->newer)
		fprintf(f, "; %u not tried: no build-id known, and the file changed after the "
			"recording (t2f_options.unsafe_build_id_match uses it anyway)", m->no_id);
	else if (m->no_id)
		fprintf(f, "; %u not tried: no build-id known (t2f_options.buildids, or "
			"t2f_options.unsafe_build_id_match)", m->no_id);
	if (m->by_path)
		fputs("; matched by path without a build-id (recorded on this machine, the file not "
		      "newer than the recording)", f);
	if (m->no_map)
		fprintf(f, "; %u not tried: an absolute ip without a mapping of its process "
			"(perf script --show-mmap-events)", m->no_map);
	fputc('\n', f);
	if (r->nettrace && m->has_segment)
		fprintf(f, "    segment: from the trace (p_vaddr 0x%" PRIx64 ", p_offset 0x%" PRIx64
			"): elf_vaddr = file_off - p_offset + p_vaddr\n", m->p_vaddr, m->p_offset);
	else if (r->nettrace)
		fprintf(f, "    segment: not in the trace: the binary's own PT_LOAD\n");
	t2f_resym_print_files(f, t2f_symbolizer__module_files(r->sym, m->sym),
			      t2f_symbolizer__module_file(r->sym, m->sym));
	if (t2f_symbolizer__module_binary(r->sym, m->sym))
		fprintf(f, "    binary (its program headers): %s\n",
			t2f_utf8_visible(t2f_symbolizer__module_binary(r->sym, m->sym), vis,
					 sizeof(vis)));
}

/* Frames not looked up: no build-id known for their module, or no mapping of their process. */
static uint32_t t2f_resym_skipped(const struct t2f_resym *r)
{
	uint32_t n = 0;

	for (size_t i = 0; i < r->n_mods; i++)
		n += r->mods[i].no_id + r->mods[i].no_map;
	return n;
}

/* What the debuginfod servers gave, when DEBUGINFOD_URLS named one and --offline was not given. */
static void t2f_resym_print_fetches(FILE *f, const struct t2f_debuginfod_stats *st)
{
	if (!st)
		return;
	fprintf(f, "debuginfod: %" PRIu64 " debug file%s fetched (or in its cache), %" PRIu64
		" not on the servers, %" PRIu64 " fetch%s failed (%" PRIu64 " cut by a bound), %"
		PRIu64 " not made after a timeout, %" PRIu64 " file%s removed from the cache",
		st->fetched, t2f_plural(st->fetched), st->missing, st->failed,
		st->failed == 1 ? "" : "es", st->cut, st->skipped, st->dropped,
		t2f_plural(st->dropped));
	if (st->err)
		fprintf(f, " (last: %s)", t2f_strerror(st->err));
	fputc('\n', f);
}

/* The symbol cache's counts (symbolizer/symcache.h), when there is one. */
static void t2f_resym_print_cache(FILE *f, const struct t2f_symbolizer *sym)
{
	const struct t2f_symcache_stats *st;
	char vis[T2F_VISIBLE_MAX];
	const char *dir;

	st = sym ? t2f_symbolizer__cache_stats(sym, &dir) : NULL;
	if (!st)
		return;
	fprintf(f, "symbol cache %s: %" PRIu64 " files used, %" PRIu64 " missing, %" PRIu64
		" ignored (untrusted or broken), %" PRIu64 " written, %" PRIu64 " evicted; %" PRIu64
		" addresses answered from it, %" PRIu64 " looked up in the files\n",
		t2f_utf8_visible(dir, vis, sizeof(vis)), st->hits, st->misses, st->bad, st->written,
		st->evicted, st->answers, st->looked_up);
}

/* How long the new cache files took: on a thread (-j 2 or more), beside the output and outside
 * the names' time of the `time:` line; else within it. */
static void t2f_resym_print_save(FILE *f, const struct t2f_resym *r)
{
	const char *dir;
	const struct t2f_symcache_stats *st = t2f_symbolizer__cache_stats(r->sym, &dir);

	if (st && st->written)
		fprintf(f, "symbol cache files written in %.3f s, %s\n", (double)r->save_ns / 1e9,
			r->saving ? "on a thread of their own while the output was made (not in "
				    "the names' time)" : "within the names' time");
}

void t2f_resym__print_stats(FILE *f, const struct t2f_resym *r)
{
	uint32_t skipped;

	t2f_resym_saved(r);
	if (!r)
		return;
	skipped = t2f_resym_skipped(r);
	if (r->tried)
		fprintf(f, "resymbolized frames: %u of %u looked up resolved\n",
			r->tried - r->unresolved, r->tried);
	if (skipped)
		fprintf(f, "frames not looked up (no build-id known, or no mapping): %u\n", skipped);
	for (size_t i = 0; i < r->n_mods; i++) {
		if (r->mods[i].kind == T2F_FRAME_USER)
			t2f_resym_print_mod(f, r, &r->mods[i]);
		else
			t2f_resym_print_text_mod(f, r, &r->mods[i]);
	}
	t2f_resym_print_fetches(f, r->sym ? t2f_symbolizer__debuginfod(r->sym) : NULL);
	t2f_resym_print_cache(f, r->sym);
	t2f_resym_print_save(f, r);
}

#define T2F_RESYM_WARN_MODULES 5 /* modules with refused files named one a line */

/* One line per module whose candidate files were all refused for another build-id, or for
 * having none. */
static void t2f_resym_warn_refused(FILE *f, const struct t2f_resym *r, const char *label)
{
	char vmod[T2F_VISIBLE_MAX], vfile[T2F_VISIBLE_MAX];
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < r->n_mods; i++) {
		const struct t2f_resym_mod *m = &r->mods[i];
		const struct t2f_debug_result *res = m->kind == T2F_FRAME_USER
			? t2f_symbolizer__module_files(r->sym, m->sym) : NULL;
		const struct t2f_debug_refused *e = NULL;

		bool found = res && t2f_symbolizer__module_file(r->sym, m->sym);

		for (size_t k = 0; res && !found && k < res->n_refused && !e; k++)
			if (res->refused[k].why == T2F_REFUSAL_BUILD_ID ||
			    res->refused[k].why == T2F_REFUSAL_FILE_NO_BUILD_ID)
				e = &res->refused[k];
		if (!e)
			continue;
		if (shown++ >= T2F_RESYM_WARN_MODULES) {
			more++;
			continue;
		}
		if (e->why == T2F_REFUSAL_FILE_NO_BUILD_ID)
			fprintf(f, "trace2flame: warning: %s: %s: %s refused: it has no build-id, "
				"the recording's is %s\n", label,
				t2f_utf8_visible(m->path, vmod, sizeof(vmod)),
				t2f_utf8_visible(e->path, vfile, sizeof(vfile)), res->expected_id);
		else
			fprintf(f, "trace2flame: warning: %s: %s: %s refused: its build-id %s is "
				"not the recording's %s\n", label,
				t2f_utf8_visible(m->path, vmod, sizeof(vmod)),
				t2f_utf8_visible(e->path, vfile, sizeof(vfile)),
				e->found_id[0] ? e->found_id : "(none)",
				res->expected_id[0] ? res->expected_id : "(none)");
	}
	if (more)
		fprintf(f, "trace2flame: warning: %s: and %zu more module%s whose files were refused "
			"for their build-id (T2F_REPORT_STATS lists them)\n", label, more,
			t2f_plural(more));
}

/* The frames not tried because no build-id is known for their module, and what to do. */
static void t2f_resym_warn_no_id(FILE *f, const struct t2f_resym *r, const char *label)
{
	uint32_t frames = 0, mods = 0, no_map = 0;

	for (size_t i = 0; i < r->n_mods; i++) {
		frames += r->mods[i].no_id;
		mods += r->mods[i].no_id != 0;
		no_map += r->mods[i].no_map;
	}
	if (no_map)
		fprintf(f, "trace2flame: warning: %s: %u frame%s not named: absolute addresses of "
			"one-line samples whose process mappings the text does not give (perf script "
			"--show-mmap-events --show-task-events)\n", label, no_map, t2f_plural(no_map));
	if (frames)
		fprintf(f, "trace2flame: warning: %s: %u frame%s of %u module%s not named: the "
			"recording has no build-id to verify their files by (record with perf record "
			"--buildid-all, or give t2f_options.buildids from perf buildid-list; "
			"t2f_options.unsafe_build_id_match trusts the paths)\n", label, frames,
			t2f_plural(frames), mods, t2f_plural(mods));
}

#define T2F_RESYM_WARN_MAPS 3 /* perf maps a warning names */

/* A JIT module whose frames went unnamed for want of its perf map (missing or unreadable). */
static bool t2f_resym_map_lacking(const struct t2f_resym_mod *m)
{
	return m->kind == T2F_FRAME_JIT && m->map_path && !m->map && m->miss[T2F_MISS_NO_FILE];
}

/* One line for the JIT frames left unnamed because their perf maps are missing or unreadable,
 * naming the first maps: a user sees where they were looked for without asking for the stats.
 * Returns how many frames it counted. */
static uint32_t t2f_resym_warn_maps(FILE *f, const struct t2f_resym *r, const char *label)
{
	char vis[T2F_VISIBLE_MAX];
	uint32_t frames = 0, maps = 0, named = 0;

	for (size_t i = 0; i < r->n_mods; i++)
		if (t2f_resym_map_lacking(&r->mods[i])) {
			frames += r->mods[i].miss[T2F_MISS_NO_FILE];
			maps++;
		}
	if (!frames)
		return 0;
	fprintf(f, "trace2flame: warning: %s: %u JIT frame%s not named: no readable perf map (",
		label, frames, t2f_plural(frames));
	for (size_t i = 0; i < r->n_mods && named < T2F_RESYM_WARN_MAPS; i++)
		if (t2f_resym_map_lacking(&r->mods[i]))
			fprintf(f, "%s%s", named++ ? ", " : "",
				t2f_utf8_visible(r->mods[i].map_path, vis, sizeof(vis)));
	if (maps > named)
		fprintf(f, " and %u more", maps - named);
	fputs("); run the program with its runtime's perf map on (e.g. node --perf-basic-prof, "
	      "DOTNET_PerfMapEnabled=1, java -XX:+UnlockDiagnosticVMOptions "
	      "-XX:+DumpPerfMapAtExit) and convert before the maps are removed, or give "
	      "t2f_options.perf_map_dir\n", f);
	return frames;
}

void t2f_resym__warn(FILE *f, const struct t2f_resym *r, const char *label)
{
	uint32_t other;

	t2f_resym_saved(r);
	if (!r || (!r->unresolved && !t2f_resym_skipped(r)))
		return;
	t2f_resym_warn_refused(f, r, label);
	t2f_resym_warn_no_id(f, r, label);
	other = r->unresolved - t2f_resym_warn_maps(f, r, label);
	if (other)
		fprintf(f, "trace2flame: warning: %s: %u of %u frame%s looked up stayed unnamed (run "
			"with T2F_REPORT_STATS for the reasons per module)\n", label, other,
			r->tried, t2f_plural(r->tried));
}

void t2f_resym__counts(const struct t2f_resym *r, uint64_t *tried, uint64_t *unresolved,
		       uint64_t *skipped)
{
	*tried = r ? r->tried : 0;
	*unresolved = r ? r->unresolved : 0;
	*skipped = r ? t2f_resym_skipped(r) : 0;
}

size_t t2f_resym__module_count(const struct t2f_resym *r)
{
	return r ? r->n_mods : 0;
}

/* The file a module was named from, or NULL. */
static const char *t2f_resym_file(const struct t2f_resym *r, const struct t2f_resym_mod *m)
{
	const struct t2f_debug_result *res;

	if (m->kind == T2F_FRAME_KERNEL)
		return r->kallsyms_path;
	if (m->kind == T2F_FRAME_JIT)
		return m->map ? m->map_path : NULL;
	res = t2f_symbolizer__module_files(r->sym, m->sym);
	return res ? t2f_symbolizer__module_file(r->sym, m->sym) : NULL;
}

void t2f_resym__module(const struct t2f_resym *r, size_t i, struct t2f_module_report *out)
{
	const struct t2f_resym_mod *m = &r->mods[i];
	const struct t2f_debug_result *res;

	t2f_resym_saved(r);
	res = m->kind == T2F_FRAME_USER ? t2f_symbolizer__module_files(r->sym, m->sym) : NULL;

	out->path = m->path;
	out->kind = (enum t2f_module_kind)m->kind; /* USER, KERNEL or JIT: the same values */
	out->file = t2f_resym_file(r, m);
	out->build_id = res ? res->expected_id : "";
	out->resolved = m->resolved;
	out->unresolved = 0;
	for (int k = 1; k < T2F_MISS_COUNT; k++)
		out->unresolved += m->miss[k];
	out->unresolved += m->moved;
	out->skipped = m->no_id + m->no_map;
	out->refused = res ? res->n_refused : 0;
}
