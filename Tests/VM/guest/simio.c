// SPDX-License-Identifier: GPL-3.0-or-later
/* simio: precise timing for the VM scenarios, where a shell under TCG is too slow and jittery
 * (tens of ms per command) to play a tap rhythm or a fast encoder flick, or to see a 6 ms
 * LED pulse. Built static on the host, run in the guest.
 *
 *   simio drive            stdin: "<ms> <file> <text>" lines; writes <text> to <file> at
 *                          <ms> after start (absolute CLOCK_MONOTONIC deadlines, so delays
 *                          do not add up). Used on gpio-sim `pull` attributes. Prints
 *                          "W <us before> <us after> <text> <file>" per write: when the edge
 *                          really happened (a stalled emulated CPU can make it late), so a
 *                          test can hold the box to the rhythm actually played.
 *                          An optional 4th field "<gap ms>" paces the write: it also waits
 *                          until that long after the last paced write to the same file
 *                          really happened. A stalled CPU otherwise makes simio catch up
 *                          with back-to-back writes (a press and its release 10 us apart),
 *                          which no hand makes and which the kernel's v1 line events (edge
 *                          kind read from the level in its irq thread) merge into one.
 *   simio watch MS FILE... polls the files (gpio-sim `value` attributes) every 1 ms for MS
 *                          milliseconds; prints "<us> <index> <value>" for the initial values
 *                          and for every change. With SIMIO_STALLS=FILE set, also writes
 *                          "<us from> <us to>" to FILE for every gap of more than 3 ms
 *                          between two polls: a time the (SCHED_FIFO 99) watcher could not
 *                          run, so the guest's CPU was not running anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_until_us(long long t)
{
	struct timespec ts = { t / 1000000, (t % 1000000) * 1000 };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int drive(void)
{
	char line[512], file[400], text[64];
	long long start = now_us(), worst = 0;
	double ms, gap;
	int n = 0, paced_files = 0;
	static char paced_name[16][400];
	static long long paced_at[16];
	while (fgets(line, sizeof line, stdin)) {
		int fields = sscanf(line, "%lf %399s %63s %lf", &ms, file, text, &gap);
		if (fields < 3)
			continue;
		long long due = start + (long long)(ms * 1000);
		int slot = -1;
		if (fields == 4) {
			for (int i = 0; i < paced_files; i++)
				if (!strcmp(paced_name[i], file))
					slot = i;
			if (slot < 0 && paced_files < 16) {
				slot = paced_files++;
				strcpy(paced_name[slot], file);
				paced_at[slot] = -1;
			}
			if (slot >= 0 && paced_at[slot] >= 0 && paced_at[slot] + (long long)(gap * 1000) > due)
				due = paced_at[slot] + (long long)(gap * 1000);
		}
		sleep_until_us(due);
		int fd = open(file, O_WRONLY);
		long long before = now_us();
		if (fd < 0 || write(fd, text, strlen(text)) < 0) {
			fprintf(stderr, "simio: %s: %s\n", file, strerror(errno));
			return 1;
		}
		long long after = now_us();
		close(fd);
		if (slot >= 0)
			paced_at[slot] = before;
		printf("W %lld %lld %s %s\n", before - start, after - start, text, file);
		long long late = before - due;
		if (late > worst)
			worst = late;
		n++;
	}
	printf("simio: %d writes, worst lateness %lld us\n", n, worst);
	return 0;
}

static int watch(int argc, char **argv)
{
	long long end = now_us() + atoll(argv[0]) * 1000LL, start = now_us(), previous = start;
	int nfiles = argc - 1;
	FILE *stalls = getenv("SIMIO_STALLS") ? fopen(getenv("SIMIO_STALLS"), "w") : NULL;
	if (stalls)
		setvbuf(stalls, NULL, _IOLBF, 0);
	char last[64] = { 0 };
	int fds[64];
	for (int i = 0; i < nfiles && i < 64; i++) {
		last[i] = '?';
		fds[i] = open(argv[1 + i], O_RDONLY);
	}
	while (now_us() < end) {
		long long poll = now_us();
		if (stalls && poll - previous > 3000)
			fprintf(stalls, "%lld %lld\n", previous - start, poll - start);
		previous = poll;
		for (int i = 0; i < nfiles && i < 64; i++) {
			char c = '?';
			/* A sysfs attribute is read afresh by every read at offset 0. */
			if (fds[i] < 0 || pread(fds[i], &c, 1, 0) != 1)
				c = '?';
			if (c != last[i]) {
				printf("%lld %d %c\n", now_us() - start, i, c);
				last[i] = c;
			}
		}
		usleep(1000);
	}
	if (stalls)
		fclose(stalls);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The simulated hand and eye must be more punctual than the box they test: tactus runs
	 * real-time threads, and on one emulated CPU a normal process was seen 57 ms late. */
	struct sched_param sp = { .sched_priority = 99 };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
		fprintf(stderr, "simio: no SCHED_FIFO (%s): timing may be loose\n", strerror(errno));
	mlockall(MCL_CURRENT | MCL_FUTURE);
	if (argc >= 2 && !strcmp(argv[1], "drive"))
		return drive();
	if (argc >= 4 && !strcmp(argv[1], "watch"))
		return watch(argc - 2, argv + 2);
	fprintf(stderr, "usage: simio drive < script | simio watch MS FILE...\n");
	return 2;
}
