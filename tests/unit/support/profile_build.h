/* tests/unit/support/profile_build.h: building small profiles through formats/profile.h in the
 * unit tests (test_profile*.c, test_speedscope.c, test_pprof.c, test_svg.c). Header-only
 * (static inline); every call asserts success with cmocka. */
#ifndef T2F_TEST_PROFILE_BUILD_H
#define T2F_TEST_PROFILE_BUILD_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/profile.h"

/* s interned in p's strings. */
static inline t2f_str_id str(struct t2f_profile *p, const char *s)
{
	t2f_str_id id;

	assert_int_equal(t2f_profile__intern(p, s, strlen(s), &id), 0);
	return id;
}

/* A frame; name and module may be NULL; addr 0 = no address, else a file offset. */
static inline t2f_frame_id frame(struct t2f_profile *p, const char *name, const char *module,
				 enum t2f_frame_kind kind, uint64_t addr)
{
	struct t2f_frame f = {
		.name = name ? str(p, name) : 0,
		.module = module ? str(p, module) : 0,
		.kind = kind,
		.addr = addr,
		.has_addr = addr != 0,
		.space = T2F_SPACE_FILE_OFF,
	};
	t2f_frame_id id;

	assert_int_equal(t2f_profile__frame(p, &f, &id), 0);
	return id;
}

/* The frame f, looked up or added. */
static inline t2f_frame_id add_frame(struct t2f_profile *p, const struct t2f_frame *f)
{
	t2f_frame_id id = 0;

	assert_int_equal(t2f_profile__frame(p, f, &id), 0);
	return id;
}

static inline t2f_thread_id thread(struct t2f_profile *p, int64_t pid, int64_t tid,
				   const char *comm, uint32_t input)
{
	t2f_thread_id id = 0;

	assert_int_equal(t2f_profile__thread(p, pid, tid, str(p, comm), input, &id), 0);
	return id;
}

static inline t2f_node_id child(struct t2f_profile *p, t2f_node_id parent, t2f_frame_id f)
{
	t2f_node_id id = 0;

	assert_int_equal(t2f_profile__child(p, parent, f, &id), 0);
	return id;
}

/* cmocka fixtures: *state is a new, empty profile, freed after the test. */
static inline int profile_setup(void **state)
{
	struct t2f_profile *p = NULL;

	if (t2f_profile__new(&p) || !p)
		return -1;
	*state = p;
	return 0;
}

static inline int profile_teardown(void **state)
{
	t2f_profile__free(*state);
	return 0;
}

/* A frame of /bin/app with source positions (NULL, 0 = unknown). */
static inline t2f_frame_id src_frame(struct t2f_profile *p, const char *name,
				     enum t2f_frame_kind kind, const char *file, uint32_t line,
				     const char *fn_file, uint32_t fn_line)
{
	struct t2f_frame f = {
		.name = str(p, name), .module = str(p, "/bin/app"), .kind = kind,
		.file = file ? str(p, file) : 0, .line = line,
		.fn_file = fn_file ? str(p, fn_file) : 0, .fn_line = fn_line,
	};

	return add_frame(p, &f);
}

#endif
