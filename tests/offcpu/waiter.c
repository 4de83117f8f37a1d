/* tests/offcpu/waiter.c: a program whose threads are on and off CPU in known ways, recorded by
 * tests/offcpu/offcpu.sh: one burns the CPU, one sleeps, two take turns on a mutex held while
 * they burn, one reads a pipe another writes to now and then. Runs about ROUNDS * 20 ms. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 10

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];
static volatile uint64_t sink;

static __attribute__((noinline)) void burn(long ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i * 2654435761u;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static __attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static void *burner(void *arg)
{
	(void)arg;
	burn(ROUNDS * 20);
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		burn(2);
		nap(18);
	}
	return NULL;
}

static __attribute__((noinline)) void locked_work(void)
{
	pthread_mutex_lock(&lock);
	burn(5);
	pthread_mutex_unlock(&lock);
}

static void *locker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS * 2; i++)
		locked_work();
	return NULL;
}

static __attribute__((noinline)) void read_pipe(void)
{
	char c;

	for (int i = 0; i < ROUNDS; i++)
		if (read(pipefd[0], &c, 1) != 1)
			break;
}

static void *reader(void *arg)
{
	(void)arg;
	read_pipe();
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		nap(15);
		burn(1);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
	return NULL;
}

int main(void)
{
	void *(*fn[])(void *) = {burner, sleeper, locker, locker, reader, writer};
	pthread_t t[sizeof(fn) / sizeof(fn[0])];
	size_t n = sizeof(fn) / sizeof(fn[0]);

	if (pipe(pipefd) != 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL) != 0)
			return 1;
	for (size_t i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
