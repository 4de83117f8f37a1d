/* formats/event_name.h: an event's name without the modifiers perf appends to it.
 *
 * perf names an event "cpu-clock:u", "cycles:pppH" (perf evlist, perf script's event column,
 * EVENT_DESC in perf.data); a profile names it "cpu-clock", "cycles", so the text and perf.data
 * routes agree and a user may type either. A modifier is a run of 1 to 8 of the letters perf
 * accepts (ukhIGHpPSDWeb) after the last colon; "sched:sched_switch" keeps its colon.
 * Stateless; thread safe.
 */
#ifndef T2F_EVENT_NAME_H
#define T2F_EVENT_NAME_H

#include <stddef.h>

/* The length of s[0..len) without a trailing ":MODIFIERS" (len itself when there is none). */
size_t t2f_event_name_len(const char *s, size_t len);

#endif
