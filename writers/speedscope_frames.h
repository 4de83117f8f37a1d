/* writers/speedscope_frames.h: speedscope's frame objects, the shared "frames" array: one per
 * (name, file, line) written, numbered in the order of their first frame among all the
 * profile's frames (used or not), so that the numbering does not depend on which frames the
 * profile told apart for other outputs. Internal to writers/. Not thread safe; the callers own
 * every array. */
#ifndef T2F_WRITERS_SPEEDSCOPE_FRAMES_H
#define T2F_WRITERS_SPEEDSCOPE_FRAMES_H

#include <stdint.h>

#include "formats/profile.h"
#include "writers/frame_name.h"

/* A frame object's "file" and "line": where its function is (writers/frame_name.h), else the
 * module with no line; 0 = left out. */
void ss_frame_file(const struct t2f_profile *p, t2f_frame_id f, t2f_str_id *file, uint32_t *line);

/* frame_shared[f] (frame_count + 1 entries): nonzero for the frames used on entry, their
 * object's index + 1 on return; shared_repr (frame_count + 1 entries): each object's first
 * frame, *shared_count of them. names: the frames' full names. 0 or -ENOMEM. */
int ss_frames__assign(const struct t2f_profile *p, const struct t2f_frame_names *names,
		      uint32_t *frame_shared, t2f_frame_id *shared_repr, uint32_t *shared_count);

#endif
