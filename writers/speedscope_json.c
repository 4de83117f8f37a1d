/* writers/speedscope_json.c: the speedscope writer's JSON strings (names, files) and its
 * profiles' names. */
#include "writers/speedscope_int.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include <json-c/json.h>

#include "formats/buf.h"
#include "formats/decimal.h"
#include "formats/utf8.h"

#define SS_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Whether str is ASCII that json-c would write as it is: no control character, '"' or '\\' (it
 * escapes no other byte under JSON_C_TO_STRING_NOSLASHESCAPE). */
static bool ss_plain(const char *str, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)str[i];

		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* str as a JSON string, in *json (valid until the next call). Most names are plain ASCII
 * (ss_plain), only quoted: checking their UTF-8 a sequence at a time and json-c's conversion
 * took 1,700 instructions a frame name of 60 bytes. So is "" (json-c 0.16 loses its buffer
 * when set to "" after a long string). Others are escaped by json-c, which passes bytes ≥ 0x80
 * through unchecked, hence the UTF-8 repair first. 0 or -ENOMEM. */
static int ss_json(struct ss *s, const char *str, size_t len, const char **json, size_t *json_len)
{
	int err;

	if (ss_plain(str, len)) {
		s->plain_buf.len = 0;
		if (t2f_buf__put(&s->plain_buf, "\"", 1) || t2f_buf__put(&s->plain_buf, str, len) ||
		    t2f_buf__put(&s->plain_buf, "\"", 1))
			return -ENOMEM;
		*json = s->plain_buf.p;
		*json_len = s->plain_buf.len;
		return 0;
	}
	if (!t2f_utf8_valid(str, len)) {
		err = t2f_utf8_repair(&s->utf8_buf, str, len);
		if (err)
			return err;
		str = s->utf8_buf.p;
		len = s->utf8_buf.len;
	}
	if (len > INT_MAX || !json_object_set_string_len(s->jstr, str, (int)len))
		return -ENOMEM;
	*json = json_object_to_json_string_length(s->jstr, SS_JSON_FLAGS, json_len);
	return *json ? 0 : -ENOMEM;
}

/* Writes str as a JSON string. */
int ss_put_string(struct ss *s, const char *str, size_t len)
{
	const char *json;
	size_t json_len;
	int err = ss_json(s, str, len, &json, &json_len);

	if (!err)
		t2f_out__write(s->out, json, json_len);
	return err;
}

/* s (a string literal) at p: its length. */
#define SS_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), sizeof(s) - 1)

/* The ids a thread's name ends with: " (pid P, tid T)", " (tid T)" when the pid is unknown,
 * " (pid P)" when the tid is, nothing when neither is (folded stacks). Into tail (room for 56
 * bytes); its length. */
static size_t ss_thread_ids(const struct t2f_thread *th, char *tail)
{
	bool pid = th->pid != T2F_PID_UNKNOWN, tid = th->tid != T2F_PID_UNKNOWN;
	size_t n = 0;

	if (!pid && !tid)
		return 0;
	n += pid ? SS_LIT(tail, " (pid ") : SS_LIT(tail, " (tid ");
	n += t2f_dec_i64(tail + n, pid ? th->pid : th->tid);
	if (pid && tid) {
		n += SS_LIT(tail + n, ", tid ");
		n += t2f_dec_i64(tail + n, th->tid);
	}
	tail[n++] = ')';
	return n;
}

/* Appends "comm (pid P, tid T)" as a JSON string to b (ss_thread_ids). A comm that ends with
 * its tid in parentheses (.nettrace's "Thread (7532)") drops it: the ids are said once. */
int ss_put_thread_name(struct ss *s, const struct t2f_thread *th, struct t2f_buf *b)
{
	char tail[64], own[32];
	size_t comm_len, tail_len = ss_thread_ids(th, tail), json_len, own_len;
	const char *comm = t2f_profile__str(s->p, th->comm, &comm_len), *json;

	own_len = SS_LIT(own, " (");
	own_len += t2f_dec_i64(own + own_len, th->tid);
	own[own_len++] = ')';
	if (tail_len && comm_len > own_len && memcmp(comm + comm_len - own_len, own, own_len) == 0)
		comm_len -= own_len;
	s->name_buf.len = 0;
	if (t2f_buf__put(&s->name_buf, comm, comm_len) || t2f_buf__put(&s->name_buf, tail, tail_len))
		return -ENOMEM;
	return ss_json(s, s->name_buf.p, s->name_buf.len, &json, &json_len) ?:
	       t2f_buf__put(b, json, json_len);
}
