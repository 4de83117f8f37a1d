/* tests/heatmap/burst.c: bursts of CPU for known times with sleeps between, for the heat map's
 * recorded test (tests/heatmap/recorded.sh): BURSTS (default 3) bursts of BURST_MS (300) ms of
 * spinning, SLEEP_MS (700) ms of sleep between them. usage: burst [BURSTS BURST_MS SLEEP_MS]
 */
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void spin(double seconds)
{
	double end = now() + seconds;
	unsigned long x = 1;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

int main(int argc, char **argv)
{
	int bursts = argc > 1 ? atoi(argv[1]) : 3;
	double burst = (argc > 2 ? atof(argv[2]) : 300) / 1000;
	double pause = (argc > 3 ? atof(argv[3]) : 700) / 1000;

	for (int i = 0; i < bursts; i++) {
		time_t sec = (time_t)pause;
		struct timespec ts = { sec, (long)((pause - (double)sec) * 1e9) };

		spin(burst);
		if (i + 1 < bursts)
			nanosleep(&ts, NULL);
	}
	return 0;
}
