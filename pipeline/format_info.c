/* pipeline/format_info.c: the output formats as the public header describes them
 * (include/trace2flame.h, t2f_format_*): the writer table's descriptors, read only. */
#include <errno.h>

#include "include/trace2flame.h"
#include "pipeline/versioned.h"
#include "pipeline/writer_table.h"

size_t t2f_format_count(void)
{
	return t2f_writer__count();
}

int t2f_format_info(enum t2f_format f, struct t2f_format_info *out)
{
	const struct t2f_writer *w = t2f_writer__of(f);
	struct t2f_format_info all;
	int err = t2f_versioned__check_out(out, T2F_FORMAT_INFO_SIZE_V1);

	if (err)
		return err;
	if (!w)
		return -EINVAL;
	all = (struct t2f_format_info){
		.name = w->name,
		.title = w->title,
		.said = w->said,
		.description = w->description,
		.ext = w->ext,
		.extensions = w->extensions,
		.uses = w->uses,
	};
	t2f_versioned__out(out, &all, sizeof(all));
	return 0;
}

enum t2f_format t2f_format_by_name(const char *name)
{
	const struct t2f_writer *w = name ? t2f_writer__by_name(name) : NULL;

	return w ? w->format : T2F_FORMAT_NONE;
}

enum t2f_format t2f_format_by_path(const char *path)
{
	const struct t2f_writer *w = path ? t2f_writer__by_path(path) : NULL;

	return w ? w->format : T2F_FORMAT_NONE;
}
