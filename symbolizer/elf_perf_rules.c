/* symbolizer/elf_perf_rules.c: which symbols the index keeps under perf's rules.
 *
 * perf (tools/perf/util/symbol-elf.c, dso__load_sym; perf 6.1 as Debian 12 ships it) keeps,
 * from the .symtab of the file it found (else the .dynsym):
 *   functions  FUNC or GNU_IFUNC with a name, defined (st_shndx != SHN_UNDEF);
 *   objects    OBJECT with a name, defined;
 *   labels     NOTYPE with a name, not UNDEF or ABS, in a section whose name contains "text"
 *              or "data" (ld.so's `_start` and `_dl_start_user` are such labels in .text).
 * Our index also leaves out ABS and COMMON symbols and value 0 in both rule sets (no code lies
 * there). The rest of perf's rules (sizeless symbols reaching the next one, the choice among
 * symbols at one address) are in elf_index.c.
 */
#include "symbolizer/elf_internal.h"

#include <stdlib.h>

int t2f_elf_label_sections(struct t2f_elf_module *m, const struct t2f_elf_table *t,
			   uint8_t **ok, size_t *n)
{
	struct t2f_elf_image im = { t->mini ? m->mini_elf : m->elf, 0, "" };
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	size_t count;

	*ok = NULL;
	*n = 0;
	if (!im.elf || elf_getshdrnum(im.elf, &count) || !count)
		return 0;
	*ok = calloc(count, 1);
	if (!*ok)
		return -ENOMEM;
	*n = count;
	while ((scn = elf_nextscn(im.elf, scn))) {
		size_t i = elf_ndxscn(scn);

		if (i < count && gelf_getshdr(scn, &sh) &&
		    (name = t2f_elf_section__name(m, &im, &sh)))
			(*ok)[i] = strstr(name, "text") || strstr(name, "data");
	}
	return 0;
}

bool t2f_elf_perf_kept(const struct t2f_elf_rawsym *s, const uint8_t *label_ok, size_t n)
{
	unsigned type = GELF_ST_TYPE(s->info);

	if (!s->name || !s->value || s->shndx == SHN_UNDEF || s->shndx == SHN_ABS ||
	    s->shndx == SHN_COMMON)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	return type == STT_NOTYPE && s->shndx < n && label_ok[s->shndx];
}
