/* writers/speedscope_frames.c: speedscope's frame objects (writers/speedscope_frames.h). */
#include "writers/speedscope_frames.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hashmap.h"

void ss_frame_file(const struct t2f_profile *p, t2f_frame_id f, t2f_str_id *file, uint32_t *line)
{
	const struct t2f_frame *fr = t2f_profile__frame_at(p, f);

	t2f_frame__fn_position(fr, file, line);
	if (!*file)
		*file = fr->module;
}

/* What ss_frames__assign works with. */
struct ssf {
	const struct t2f_profile *p;
	const struct t2f_frame_names *names;
	uint32_t *frame_shared;
	t2f_frame_id *shared_repr;
	uint32_t shared_count;
	struct t2f_hashmap *frame_map;  /* (name, file, line) -> object index + 1 */
};

struct ss_frame_key {
	const struct ssf *s;
	const char *name;
	size_t len;
	t2f_str_id file;
	uint32_t line;
};

static bool ss_frame_eq(const void *ctx, uint32_t value)
{
	const struct ss_frame_key *k = ctx;
	t2f_frame_id f = k->s->shared_repr[value - 1];
	size_t len;
	const char *name = t2f_frame_names__get(k->s->names, f, &len);
	t2f_str_id file;
	uint32_t line;

	ss_frame_file(k->s->p, f, &file, &line);
	return file == k->file && line == k->line && len == k->len && !memcmp(name, k->name, len);
}

/* The shared indices of the used frames' objects (key_of[f]: frame f's object, 1..keys;
 * shared_repr[k - 1]: object k's first frame), in the objects' order. 0 or -ENOMEM. */
static int ss_index_used(struct ssf *s, const uint32_t *key_of, uint32_t keys)
{
	uint32_t frame_count = t2f_profile__frame_count(s->p);
	uint32_t *index = calloc((size_t)keys + 1, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (t2f_frame_id f = 1; f <= frame_count; f++)
		if (s->frame_shared[f])
			index[key_of[f]] = 1;
	for (uint32_t k = 1; k <= keys; k++) {
		if (!index[k])
			continue;
		s->shared_repr[s->shared_count] = s->shared_repr[k - 1]; /* shared_count < k */
		index[k] = ++s->shared_count;
	}
	for (t2f_frame_id f = 1; f <= frame_count; f++)
		if (s->frame_shared[f])
			s->frame_shared[f] = index[key_of[f]];
	free(index);
	return 0;
}

/* Pass 2: shared indices for the used frames, one per frame object written (name, file, line):
 * frames of one function at different lines of its code are one, and so are a module's
 * unresolved frames at different addresses when addresses are not shown. The objects come in
 * the order of their first frame among all the profile's frames, used or not, so the order
 * does not depend on which frames the profile told apart (the addresses a session keeps for
 * another output): one frame where a session for speedscope alone keeps one, or several. */
static int ss_assign_frames(struct ssf *s)
{
	uint32_t frame_count = t2f_profile__frame_count(s->p), keys = 0;
	uint32_t *key_of = malloc(((size_t)frame_count + 1) * sizeof(*key_of));
	struct ss_frame_key key = { .s = s };
	uint64_t hash;
	uint32_t value;
	int err = key_of ? 0 : -ENOMEM;

	/* every frame's object, numbered in frame-id order; shared_repr[k - 1]: object k's first */
	for (t2f_frame_id f = 1; !err && f <= frame_count; f++) {
		key.name = t2f_frame_names__get(s->names, f, &key.len);
		ss_frame_file(s->p, f, &key.file, &key.line);
		hash = t2f_hash_u64(t2f_hash_bytes(key.name, key.len) ^ key.file ^
				    (uint64_t)key.line << 32);
		value = t2f_hashmap__find(s->frame_map, hash, ss_frame_eq, &key);
		if (!value) {
			s->shared_repr[keys] = f;
			value = ++keys;
			err = t2f_hashmap__insert(s->frame_map, hash, value);
		}
		key_of[f] = value;
	}
	err = err ?: ss_index_used(s, key_of, keys);
	free(key_of);
	return err;
}

int ss_frames__assign(const struct t2f_profile *p, const struct t2f_frame_names *names,
		      uint32_t *frame_shared, t2f_frame_id *shared_repr, uint32_t *shared_count)
{
	struct ssf s = { .p = p, .names = names, .frame_shared = frame_shared,
			 .shared_repr = shared_repr };
	int err = t2f_hashmap__new(t2f_profile__frame_count(p), &s.frame_map);

	err = err ?: ss_assign_frames(&s);
	t2f_hashmap__free(s.frame_map);
	*shared_count = s.shared_count;
	return err;
}
