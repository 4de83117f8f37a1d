/* pipeline/share_api.c: the public t2f_share_limit (include/trace2flame.h) on the process's
 * kallsyms tables (symbolizer/text_syms_share.h). */
#include "include/trace2flame.h"
#include "symbolizer/text_syms_share.h"

void t2f_share_limit(unsigned tables)
{
	t2f_text_syms__share_limit(tables);
}
